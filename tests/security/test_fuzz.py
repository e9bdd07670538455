"""Fuzzing untrusted input: random typed rulesets and randomly edited saves get a
KnapperError or play on, never another exception (tests/security/fuzzing.py); a signed save
edited without the key is always refused. The suite runs a bounded number of cases
(KNAPPER_FUZZ_CASES, default 300); `python bench/fuzz.py` is the long run."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from security.fuzzing import FORMS, RULESETS, edited_save, run_ruleset, run_save

from conftest import FIXTURES

CASES = int(os.environ.get("KNAPPER_FUZZ_CASES", "300"))
_SETTINGS = settings(
    max_examples=CASES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SAVED = ["tic-tac-toe", "pig", str(FIXTURES / "high-card.knap"), "aurignac", "neanderthal"]


@_SETTINGS
@given(RULESETS)
def test_a_random_typed_ruleset_is_refused_or_played_never_crashes(text):
    assert run_ruleset(text) in ("refused", "played")


@_SETTINGS
@given(st.sampled_from(SAVED), st.integers(0, 10_000), st.integers(0, 30), st.sampled_from(FORMS))
def test_an_edited_save_is_refused_or_played_never_crashes(name, seed, moves, form):
    result = run_save(name, edited_save(name, seed, moves, form), seed, form)
    assert result == "refused" if form == "tampered" else result in ("refused", "played")


@pytest.mark.parametrize("seed,moves", [(981, 19), (206, 3), (53, 0)])
def test_the_long_runs_finds_are_refused(seed, moves):
    # re-signed Neanderthal snapshots holding a value of a kind its variable never holds:
    # the invariants' rules failed on them with a TypeError and a KeyError (now K706)
    text = edited_save("neanderthal", seed, moves, "resigned")
    assert run_save("neanderthal", text, seed, "resigned") == "refused"
