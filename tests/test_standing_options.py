"""Standing options: `option name(p: player, ...) "text": condition { ... }` is a move a
player may make at any decision of his, and at every `quiet` point, while its condition holds
(docs/language.md, "Standing options: `option` and `quiet`"). The checker's side is in
tests/diagnostics/81-*, 82-*, 83-*."""

from __future__ import annotations

import json

import pytest

from dsl.errors import IllegalMove
from dsl.pipeline import compile_text
from interpreter.agents import RandomAgent
from interpreter.api import new_game
from interpreter.save import dump_state, load_state

# Coins come in each round; a player holding two or more may, once per game, trade them for
# a medal, at any decision of his or at the quiet point after the draws. A tool he owns may
# be sharpened, once each, during the work phase only.
CASH = """
ruleset "cash"
players 2..3

enum tool { axe "Axe", awl "Awl" }
var coins[player]: int = 0
var medal[player]: bool = false
var sharp[player, tool]: bool = false
var took: list of int = []

option cash_in(p: player) "trade two coins for a medal" §B4: coins[p] >= 2 and not medal[p] {
  let n = choose p from [2, coins[p]] as "how many coins to give"
  coins[p] -= n
  medal[p] = true
  add n to took
}

option sharpen(p: player, t: tool) "sharpen the {t}" §B5 during work: not sharp[p, t] {
  sharp[p, t] = true
}

phase work() §B5 {
  for p in players {
    let c = choose p from [1, 2] as "coins to earn"
    coins[p] += c
  }
}

round max 3 {
  work()
  quiet §B6
  if round_number == 3 { end game winners [] }
}
"""


def cash_game():
    return compile_text(CASH, "cash.knap")


def labels(game, decision):
    return [game.describe(o) for o in decision.options]


def test_an_option_follows_the_decisions_own_options_while_it_holds():
    game = cash_game()
    state = new_game(game, players=2, seed=1)
    decision = state.decision()
    # in the work phase both tools may be sharpened; no coins yet, so no medal
    assert decision.player == 0 and decision.prompt == "coins to earn"
    assert list(decision.options) == [1, 2, ["sharpen", "axe"], ["sharpen", "awl"]]
    assert labels(game, decision) == ["1", "2", "sharpen the Axe", "sharpen the Awl"]


def test_taking_an_option_runs_it_then_asks_the_same_decision_again():
    game = cash_game()
    state = new_game(game, players=2, seed=1)
    state.apply(["sharpen", "awl"])
    assert state.get("sharp", 0, "awl") is True
    decision = state.decision()
    assert decision.player == 0 and decision.prompt == "coins to earn"
    assert list(decision.options) == [1, 2, ["sharpen", "axe"]]
    assert state.get("coins", 0) == 0  # the decision itself is still to come


def test_during_limits_an_option_to_its_procedures():
    game = cash_game()
    state = new_game(game, players=2, seed=1)
    state.apply(2)
    state.apply(2)
    # the quiet point after the work phase: the medal is open, sharpening is not
    decision = state.decision()
    assert decision.player == 0 and decision.prompt == "anything to do before play goes on?"
    assert list(decision.options) == ["go on", ["cash_in"]]
    assert decision.cite == "B6"


def test_a_quiet_point_asks_only_players_with_an_option_and_go_on_declines():
    game = cash_game()
    state = new_game(game, players=2, seed=1)
    state.apply(2)
    state.apply(1)  # P2 has one coin: nothing to offer him at the quiet point
    assert state.decision().player == 0
    state.apply("go on")
    # round 2 begins: P1 may still trade his coins at his next decision
    decision = state.decision()
    assert decision.player == 0 and decision.prompt == "coins to earn"
    assert ["cash_in"] in decision.options


def test_an_option_may_ask_decisions_and_a_save_inside_it_resumes_there():
    game = cash_game()
    state = new_game(game, players=2, seed=1)
    state.apply(2)
    state.apply(2)
    state.apply(["cash_in"])
    decision = state.decision()
    assert decision.prompt == "how many coins to give" and decision.player == 0
    # inside its own body the option is not offered again
    assert ["cash_in"] not in decision.options
    again = load_state(dump_state(state), game)
    for s in (state, again):
        s.apply(2)
    assert dump_state(again) == dump_state(state)
    assert state.get("medal", 0) is True and state.get("took") == [2]
    # back at the quiet point, P1 has nothing left to take; P2 is asked next
    assert state.decision().player == 1


def test_an_option_not_offered_is_refused():
    state = new_game(cash_game(), players=2, seed=1)
    with pytest.raises(IllegalMove) as err:
        state.apply(["cash_in"])
    assert [d.code for d in err.value.diagnostics] == ["K502"]


def test_random_games_end_and_replay_identically():
    game = cash_game()
    for players in (2, 3):
        for seed in range(10):
            runs = []
            for _ in range(2):
                state = new_game(game, players=players, seed=seed)
                agent = RandomAgent(seed)
                chosen = []
                while not state.is_over():
                    decision = state.decision()
                    option = agent(state, decision)
                    chosen.append(option)
                    state.apply(option)
                runs.append((chosen, dump_state(state)))
            assert runs[0] == runs[1]
            # each option's condition bounds it: at most one medal and two sharpenings each
            assert len(runs[0][0]) <= players * (3 + 1 + 1 + 2 + 3)


def test_quiet_among_asks_only_the_players_listed_in_their_order():
    text = CASH.replace("  quiet §B6", "  quiet among [player(2), player(1)] §B6")
    game = compile_text(text, "among.knap")
    state = new_game(game, players=3, seed=1)
    for _ in range(3):
        state.apply(2)
    # all three may trade; P2 is asked first, then P1, and P3 not at all
    assert state.decision().player == 1
    state.apply("go on")
    assert state.decision().player == 0
    state.apply("go on")
    assert state.decision().prompt == "coins to earn"


def test_a_ruleset_without_options_asks_nothing_at_a_quiet_point():
    text = CASH.replace(CASH[CASH.index("option cash_in") : CASH.index("phase work")], "")
    state = new_game(compile_text(text, "plain.knap"), players=2, seed=1)
    for _ in range(6):
        decision = state.decision()
        assert decision.prompt == "coins to earn" and list(decision.options) == [1, 2]
        state.apply(1)
    assert state.is_over()


def test_a_save_at_a_decision_with_options_loads_and_offers_them():
    game = cash_game()
    state = new_game(game, players=2, seed=1)
    saved = json.loads(dump_state(state))
    again = load_state(json.dumps(saved), game)
    assert again.decision() == state.decision()
    again.apply(["sharpen", "axe"])
    assert again.get("sharp", 0, "axe") is True


def test_decisions_taken_counts_every_option_applied_a_standing_one_included():
    text = CASH.replace(
        "var took: list of int = []", "var took: list of int = []\nvar at_trade: int = -1"
    ).replace("  medal[p] = true\n", "  medal[p] = true\n  at_trade = decisions_taken\n")
    state = new_game(compile_text(text, "cash.knap"), players=2, seed=1)
    state.apply(2)  # P1 earns two coins: one decision
    state.apply(1)  # P2 earns one: two
    # the quiet point: P1 takes the trade (three), gives two coins (four)
    state.apply(["cash_in"])
    state.apply(2)
    assert state.get("at_trade") == 4
