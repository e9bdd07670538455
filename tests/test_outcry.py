"""Open outcry: `outcry p in ps on bid max n { ... }` asks the players of `ps` in turn, round
and round, until all have passed since the last raise (a change of `bid`); the raiser is not
asked against himself, a player who passed may raise again, more than `n` raises is a fault
(docs/language.md, "Open outcry: `outcry`"). Neanderthal's culture auction (§D7) is written
on it; its scenarios are in tests/neanderthal/events.scenario."""

from __future__ import annotations

import pytest

from dsl.errors import CheckProblem, RulesetRuntimeError
from dsl.pipeline import compile_text
from dsl.syntax import ast
from dsl.syntax.fmt import format_text
from dsl.syntax.parse import parse
from interpreter.agents import RandomAgent, play_out
from interpreter.api import new_game
from interpreter.save import dump_state, load_state

AUCTION = """
ruleset "auction"
players 2..4

var purse[player]: int = 5
var price: int = 0
var asked: list of player = []

round max 1 {
  let leader = none
  let high = 0
  outcry p in players on leader max 20 {
    add p to asked
    let offers = [n for n in range(high + 1, purse[p] + 1)]
    if len(offers) > 0 {
      let bid = choose p from ["pass"] + offers as "bid or pass"
      if bid != "pass" {
        leader = p
        high = bid
      }
    }
  }
  price = high
  end game winners (if leader == none then [] else [leader])
}
"""


def auction(text: str = AUCTION):
    return compile_text(text, "auction.knap")


def run(state, answers):
    asked = []
    for answer in answers:
        decision = state.decision()
        asked.append(decision.player)
        state.apply(answer)
    return asked


def test_a_player_who_passed_may_raise_again_and_all_passing_ends_it():
    state = new_game(auction(), players=3, seed=1)
    # P1 1, P2 2, P3 passes, P1 3, P2 passes, P3 comes back with 4, P1 and P2 pass
    asked = run(state, [1, 2, "pass", 3, "pass", 4, "pass", "pass"])
    assert asked == [0, 1, 2, 0, 1, 2, 0, 1]
    assert state.is_over()
    assert state.outcome()["winners"] == [2] and state.get("price") == 4


def test_the_high_bidder_is_never_asked_against_himself():
    state = new_game(auction(), players=3, seed=1)
    run(state, [1, "pass"])
    # P1 leads: after P2 and P3 pass the outcry is over, P1 is not asked again
    assert state.decision().player == 2
    state.apply("pass")
    assert state.is_over() and state.outcome()["winners"] == [0]
    assert state.get("asked") == [0, 1, 2]


def test_nobody_raising_asks_each_player_once():
    state = new_game(auction(), players=4, seed=1)
    run(state, ["pass"] * 4)
    assert state.is_over() and state.outcome()["winners"] == []
    assert state.get("asked") == [0, 1, 2, 3]


def test_a_player_with_nothing_to_offer_passes_without_being_asked():
    state = new_game(auction(), players=2, seed=1)
    asked = run(state, [5])  # P1 bids all he has; P2 cannot beat it and passes silently
    assert asked == [0] and state.is_over() and state.outcome()["winners"] == [0]
    assert state.get("asked") == [0, 1]


def test_more_raises_than_the_bound_is_a_fault():
    state = new_game(auction(AUCTION.replace("max 20", "max 2")), players=2, seed=1)
    run(state, [1, 2])
    with pytest.raises(RulesetRuntimeError) as fault:
        state.apply(3)
    assert fault.value.code == "K405"
    assert "more than its bound of 2 raises" in str(fault.value)


def test_a_save_in_the_middle_of_an_outcry_plays_on_identically():
    game = auction()
    state = new_game(game, players=3, seed=4)
    run(state, [1, "pass"])
    again = load_state(dump_state(state), game)
    assert again.decision() == state.decision()
    for s in (state, again):
        run(s, [2, "pass", "pass"])
    assert dump_state(state) == dump_state(again)
    assert state.outcome()["winners"] == [2]


def test_random_play_always_ends_within_the_bound():
    game = auction()
    for seed in range(30):
        state = new_game(game, players=4, seed=seed)
        play_out(state, RandomAgent(seed=seed))
        assert state.is_over()


def test_the_watched_value_is_read_outside_the_block():
    bad = AUCTION.replace("on leader", "on purse[p]")
    with pytest.raises(CheckProblem) as problem:
        auction(bad)
    assert [(d.code, d.message) for d in problem.value.diagnostics] == [
        ("K201", "unknown name 'p'")
    ]


def test_fmt_writes_the_outcry_back_as_it_parses():
    tree = parse(AUCTION, "auction.knap")
    text = format_text(AUCTION, "auction.knap")
    assert "outcry p in players on leader max 20 {" in text
    assert parse(text, "auction.knap") == tree
    (round_,) = [i for i in tree.items if isinstance(i, ast.Round)]
    (outcry,) = [s for s in round_.body.stmts if isinstance(s, ast.Outcry)]
    assert (outcry.name, outcry.max) == ("p", 20)
