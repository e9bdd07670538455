"""Rewrite every tests/lint/*.expected from the current `knapper lint` output.

    python tests/lint/regen.py

Uses `render_case` from tests/test_lint.py, so regeneration and the test agree on exactly
what is compared. Review the resulting diff before committing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_lint import cases, render_case  # noqa: E402


def main() -> int:
    os.chdir(ROOT)
    changed = 0
    for case in cases():
        target = case.with_suffix(".expected")
        text = render_case(case)
        old = target.read_text(encoding="utf-8") if target.is_file() else None
        if text != old:
            target.write_text(text, encoding="utf-8")
            changed += 1
            print(f"{'updated' if old is not None else 'created'} {target.relative_to(ROOT)}")
    for stale in sorted(HERE.glob("*.expected")):
        if not stale.with_suffix(".knap").is_file():
            print(f"stale, no case beside it (delete it): {stale.relative_to(ROOT)}")
    print(f"{len(cases())} cases, {changed} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
