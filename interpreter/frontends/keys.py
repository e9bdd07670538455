"""The host's save key for the command line: KNAPPER_SAVE_KEY, when it is set.

With a key, `knapper play` and `simulate --save-final` write signed saves (a snapshot that
loads without replay), and every command that reads a save checks its signature
(interpreter/save.py). Without one, saves are replayed when loaded.
"""

from __future__ import annotations

import os


def host_key() -> bytes | None:
    """The key in KNAPPER_SAVE_KEY as bytes, or None when it is unset or empty."""
    value = os.environ.get("KNAPPER_SAVE_KEY", "")
    return value.encode() if value else None
