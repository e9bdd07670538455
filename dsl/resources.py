"""Where the grammar and the bundled rulesets live, in a checkout and when installed.

In a source checkout they are the top-level `grammar/` and `rulesets/` folders; an installed
distribution carries them as the package data `dsl.grammar` and `interpreter.rulesets`.
"""

from __future__ import annotations

import functools
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def _folder(checkout_name: str, installed: Path) -> Path:
    local = _ROOT / checkout_name
    return local if local.is_dir() else installed


def grammar_path() -> Path:
    return _folder("grammar", Path(__file__).resolve().parent / "grammar") / "knapper.lark"


@functools.cache
def grammar_text() -> str:
    return grammar_path().read_text(encoding="utf-8")


def rulesets_root() -> Path:
    return _folder("rulesets", _ROOT / "interpreter" / "rulesets")
