"""Open negotiation: `let deal = negotiate ps by qs from items max n` lets the parties `ps`
bargain over a bundle. The first party drafts a bundle one item at a time from `items` (read
again before each item, with `deal` standing for the draft), then offers it or withdraws;
every other party in turn accepts, refuses (no deal) or, if he is one of `qs` and fewer than
`n` bundles were offered, counters with a bundle of his own; `deal` is the bundle all others
accepted, or `[]` (docs/language.md, "Open negotiation: `negotiate`"). Neanderthal's §F1 is
written on it; its scenarios are in tests/neanderthal/negotiation-fidelity.scenario."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dsl.errors import CheckProblem
from dsl.pipeline import compile_text
from dsl.syntax import ast
from dsl.syntax.fmt import format_text
from dsl.syntax.parse import parse
from interpreter.agents import RandomAgent, play_out
from interpreter.api import load, new_game
from interpreter.save import dump_state, load_state

MARKET = """
ruleset "market"
players 2..3

enum item { gives(p: player, n: int) "{p} gives {n}", leaves(p: player) "{p} leaves" }
var coins[player]: int = 3
var left: list of player = []

# One leaver, named first; then at most one payment from each player.
fn offers(deal: list of item): list of item =
  if len(deal) == 0 then [leaves(q) for q in players]
  else [gives(q, n) for q in players for n in range(1, coins[q] + 1)
        if not any([x == gives(q, m) for m in range(1, 4) for x in deal])]

