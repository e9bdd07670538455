"""The PettingZoo adapter (docs/adapters.md): PettingZoo's own API and seed tests pass on
the classics and the two big games; observations come from the agent's own view only; the
action mask matches the legal options; rewards follow the outcome; bad actions are K515."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the RL adapters need the extra knapper[rl]")
pytest.importorskip("gymnasium", reason="the RL adapters need the extra knapper[rl]")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from dsl.errors import IllegalMove  # noqa: E402
from interpreter.api import load  # noqa: E402
from interpreter.frontends.adapters.actions import measure, space_size  # noqa: E402
from interpreter.frontends.adapters.pettingzoo_env import KnapperEnv  # noqa: E402

# ruleset -> cycles for the API test: whole games of the classics, a few hundred moves of
# the big games
CYCLES = {"tic-tac-toe": 20, "pig": 200, "neanderthal": 30, "aurignac": 30}


# PettingZoo warns about every dict observation except those of its own classic games (it
# knows them by name), and about a Dict observation space, which action masks require.
@pytest.mark.parametrize("name", list(CYCLES))
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning")
def test_pettingzoo_api_and_seed_tests_pass(name):
    env = KnapperEnv(name)
    api_test(env, num_cycles=CYCLES[name])
    seed_test(lambda: KnapperEnv(name), num_cycles=CYCLES[name])


@pytest.mark.parametrize("name", ["tic-tac-toe", "pig"])
def test_a_whole_game_ends_with_the_outcome_as_rewards(name):
    env = KnapperEnv(name)
    env.reset(seed=3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    picks = np.random.default_rng(3)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        legal = env.state.legal()
        assert mask.sum() == len(legal) and mask[: len(legal)].all()
        env.step(int(picks.choice(np.flatnonzero(mask))))
    outcome = env.state.outcome()
    winners = {f"player_{p}" for p in outcome["winners"]}
    expected = {a: (1.0 if a in winners else -1.0) if winners else 0.0 for a in totals}
    assert totals == expected


def test_only_the_deciding_agent_has_legal_actions():
    env = KnapperEnv("aurignac")
    env.reset(seed=1)
    mover = env.agent_selection
    assert mover == f"player_{env.state.decision().player}"
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert (mask.sum() > 0) == (agent == mover)


def test_an_observation_shows_only_the_agents_own_view():
    """Changing a hand hidden from player 0 changes player 1's vector, never player 0's."""
    env = KnapperEnv("aurignac")
    env.reset(seed=5)
    state = env.state
    game = state.game
    spec = next(
        s
        for s in game.shown_vars
        if s.visibility == "owner" and s.by_player and state.get(s.name, 1)
    )
    hand = state.get(spec.name, 1)
    other = next(v for v in sorted(game.named[spec.type.elem.name]) if v not in hand)
    before = [env.observe(a)["observation"] for a in env.possible_agents]
    state.set(spec.name, 1, [other] * len(hand))
    after = [env.observe(a)["observation"] for a in env.possible_agents]
    assert np.array_equal(before[0], after[0])
    assert np.array_equal(before[2], after[2])
    assert not np.array_equal(before[1], after[1])


def test_an_illegal_action_is_a_clear_error_and_changes_nothing():
    env = KnapperEnv("tic-tac-toe")
    env.reset(seed=0)
    taken = list(env.state.taken)
    for bad in (9, -1, 2.5, "4", True):
        with pytest.raises(IllegalMove) as err:
            env.step(bad)
        assert err.value.code == "K515"
    assert env.state.taken == taken
    assert "from 0 to 8" in str(err.value)


def test_the_action_space_is_the_measured_maximum_times_the_margin():
    game = load("pig")
    env = KnapperEnv("pig")
    assert env.max_actions == space_size(game, 2) == 2 * measure(game, 2)
    assert env.action_space("player_0").n == env.max_actions
    assert KnapperEnv("pig", max_actions=7).action_space("player_1").n == 7


def test_observation_vectors_have_one_length_per_ruleset_and_player_count():
    sizes = set()
    for players in (3, 4):
        env = KnapperEnv("aurignac", players=players)
        env.reset(seed=2)
        shape = env.observation_space("player_0")["observation"].shape
        assert all(env.observe(a)["observation"].shape == shape for a in env.agents)
        sizes.add(shape)
    assert len(sizes) == 2
