"""Random play's sharper findings: arms never taken, rows ruled out by design, the
confidence a number of games gives, and replays that play the file linted."""

from __future__ import annotations

import shutil

from dsl.pipeline import compile_path, compile_text
from dsl.resources import rulesets_root
from interpreter.coverage import CONFIDENT_GAMES, dynamic_findings
from interpreter.coverage_rows import excluded
from interpreter.explain import find_choose

ARMS = """ruleset "arms"
players 2
enum weather { sun, rain, snow }
var total[player]: int = 0
proc harvest(p: player, n: int) §R1 {
  if n > 6 { total[p] += 100 } else { total[p] += n }
}
proc weathered(p: player, w: weather) §R2 {
  match w { sun { total[p] += 1 } rain { total[p] += 2 } snow { total[p] += 3 } }
}
round max 6 §R {
  for p in players {
    let n = roll 1d6
    harvest(p, n)
    if n > 0 { total[p] += 1 } else { }
    let w = choose p from [sun, rain] as "the weather"
    weathered(p, w)
    if total[p] > 1000 {
      if n == 1 { total[p] += 1 }
    }
  }
}
"""


def test_an_arm_that_can_never_fire_is_reported_with_its_citation():
    found = dynamic_findings(compile_text(ARMS, "arms.knap"), None, 10, 0)
    arms = [(d.code, d.span.line, d.cite) for d in found if d.code == "K858"]
    # `n > 6` on a d6; the `snow` arm (never offered); the `if` around the nested one;
    # not the empty `else {}`, and not the nested `if`, whose statement never ran
    assert arms == [("K858", 6, "R1"), ("K858", 9, "R2"), ("K858", 19, "R")]
    messages = [d.message for d in found if d.code == "K858"]
    assert messages[0].startswith("the `if n > 6` arm never ran in 10 random games")
    assert messages[1].startswith("the `snow` arm of `match w` never ran")


SHOP = """
ruleset "shop"
players 1
record item {{ cost: int, hidden: bool }}
table goods: item {{
  bread "Bread" (1, false)  salt "Salt" (2, false)  crown "Crown" (10, false)
  ghost "Ghost" (1, true)
}}
var coins: int = 0
round max 3 {{
  coins += roll 1d3
  let g = choose player(1) from [x for x in rows(goods) if not x.hidden and x.cost <= coins]
    + ["save"] as "buy something" §shop
  if g != "save" {{ coins -= g.cost }}
  if round_number == 3 {{ end game winners [] }}
}}
{extra}"""


def shop(extra: str = ""):
    return compile_text(SHOP.format(extra=extra), "shop.knap")


def test_rows_ruled_out_by_their_printed_fields_are_not_findings():
    game = shop()
    choose, _ = find_choose(game.program, game.sites[0].span)
    assert "ghost" in excluded(game, choose.options)
    assert not {"bread", "salt", "crown"} & excluded(game, choose.options)
    (finding,) = [d for d in dynamic_findings(game, None, CONFIDENT_GAMES, 0) if d.code == "K857"]
    assert "never Crown;" in finding.message and "Ghost" not in finding.message
    assert "2 of the 3 rows of 'goods' it can offer" in finding.message
    assert f"one game in {CONFIDENT_GAMES // 3} or more" in finding.message


def test_a_row_missed_in_too_few_games_is_not_a_finding():
    found = dynamic_findings(shop(), None, CONFIDENT_GAMES - 1, 0)
    assert [d for d in found if d.code == "K857"] == []


MENU = """ruleset "menu"
players 1
var wine_ok: bool = false
round max 2 §M {
  let a = choose player(1) from [x for x in ["tea", "cake", "wine"] if x != "wine"]
    as "order" §M1
  let b = choose player(1) from [x for x in ["tea", "cake", "wine"] if x != "wine" or wine_ok]
    as "again" §M2
  let c = choose player(1) from ["tea", "cake"] as "third" §M3
  if round_number == 2 { end game winners [] }
}
"""


def test_a_written_option_never_offered_is_reported():
    found = dynamic_findings(compile_text(MENU, "menu.knap"), None, CONFIDENT_GAMES, 0)
    # `order` rules wine out by its own value; `third` always offers both; `again` is
    # kept from wine by a variable that never changes
    assert [(d.code, d.cite) for d in found] == [("K859", "M2")]
    assert "offered 2 of its 3 written options" in found[0].message
    assert "never wine;" in found[0].message


def test_a_replay_hint_plays_the_copy_that_was_linted(tmp_path):
    copy = tmp_path / "tic-tac-toe.knap"
    shutil.copy(rulesets_root() / "classics" / "tic-tac-toe.knap", copy)
    text = copy.read_text(encoding="utf-8")
    # a rule that fails at run time, in the copy only
    text = text.replace("round", "var broken: list of int = []\nround", 1)
    copy.write_text(text, encoding="utf-8")
    game = compile_path(copy)
    assert game.name == "tic-tac-toe"
    from interpreter.coverage import _name

    assert _name(game) == str(copy)
    assert _name(compile_path(rulesets_root() / "classics" / "tic-tac-toe.knap")) == ("tic-tac-toe")


LURE = """ruleset "lure"
players 2
var total[player]: int = 0
var turns: int = 0
proc bust(p: player) §L2 { total[p] -= 100 }
round max 5 §L1 {
  for p in players {
    let c = choose p from ["safe", "risky"] as "how to play"
    if c == "risky" { bust(p) } else { total[p] += 1 }
  }
  turns += 1
  if turns == 3 { end game winners [p for p in players if total[p] > 0] }
}
score(p) = total[p]
"""


def test_what_a_searching_agent_plays_while_it_thinks_is_not_coverage():
    # greedy tries "risky" on a copy (and so runs `bust`) before it always plays "safe"
    from interpreter.agents import Seating

    game = compile_text(LURE, "lure.knap")
    found = dynamic_findings(game, None, 5, 0, Seating(("greedy",)))
    assert [(d.code, d.cite) for d in found if d.code == "K851"] == [("K851", "L2")]
    assert "proc 'bust' never ran in 5 games of greedy" in found[0].message
    assert not [d for d in dynamic_findings(game, None, 5, 0) if d.code == "K851"]


def test_games_shared_among_processes_find_what_one_process_does():
    from interpreter.agents import Seating

    path = rulesets_root() / "classics" / "pig.knap"
    game = compile_path(path)
    seating = Seating(("flatmc", "random"), ("3",), depth=10)
    one = dynamic_findings(game, None, 6, 0, seating)
    two = dynamic_findings(game, None, 6, 0, seating, jobs=2)
    assert [d.to_json() for d in two] == [d.to_json() for d in one]
