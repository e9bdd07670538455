"""The searching agents: legal, reproducible, blind to what their seat may not see."""

from __future__ import annotations

import random

import pytest

from dsl.errors import KnapperError
from dsl.pipeline import compile_text
from interpreter.agents import AGENTS, RandomAgent, Seating, play_out
from interpreter.agents.sample import sample
from interpreter.agents.search import SearchBudget
from interpreter.agents.value import values
from interpreter.api import load, new_game

# Seat 1 names a card; it wins if seat 2 holds it. Knowing seat 2's hand would win always.
GUESS = """
ruleset "guess"
players 2
record card_t { value: int }
table cards: card_t { c1 (1)  c2 (2)  c3 (3)  c4 (4)  c5 (5)  c6 (6) }
zone deck: deck of cards visible hidden
zone hand[player]: hand of cards visible owner
zone shown: pile of cards visible top
setup {
  for c in rows(cards) { add c to deck }
  shuffle deck
  for p in players { draw 2 from deck to hand[p] }
}
round max 1 {
  let g = choose player(1) from rows(cards) as "name a card the other holds"
  if g in hand[player(2)] { end game winners [player(1)] }
  end game winners [player(2)]
}
score(p) = len(hand[p])
"""


@pytest.fixture(scope="module")
def guess():
    return compile_text(GUESS, "guess.knap")


def _rehidden(state, order):
    """The same game with the cards seat 1 does not see (seat 2's hand and the deck) dealt
    in another order."""
    other = state.clone()
    unseen = other.get("hand", 1) + other.get("deck")
    unseen = [unseen[i] for i in order]
    other.set("hand", 1, unseen[:2])
    other.set("deck", unseen[2:])
    return other


def test_a_sample_keeps_what_the_seat_sees_and_deals_the_rest_again(guess):
    state = new_game(guess, seed=3)
    copy = sample(state, 0, random.Random(1))
    assert copy.get("hand", 0) == state.get("hand", 0)
    assert len(copy.get("hand", 1)) == 2 and len(copy.get("deck")) == 2
    unseen = sorted(copy.get("hand", 1) + copy.get("deck"))
    assert unseen == sorted(state.get("hand", 1) + state.get("deck"))
    assert copy.observation(0) == state.observation(0)
    # over many samples, seat 2's hand is not always the true one
    hands = {tuple(sorted(sample(state, 0, random.Random(s)).get("hand", 1))) for s in range(40)}
    assert len(hands) > 1


@pytest.mark.parametrize("name", [a for a in AGENTS if a != "random"])
def test_states_that_differ_only_in_hidden_zones_get_the_same_choice(guess, name):
    state = new_game(guess, seed=5)
    again = _rehidden(state, [3, 2, 1, 0])
    assert again.get("hand", 1) != state.get("hand", 1)
    assert again.observation(0) == state.observation(0)
    picks = []
    for s in (state, again):
        agent = Seating((name, "random"), ("30",)).agents(2, 11)[0]
        picks.append(agent(s, s.decision()))
    assert picks[0] == picks[1]
    # and the samples the agents search are the same games
    a, b = (sample(s, 0, random.Random(7)) for s in (state, again))
    assert a.g == b.g and a.rng == b.rng


def test_a_searching_agent_wins_the_guess_no_more_often_than_chance_allows(guess):
    # it cannot see seat 2's hand: two of the four cards it does not hold are there, so
    # naming one of those four wins half the games (an agent that peeked would win all)
    won = 0
    for seed in range(60):
        state = new_game(guess, seed=seed)
        play_out(state, Seating(("ismcts", "random"), ("20",)).agents(2, seed))
        won += state.winners == [0]
    assert 15 <= won <= 45  # 30 expected; 45 is nearly four standard deviations above


@pytest.mark.parametrize("name", AGENTS)
def test_agents_play_legal_options_reproducibly(name):
    game = load("pig")
    finals = []
    for _ in range(2):
        state = new_game(game, seed=4)
        agents = Seating((name, "random"), ("3",), depth=10).agents(2, 4)
        play_out(state, agents)  # apply refuses anything illegal
        finals.append((state.winners, state.decisions, state.get("banked")))
    assert finals[0] == finals[1]


