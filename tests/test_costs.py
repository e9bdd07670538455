"""Costs: a bag of a pool's kinds, tested with `affordable` and paid with `spend`
(docs/language.md, "Costs"). The checker's side is in tests/diagnostics/69-* and 70-*, the
static findings about costs in tests/lint/21-* and 22-*."""

from __future__ import annotations

import pytest

from dsl.errors import RulesetRuntimeError
from dsl.pipeline import compile_text
from interpreter.api import new_game

COSTS = """
ruleset "costs"
players 2

enum good { wood, hide, food }
pool has[player] of good = 1
pool supply of good = 10
var bought[player]: list of text = []

record tool_t { cost: list of good }
table tools: tool_t {
  sling "Sling" ([wood, hide])
  hut "Hut" ([wood, wood, food])
  stick "Stick" ([])
}

round max 1 {
  for p in players {
    let t = choose p from [t for t in rows(tools) if affordable(t.cost, has[p])]
      as "a tool to make"
    spend t.cost from has[p] to supply
    add t.id to bought[p]
  }
  end game winners []
}
"""


def test_only_what_the_pool_holds_is_offered_and_spending_moves_it():
    state = new_game(compile_text(COSTS, "costs.knap"), players=2, seed=0)
    assert state.decision().options == ("sling", "stick")  # one wood is not two
    state.apply("sling")
    assert [state.get("has", 0, g) for g in ("wood", "hide", "food")] == [0, 0, 1]
    assert [state.get("supply", g) for g in ("wood", "hide", "food")] == [11, 11, 10]
    state.apply("stick")
    assert state.is_over() and state.get("has", 1, "wood") == 1


def test_spending_more_than_the_pool_holds_stops_the_game():
    text = COSTS.replace("if affordable(t.cost, has[p])", "if true")
    state = new_game(compile_text(text, "costs.knap"), players=2, seed=0)
    with pytest.raises(RulesetRuntimeError) as err:
        state.apply("hut")
    assert err.value.code == "K419"
    assert "has holds too few ['wood']" in str(err.value)
