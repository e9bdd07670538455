"""Rewrite every golden playthrough: `python tests/playthroughs/regen.py`.

Review the diff: a change in a playthrough is a change in how a game plays.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]

from test_playthroughs import GOLDEN, playthrough, ruleset_names  # noqa: E402


def main() -> None:
    changed = 0
    for name in ruleset_names():
        path = GOLDEN / f"{name}.txt"
        text = playthrough(name)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"updated {path.relative_to(HERE.parent.parent)}")
            changed += 1
    print(f"{len(ruleset_names())} playthroughs, {changed} changed")


if __name__ == "__main__":
    main()