def test_every_seat_random_is_the_random_agent_of_the_seed():
    agent = Seating().agents(3, 9)
    assert isinstance(agent, RandomAgent)
    assert agent.rng.random() == RandomAgent(9).rng.random()


def test_ismcts_wins_or_draws_tic_tac_toe_against_random():
    game = load("tic-tac-toe")
    for seed in range(10):
        state = new_game(game, seed=seed)
        play_out(state, Seating(("random", "ismcts"), ("300",)).agents(2, seed))
        assert 0 not in state.winners, f"seed {seed}: the random seat won"


def test_values_of_finished_and_unfinished_games(guess):
    state = new_game(guess, seed=1)
    assert values(state) == [0.5, 0.5]  # both hold two cards
    state.apply(state.decision().options[0])
    assert sorted(values(state)) == [0.0, 1.0]


@pytest.mark.parametrize(
    "names, budgets, fragment",
    [
        (["ismcts", "random", "random"], [], "3 agents named for 2 players"),
        (["smart"], [], "no agent named 'smart'"),
        (["ismcts"], ["0"], "not '0'"),
        (["ismcts"], ["fast"], "not 'fast'"),
        (["ismcts"], ["1", "2", "3"], "3 budgets given"),
    ],
)
def test_wrong_agents_and_budgets_are_errors(names, budgets, fragment):
    with pytest.raises(KnapperError) as err:
        Seating(tuple(names), tuple(budgets)).agents(2, 0)
    assert err.value.code == "K513"
    assert fragment in str(err.value)


def test_a_playout_takes_at_least_one_decision():
    with pytest.raises(KnapperError) as err:
        Seating(("ismcts",), depth=0).agents(2, 0)
    assert err.value.code == "K513"


def test_seats_are_described_with_their_budgets():
    assert Seating(("ismcts", "random"), ("50",)).describe(2) == ("ismcts:50", "random")
    assert Seating(("flatmc",)).describe(2) == ("flatmc", "flatmc")


def test_a_budget_of_seconds_plays_at_least_once():
    budget = SearchBudget.parse("0.001s")
    assert budget.seconds == 0.001 and str(budget) == "0.001s"
    more = budget.counter()
    assert more() is True


def test_a_declared_heuristic_is_how_players_stand_before_the_score(guess):
    assert new_game(guess, seed=1).standing() == [2, 2]  # the score: cards in hand
    with_heuristic = compile_text(
        GUESS + "heuristic(p) = 10 * len(hand[p]) + len(deck)\n", "h.knap"
    )
    assert new_game(with_heuristic, seed=1).standing() == [22, 22]


def test_a_heuristic_is_an_int():
    with pytest.raises(KnapperError) as err:
        compile_text(GUESS + "heuristic(p) = len(hand[p]) > 1\n", "h.knap")
    assert "a heuristic" in str(err.value)


@pytest.mark.parametrize("module", ["ismcts", "flatmc"])
def test_a_playout_the_rules_fail_in_is_dropped_and_counted(module, monkeypatch):
    import importlib

    from dsl.errors import RulesetRuntimeError, Span, diag

    searched = importlib.import_module(f"interpreter.agents.{module}")
    real, calls = searched.rollout, [0]

    def failing_every_other(state, rng, limit):
        calls[0] += 1
        if calls[0] % 2:
            raise RulesetRuntimeError([diag("K402", "no options", Span("x", 0, 0, 0, 0))])
        real(state, rng, limit)

    monkeypatch.setattr(searched, "rollout", failing_every_other)
    state = new_game(load("tic-tac-toe"), seed=0)
    agent = Seating((module, "random"), ("20",)).agents(2, 0)[0]
    assert agent(state, state.decision()) in state.decision().options
    assert agent.dropped == calls[0] // 2 + calls[0] % 2 > 0
