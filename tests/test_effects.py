"""Effects: what a card does, as values in its row (`effect`, `perform`; docs/language.md).

The example of the language reference is played here move by move; the checker's side
(wrong arguments in a cell, a text naming no parameter, recursion) is in the expect-tests
tests/diagnostics/58-* to 63-*.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dsl.errors import CheckProblem, RulesetRuntimeError
from dsl.pipeline import compile_text
from interpreter.api import new_game
from interpreter.save import dump_state, load_state

RULES = """
ruleset "effects"
players 2

enum item { food, hide }
var stock[player, item]: int = 0
var seen: list of text = []
zone deck: deck of int
zone hand[player]: hand of int

effect gain(x: item, n: int) "gain {n} {x}" §E1 {
  stock[self, x] += n
}
effect draw(n: int) "draw {n} card(s)" §E2 {
  draw n from deck to hand[self]
}
effect either(a: effect, b: effect) "{a} or {b}" §E3 {
  let pick = choose self from [a, b] as "which effect"
  perform pick by self with this
}
effect note() "note the card" {
  add (if this == none then "none" else this.id) to seen
}
effect spoil(xs: list of int) "spoil" {
  xs[0] = 0
  add len(xs) to hand[self]
}

record tool_t { cost: int, does: list of effect }
table tools: tool_t {
  spear "Spear" (1, [gain(food, 2), draw(1), note()])
  knife "Knife" (2, [either(gain(hide, 1), draw(2))])
  sack "Sack" (0, [spoil([5, 6]), spoil([5, 6])])
}
{more}
setup {
  for i in range(1, 10) { add i to deck }
}

round max 1 {
{body}
  end game winners []
}
"""


def game(body: str, more: str = ""):
    return compile_text(RULES.replace("{body}", body).replace("{more}", more), "effects.knap")


def test_a_row_s_effects_are_performed_in_order_for_the_player_and_the_card():
    state = new_game(
        game("  perform spear.does by player(1) with spear\n  perform note() by player(2)"),
        players=2,
        seed=0,
    )
    assert state.is_over()
    assert state.get("stock", 0, "food") == 2
    assert state.get("hand", 0) == [1]
    assert state.get("seen") == ["spear", "none"]


def test_an_effect_may_ask_and_its_options_read_as_their_text():
    g = game("  perform knife.does by player(2) with knife")
    state = new_game(g, players=2, seed=0)
    decision = state.decision()
    assert decision.player == 1 and decision.prompt == "which effect"
    assert decision.options == (["gain", "hide", 1], ["draw", 2])
    assert [g.describe(o) for o in decision.options] == ["gain 1 hide", "draw 2 card(s)"]
    state.apply(["draw", 2])
    assert state.get("hand", 1) == [1, 2] and state.get("stock", 1, "hide") == 0


def test_a_cell_reads_as_the_text_of_its_effects():
    g = game("")
    assert g.describe(g.rows["knife"]["does"][0]) == "gain 1 hide or draw 2 card(s)"
    assert g.phrases["gain"].cite == "E1" and g.phrases["gain"].params == ("x", "n")


def test_an_effect_changes_its_own_copy_of_a_list_argument():
    state = new_game(game("  perform sack.does by player(1)"), players=2, seed=0)
    assert state.get("hand", 0) == [2, 2]
    assert state.game.rows["sack"]["does"] == [["spoil", [5, 6]], ["spoil", [5, 6]]]


def test_a_game_saved_inside_an_effect_resumes_there():
    g = game("  perform knife.does by player(2) with knife\n  perform spear.does by player(1)")
    state = new_game(g, players=2, seed=3)
    again = load_state(dump_state(state), g)
    for s in (state, again):
        s.apply(["gain", "hide", 1])
    assert dump_state(again) == dump_state(state)
    assert again.get("stock", 1, "hide") == 1 and again.get("stock", 0, "food") == 2


def test_effects_that_perform_each_other_without_end_are_stopped():
    more = (
        'effect again() "again" { perform this.does by self with this }\n'
        "table loops: tool_t { loop (0, [again()]) }\n"
    )
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(game("  perform loop.does by player(1) with loop", more), players=2, seed=0)
    assert err.value.code == "K416"
    assert "more than 100 calls deep" in str(err.value)


def test_a_variant_replaces_an_effect_and_every_row_that_names_it_follows(tmp_path):
    base = RULES.replace("{body}", "  perform spear.does by player(1)").replace("{more}", "")
    (tmp_path / "effects.knap").write_text(base, encoding="utf-8")
    variant = (
        'variant "twice" extends "effects.knap"\n'
        'replace effect gain(x: item, n: int) "gain {n} {x}, twice" {\n'
        "  stock[self, x] += 2 * n\n}\n"
    )
    g = compile_text(variant, str(tmp_path / "twice.knap"))
    assert new_game(g, players=2, seed=0).get("stock", 0, "food") == 4
    assert g.describe(["gain", "food", 2]) == "gain 2 food, twice"


@pytest.mark.parametrize("name", ["self", "this"])
def test_a_ruleset_cannot_declare_the_names_an_effect_has(name):
    with pytest.raises(CheckProblem) as err:
        game("", more=f"var {name}: int = 0\n")
    assert "K229" in str(err.value) and f"the local {name!r} would hide" in str(err.value)


def test_the_rulebook_shows_cells_of_effects_as_their_texts():
    from dsl.pipeline import load_program
    from dsl.tools.rulebook import render_rulebook

    program, _, _ = load_program(RULES.replace("{body}", "").replace("{more}", ""), "effects.knap")
    assert program is not None
    page = render_rulebook(program)
    # what a row does is its Text column, after the field's name
    assert "| Row | Title | Text | cost |" in page
    assert "| `spear` | Spear | does: gain 2 food; draw 1 card(s); note the card | `1` |" in page
    assert "| `knife` | Knife | does: gain 1 hide or draw 2 card(s) | `2` |" in page
    effects = page[page.index("## Effects") : page.index("## Components")]
    assert "### gain" in effects and "Text: gain {n} {x}" in effects
    assert "Rules nothing calls" not in page


CONDITIONS = """
ruleset "conditions"
players 2

