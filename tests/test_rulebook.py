"""Generated rulebooks (`knapper doc`) and the Findings page of the docs site.

A small ruleset is rendered exactly as tests/rulebooks/*.md expect; every bundled ruleset
renders, with every in-page link landing on a heading, and its page in docs/rulebooks/ is
current, as is its proofreading page in docs/rulebooks/proofread/ (rendered without the
book's text). Regenerate all of them with `python tests/rulebooks/regen.py` and review the
diff.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import os
import re
import tomllib
from pathlib import Path

import markdown
import orjson
import pytest
import yaml
from click.testing import CliRunner

from dsl.errors import read_source
from dsl.pipeline import load_program
from dsl.semantics.resolve import bundled_names, find_ruleset
from dsl.syntax import ast
from dsl.tools.proofread import render_proofread, scenario_files
from dsl.tools.rulebook import base_program, render_rulebook
from dsl.tools.rulebook_findings import render_findings
from dsl.tools.rulebook_md import plain
from interpreter.frontends.cli import main

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "rulebooks"
PAGES = ROOT / "docs" / "rulebooks"
PROOFREAD = PAGES / "proofread"
FINDINGS = ROOT / "docs" / "findings.md"
SMALL = ("tiny.knap", "tiny-long.knap")  # a ruleset and a variant of it, by path
# the rulebooks whose consistency the Findings page reports
LINTED = ("neanderthal", "aurignac", "cro-magnon")
REGEN = "python tests/rulebooks/regen.py"


@functools.cache
def rulebook(name_or_path: str) -> str:
    path = find_ruleset(name_or_path)
    assert path is not None, name_or_path
    program, diagnostics, _ = load_program(read_source(path), str(path))
    errors = [d for d in diagnostics if d.severity == "error"]
    assert program is not None and not errors, errors
    return render_rulebook(program, base_program(program))


@functools.cache
def proofread_page(name: str) -> str:
    """The proofreading page the docs site shows: `knapper doc NAME --proofread --scenarios
    tests`, without the book's text (which the project does not ship)."""
    path = find_ruleset(name)
    assert path is not None, name
    program, diagnostics, _ = load_program(read_source(path), str(path))
    assert program is not None, diagnostics
    return render_proofread(program, None, scenario_files(program, [ROOT / "tests"]))


def rulebooks_dir() -> Path:
    """Where the rulebook texts are (outside the project)."""
    return Path(os.environ.get("KNAPPER_SOURCES") or ROOT.parent / "shared" / "rulebooks")


def lint_report(name: str, sources: Path) -> dict | None:
    """`knapper lint NAME --scenarios tests --json`, or None when there is no such command."""
    if "lint" not in main.commands:
        return None
    args = ["lint", name, "--scenarios", "tests", "--json", "--sources", str(sources)]
    with contextlib.chdir(ROOT):  # the paths the findings show are relative to it
        result = CliRunner().invoke(main, args)
    if result.exit_code not in (0, 1) or not result.stdout.lstrip().startswith("{"):
        raise AssertionError(f"knapper lint {name} --json failed:\n{result.output}")
    return orjson.loads(result.stdout) | {"command": f"knapper lint {name} --scenarios tests"}


def findings_page(sources: Path) -> str:
    reports = []
    for name in LINTED:
        report = lint_report(name, sources)
        if report is None:
            return render_findings([], missing="the `knapper lint` command is not available.")
        path = find_ruleset(name)
        assert path is not None
        program, _, _ = load_program(read_source(path), str(path))
        title = program.one(ast.Title) if program else None
        reports.append((title.text if title else name, report))
    return render_findings(reports, verdicts=judgements())


def judgements() -> dict[str, list[dict]]:
    """The verdicts a reader gave the findings about the books (tests/rulebooks/)."""
    return tomllib.loads((HERE / "judgements.toml").read_text(encoding="utf-8"))


def _diff(expected: str, actual: str, path: Path) -> str:
    lines = difflib.unified_diff(
        expected.splitlines(True), actual.splitlines(True), str(path), "now", n=2
    )
    return "".join(list(lines)[:80])


def _same(path: Path, actual: str) -> None:
    assert path.exists(), f"{path} is missing: run {REGEN}"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{path} is out of date: run {REGEN}\n" + _diff(
        expected, actual, path
    )


def _dangling_links(text: str) -> list[str]:
    """In-page links that land on no heading, as the docs site renders the page."""
    html = markdown.markdown(text, extensions=["toc", "tables"])
    ids = set(re.findall(r'id="([^"]+)"', html))
    return [a for a in re.findall(r'href="#([^"]*)"', html) if a not in ids]


# ------------------------------------------------------------------ a small ruleset, exactly
@pytest.mark.parametrize("file", SMALL)
def test_small_ruleset_renders_exactly(file):
    actual = rulebook(str(HERE / file))
    _same(HERE / file.replace(".knap", ".md"), actual)
    assert _dangling_links(actual) == []


def test_small_rulebook_names_every_part():
    text = rulebook(str(HERE / "tiny.knap"))
    for part in ("## Parameters", "## Playing a round", "### race", "### track", "### camps"):
        assert part in text
    assert "| 3 | `puddle` | Puddle | `mud` | `0` |" in text  # a rolled row with its range
    assert "No row covers the roll 4." in text
    assert "- **CONTRADICTION** `goal_twice` (§2, §7)" in text
    assert "| `camp` | `player` | camps | `north` | its owner | §4 |" in text
    # a rule without a comment is described from its signature
    assert "Rest, for player `p`." in text


