"""Sum types: enum values that carry values (`buy(t: tools) "Buy {t}"`), told apart with
`match` (docs/language.md, "Values that carry values"). The checker's side is in
tests/diagnostics/71-* to 76-*."""

from __future__ import annotations

from dsl.pipeline import compile_text
from interpreter.api import new_game
from interpreter.save import dump_state, load_state

SUMS = """
ruleset "sums"
players 2

enum item { wood, hide }
record tool_t { cost: int }
table tools: tool_t {
  axe "Axe" (2)
  net "Net" (1)
}
enum action {
  rest "Rest",
  buy(t: tools) "Buy {t}",
  trade(give: item, take: item) "Trade {give} for {take}",
}
record offer_t { does: action }
table offers: offer_t {
  gift "Gift" (buy(net))
  idle "Idle" (rest)
}
var gold[player]: int = 3
var done: list of text = []
var kept: list of item = []

round max 1 {
  for p in players {
    let a = choose p from [rest] + [buy(t) for t in rows(tools) if t.cost <= gold[p]]
                          + [trade(wood, hide), gift.does]
      as "what to do"
    match a {
      rest { add "rest" to done }
      buy(t) {
        gold[p] -= t.cost
        add t.id to done
      }
      trade(g, k) {
        let back = choose p from [g, k] as "which to keep"
        add "trade" to done
        add back to kept
      }
    }
  }
  end game winners []
}
"""


def game():
    return compile_text(SUMS, "sums.knap")


def test_options_carry_their_values_and_read_as_their_words():
    g = game()
    state = new_game(g, players=2, seed=0)
    options = state.decision().options
    assert options == (
        "rest",
        ["buy", "axe"],
        ["buy", "net"],
        ["trade", "wood", "hide"],
        ["buy", "net"],
    )
    assert [g.describe(o) for o in options] == [
        "Rest",
        "Buy Axe",
        "Buy Net",
        "Trade wood for hide",
        "Buy Net",
    ]
    assert g.rows["gift"]["does"] == ["buy", "net"] and g.rows["idle"]["does"] == "rest"


def test_match_runs_the_arm_of_the_value_with_what_it_carries():
    state = new_game(game(), players=2, seed=0)
    state.apply(["buy", "axe"])
    state.apply(["trade", "wood", "hide"])
    # the trade arm stops for a decision of its own, and survives a save in between
    state = load_state(dump_state(state), game())
    state.apply("hide")
    assert state.is_over()
    assert state.get("done") == ["axe", "trade"] and state.get("kept") == ["hide"]
    assert state.get("gold", 0) == 1 and state.get("gold", 1) == 3


def test_a_plain_value_takes_its_own_arm():
    state = new_game(game(), players=2, seed=0)
    state.apply("rest")
    state.apply(["buy", "net"])
    assert state.get("done") == ["rest", "net"]


def test_the_rulebook_lists_what_each_value_carries():
    from dsl.pipeline import load_program
    from dsl.tools.rulebook import render_rulebook

    program, _, _ = load_program(SUMS, "sums.knap")
    assert program is not None
    page = render_rulebook(program)
    assert "`buy(t: tools)` (Buy {t})" in page and "`rest` (Rest)" in page
