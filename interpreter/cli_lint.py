"""Commands of `knapper` kept in their own module (registered by interpreter/cli.py)."""

from __future__ import annotations

import click


def register(main: click.Group) -> None:
    """Add this module's commands to the `knapper` group."""