round max 1 {
  let deal = negotiate players from offers(deal) max 3 as "a deal"
  for x in deal {
    match x {
      gives(p, n) { coins[p] -= n }
      leaves(p) { add p to left }
    }
  }
  end game winners left
}
"""

LEAVE_2, PAY_1 = ["leaves", 1], ["gives", 0, 2]


def market(text: str = MARKET):
    return compile_text(text, "market.knap")


def prompt(state) -> str:
    return state.game.sites[state.decision().site].prompt


def test_a_bundle_of_several_items_accepted_is_carried_out():
    state = new_game(market(), players=2, seed=1)
    assert prompt(state) == "draft a bundle: a deal"
    state.apply(LEAVE_2)
    state.apply(PAY_1)
    assert ["offer", [LEAVE_2, PAY_1]] in state.decision().options
    state.apply(["offer", [LEAVE_2, PAY_1]])
    assert state.decision().player == 1 and prompt(state) == "answer the bundle: a deal"
    state.apply(["accept", [LEAVE_2, PAY_1]])
    assert state.is_over()
    assert state.get("left") == [1] and [state.get("coins", p) for p in (0, 1)] == [1, 3]


def test_the_items_read_the_draft():
    state = new_game(market(), players=2, seed=1)
    assert list(state.decision().options) == [["leaves", 0], ["leaves", 1], ["withdraw", []]]
    state.apply(LEAVE_2)
    assert ["leaves", 0] not in state.decision().options


def test_a_refusal_ends_the_negotiation_without_a_deal():
    state = new_game(market(), players=2, seed=1)
    for move in (LEAVE_2, ["offer", [LEAVE_2]], ["refuse", [LEAVE_2]]):
        state.apply(move)
    assert (
        state.is_over()
        and state.get("left") == []
        and [state.get("coins", p) for p in (0, 1)] == [3, 3]
    )


def test_a_counter_makes_its_author_the_next_proposer():
    state = new_game(market(), players=2, seed=1)
    for move in (LEAVE_2, ["offer", [LEAVE_2]], ["counter", [LEAVE_2]]):
        state.apply(move)
    assert state.decision().player == 1 and prompt(state) == "draft a bundle: a deal"
    for move in (["leaves", 0], ["gives", 1, 1], ["offer", [["leaves", 0], ["gives", 1, 1]]]):
        state.apply(move)
    assert state.decision().player == 0
    state.apply(["accept", [["leaves", 0], ["gives", 1, 1]]])
    assert state.get("left") == [0] and [state.get("coins", p) for p in (0, 1)] == [3, 2]


def test_withdrawing_ends_it_and_nobody_is_asked():
    state = new_game(market(), players=3, seed=1)
    state.apply(LEAVE_2)
    state.apply(["withdraw", [LEAVE_2]])
    assert state.is_over() and state.get("left") == []


def test_every_other_party_must_accept():
    state = new_game(market(), players=3, seed=1)
    for move in (LEAVE_2, ["offer", [LEAVE_2]], ["accept", [LEAVE_2]]):
        state.apply(move)
    assert state.decision().player == 2
    state.apply(["refuse", [LEAVE_2]])
    assert state.is_over() and state.get("left") == []


def test_no_counter_once_the_bound_of_bundles_is_reached():
    state = new_game(market(), players=2, seed=1)
    for _ in range(2):
        for move in (LEAVE_2, ["offer", [LEAVE_2]], ["counter", [LEAVE_2]]):
            state.apply(move)
    for move in (LEAVE_2, ["offer", [LEAVE_2]]):
        state.apply(move)
    assert list(state.decision().options) == [["accept", [LEAVE_2]], ["refuse", [LEAVE_2]]]


def test_only_the_parties_after_by_may_counter():
    only_first = market(
        MARKET.replace("negotiate players from", "negotiate players by [player(1)] from")
    )
    state = new_game(only_first, players=2, seed=1)
    for move in (LEAVE_2, ["offer", [LEAVE_2]]):
        state.apply(move)
    assert ["counter", [LEAVE_2]] not in state.decision().options


def test_a_save_in_the_middle_of_a_negotiation_plays_on_identically():
    game = market()
    state = new_game(game, players=3, seed=4)
    for move in (LEAVE_2, ["offer", [LEAVE_2]], ["counter", [LEAVE_2]], ["leaves", 0]):
        state.apply(move)
    again = load_state(dump_state(state), game)
    assert again.decision() == state.decision()
    deal = [["leaves", 0]]
    for s in (state, again):
        for move in (["offer", deal], ["accept", deal], ["accept", deal]):
            s.apply(move)
    assert dump_state(state) == dump_state(again)
    assert state.get("left") == [0]


def test_random_play_always_ends_within_the_bound():
    game = market()
    for seed in range(40):
        state = new_game(game, players=3, seed=seed)
        play_out(state, RandomAgent(seed=seed))
        assert state.is_over()


def test_the_parties_must_be_a_list_of_players():
    with pytest.raises(CheckProblem) as problem:
        market(MARKET.replace("negotiate players from", "negotiate [1, 2] from"))
    assert [d.code for d in problem.value.diagnostics] == ["K204"]


def test_fmt_writes_the_negotiation_back_as_it_parses():
    text = MARKET.replace("negotiate players from", "negotiate players by [player(1)] from")
    tree = parse(text, "market.knap")
    out = format_text(text, "market.knap")
    assert "let deal = negotiate players by [player(1)] from offers(deal) max 3" in out
    assert parse(out, "market.knap") == tree
    (round_,) = [i for i in tree.items if isinstance(i, ast.Round)]
    (nego,) = [s for s in round_.body.stmts if isinstance(s, ast.Negotiate)]
    assert (nego.name, nego.max) == ("deal", 3)


def test_a_neanderthal_game_saved_in_the_middle_of_a_bundle_plays_on_identically():
    # tests/fixtures/neanderthal-chiefs.knap lets everyone negotiate (§F1): stop at the
    # first answer to a bundle, save, load, and play both copies on with the same choices
    game = load(str(Path(__file__).parent / "fixtures" / "neanderthal-chiefs.knap"))
    state = new_game(game, players=3, seed=2)
    pick = random.Random(2)
    while not game.sites[state.decision().site].prompt.startswith("answer the bundle"):
        state.apply(pick.choice(state.decision().options))
    again = load_state(dump_state(state), game)
    assert again.decision() == state.decision()
    for _ in range(60):
        if state.is_over():
            break
        option = pick.choice(state.decision().options)
        state.apply(option)
        again.apply(option)
    assert dump_state(again) == dump_state(state)