enum item { food, hide }
var stock[player, item]: int = 0
var played[player]: list of text = []

condition has(x: item, n: int) "has {n} {x}" §C1 = stock[self, x] >= n
condition cheap() "costs at most 1" = this.cost <= 1
condition any_of(cs: list of condition) "any of {cs}" = any([holds(c, self, this) for c in cs])
condition forever() "forever" = holds(this.needs, self, this)

record card_t { cost: int, needs: list of condition }
table cards: card_t {
  spear "Spear" (1, [has(food, 2)])
  knife "Knife" (2, [any_of([has(hide, 1), cheap()])])
  stone "Stone" (0, [])
  loop "Loop" (0, [forever()])
}

round max 1 {
  stock[player(1), food] = 2
  for p in players {
    let c = choose p from [c for c in rows(cards) if c != loop and holds(c.needs, p, c)] as "a card"
    add c.id to played[p]
  }
  end game winners []
}
"""


def test_a_row_s_conditions_decide_what_is_offered():
    state = new_game(compile_text(CONDITIONS, "conditions.knap"), players=2, seed=0)
    assert state.decision().options == ("spear", "stone")
    state.apply("spear")
    assert state.is_over() and state.get("played", 1) == ["stone"]  # the only card left


def test_a_condition_is_tested_for_a_player_and_a_card():
    state = new_game(compile_text(CONDITIONS, "conditions.knap"), players=2, seed=0)
    state.set("stock", 1, "hide", 1)
    state.apply("stone")
    assert state.decision().options == ("knife", "stone")


def test_a_condition_reads_as_its_text():
    g = compile_text(CONDITIONS, "conditions.knap")
    knife = g.rows["knife"]["needs"][0]
    assert knife == ["any_of", [["has", "hide", 1], ["cheap"]]]
    assert g.describe(knife) == "any of (has 1 hide, costs at most 1)"
    assert g.phrases["has"].kind == "condition" and "has" not in g.functions


def test_conditions_tested_inside_each_other_without_end_are_stopped():
    text = CONDITIONS.replace("c != loop and ", "")
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(compile_text(text, "conditions.knap"), players=2, seed=0)
    assert err.value.code == "K416"


MEASURES = """
ruleset "measures"
players 2

enum item { food, hide }
var stock[player, item]: int = 0
var score[player]: int = 0

measure held(x: item) "each {x} held" §S1 = stock[self, x]
measure worth() "the card's worth" = this.worth
measure twice(m: measure) "twice {m}" = 2 * amount(m, self, this)

record goal_t { worth: int, counts: list of measure }
table goals: goal_t {
  herder "Herder" (3, [held(food), twice(held(hide))])
  idler "Idler" (1, [worth()])
}