def test_variant_lists_what_it_changes():
    text = rulebook(str(HERE / "tiny-long.knap"))
    assert "## What this variant changes" in text
    assert "- §8: goal (How far a racer must go to win.): 20 instead of 10" in text


def test_plain_text_escapes_markup_but_not_names_or_code():
    assert plain("a *b* [c] <d>") == r"a \*b\* \[c\] \<d\>"
    assert plain("slot_card and _x_") == r"slot_card and \_x\_"
    assert plain("use `a_b * c`") == "use `a_b * c`"


# ------------------------------------------------------------------ every bundled ruleset
@pytest.mark.parametrize("name", bundled_names())
def test_bundled_ruleset_renders_with_working_links(name):
    text = rulebook(name)
    assert text.startswith("# ")
    assert _dangling_links(text) == []


@pytest.mark.parametrize("name", bundled_names())
def test_committed_rulebook_page_is_current(name):
    _same(PAGES / f"{name}.md", rulebook(name))


@pytest.mark.parametrize("name", bundled_names())
def test_committed_proofread_page_is_current(name):
    text = proofread_page(name)
    _same(PROOFREAD / f"{name}.md", text)
    assert _dangling_links(text) == []


def test_every_rulebook_page_is_in_the_docs_navigation():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed: set[str] = set()

    def walk(entries: list) -> None:  # a section holds pages and sections of its own
        for entry in entries:
            for value in entry.values():
                if isinstance(value, list):
                    walk(value)
                else:
                    listed.add(value)

    walk(config["nav"])
    pages = {f"rulebooks/{p.name}" for p in PAGES.glob("*.md")}
    assert pages == {f"rulebooks/{n}.md" for n in bundled_names()}
    assert pages | {"findings.md"} <= listed
    proofread = {f"rulebooks/proofread/{p.name}" for p in PROOFREAD.glob("*.md")}
    assert proofread == {f"rulebooks/proofread/{n}.md" for n in bundled_names()}
    assert proofread <= listed


def test_proofread_pages_hold_no_words_of_the_books():
    # the pages are made without the texts; no run of ten words of a book may be on them
    sources = rulebooks_dir()
    if not sources.is_dir():
        pytest.skip(f"the rulebook texts are not at {sources} (set KNAPPER_SOURCES)")
    runs: set[tuple[str, ...]] = set()
    for book in sources.glob("*.txt"):
        words = re.findall(r"\w+", book.read_text(encoding="utf-8").casefold())
        runs |= {tuple(words[i : i + 10]) for i in range(len(words) - 9)}
    for page in sorted(PROOFREAD.glob("*.md")):
        words = re.findall(r"\w+", page.read_text(encoding="utf-8").casefold())
        copied = [" ".join(words[i : i + 10]) for i in range(len(words) - 9)]
        assert [c for c in copied if tuple(c.split()) in runs][:3] == [], page.name


# ------------------------------------------------------------------ the command
def test_doc_command_prints_and_writes_the_rulebook(tmp_path):
    runner = CliRunner()
    printed = runner.invoke(main, ["doc", "pig"])
    assert printed.exit_code == 0, printed.output
    assert printed.stdout == rulebook("pig")
    out = tmp_path / "book" / "pig.md"
    written = runner.invoke(main, ["doc", "pig", "-o", str(out)])
    assert written.exit_code == 0, written.output
    assert out.read_text(encoding="utf-8") == rulebook("pig")


def test_doc_command_rejects_an_unknown_ruleset():
    result = CliRunner().invoke(main, ["doc", "no-such-game"])
    assert result.exit_code == 1
    assert "K100" in result.output


# ------------------------------------------------------------------ the Findings page
def test_findings_page_is_current():
    sources = rulebooks_dir()
    if not sources.is_dir():
        pytest.skip(f"the rulebook texts are not at {sources} (set KNAPPER_SOURCES)")
    actual = findings_page(sources)
    _same(FINDINGS, actual)
    assert _dangling_links(actual) == []


def test_every_verdict_judges_a_finding_about_the_book():
    # a verdict whose finding is gone (the check or the ruleset changed) must be removed,
    # and every finding about the book has one: the precision on the page counts them
    from dsl.tools.rulebook_findings import VERDICTS, _verdict

    sources = rulebooks_dir()
    if not sources.is_dir():
        pytest.skip(f"the rulebook texts are not at {sources} (set KNAPPER_SOURCES)")
    verdicts = judgements()
    good = judged = 0
    for name in LINTED:
        report = lint_report(name, sources)
        assert report is not None
        book = [f for f in report["findings"] if f["group"] == "book"]
        for f in book:
            found = _verdict(f, verdicts.get(name, []))
            assert found is not None, f"no verdict for {name} {f['code']} {f['message'][:60]}"
            judged += 1
            good += found["verdict"] != "false"
        for v in verdicts.get(name, []):
            assert v["verdict"] in VERDICTS, v
            assert any(_verdict(f, [v]) for f in book), f"{name}: no finding for {v}"
    assert judged and good / judged >= 0.8
