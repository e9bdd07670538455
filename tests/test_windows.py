"""Reaction windows: `window name(q: player) for players after|before moment { ... }` opens at
every `trigger` or `raise` of the moment, for each listed player in turn, with the moment's
values in scope (docs/language.md, "Reaction windows: `window` and `raise`"). The checker's
side is in tests/diagnostics/84-*, 85-*."""

from __future__ import annotations

from dsl.pipeline import compile_text
from interpreter.api import new_game
from interpreter.save import dump_state, load_state

BIDS = """
ruleset "bids"
players 3

enum coin { gold "Gold", tin "Tin" }
record piece { worth: int, bid_made: list of effect = [] }
var pot: int = 0
var seen: list of text = []

moment bid_made(bidder: player, n: int) "a bid is made"
effect pay_in(k: int) at bid_made "pay {k} into the pot" {
  pot += k
  add "paid" to seen
}

table pieces: piece {
  crown "Crown" (3, bid_made=[pay_in(2)])
}

window warn(q: player) for [x for x in players if x != bidder] before bid_made §R1 {
  add "warned" to seen
}

window raises(q: player) for [x for x in players if x != bidder] after bid_made §R2 {
  let a = ask q from ["pass", "add one"] as "add one to the pot?" §R2
  if a == "add one" { pot += n }
}

round max 1 {
  trigger bid_made(player(2), 1) for [crown] by player(2)
  raise bid_made(player(1), 10)
  end game winners []
}
"""


def bids_game(text=BIDS):
    return compile_text(text, "bids.knap")


def test_a_window_opens_for_each_listed_player_in_turn_after_what_the_moment_performs():
    state = new_game(bids_game(), players=3, seed=1)
    # before: the warnings; then the Crown's payment; then the window asks P1 and P3
    assert state.get("seen") == ["warned", "warned", "paid"]
    decision = state.decision()
    assert decision.player == 0 and decision.prompt == "add one to the pot?"
    assert decision.cite == "R2"
    state.apply("add one")
    assert state.get("pot") == 2 + 1  # the moment's value n = 1 is in the window's scope
    assert state.decision().player == 2
    state.apply("pass")


def test_raise_opens_the_windows_with_nothing_to_perform():
    state = new_game(bids_game(), players=3, seed=1)
    state.apply("pass")
    state.apply("pass")
    # the raise by P1: P2 and P3 are warned and asked; nothing is paid
    assert state.get("seen") == ["warned", "warned", "paid", "warned", "warned"]
    assert state.decision().player == 1
    state.apply("add one")
    assert state.get("pot") == 2 + 10
    state.apply("pass")
    assert state.is_over()


def test_a_game_saved_inside_a_window_resumes_there():
    game = bids_game()
    state = new_game(game, players=3, seed=1)
    state.apply("add one")
    again = load_state(dump_state(state), game)
    assert again.decision() == state.decision()
    for s in (state, again):
        s.apply("pass")
    assert dump_state(again) == dump_state(state)


def test_a_variant_replaces_a_window(tmp_path):
    (tmp_path / "bids.knap").write_text(BIDS)
    variant = """variant "bids-rich" extends "bids.knap"

replace window raises(q: player) for [bidder] after bid_made §R3 {
  pot += 100
}
"""
    game = compile_text(variant, str(tmp_path / "bids-rich.knap"))
    state = new_game(game, players=3, seed=1)
    # each of the two moments runs the replacing window once, for the bidder, asking nobody
    assert state.is_over() and state.get("pot") == 2 + 100 + 100


def test_the_formatter_keeps_windows_and_raises():
    from dsl.syntax.fmt import format_text

    text = format_text(BIDS, "bids.knap")
    assert (
        "window raises(q: player) for [x for x in players if x != bidder] after bid_made §R2 {"
        in text
    )
    assert "  raise bid_made(player(1), 10)" in text
    assert format_text(text, "bids.knap") == text