round max 1 {
  stock[player(1), food] = 2
  stock[player(1), hide] = 1
  for p in players {
    score[p] = sum([amount(g.counts, p, g) for g in rows(goals)])
  }
  end game winners []
}
"""


def test_a_measure_is_a_number_a_row_carries_and_amount_reads():
    g = compile_text(MEASURES, "measures.knap")
    state = new_game(g, players=2, seed=0)
    assert state.is_over()
    # P1: food 2 + twice hide 1 = 4, plus the Idler's worth 1; P2 has only the worth
    assert [state.get("score", p) for p in (0, 1)] == [5, 1]
    assert g.describe(g.rows["herder"]["counts"]) == "(each food held, twice each hide held)"
    assert g.phrases["held"].kind == "measure"


def test_amount_reads_only_measures():
    with pytest.raises(CheckProblem) as err:
        compile_text(MEASURES.replace("amount(g.counts", "amount(g.worth"), "measures.knap")
    assert "K204" in str(err.value)


def test_a_field_s_default_is_the_value_of_a_row_that_gives_none():
    g = compile_text(
        'ruleset "defaults"\nplayers 2\n'
        "record r_t { a: int, b: int = 7, does: list of effect = [], c: int }\n"
        'effect nothing() "nothing" { pass }\n'
        "table rs: r_t { x (1)  y (1, 2, [nothing()], 3)  z (1, c=4) }\n"
        "round max 1 { end game winners [] }\n",
        "defaults.knap",
    )
    assert [g.rows[r]["b"] for r in "xyz"] == [7, 2, 7]
    assert [g.rows[r]["does"] for r in "xyz"] == [[], [["nothing"]], []]
    assert [g.rows[r]["c"] for r in "xyz"] == [None, 3, 4]


def test_a_default_must_fit_its_field():
    with pytest.raises(CheckProblem) as err:
        compile_text(
            'ruleset "defaults"\nplayers 2\nrecord r_t { a: int = true }\n'
            "table rs: r_t { x () }\nround max 1 { end game winners [] }\n",
            "defaults.knap",
        )
    assert "the default of 'a' should be int, not bool" in str(err.value)


DATA = """library "cards-data"
enum item { food, hide }
effect gain(x: item, n: int) "gain {n} {x}" §E1
condition has(x: item) "has some {x}"
record card_t { does: list of effect = [], needs: list of condition = [] }
table cards: card_t {
  spear "Spear" ([gain(food, 2)])
  stone "Stone" ()
  knife "Knife" ([gain(hide, 1)], [has(food)])
}
"""

RULES_OF_DATA = """ruleset "cards"
players 2
import "data.knap"
var stock[player, item]: int = 0
effect gain({params}) {
  stock[self, x] += n
}
condition has(x: item) = stock[self, x] > 0
round max 1 {
  for c in rows(cards) { if holds(c.needs, player(1), c) { perform c.does by player(1) with c } }
  end game winners []
}
"""


def _files(tmp_path, params: str = "x: item, n: int"):
    (tmp_path / "data.knap").write_text(DATA, encoding="utf-8")
    text = RULES_OF_DATA.replace("{params}", params)
    (tmp_path / "rules.knap").write_text(text, encoding="utf-8")
    return text, str(tmp_path / "rules.knap")


def test_an_effect_s_words_in_a_data_file_and_its_rules_in_the_file_that_imports_it(tmp_path):
    g = compile_text(*_files(tmp_path))
    state = new_game(g, players=2, seed=0)
    assert state.get("stock", 0, "food") == 2 and state.get("stock", 0, "hide") == 1
    assert g.phrases["gain"].template == "gain {n} {x}" and g.phrases["gain"].cite == "E1"
    assert g.describe(g.rows["spear"]["does"][0]) == "gain 2 food"
    assert g.describe(g.rows["knife"]["needs"][0]) == "has some food"


def test_a_data_file_with_words_only_checks_alone(tmp_path):
    _files(tmp_path)
    from dsl.pipeline import load_program

    _, diagnostics, _ = load_program(DATA, str(tmp_path / "data.knap"))
    assert [d for d in diagnostics if d.severity == "error"] == []


def test_rules_that_take_other_parameters_than_the_words_are_refused(tmp_path):
    with pytest.raises(CheckProblem) as err:
        compile_text(*_files(tmp_path, "x: item, n: int, more: int"))
    assert "K117" in str(err.value)
    assert "take (x: item, n: int, more: int), but its words say (x: item, n: int)" in str(
        err.value
    )


def test_words_without_rules_in_a_ruleset_are_warned_of_and_stop_the_game_if_used(tmp_path):
    from dsl.pipeline import load_program

    text = DATA.replace('library "cards-data"', 'ruleset "words"\nplayers 2')
    text += "round max 1 {\n  perform spear.does by player(1)\n  end game winners []\n}\n"
    _, diagnostics, _ = load_program(text, str(tmp_path / "words.knap"))
    assert {(d.code, d.severity) for d in diagnostics} == {("K232", "warning")}
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(compile_text(text, str(tmp_path / "words.knap")), players=2, seed=0)
    assert err.value.code == "K417" and "effect 'gain' has no rules" in str(err.value)
    tested = text.replace(
        "perform spear.does by player(1)", "if holds(knife.needs, player(1)) { k = 1 }"
    )
    tested = tested.replace("round max 1", "var k: int = 0\nround max 1")
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(compile_text(tested, str(tmp_path / "words.knap")), players=2, seed=0)
    assert err.value.code == "K417" and "condition 'has' has no rule" in str(err.value)


MOMENTS = """
ruleset "moments"
players 2

