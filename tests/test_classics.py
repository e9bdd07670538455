"""The classics behave as the games are known to: tic-tac-toe's random-play outcome
distribution, and rule checks for Connect Four and Pig."""

from __future__ import annotations

import math
import random

from interpreter.agents import RandomAgent, play_out
from interpreter.api import load, new_game

# The known outcome probabilities of uniformly random play from the empty board
KNOWN = {"first": 0.5849, "second": 0.2881, "draw": 0.1270}


def test_tic_tac_toe_random_play_matches_the_known_distribution():
    game = load("tic-tac-toe")
    games = 20_000
    counts = {"first": 0, "second": 0, "draw": 0}
    agent = RandomAgent(12345)
    for seed in range(games):
        state = play_out(new_game(game, players=2, seed=seed), agent)
        winners = state.outcome()["winners"]
        counts["draw" if not winners else ("first" if winners == [0] else "second")] += 1
    for key, p in KNOWN.items():
        sigma = math.sqrt(p * (1 - p) / games)
        observed = counts[key] / games
        assert abs(observed - p) < 4.5 * sigma, f"{key}: {observed:.4f} vs {p:.4f}"


def test_connect_four_vertical_win():
    state = new_game(load("connect-four"), players=2, seed=0)
    for column in [0, 1, 0, 1, 0, 1, 0]:
        state.apply(column)
    assert state.outcome()["winners"] == [0]


def test_connect_four_full_column_is_not_offered():
    state = new_game(load("connect-four"), players=2, seed=0)
    for column in [3, 3, 3, 3, 3, 3]:
        state.apply(column)
    assert 3 not in state.decision().options


def test_pig_rolling_a_one_loses_the_turn_total():
    game = load("pig")
    state = new_game(game, players=2, seed=0, dice=[6, 5, 1])
    state.apply("roll")
    state.apply("roll")
    state.apply("roll")  # the 1
    assert state.decision().player == 1
    assert state.outcome() is None
    assert state.observation(None)["vars"]["banked"][:2] == [0, 0]


def test_pig_holding_banks_and_a_hundred_wins():
    game = load("pig")
    state = new_game(game, players=2, seed=0, dice=[6] * 17)
    for _ in range(17):
        state.apply("roll")
    state.apply("hold")
    assert state.outcome()["winners"] == [0]
    assert state.outcome()["scores"][0] == 102


def test_random_agent_only_plays_legal_moves():
    rng = random.Random(1)
    game = load("connect-four")
    for seed in range(20):
        state = new_game(game, players=2, seed=seed)
        play_out(state, RandomAgent(rng.randrange(1000)))
        assert state.is_over()
