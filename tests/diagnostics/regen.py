"""Rewrite every tests/diagnostics/*.expected from the current `knapper check` output.

    python tests/diagnostics/regen.py

Uses `render_case` from tests/test_diagnostics.py, so regeneration and the test agree on
exactly what is compared. Review the resulting diff before committing.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_diagnostics import cases, expected_path, render_case  # noqa: E402


def main() -> int:
    changed = 0
    for case in cases():
        target = expected_path(case)
        text = render_case(case)
        old = target.read_text(encoding="utf-8") if target.is_file() else None
        if text != old:
            target.write_text(text, encoding="utf-8")
            changed += 1
            verb = "updated" if old is not None else "created"
            print(f"{verb} {target.relative_to(ROOT)}")
    for stale in sorted(HERE.glob("*.expected")):
        if not stale.with_suffix(".knap").is_file():
            print(f"stale, no case beside it (delete it): {stale.relative_to(ROOT)}")
    print(f"{len(cases())} cases, {changed} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