var strength[player]: int = 0
var seen: list of text = []
zone committed[player]: hand of tool

moment on_commit "when committed to a hunt" §H1

effect stronger(n: int) "+{n} strength" { strength[self] += n }
effect note() "note the card" { add this.id to seen }

card tool { power: int, on_commit: list of effect = [] }
table tools: tool {
  sling "Sling" (1, [stronger(1), note()])
  stone "Stone" (1)
  horn "Horn" (0, on_commit=[note(), stronger(2)])
}

round max 1 {
  add horn to committed[player(2)]
  add stone to committed[player(2)]
  add sling to committed[player(2)]
  trigger on_commit for committed[player(2)] by player(2)
  end game winners []
}
"""


def test_a_moment_makes_each_item_in_order_perform_what_it_holds_for_it():
    state = new_game(compile_text(MOMENTS, "moments.knap"), players=2, seed=0)
    assert state.get("strength", 1) == 3 and state.get("strength", 0) == 0
    assert state.get("seen") == ["horn", "sling"]


def test_a_row_s_text_says_its_moment_in_the_rulebook():
    from dsl.pipeline import load_program
    from dsl.tools.rulebook import render_rulebook

    program, _, _ = load_program(MOMENTS, "moments.knap")
    page = render_rulebook(program)
    assert "| Row | Title | Text | power |" in page
    assert (
        "| `sling` | Sling | when committed to a hunt: +1 strength; note the card | `1` |" in page
    )


def test_a_card_added_in_one_row_is_diffed_in_its_words():
    from dsl.pipeline import load_program
    from dsl.tools.diff import diff_programs

    root = Path(__file__).parent / "aurignac"
    base, _, _ = load_program(
        (root / "sapiens-positions.knap").read_text(encoding="utf-8"),
        str(root / "sapiens-positions.knap"),
    )
    sling, _, _ = load_program(
        (root / "sling.knap").read_text(encoding="utf-8"), str(root / "sling.knap")
    )
    assert base is not None and sling is not None
    (change,) = diff_programs(base, sling)
    assert change.text.endswith("— when committed to a hunt or a fight: draw 1 card(s)"), (
        change.text
    )


def test_a_replacing_effect_or_condition_may_call_the_one_it_replaces(tmp_path):
    base = RULES.replace("{body}", "  perform spear.does by player(1) with spear").replace(
        "{more}", 'condition rich() "is rich" = stock[self, food] >= 2\nvar ok: bool = false\n'
    )
    base = base.replace(
        "  end game winners []", "  ok = holds(rich(), player(1))\n  end game winners []"
    )
    (tmp_path / "effects.knap").write_text(base, encoding="utf-8")
    variant = (
        'variant "more" extends "effects.knap"\n'
        'replace effect gain(x: item, n: int) "gain {n} {x}, and 1 more" {\n'
        "  base(x, n)\n  stock[self, x] += 1\n}\n"
        'replace condition rich() "is very rich" = base() and stock[self, food] >= 3\n'
    )
    g = compile_text(variant, str(tmp_path / "more.knap"))
    state = new_game(g, players=2, seed=0)
    assert state.get("stock", 0, "food") == 3 and state.get("seen") == ["spear"]
    assert state.get("ok") is True


def test_enum_values_carry_their_words_or_glyph_as_icons_do():
    g = compile_text(
        'ruleset "icons"\nplayers 2\n'
        'enum icon §9 { spear "⚔", fire "Fire", plain }\n'
        "record c_t { icons: list of icon = [] }\n"
        "table cs: c_t { a ([spear, spear, fire])  b () }\n"
        "var n: int = 0\n"
        "round max 1 {\n  n = sum([count(c.icons, spear) for c in rows(cs)])\n"
        '  let i = choose player(1) from values(icon) as "an icon"\n  end game winners []\n}\n',
        "icons.knap",
    )
    state = new_game(g, players=2, seed=0)
    assert state.get("n") == 2
    assert [g.describe(o) for o in state.decision().options] == ["⚔", "Fire", "plain"]
    from dsl.pipeline import load_program
    from dsl.tools.rulebook import render_rulebook

    program, _, _ = load_program(
        'ruleset "icons"\nplayers 2\nenum icon { spear "⚔", plain }\n'
        "round max 1 { end game winners [] }\n",
        "icons.knap",
    )
    assert program is not None
    assert "- `icon`: `spear` (⚔), `plain`" in render_rulebook(program)


CONTEXT = """
ruleset "context"
players 2

