"""The hand-written Cro-Magnon of the benchmarks plays the bundled ruleset's games.

`bench/playouts.py` compares the interpreter's speed with `bench/reference/cro_magnon.py`;
the comparison means something only while both play the same rules. Each seeded game is
played by the interpreter, then replayed by the reference with the same dice and picks
(`bench/cro_magnon_replay.py`): a rule changed on one side only fails here."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))

from bench.cro_magnon_replay import Mismatch, Replay, record, replay  # noqa: E402
from interpreter.api import load  # noqa: E402


@pytest.fixture(scope="module")
def game():
    return load("cro-magnon")


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_reference_plays_the_same_games(game, players):
    for seed in range(6):
        assert replay(game, players, seed) > 0


def test_a_difference_is_caught(game):
    steps, _state = record(game, 2, 0)
    offered = next(i for i, s in enumerate(steps) if s[0] == "decision")
    kind, count, taken = steps[offered]
    steps[offered] = (kind, count + 1, taken)  # as if the interpreter offered one more
    adjacency = {k: list(v) for k, v in game.adjacency.items()}
    with pytest.raises(Mismatch, match="options here"):
        Replay(steps, 2, adjacency).play()
