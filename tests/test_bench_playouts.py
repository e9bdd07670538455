"""`bench/playouts.py` times a game without a hand-written reference on the interpreter's
side alone and reports its µs per decision against the game's limit (a tiny batch: the
shape of the report, not its speed)."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT))

from bench import playouts  # noqa: E402
from interpreter.api import load  # noqa: E402


def test_a_game_without_a_reference_is_timed_alone_against_its_limit():
    case = next(c for c in playouts.CASES if c.ruleset == "aurignac")
    assert case.reference is None
    logged: list[str] = []
    result = playouts.run_case(case, load("aurignac"), 2, 2, logged.append)
    assert "reference" not in result and "ratio" not in result
    assert result["us_per_decision_limit"] == playouts.DECISION_LIMITS["aurignac"] == 30.0
    interp = result["interpreter"]
    assert interp["decisions_per_game"] > 0 and interp["us_per_decision"] > 0
    assert len(logged) == 2 and "reference" not in logged[0]


def test_every_game_with_a_limit_is_benchmarked():
    assert set(playouts.DECISION_LIMITS) <= {c.ruleset for c in playouts.CASES}
