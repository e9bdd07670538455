"""Rewrite the generated rulebooks and the Findings page: `python tests/rulebooks/regen.py`.

Writes docs/rulebooks/<name>.md and docs/rulebooks/proofread/<name>.md (without the book's
text) for every bundled ruleset, the expected pages of the small rulesets beside this
script, and docs/findings.md from `knapper lint --json` (when the rulebook texts are at
hand). Review the diff: a change in a page is a change in the rules
or in what Knapper finds.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]

from test_rulebook import (  # noqa: E402
    FINDINGS,
    PAGES,
    PROOFREAD,
    ROOT,
    SMALL,
    findings_page,
    proofread_page,
    rulebook,
    rulebooks_dir,
)

from dsl.semantics.resolve import bundled_names  # noqa: E402


def _write(path: Path, text: str) -> int:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"updated {path.relative_to(ROOT)}")
    return 1


def main() -> None:
    changed = 0
    for name in bundled_names():
        changed += _write(PAGES / f"{name}.md", rulebook(name))
        changed += _write(PROOFREAD / f"{name}.md", proofread_page(name))
    for folder in (PAGES, PROOFREAD):
        current = {folder / f"{n}.md" for n in bundled_names()}
        for stale in sorted(set(folder.glob("*.md")) - current):
            stale.unlink()
            print(f"removed {stale.relative_to(ROOT)}")
            changed += 1
    for file in SMALL:
        changed += _write(HERE / file.replace(".knap", ".md"), rulebook(str(HERE / file)))
    sources = rulebooks_dir()
    if sources.is_dir():
        changed += _write(FINDINGS, findings_page(sources))
    else:
        print(f"the rulebook texts are not at {sources}: {FINDINGS.name} left as it is")
    print(f"{len(bundled_names())} rulebooks, {changed} pages changed")


if __name__ == "__main__":
    main()