var stock[player]: int = 5
var seen: list of text = []

moment played_against(target: player) "when played against a player" §M1

effect take(n: int) at played_against "the player it is played against loses {n}" {
  stock[target] -= n
  add this.id to seen
}
effect note() "note the card" { add this.id to seen }

card curse { played_against: list of effect = [] }
table curses: curse {
  leech "Leech" ([take(2), note()])
}

round max 1 {
{body}
  end game winners []
}
"""


def test_a_moment_passes_its_parameters_to_the_effects_that_happen_at_it():
    body = "  trigger played_against(player(2)) for [leech] by player(1)"
    state = new_game(compile_text(CONTEXT.replace("{body}", body), "c.knap"), players=2, seed=0)
    assert [state.get("stock", p) for p in (0, 1)] == [5, 3]
    assert state.get("seen") == ["leech", "leech"]


def test_an_effect_that_happens_at_a_moment_is_refused_outside_it():
    body = "  perform leech.played_against by player(1) with leech"
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(compile_text(CONTEXT.replace("{body}", body), "c.knap"), players=2, seed=0)
    assert err.value.code == "K418"
    assert "effect take happens only at moment played_against" in str(err.value)


@pytest.mark.parametrize(
    "body, code, words",
    [
        ("  perform take(1) by player(1)", "K233", "may stand only in a row's field"),
        ("  trigger played_against for [leech] by player(1)", "K203", "takes 1 argument, not 0"),
        ("  trigger played_against(3) for [leech] by player(1)", "K204", "should be player"),
    ],
)
def test_a_moment_s_effects_and_arguments_are_checked(body, code, words):
    with pytest.raises(CheckProblem) as err:
        compile_text(CONTEXT.replace("{body}", body), "c.knap")
    assert code in str(err.value) and words in str(err.value)


def test_a_trigger_without_a_performer_happens_to_nobody():
    g = compile_text(
        'ruleset "thaw"\nplayers 2\nvar melted: int = 0\nvar whose: list of player = []\n'
        'moment on_thaw "when the ice thaws"\n'
        'effect melt(n: int) "{n} slots melt" { melted += n\n add self to whose }\n'
        "record icon_t { on_thaw: list of effect = [] }\n"
        "table icons: icon_t { sun ([melt(2)])  moon () }\n"
        "round max 1 {\n  trigger on_thaw for rows(icons)\n  end game winners []\n}\n",
        "thaw.knap",
    )
    state = new_game(g, players=2, seed=0)
    assert state.get("melted") == 2 and state.get("whose") == [None]


def test_a_trigger_ordered_by_a_player_asks_which_goes_next():
    text = MOMENTS.replace(
        "trigger on_commit for committed[player(2)] by player(2)",
        "trigger on_commit for committed[player(2)] by player(2) ordered by player(2)",
    )
    assert text != MOMENTS
    state = new_game(compile_text(text, "ordered.knap"), players=2, seed=0)
    decision = state.decision()
    assert decision.player == 1 and decision.prompt == "which goes next (when committed to a hunt)"
    assert decision.options == ("horn", "stone", "sling")
    state.apply("sling")
    assert state.decision().options == ("horn", "stone")
    state.apply("stone")
    # the one card left goes without asking
    assert state.is_over()
    assert state.get("seen") == ["sling", "horn"]
    assert state.get("strength", 1) == 3
