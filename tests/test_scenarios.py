"""Scenario files: every bundled scenario passes, and a scenario can fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT
from interpreter.scenario import run_file

SCENARIO_FILES = [
    path
    for folder in ("rulesets", "docs", "tests/neanderthal", "tests/aurignac")
    for path in sorted((ROOT / folder).rglob("*.scenario"))
]


def _cases():
    for path in SCENARIO_FILES:
        for result in run_file(path):
            yield pytest.param(result, id=f"{path.stem}: {result.name}")


@pytest.mark.parametrize("result", list(_cases()))
def test_bundled_scenario_passes(result):
    assert result.passed, "\n".join(result.problems)


def _run(tmp_path: Path, body: str):
    path = tmp_path / "t.scenario"
    path.write_text('scenarios for "tic-tac-toe"\n' + body)
    return run_file(path)


def test_a_false_expectation_fails(tmp_path):
    (result,) = _run(
        tmp_path, 'scenario "wrong" { choices 4 expect cell[4] == o as "o in the centre" }'
    )
    assert not result.passed
    assert any("o in the centre" in p for p in result.problems)


def test_an_illegal_scripted_choice_fails(tmp_path):
    (result,) = _run(tmp_path, 'scenario "taken" { position { cell[0] = x } choices 0 }')
    assert not result.passed and "not legal" in result.problems[0]


def test_unused_dice_and_choices_fail(tmp_path):
    (result,) = _run(tmp_path, 'scenario "extra" { dice 3 choices 0 }')
    assert not result.passed
    assert any("dice were not used" in p for p in result.problems)


def test_an_expectation_that_does_not_check_is_reported(tmp_path):
    (result,) = _run(tmp_path, 'scenario "typo" { expect cel[0] == x }')
    assert not result.passed and "K201" in result.problems[0]


def test_cli_reports_pass_fail_with_citation(tmp_path):
    from click.testing import CliRunner

    from interpreter.frontends.cli import main

    path = tmp_path / "t.scenario"
    path.write_text(
        'scenarios for "tic-tac-toe"\nscenario "ok" §rules { choices 4 expect cell[4] == x }\n'
        'scenario "bad" §rules { choices 4 expect cell[4] == o }\n'
    )
    out = CliRunner().invoke(main, ["scenario", str(path)])
    assert out.exit_code == 1
    assert "PASS ok §rules" in out.output and "FAIL bad §rules" in out.output
    assert "1 passed, 1 failed" in out.output


# ---------------------------------------------------------------------- steps in order
def test_expect_not_offered_and_rejected_at_the_pending_decision(tmp_path):
    (result,) = _run(
        tmp_path,
        'scenario "taken" { seed 0 choices 4\n'
        '  expect not offered 4 as "the centre is taken"\n'
        "  expect offered 0\n"
        "  expect rejected 4\n"
        "  choices 0\n"
        "  expect cell[0] == o }",
    )
    assert result.passed, result.problems


def test_expect_offered_fails_with_the_options(tmp_path):
    (result,) = _run(tmp_path, 'scenario "s" { seed 0 choices 4 expect offered 4 }')
    assert not result.passed
    assert "4 is not an option" in result.problems[0].replace("'", "")
    assert "options: 0, 1, 2, 3, 5, 6, 7, 8" in result.problems[0]


def test_expect_rejected_fails_when_the_option_is_accepted(tmp_path):
    (result,) = _run(tmp_path, 'scenario "s" { seed 0 expect rejected 4 expect cell[4] == x }')
    assert not result.passed
    assert "was accepted" in result.problems[0]
    assert len(result.problems) == 2  # and the scenario stops there (plus where it stopped)


def test_expectations_are_checked_where_they_stand(tmp_path):
    (result,) = _run(
        tmp_path, 'scenario "s" { seed 0 expect cell[4] == empty choices 4 expect cell[4] == x }'
    )
    assert result.passed, result.problems


def test_a_failing_expectation_shows_the_values_of_its_parts(tmp_path):
    (result,) = _run(
        tmp_path,
        'scenario "s" { seed 0 choices 4, 0\n'
        "  expect len([i for i in range(0, 9) if cell[i] != empty]) == 3 }",
    )
    assert not result.passed
    assert "len([i for i in range(0, 9) if cell[i] != empty]) = 2" in result.problems[0]
    (result,) = _run(tmp_path, 'scenario "s" { seed 0 choices 4 expect cell[4] == o }')
    assert "cell[4] = x" in result.problems[0]


# ---------------------------------------------------------------------- strict chance
def _pig(tmp_path: Path, body: str):
    path = tmp_path / "p.scenario"
    path.write_text('scenarios for "pig"\n' + body)
    return run_file(path)


def test_dice_strict_fails_at_the_first_unscripted_die(tmp_path):
    (result,) = _pig(tmp_path, 'scenario "s" { dice 4 dice strict choices "roll", "roll" }')
    assert not result.passed
    assert "K414" in result.problems[0] and "pig.knap" in result.problems[0]
    (result,) = _pig(tmp_path, 'scenario "s" { dice 4, 3 dice strict choices "roll", "roll" }')
    assert result.passed, result.problems


def test_shuffles_strict_fails_at_an_unscripted_shuffle(tmp_path):
    path = tmp_path / "h.scenario"
    (tmp_path / "high-card.knap").write_text(
        (Path(__file__).parent / "fixtures" / "high-card.knap").read_text()
    )
    path.write_text(
        'scenarios for "high-card.knap"\nscenario "s" { players 2 seed 3 shuffles strict }\n'
        'scenario "t" { players 2 seed 3 }\n'
    )
    strict, loose = run_file(path)
    assert not strict.passed and "K415" in strict.problems[0]
    assert loose.passed, loose.problems


def test_a_scenario_that_draws_chance_without_a_seed_is_warned(tmp_path):
    (result,) = _pig(tmp_path, 'scenario "s" { choices "roll" }')
    assert result.passed and "no `seed`" in result.warnings[0]
    (result,) = _pig(tmp_path, 'scenario "s" { dice 5 choices "roll" }')
    assert result.warnings == ()


# ---------------------------------------------------------------------- forced decisions
LAST_CELL = (
    "position { cell[0] = x cell[1] = o cell[2] = x cell[3] = x cell[4] = o cell[5] = x "
    "cell[6] = o cell[7] = x }"
)


def test_forced_decisions_are_taken_and_listed(tmp_path):
    (result,) = _run(tmp_path, f'scenario "s" {{ seed 0 {LAST_CELL} expect cell[8] == x }}')
    assert result.passed, result.problems
    assert result.forced == ("P1's decision 'place your mark': 8",)


def test_choices_strict_asks_for_forced_decisions(tmp_path):
    (result,) = _run(
        tmp_path, f'scenario "s" {{ seed 0 {LAST_CELL} choices strict expect offered 8 choices 8 }}'
    )
    assert result.passed, result.problems
    (result,) = _run(
        tmp_path, f'scenario "s" {{ seed 0 {LAST_CELL} choices strict expect cell[8] == x }}'
    )
    assert not result.passed


def test_a_failing_scenario_lists_the_forced_decisions(tmp_path):
    (result,) = _run(tmp_path, f'scenario "s" {{ seed 0 {LAST_CELL} expect cell[8] == o }}')
    assert not result.passed
    assert any("taken for the player" in p and "8" in p for p in result.problems)


# ---------------------------------------------------------------------- invariants
def test_a_position_that_breaks_an_invariant_says_what_it_requires(tmp_path):
    (tmp_path / "high-card.knap").write_text(
        (Path(__file__).parent / "fixtures" / "high-card.knap").read_text()
    )
    path = tmp_path / "h.scenario"
    path.write_text(
        'scenarios for "high-card.knap"\n'
        'scenario "s" { players 2 seed 1 position { add c1 to deck } }\n'
    )
    (result,) = run_file(path)
    assert not result.passed
    problem = result.problems[0]
    assert "cards_conserved" in problem and "after the position" in problem
    assert "len(deck) = 1" in problem and "hint:" in problem


# ---------------------------------------------------------------------- files
def test_a_scenario_file_imports_a_library_beside_it(tmp_path):
    (tmp_path / "corner.knap").write_text(
        'library "corner"\nproc take_corners() { cell[0] = x cell[8] = x }\n'
    )
    path = tmp_path / "t.scenario"
    path.write_text(
        'scenarios for "tic-tac-toe"\nimport "corner.knap"\n'
        'scenario "s" { seed 0 position { take_corners() } expect not offered 8 }\n'
    )
    (result,) = run_file(path)
    assert result.passed, result.problems


def test_scenario_trace_writes_each_scenario(tmp_path):
    from click.testing import CliRunner

    from interpreter.frontends.cli import main
    from interpreter.trace import read_trace

    path = tmp_path / "t.scenario"
    path.write_text(
        'scenarios for "tic-tac-toe"\nscenario "a" { seed 0 choices 4 }\n'
        'scenario "b" { seed 0 choices 0 }\n'
    )
    trace = tmp_path / "t.jsonl"
    out = CliRunner().invoke(main, ["scenario", str(path), "--trace", str(trace)])
    assert out.exit_code == 0, out.output
    lines = read_trace(trace)
    assert [line["game"] for line in lines if line["event"] == "start"] == ["a", "b"]
    assert [line["option"] for line in lines if line["event"] == "decision"] == [4, 0]


def test_a_printed_figure_the_rules_do_not_give_is_a_misprint(tmp_path):
    # `printed` records the book's figure for the left side of `==`: the scenario still
    # checks the rules' figure, and a different printed one is kept as a misprint
    (differs, agrees, wrong) = _run(
        tmp_path,
        'scenario "d" { seed 0 choices 4 expect cell[4] == x printed o as "the centre" }\n'
        'scenario "a" { seed 0 choices 4 expect cell[4] == x printed x }\n'
        'scenario "w" { seed 0 choices 4 expect cell[4] != o printed o }\n',
    )
    assert differs.passed and agrees.passed
    (m,) = differs.misprints
    assert (m.what, m.book, m.rules, m.span.line) == ("cell[4]", "o", "x", 2)
    assert agrees.misprints == ()
    assert not wrong.passed
    assert "no `==`" in wrong.problems[0] and "line 4" in wrong.problems[0]
