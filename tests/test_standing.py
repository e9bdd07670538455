"""Standing rules: `whenever name(params): condition { ... }` runs by itself, at once, after
every statement that writes what its condition reads (docs/language.md, "Standing rules").
The checker's side is in tests/diagnostics/77-*, 78-*, 79-*, 80-*."""

from __future__ import annotations

import pytest

from dsl.errors import RulesetRuntimeError
from dsl.pipeline import compile_text
from interpreter.agents import RandomAgent
from interpreter.api import new_game
from interpreter.save import dump_state, load_state

LIMIT = """
ruleset "limit"
players 2..3

param limit: int = 2
zone deck: deck of int
zone hand[player]: hand of int visible owner
zone discard: pile of int
var seen: list of int = []

whenever over_limit(p: player) §B2: len(hand[p]) > limit {
  while len(hand[p]) > limit max 10 {
    let c = choose p from hand[p] as "discard down to the limit"
    move c from hand[p] to discard
  }
}

setup {
  for i in range(1, 40) { add i to deck }
}

round max 4 {
  for p in players {
    draw 2 from deck to hand[p]
    # what the next statement sees: the rule ran in between
    add len(hand[p]) to seen
  }
  draw 1 from deck to hand[player(1)]
  draw 1 from deck to hand[player(2)]
  add len(hand[player(1)]) + len(hand[player(2)]) to seen
  if round_number == 4 { end game winners [] }
}
"""


def limit_game():
    return compile_text(LIMIT, "limit.knap")


def test_the_rule_runs_before_the_next_statement_and_only_when_its_condition_holds():
    state = new_game(limit_game(), players=2, seed=3)
    # two cards each are within the limit; P1's third card sets the rule off at once, before
    # P2 draws his third
    decision = state.decision()
    assert decision.player == 0 and decision.prompt == "discard down to the limit"
    assert decision.options == (1, 2, 5)
    assert state.get("hand", 1) == [3, 4] and state.get("seen") == [2, 2]
    state.apply(1)
    # P1 is within the limit again; P2's third card now sets it off for him
    decision = state.decision()
    assert decision.player == 1 and state.get("hand", 0) == [2, 5]
    state.apply(3)
    assert state.get("seen") == [2, 2, 4]


def test_no_decision_but_the_discards_sees_a_hand_over_the_limit():
    for players in (2, 3):
        for seed in range(20):
            state = new_game(limit_game(), players=players, seed=seed)
            agent = RandomAgent(seed)
            while not state.is_over():
                decision = state.decision()
                over = [p for p in range(players) if len(state.get("hand", p)) > 2]
                assert over == [decision.player], (seed, over)
                assert decision.prompt == "discard down to the limit"
                assert not state.check_invariants()
                state.apply(agent(state, decision))
            seen = state.get("seen")
            per_round = [seen[i : i + players + 1] for i in range(0, len(seen), players + 1)]
            assert len(per_round) == 4
            for *each, both in per_round:  # each hand after its draws, then P1's and P2's
                assert all(n <= 2 for n in each) and both <= 4


def test_a_game_saved_inside_a_standing_rule_resumes_there():
    game = limit_game()
    state = new_game(game, players=2, seed=5)
    again = load_state(dump_state(state), game)
    assert again.decision() == state.decision()
    for s in (state, again):
        s.apply(s.decision().options[0])
    assert dump_state(again) == dump_state(state)


def test_a_rule_that_holds_outside_its_run_is_reported_like_a_broken_invariant():
    game = limit_game()
    state = new_game(game, players=2, seed=3)
    state.apply(1)  # P1 is within the limit; P2 is now asked to discard
    assert not state.check_invariants()
    # a third card slipped into P1's hand while only P2's rule runs
    deck = state.get("deck")
    state.set("hand", 0, [*state.get("hand", 0), deck[0]])
    state.set("deck", deck[1:])
    forged = state
    assert "over_limit" in forged.check_invariants()[0].message


UNSETTLED = """
ruleset "unsettled"
players 2

var food[player]: int = 3
var alarms: int = 0

whenever starving(p: player): food[p] < 0 {
  alarms += 1
}

round max 1 {
  food[player(2)] -= 5
  end game winners []
}
"""


def test_a_rule_that_leaves_its_condition_true_stops_the_game():
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(compile_text(UNSETTLED, "unsettled.knap"), players=2, seed=0)
    assert err.value.code == "K420"
    assert "'starving'" in str(err.value) and "(1)" in str(err.value)


