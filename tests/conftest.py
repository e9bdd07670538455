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


# ---------------------------------------------------------------------- signed saves
# The tests of a snapshot's own checks (frames, pending decisions, variables) edit it as a
# host holding the key could, so they sign the edited file again before loading it: what
# they show is that a signed snapshot is still checked field by field.
SAVE_KEY = b"the tests' host key"


def dump_signed(state) -> bytes:
    from interpreter.save import dump_state

    return dump_state(state, key=SAVE_KEY)


def load_signed(data, game=None, path: str = "<save>"):
    """`data` signed again (when it is a JSON object) and loaded with the key."""
    import orjson

    from interpreter.save import load_state, sign

    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError:
        raw = None
    if isinstance(raw, dict):
        raw.pop("signature", None)
        data = orjson.dumps(sign(raw, SAVE_KEY))
    return load_state(data, game, path, key=SAVE_KEY)
