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

    from interpreter.cli import main

    path = tmp_path / "t.scenario"
    path.write_text(
        'scenarios for "tic-tac-toe"\nscenario "ok" §rules { choices 4 expect cell[4] == x }\n'
        'scenario "bad" §rules { choices 4 expect cell[4] == o }\n'
    )
    out = CliRunner().invoke(main, ["scenario", str(path)])
    assert out.exit_code == 1
    assert "PASS ok §rules" in out.output and "FAIL bad §rules" in out.output
    assert "1 passed, 1 failed" in out.output
