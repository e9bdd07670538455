"""The OpenSpiel adapter (docs/adapters.md): OpenSpiel's random simulation test, with
serialisation, passes on the classics and the two big games; the deal is the one chance
node and fixes the game; a saved state is replayed to the same position; returns follow the
outcome; bad actions are K515."""

from __future__ import annotations

import pickle

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the RL adapters need the extra knapper[rl]")

from dsl.errors import IllegalMove  # noqa: E402
from interpreter.frontends.adapters.openspiel_game import load_game, register  # noqa: E402

# ruleset -> random games for the simulation test (each checks clones and serialisation
# along the way, so the big games get one)
SIMS = {"tic-tac-toe": 5, "pig": 3, "neanderthal": 1, "aurignac": 1}


@pytest.mark.parametrize("name", list(SIMS))
def test_openspiel_random_simulation_test_passes(name):
    game = load_game(name)
    pyspiel.random_sim_test(game, num_sims=SIMS[name], serialize=True, verbose=False)


def test_a_ruleset_is_registered_once_under_its_short_name():
    assert register("tic-tac-toe") == register("tic-tac-toe") == "knapper_tic_tac_toe"
    game = pyspiel.load_game("knapper_tic_tac_toe")
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.num_players() == 2


def play(state, picks):
    """Play `state` to its end, taking the `picks`-th legal action (modulo) each time."""
    i = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[picks[i % len(picks)] % len(legal)])
        i += 1
    return state


def test_the_deal_is_the_only_chance_node_and_fixes_the_game():
    game = load_game("pig", deals=8)
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(i, 1 / 8) for i in range(8)]
    games = []
    for _ in range(2):
        again = game.new_initial_state()
        again.apply_action(5)
        assert not again.is_chance_node()
        games.append(str(play(again, [0, 0, 1])))
    assert games[0] == games[1]


def test_a_pickled_state_is_replayed_to_the_same_position():
    game = load_game("aurignac")
    state = game.new_initial_state()
    state.apply_action(11)
    for _ in range(40):
        state.apply_action(state.legal_actions()[-1])
    again = pickle.loads(pickle.dumps(state))
    assert str(again) == str(state)
    assert again.legal_actions() == state.legal_actions()
    assert again.history() == state.history()


def test_returns_follow_the_outcome():
    game = load_game("tic-tac-toe")
    state = game.new_initial_state()
    state.apply_action(0)
    play(state, [0])  # always the first free cell: X fills the top row first
    returns = state.returns()
    assert returns == [1.0, -1.0]


def test_observations_come_from_the_seats_own_view():
    game = load_game("aurignac")
    state = game.new_initial_state()
    state.apply_action(2)
    seen = [state.observation_string(p) for p in range(game.num_players())]
    assert len(set(seen)) == game.num_players()  # each seat sees its own hand
    size = game.observation_tensor_size()
    assert all(len(state.observation_tensor(p)) == size for p in range(3))


def test_an_illegal_action_is_a_clear_error():
    game = load_game("tic-tac-toe")
    state = game.new_initial_state()
    state.apply_action(0)
    before = str(state)
    with pytest.raises(IllegalMove) as err:
        state.apply_action(game.num_distinct_actions() - 1)
    assert err.value.code == "K515"
    assert str(state) == before
