"""`knapper doc NAME --proofread`: the proofreading rulebook (dsl/tools/proofread.py).

A small race (tests/proofread/small.knap) cites its sections out of the book's order, and
its ids sort differently by hand (A2 before A10); its book is tests/proofread/texts/small.txt,
a text written for these tests, and its worked example tests/proofread/small.scenario.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from dsl.errors import read_source
from dsl.pipeline import load_program
from dsl.semantics.resolve import bundled_names
from dsl.tools.proofread import (
    book_order,
    book_text,
    natural_key,
    render_proofread,
    scenario_files,
)
from dsl.tools.sources import read_source_text
from interpreter.frontends.cli import main
from interpreter.scenario import run_file

HERE = Path(__file__).resolve().parent / "proofread"
SMALL = HERE / "small.knap"
TEXTS = HERE / "texts"


@pytest.fixture(scope="module")
def program():
    loaded, diagnostics, _ = load_program(read_source(SMALL), str(SMALL))
    assert loaded is not None and not [d for d in diagnostics if d.severity == "error"]
    return loaded


@pytest.fixture(scope="module")
def text():
    return read_source_text(TEXTS / "small.txt")


@pytest.fixture(scope="module")
def with_text(program, text):
    return render_proofread(program, text, scenario_files(program))


@pytest.fixture(scope="module")
def without_text(program):
    return render_proofread(program, None, scenario_files(program))


def _part(page: str, heading: str) -> str:
    """The lines of a `## ` section of the page, up to the next one."""
    start = page.index(f"\n{heading}\n")
    end = page.find("\n## ", start + 1)
    return page[start : end if end >= 0 else len(page)]


def _headings(page: str) -> list[str]:
    return re.findall(r"^## (.*)$", page, re.M)


# ------------------------------------------------------------------ book order
def test_book_order_follows_the_order_of_the_texts_sections(with_text, text):
    assert book_order(["A10", "D", "A2", "B"], text) == ["B", "A2", "A10", "D"]
    assert _headings(with_text) == [
        "§B Playing",
        "§A2 Winning",
        "§A10 Turn",
        "§D",  # cited, but not a section of the text: after those it has
        "Citing no section",
        "Cross-reference index",
    ]


def test_without_the_text_sections_are_in_natural_order(without_text):
    assert book_order(["B", "A10", "6.10", "A2", "6.2"], None) == ["6.2", "6.10", "A2", "A10", "B"]
    assert natural_key("A2") < natural_key("A10") < natural_key("B")
    assert _headings(without_text)[:4] == ["§A2", "§A10", "§B", "§D"]


def test_rules_stand_under_the_section_they_cite(with_text):
    turn = _part(with_text, "## §A10 Turn")
    assert "### turn\n\n*Phase* `turn(p: player)` · §A10" in turn
    assert "Each player rolls a die and adds it, with the faces' points." in turn
    assert "### faces" in turn and "- state `points`" in turn
    playing = _part(with_text, "## §B Playing")
    assert "### Playing a round" in playing
    assert "- **DEVIATION** `round_cap` (§B): The book has no limit on rounds; here 50." in playing


# ------------------------------------------------------------------ the book's passages
def test_the_cited_passage_stands_beside_its_rule(with_text):
    turn = _part(with_text, "## §A10 Turn")
    quote = (
        "*`small.txt`, lines 9–11:*\n\n> A10. Turn\n>\n> Roll the die and add it to your points."
    )
    assert quote in turn
    assert turn.index(quote) < turn.index("### turn")
    assert "> Reaching the target wins the race at once." in _part(with_text, "## §A2 Winning")
    assert "*§D names no section of `small.txt` (see `knapper lint`).*" in with_text
    assert "Sections of `small.txt` that nothing cites: §C." in with_text


def test_without_the_text_each_section_says_where_to_read_it(without_text):
    for cite in ("A2", "A10", "B", "D"):
        line = f"*The passage of §{cite} is read from your copy of the book (`small.txt`).*"
        assert line in _part(without_text, f"## §{cite}")
    assert "read each section's passage in your copy of `small.txt`" in without_text
    for words in ("Roll the die", "Reaching the target", "Put the die away", "> "):
        assert words not in without_text
    assert "### turn" in without_text  # everything else is still there


def test_book_text_is_found_where_lint_finds_it(program, tmp_path):
    found = book_text(program, TEXTS)
    assert found is not None and "A10" in found.sections
    assert book_text(program, tmp_path) is None


# ------------------------------------------------------------------ data
def test_rows_say_whether_they_are_printed_or_reconstructed(without_text):
    faces = without_text[without_text.index("### faces") :]
    assert "| Row | points | Section | Printed or reconstructed |" in faces
    assert "| `low` | `1` |  | printed |" in faces
    assert "| `high` | `2` | §A2 | **reconstructed**: the book shows only the low face |" in faces
    # a row citing another section than its table is listed there too
    assert "- in [faces](#faces): `high`" in _part(without_text, "## §A2")


# ------------------------------------------------------------------ the index
def test_the_index_lists_everything_that_cites_each_section(with_text):
    index = _part(with_text, "## Cross-reference index")
    assert (
        "- [§A2](#a2-winning): rows: [faces](#faces) (`high`); notes: interpretation "
        "`first_wins`; examples: [1](#example-1-a-three-is-enough-from-seven-points); also: "
        "`target`, `score`, end of the game in [turn](#turn)"
    ) in index
    assert "- [§A10](#a10-turn): rules: [turn](#turn); tables and maps: [faces](#faces); " in index
    assert "- [§B](#b-playing): rules: [the round](#playing-a-round); notes: deviation " in index
    assert "- [§D](#d): also: `spare`" in index
    assert "- [no section](#citing-no-section): also: `face`" in index


# ------------------------------------------------------------------ worked examples
def test_a_scenario_is_a_worked_example_under_its_section(with_text):
    assert all(r.passed for r in run_file(HERE / "small.scenario"))  # a true example
    winning = _part(with_text, "## §A2 Winning")
    example = winning[winning.index("### Example 1: a three is enough from seven points") :]
    for line in (
        "*Scenario from `small.scenario`.*",
        "A player four points short rolls a three: with the faces' three points he wins.",
        "**Setup.** 2 players, seed 0. The game starts from this position, in place of the setup:",
        "- `points[player(1)] = 4`",
        "**Play.** Only `turn(player(1))` is played, once, in place of the rounds.",
        "**Dice.** The dice come up 3, in this order; no other die may be rolled.",
        "1. Expected: the first player reaches 10 and wins: `winners == [player(1)]`.",
        "2. Expected: `points[player(1)] == 10`.",
    ):
        assert line in example


def test_only_the_rulesets_own_scenarios_are_examples(program, tmp_path):
    other = tmp_path / "other.scenario"
    other.write_text('scenarios for "tic-tac-toe"\nscenario "x" { choices 4 }\n')
    (tmp_path / "broken.scenario").write_text("scenarios for\n")
    found = scenario_files(program, [tmp_path, HERE / "small.scenario"])
    assert [f.path.name for f in found] == ["small.scenario"]


# ------------------------------------------------------------------ the command
def test_doc_proofread_writes_the_page_with_the_text(tmp_path, with_text):
    out = tmp_path / "proof.md"
    args = ["doc", str(SMALL), "--proofread", "--sources", str(TEXTS), "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == with_text


def test_doc_sources_without_proofread_is_refused():
    result = CliRunner().invoke(main, ["doc", "pig", "--sources", str(TEXTS)])
    assert result.exit_code == 2
    assert "--sources and --scenarios go with --proofread" in result.output


@pytest.mark.parametrize("name", bundled_names())
def test_doc_proofread_runs_for_every_bundled_ruleset(name):
    result = CliRunner().invoke(main, ["doc", name, "--proofread"])
    assert result.exit_code == 0, result.output
    page = result.stdout
    assert page.startswith("# Proofreading ")
    assert f"`knapper doc {name} --proofread" in page
    sections = [h for h in _headings(page) if h.startswith("§")]
    assert sections, "every bundled ruleset cites its book"
    index = _part(page, "## Cross-reference index")
    assert len(re.findall(r"^- \[§", index, re.M)) == len(sections)
