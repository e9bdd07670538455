"""`knapper lint`: expect-tests in tests/lint/ and the findings on the bundled rulebooks.

Each `NN-name.knap` directly in tests/lint/ is linted against the small texts in
tests/lint/texts/ and compared with `NN-name.expected` (helper files live in bases/).
Regenerate with `python tests/lint/regen.py`, then review the diff. Tests that need the real
rulebook texts skip when /work/shared/rulebooks (beside the repository) is absent.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from dsl.tools import errata
from dsl.tools.sources import parse_source_text, read_source_text
from interpreter.frontends.cli import main
from interpreter.frontends.cli_lint import lint_ruleset, render_human

ROOT = Path(__file__).resolve().parents[1]
CASES_DIR = ROOT / "tests" / "lint"
TEXTS = CASES_DIR / "texts"
RULEBOOKS = Path(__file__).resolve().parents[2] / "shared" / "rulebooks"
REGEN = "python tests/lint/regen.py"


def cases() -> list[Path]:
    return sorted(CASES_DIR.glob("*.knap"))


def render_case(case: Path) -> str:
    relative = case.relative_to(ROOT)
    result = lint_ruleset(str(relative), TEXTS)
    return render_human(result, str(relative), errata.GROUPS) + "\n"  # every group


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("case", cases(), ids=lambda p: p.stem)
def test_lint_matches_expected(case: Path, at_root) -> None:
    expected = case.with_suffix(".expected")
    assert expected.is_file(), f"no {expected.name}; run `{REGEN}`"
    assert render_case(case) == expected.read_text(encoding="utf-8"), (
        f"findings of {case.name} changed; if intended, run `{REGEN}` and review the diff"
    )


def test_each_case_triggers_one_finding_and_the_clean_one_none(at_root) -> None:
    # one entry of the errata view (an erratum a reference finding links is shown with it)
    for case in cases():
        result = lint_ruleset(str(case.relative_to(ROOT)), TEXTS)
        shown = errata.entries(result.diagnostics, result.text)
        assert len(shown) == (0 if "clean" in case.stem else 1), case.name


def test_the_errata_view_hides_clean_up_unless_asked(at_root) -> None:
    runner = CliRunner()
    args = ["lint", "tests/lint/09-unused-fn.knap", "--sources", str(TEXTS)]
    plain = runner.invoke(main, args)
    assert "K811" not in plain.output and "not shown: 1 cleanup (--cleanup" in plain.output
    assert "K811" in runner.invoke(main, [*args, "--cleanup"]).output
    assert "K811" in runner.invoke(main, [*args, "--all"]).output


def test_an_erratum_gives_the_fix_of_the_reference_it_corrects(at_root) -> None:
    result = lint_ruleset("tests/lint/23-erratum.knap", TEXTS)
    dangling = next(d for d in result.diagnostics if d.code == "K803")
    assert dangling.span.file == "dangling.txt" and dangling.span.line == 7  # the book's line
    assert dangling.hint == "read '(A9)' as '(A2)' (erratum score_reference)"
    [entry] = errata.entries(result.diagnostics, result.text)
    assert entry.quotes[0][0] == 7 and "(A9)" in entry.quotes[0][1]


def test_book_findings_come_in_the_book_s_order(at_root) -> None:
    result = _lint_result("neanderthal")
    book = [e.line for e in errata.entries(result.diagnostics, result.text) if e.group == "book"]
    assert book and None not in book and book == sorted(book)


def test_json_entries_carry_group_line_and_quotes(at_root) -> None:
    out = CliRunner().invoke(
        main, ["lint", "tests/lint/04-contradiction.knap", "--sources", str(TEXTS), "--json"]
    )
    [finding] = orjson.loads(out.output)["findings"]
    assert finding["group"] == "book" and finding["code"] == "K805"
    assert [q["line"] for q in finding["quotes"]] == [7, 9]  # a passage of each section


def test_exit_status_and_json(at_root) -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["lint", "tests/lint/01-citation.knap", "--sources", str(TEXTS)])
    assert bad.exit_code == 1
    warn = runner.invoke(
        main, ["lint", "tests/lint/06-table-gap.knap", "--sources", str(TEXTS), "--json"]
    )
    assert warn.exit_code == 0
    report = orjson.loads(warn.output)
    assert [f["code"] for f in report["findings"]] == ["K807"]


def test_missing_text_is_one_notice(at_root, tmp_path) -> None:
    result = lint_ruleset("tests/lint/00-clean.knap", tmp_path)
    assert len(result.notices) == 1 and "not found" in result.notices[0]


def test_sections_of_the_three_styles() -> None:
    lettered = parse_source_text("A. One\ntext\n\nA1. Two\na. First. b. Second.\nB. Three\n", "x")
    assert list(lettered.sections) == ["A", "A1", "A1a", "A1b", "B"]
    numbered = parse_source_text("1. One\n1. not a chapter\n2. Two\n2.1. Sub\n", "y")
    assert list(numbered.sections) == ["1", "2", "2.1"]
    upper = parse_source_text("SETUP Put it down. EVENT PHASE Roll.", "z")
    assert upper.find('"Event Phase"') is not None and upper.find("DICE") is None


def _book(name: str):
    if not RULEBOOKS.is_dir():
        pytest.skip(f"the rulebook texts are not at {RULEBOOKS}")
    return read_source_text(RULEBOOKS / name)


def _lint_result(name: str):
    if not RULEBOOKS.is_dir():
        pytest.skip(f"the rulebook texts are not at {RULEBOOKS}")
    return lint_ruleset(name, RULEBOOKS)


def _lint(name: str):
    return _lint_result(name).diagnostics


def test_neanderthal_text_references() -> None:
    book = _book("neanderthal.txt")
    missing = {r.target for r in book.refs if book.find(r.target) is None}
    assert {"A1.6", "B0", "C0.3", "C0.6", "G0", "J0"} <= missing


def test_errata_that_the_rulesets_declare_are_findings(at_root) -> None:
    # every erratum is in the book group of the view, alone or with the reference it fixes
    result = _lint_result("neanderthal")
    found = errata.entries(result.diagnostics, result.text)
    shown = " ".join(str(n.message) for e in found for n in e.diagnostic.notes)
    shown += " ".join(e.diagnostic.message for e in found if e.group == "book")
    for name in ("club_alpha_rank", "chief_feuds", "victory_example_elder", "climate_icons"):
        assert name in shown, name


BOOK_RULESETS = [
    "neanderthal", "neanderthal-2p", "neanderthal-alien", "neanderthal-brink",
    "neanderthal-giant-wurm", "neanderthal-hominids", "neanderthal-k2", "neanderthal-k3",
    "aurignac", "aurignac-2p", "aurignac-solo", "cro-magnon",
]  # fmt: skip


@pytest.mark.parametrize("name", BOOK_RULESETS)
def test_every_note_a_ruleset_declares_is_in_its_errata_view(name: str, at_root) -> None:
    # errata and contradictions among the findings about the book (alone, or linked from the
    # reference they fix), interpretations among the readings; deviations are clean-up
    from dsl.pipeline import compile_path
    from dsl.syntax import ast

    result = _lint_result(name)
    found = errata.entries(result.diagnostics, result.text)
    book = {e.diagnostic.span for e in found if e.group == "book"}
    book |= {n.span for e in found if e.group == "book" for n in e.diagnostic.notes}
    readings = {e.diagnostic.span for e in found if e.group == "readings"}
    notes = compile_path(name).program.get(ast.Note)
    for note in notes:
        if note.kind in ("erratum", "contradiction"):
            assert note.span in book, f"{note.kind} {note.name} is not a finding about the book"
        elif note.kind == "interpretation":
            assert note.span in readings, f"interpretation {note.name} is not a reading"
    assert any(n.kind == "interpretation" for n in notes)


def test_neanderthal_findings(at_root) -> None:
    found = _lint("neanderthal")
    dangling = {d.cite for d in found if d.code == "K803"}
    assert {"A1.6", "B0", "C0.3", "C0.6", "G0", "J0"} <= dangling
    mismatched = [d for d in found if d.code == "K804"]
    assert any(d.cite == "D2" and "feuds" in d.message for d in mismatched)
    assert len(mismatched) <= 3  # the heuristic stays quiet on this book
    assert not [d for d in found if d.code == "K802"]


def test_a_worked_example_whose_figure_the_rules_do_not_give_is_a_finding(at_root) -> None:
    # the J example's scenario records the book's 32 beside the rules' 34 (`printed`); the
    # finding stands at the book's line, links the scenario and the erratum, and the
    # erratum is not shown a second time
    result = lint_ruleset("neanderthal", None, scenarios=[ROOT / "tests" / "neanderthal"])
    (found,) = [d for d in result.diagnostics if d.code == "K844"]
    assert "prints 32" in found.message and "give 34" in found.message
    assert found.span.file == "tests/neanderthal/victory.scenario" and found.cite == "J"
    assert "victory_example_elder" in found.hint
    shown = errata.entries(result.diagnostics, result.text)
    assert not [e for e in shown if "victory_example_elder (" in e.diagnostic.message]
    assert not [d for d in lint_ruleset("neanderthal", None).diagnostics if d.code == "K844"]


def test_a_name_spelled_two_ways_links_the_erratum_that_corrects_it(at_root) -> None:
    (found,) = [d for d in _lint("cro-magnon") if d.code == "K843"]
    assert "'Diaster' once and 'Disaster' 6 times" in found.message
    assert found.hint == "read 'Diaster' as 'Disaster' (erratum disease_disaster)"


def test_cro_magnon_missing_row_49(at_root) -> None:
    found = _lint("cro-magnon")
    assert any(d.code == "K807" and "49" in d.message for d in found)


def test_aurignac_living_area_contradiction(at_root) -> None:
    found = _lint("aurignac")
    assert any(d.code == "K805" and "6.3" in d.message and "6.4" in d.message for d in found)


def test_three_errors_planted_in_a_copy_of_a_book_of_headings_are_reported(tmp_path) -> None:
    # Cro-Magnon's text, organised by upper-case headings, with a reference to a heading it
    # lacks, a heading renamed under its references, and a misnumbered printed row
    if not RULEBOOKS.is_dir():
        pytest.skip(f"the rulebook texts are not at {RULEBOOKS}")
    text = (RULEBOOKS / "cro-magnon.txt").read_text(encoding="utf-8")
    planted = {
        "Nothing INTERACTION PHASE": "Nothing (see HAZARD TABLE) INTERACTION PHASE",
        "EVENT TABLE 1D100": "EVENTS TABLE 1D100",
        " 8 Bow & Arrows ": " 80 Bow & Arrows ",
    }
    for old, new in planted.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (tmp_path / "cro-magnon.txt").write_text(text, encoding="utf-8")
    found = lint_ruleset("cro-magnon", tmp_path).diagnostics
    dangling = {d.cite: d for d in found if d.code == "K803"}
    assert "HAZARD TABLE" in dangling
    assert dangling["Event Table"].hint.startswith("did you mean §EVENTS TABLE?")
    assert any(d.code == "K840" and "'Bow & Arrows' 80" in d.message for d in found)


def _planted_copy(folder: Path, planted: dict[str, str]) -> tuple[Path, dict[str, int]]:
    """A copy of Cro-Magnon in `folder` with each old text replaced by its new one, and the
    line where each new text stands."""
    folder.mkdir()
    source = Path(__file__).parent.parent / "rulesets" / "cro-magnon"
    for path in source.glob("*.knap"):
        (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    copy = folder / "cro-magnon.knap"
    text = copy.read_text(encoding="utf-8")
    for old, new in planted.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    copy.write_text(text, encoding="utf-8")
    return copy, {new: text[: text.index(new)].count("\n") + 1 for new in planted.values()}


def _lint_json(*args: str) -> dict[tuple[str, int], dict]:
    out = CliRunner().invoke(main, ["lint", *args, "--json"])
    return {(f["code"], f["line"]): f for f in orjson.loads(out.output)["findings"]}


def test_five_errors_planted_in_a_copy_of_a_ruleset_are_each_caught(tmp_path) -> None:
    # copies of Cro-Magnon with a gap in a dice table, a setup that breaks an invariant
    # (both found without playing), a price no roll can pay, a branch that can never
    # fire and a round bound one short of the book's (found by random play: in a copy
    # of their own, since a setup that breaks an invariant stops every game at once)
    static, _ = _planted_copy(
        tmp_path / "static",
        {
            "  74-00 diffusion_of_knowledge": "  75-00 diffusion_of_knowledge",
            "    bands[p, home] += start_bands": "    bands[p, home] -= start_bands",
        },
    )
    found = _lint_json(str(static))
    (gap,) = [f for (code, _), f in found.items() if code == "K807"]
    assert "the roll(s) 49, 74 " in gap["message"]
    (broken,) = [f for (code, _), f in found.items() if code == "K820"]
    assert "bands_never_negative" in broken["message"] and broken["severity"] == "error"
    played, lines = _planted_copy(
        tmp_path / "played",
        {
            "if 5 in turn_dice and 6 in turn_dice {": "if 5 in turn_dice and 11 in turn_dice {",
            "    if face == 3 or face == 4 {": "    if face > 10 {",
            "round max 51 ": "round max 50 ",
        },
    )
    found = _lint_json(str(played), "--simulate", "30")
    assert ("K858", lines["if 5 in turn_dice and 11 in turn_dice {"]) in found
    assert ("K858", lines["    if face > 10 {"] + 1) in found  # at the arm's first statement
    (bound,) = [f for (code, _), f in found.items() if code == "K855"]
    assert "30 of 30 games" in bound["message"]
    assert str(played) in bound["hint"]  # the replay plays the copy


def test_lint_simulate_with_agents_reports_what_their_play_reaches(tmp_path) -> None:
    # a reckless move random seats take at once, and a greedy seat only on its copies
    path = tmp_path / "lure.knap"
    path.write_text(
        'ruleset "lure"\nplayers 2\nvar total[player]: int = 0\nvar turns: int = 0\n'
        "proc bust(p: player) §L2 { total[p] -= 100 }\n"
        "round max 5 §L1 {\n  for p in players {\n"
        '    let c = choose p from ["safe", "risky"] as "how to play"\n'
        '    if c == "risky" { bust(p) } else { total[p] += 1 }\n  }\n  turns += 1\n'
        "  if turns == 3 { end game winners [p for p in players if total[p] > 0] }\n}\n"
        "score(p) = total[p]\n"
    )
    greedy = _lint_json(str(path), "--simulate", "5", "--agents", "greedy")
    (never,) = [f for (code, _), f in greedy.items() if code == "K851"]
    assert "proc 'bust' never ran in 5 games of greedy" in never["message"]
    assert never["cite"] == "L2"
    plain = _lint_json(str(path), "--simulate", "5")
    assert not [f for (code, _), f in plain.items() if code == "K851"]
    wrong = CliRunner().invoke(main, ["lint", str(path), "--simulate", "5", "--agents", "wise"])
    assert wrong.exit_code != 0 and "K513" in wrong.output
