"""Rewrite the expected `knapper diff` outputs: `python tests/diffs/regen.py`."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]

from test_diff import EXPECTED, diff_output, variants  # noqa: E402


def main() -> None:
    changed = 0
    for base, variant in variants():
        path = EXPECTED / f"{variant}.txt"
        text = diff_output(base, variant)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"updated {path.relative_to(HERE.parent.parent)}")
            changed += 1
    print(f"{len(variants())} variants, {changed} changed")


if __name__ == "__main__":
    main()