KINDS = """
ruleset "kinds"
players 2

enum good { wood, hide }
record spot_t { cap: int }
table spots: spot_t {
  cave "Cave" (1)
  hut "Hut" (2)
}
var stock[player, good]: int = 0
var held[spots]: int = 0
var spilled: list of text = []
var goods_spilled: list of good = []

whenever too_many(p: player, g: good): stock[p, g] > 2 {
  add g to goods_spilled
  stock[p, g] = 2
}

whenever crowded(s: spots): held[s] > s.cap {
  add s.id to spilled
  held[s] = s.cap
}

round max 1 {
  stock[player(2), hide] += 5
  stock[player(1), wood] += 3
  held[hut] += 4
  held[cave] += 1
  end game winners []
}
"""


def test_parameters_range_over_players_enums_and_rows():
    state = new_game(compile_text(KINDS, "kinds.knap"), players=2, seed=0)
    assert state.is_over()
    assert state.get("goods_spilled") == ["hide", "wood"] and state.get("spilled") == ["hut"]
    assert state.get("stock", 1, "hide") == 2 and state.get("held", "hut") == 2


def test_only_statements_that_write_what_a_rule_reads_are_followed_by_a_test():
    game = compile_text(KINDS, "kinds.knap")
    main = next(proc for proc in game.procs if proc.name == "main")
    sources = "\n".join(block.source for block in main.blocks)
    # four writes in `round`, each followed by a test of the one rule that reads it; the
    # rules' own bodies write what they read too (a test that finds them running)
    assert sources.count("_standing(st, _STANDING, _DEFER, (0,))") == 2
    assert sources.count("_standing(st, _STANDING, _DEFER, (1,))") == 2


def test_the_formatter_keeps_a_standing_rule():
    from dsl.syntax.fmt import format_text

    text = format_text(LIMIT, "limit.knap")
    assert "whenever over_limit(p: player) §B2: len(hand[p]) > limit {" in text
    assert format_text(text, "limit.knap") == text


# A trade: each side gives a card at the same time. Tested after each move, P2 would have
# to discard at once, before giving his own card, and might discard the card he owes.
TRADE = LIMIT.replace(
    """round max 4 {""",
    """var traded: list of int = []

proc give(p: player, q: player, c: int) {
  move c from hand[p] to hand[q]
}

proc trade(p: player, q: player) {
  let a = first(hand[p])
  let b = first(hand[q])
  traded = [a, b]
  simultaneously {
    give(p, q, a)
    give(q, p, b)
    add len(hand[q]) to seen
  }
  add len(hand[q]) to seen
}

round max 4 {
  if round_number == 2 { trade(player(1), player(2)) }""",
)


def play_until(state, agent, n):
    """Play on until `seen` has `n` entries, checking every decision is a discard."""
    while len(state.get("seen")) < n:
        decision = state.decision()
        assert decision.prompt == "discard down to the limit"
        state.apply(agent(state, decision))


# the same block with the moves written out: it runs as one Python instruction
INLINE = TRADE.replace("give(p, q, a)", "move a from hand[p] to hand[q]").replace(
    "give(q, p, b)", "move b from hand[q] to hand[p]"
)


@pytest.mark.parametrize("text", [TRADE, INLINE], ids=["calls", "inline"])
def test_simultaneously_holds_standing_rules_back_until_the_block_is_done(text):
    game = compile_text(text, "trade.knap")
    state = new_game(game, players=2, seed=3)
    agent = RandomAgent(1)
    play_until(state, agent, 3)
    # round 2 opened with the trade: no discard was asked inside it or after it, since each
    # hand was back at the limit once both cards had moved; the first decision after it is
    # P1's, over the limit with the two cards he drew since
    assert state.get("seen")[3:5] == [2, 2]
    a, b = state.get("traded")
    assert b in state.get("hand", 0) and a in state.get("hand", 1)
    assert state.decision().player == 0 and len(state.get("hand", 0)) == 4


def test_a_rule_held_back_inside_a_called_procedure_runs_after_the_block():
    game = compile_text(TRADE.replace("give(q, p, b)", "pass"), "trade.knap")
    state = new_game(game, players=2, seed=3)
    agent = RandomAgent(1)
    play_until(state, agent, 3)
    # P2 got a card and gave none: he holds three inside the block, and only after it is
    # he asked to discard, before the statement after the block runs
    assert state.get("seen")[3] == 3
    decision = state.decision()
    assert decision.player == 1 and decision.prompt == "discard down to the limit"
    assert len(state.get("seen")) == 4
    state.apply(decision.options[0])
    assert state.get("seen")[4] == 2


def test_without_simultaneously_the_trade_is_broken_off_by_the_discard():
    game = compile_text(TRADE.replace("simultaneously {", "if true {"), "trade.knap")
    state = new_game(game, players=2, seed=3)
    play_until(state, RandomAgent(1), 3)
    # P2 holds three the moment P1's card arrives, before he gives his own
    decision = state.decision()
    assert decision.player == 1 and len(state.get("hand", 1)) == 3
    assert len(state.get("hand", 0)) == 1
