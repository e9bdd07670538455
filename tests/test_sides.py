"""Two-sided cards: a record declared `sides a, b` has rows with two faces, fields `a` and
`b` of one type; `c.up` and `c.down` read the face up and the face down, and `flip c` turns
the card over (docs/language.md, "Two-sided cards: `sides` and `flip`"). Neanderthal's
sexuality cards are written on it (§C, §D4)."""

from __future__ import annotations

import pytest

from dsl.errors import CheckProblem
from dsl.pipeline import compile_text
from dsl.syntax.fmt import format_text
from dsl.syntax.parse import parse
from interpreter.api import load, new_game
from interpreter.save import dump_state, load_state

COINS = """
ruleset "coins"
players 2

enum metal { gold, silver }
record coin_t { heads: metal, tails: metal } sides heads, tails
table coins: coin_t {
  c1 "First coin" (gold, silver)
  c2 "Second coin" (silver, gold)
}

var shown: list of metal = []
var under: list of metal = []

round max 1 {
  for p in players {
    let c = choose p from rows(coins) as "a coin to turn over"
    flip c
  }
  shown = [k.up for k in rows(coins)]
  under = [k.down for k in rows(coins)]
  end game winners (if shown[0] == gold then [player(1)] else [player(2)])
}
"""


def coins(text: str = COINS):
    return compile_text(text, "coins.knap")


def test_a_card_starts_with_its_first_side_up_and_flip_turns_it_over():
    state = new_game(coins(), players=2, seed=1)
    state.apply("c1")
    state.apply("c2")
    assert state.get("shown") == ["silver", "gold"] and state.get("under") == ["gold", "silver"]


def test_flipping_twice_turns_it_back():
    state = new_game(coins(), players=2, seed=1)
    state.apply("c1")
    state.apply("c1")
    assert state.get("shown") == ["gold", "silver"]
    assert state.get("$flipped") == []


def test_which_cards_are_turned_over_is_public_and_survives_a_save():
    game = coins()
    state = new_game(game, players=2, seed=1)
    state.apply("c2")
    assert state.observation(1)["vars"]["$flipped"] == ["c2"]
    again = load_state(dump_state(state), game)
    again.apply("c1")
    state.apply("c1")
    assert dump_state(again) == dump_state(state)


@pytest.mark.parametrize(
    "sides, message",
    [
        ("sides heads, edge", "'edge' is not one"),
        ("sides heads, heads", "two different fields"),
    ],
)
def test_sides_name_two_different_fields(sides, message):
    with pytest.raises(CheckProblem) as problem:
        coins(COINS.replace("sides heads, tails", sides))
    (d,) = problem.value.diagnostics
    assert d.code == "K243" and message in d.message


def test_both_sides_have_one_type():
    text = COINS.replace("tails: metal }", "tails: int }").replace("(gold, silver)", "(gold, 1)")
    text = text.replace("(silver, gold)", "(silver, 2)")
    with pytest.raises(CheckProblem) as problem:
        coins(text)
    assert [d.code for d in problem.value.diagnostics] == ["K243"]


def test_only_a_two_sided_card_has_faces_and_turns_over():
    plain = COINS.replace(" sides heads, tails", "")
    with pytest.raises(CheckProblem) as problem:
        coins(plain)
    codes = [d.code for d in problem.value.diagnostics]
    assert codes and set(codes) == {"K244"}


def test_fmt_writes_sides_and_flip_back_as_they_parse():
    tree = parse(COINS, "coins.knap")
    text = format_text(COINS, "coins.knap")
    assert "record coin_t { heads: metal, tails: metal } sides heads, tails" in text
    assert "    flip c\n" in text
    assert parse(text, "coins.knap") == tree


def test_neanderthal_sexuality_cards_are_two_sided():
    # §C: each seat shows the side of its choice; §D4: chaos may turn the card over
    game = load("neanderthal")
    (record,) = [
        r for r in game.program.decls.values() if getattr(r, "name", "") == "sexuality_card"
    ]
    assert record.sides == ("front", "back")
    state = new_game(game, players=3, seed=1)
    card = state.call("sexuality_card_of", 0)
    face = state.call("sexuality_face_of", 0)
    turned = card in state.get("$flipped")
    assert face == game.rows[card]["back" if turned else "front"]
