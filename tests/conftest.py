"""Shared fixtures: the bundled rulesets, compiled once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsl.semantics.resolve import bundled_names
from interpreter.api import load

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
RULESETS = bundled_names()
# test-only rulesets that exercise what no bundled game does yet (hidden hands, owner views)
FIXTURE_RULESETS = sorted(str(p) for p in FIXTURES.glob("*.knap"))
# harnesses that play parts of a ruleset still being assembled (setup and one phase)
HARNESSES = sorted(
    str(p)
    for game in ("neanderthal", "aurignac")
    for p in (FIXTURES.parent / game).glob("*-harness.knap")
)
ALL_RULESETS = RULESETS + FIXTURE_RULESETS + HARNESSES


@pytest.fixture(scope="session")
def games():
    return load


def player_counts(game) -> list[int]:
    lo, hi = game.players
    return sorted({lo, hi, min(hi, lo + 1)})
