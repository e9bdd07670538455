"""Save files: the re-derivable record, its round trip, and clear errors for bad files."""

from __future__ import annotations

import orjson
import pytest

from dsl.errors import SaveFileError
from interpreter.api import load, new_game
from interpreter.save import SCHEMA_VERSION, dump_state, load_state


@pytest.fixture
def saved():
    state = new_game(load("connect-four"), players=2, seed=4)
    for _ in range(5):
        state.apply(state.decision().options[0])
    return state, orjson.loads(dump_state(state))


def test_envelope(saved):
    state, data = saved
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["ruleset"] == "connect-four"
    assert data["seed"] == f"{4:016x}" and data["dice"] == []
    assert data["options"] == state.taken and len(data["options"]) == 5
    assert "state" not in data  # no position without the host's key


def test_round_trip_without_the_game_argument(saved):
    state, data = saved
    restored = load_state(orjson.dumps(data))
    assert dump_state(restored) == dump_state(state)
    assert orjson.dumps(restored.observation(0)) == orjson.dumps(state.observation(0))


@pytest.mark.parametrize(
    "mutate, code, words",
    [
        (lambda d: b"not json", "K700", "not a JSON file"),
        (lambda d: orjson.dumps([1, 2]), "K701", "JSON object"),
        (lambda d: orjson.dumps({**d, "schema_version": 99}), "K701", "schema_version"),
        (lambda d: orjson.dumps({**d, "schema_version": 2}), "K703", "cannot be checked"),
        (lambda d: orjson.dumps({**d, "fingerprint": "0000"}), "K701", "changed since"),
        (lambda d: orjson.dumps({**d, "ruleset": "pig"}), "K701", "saved from"),
        (lambda d: orjson.dumps({**d, "players": 9}), "K701", "players"),
        (lambda d: orjson.dumps({**d, "seed": 4}), "K701", "16 hexadecimal"),
        (lambda d: orjson.dumps({**d, "options": "x"}), "K701", "options is not a list"),
        (lambda d: orjson.dumps({**d, "options": [99]}), "K704", "options[0]"),
        (lambda d: orjson.dumps({**d, "extra": 1}), "K701", "unknown fields"),
        (lambda d: orjson.dumps({**d, "state": {}}), "K707", "without a signature"),
    ],
)
def test_bad_files_give_clear_errors(saved, mutate, code, words):
    state, data = saved
    with pytest.raises(SaveFileError) as err:
        load_state(mutate(data), state.game, path="game.json")
    assert err.value.code == code
    assert words in err.value.render()
    assert "game.json" in err.value.render()


def test_the_pending_decision_is_the_replays():
    ttt = new_game(load("tic-tac-toe"), players=2, seed=3)
    ttt.apply(5)
    again = load_state(dump_state(ttt), ttt.game)
    assert again.legal() == ttt.legal() and 5 not in again.legal()
    assert again.decision().player == 1


def test_pig_dice_and_the_bound_come_from_the_replay():
    game = load("pig")
    state = new_game(game, players=2, seed=11)
    for _ in range(6):
        state.apply(state.legal()[0])
    again = load_state(dump_state(state), game)
    assert (again.rng, again.script, again.decisions) == (state.rng, state.script, 6)
