"""Every built-in function and name, evaluated inside a small ruleset."""

from __future__ import annotations

import pytest

from dsl.errors import KnapperError
from dsl.pipeline import compile_text
from dsl.semantics.builtins import BUILTINS
from dsl.semantics.types import ANY, BOOL, INT, PLAYER, ListOf
from interpreter.api import new_game

BASE = """
ruleset "builtins"
players 3
enum color {{ red, green, blue }}
record card {{ value: int }}
table cards: card {{ a (1) x 2  b (5) }}
map m {{ node n1 node n2 node n3 node n4  n1 -- n2  n2 -- n3 }}
condition seat_at_least(n: int) = seat(self) >= n
condition worth(n: int) = this.value >= n
measure seat_times(n: int) = seat(self) * n
measure value_of() = this.value
enum good {{ wood, hide }}
pool stock[player] of good = 1
var result: {type} = {default}
round max 1 {{
  result = {expr}
  end game winners []
}}
"""

CASES = [
    ("int", "0", "len([1, 2, 3])", 3),
    ("int", "0", "sum([1, 2, 3])", 6),
    ("int", "0", "min([4, 2, 9])", 2),
    ("int", "0", "min(4, 2)", 2),
    ("int", "0", "max([4, 2, 9])", 9),
    ("int", "0", "max(4, 7)", 7),
    ("bool", "false", "any([false, true])", True),
    ("bool", "true", "all([true, false])", False),
    ("list of int", "[]", "sorted([3, 1, 2])", [1, 2, 3]),
    ("list of int", "[]", "reversed([1, 2, 3])", [3, 2, 1]),
    ("list of int", "[]", "unique([2, 1, 2, 3, 1])", [2, 1, 3]),
    ("int", "0", "first([7, 8])", 7),
    ("int", "0", "last([7, 8])", 8),
    ("int", "0", "abs(0 - 4)", 4),
    ("int", "0", "count([1, 2, 1], 1)", 2),
    ("int", "0", "index([5, 6, 7], 7)", 2),
    ("list of int", "[]", "range(2, 5)", [2, 3, 4]),
    ("int", "0", "half_up(7)", 4),
    ("int", "0", "half_down(7)", 3),
    ("player", "player(1)", "player(3)", 2),
    ("int", "0", "seat(player(2))", 2),
    ("list of player", "[]", "seats_from(player(2))", [1, 2, 0]),
    ("player", "player(1)", "next_player(player(3))", 0),
    ("list of m", "[]", "adjacent(n2)", ["n1", "n3"]),
    ("int", "0", "distance(n1, n3)", 2),
    ("int", "0", "distance(n1, n4)", 5),
    ("list of m", "[]", "nodes(m)", ["n1", "n2", "n3", "n4"]),
    ("list of card", "[]", "rows(cards)", ["a", "a", "b"]),
    ("list of color", "[]", "values(color)", ["red", "green", "blue"]),
    ("list of player", "[]", "order_by(players, [2, 0, 1])", [1, 2, 0]),
    ("int", "0", "len(dice(num_players, 6))", 3),
    ("int", "0", "num_players", 3),
    ("list of player", "[]", "players", [0, 1, 2]),
    ("int", "0", "round_number", 1),
    ("int", "0", "sum([c.value for c in rows(cards)])", 7),
    ("bool", "false", "holds(seat_at_least(2), player(2))", True),
    ("bool", "true", "holds([seat_at_least(1), seat_at_least(3)], player(2))", False),
    ("bool", "false", "holds([], player(1))", True),
    ("bool", "false", "holds(worth(5), player(1), b)", True),
    ("int", "0", "amount(seat_times(10), player(2))", 20),
    ("int", "0", "amount([seat_times(1), value_of()], player(3), b)", 8),
    ("int", "7", "amount([], player(1))", 0),
    ("bool", "false", "affordable([wood, hide], stock[player(1)])", True),
    ("bool", "true", "affordable([wood, wood], stock[player(1)])", False),
]


@pytest.mark.parametrize("type_, default, expr, expected", CASES, ids=[c[2] for c in CASES])
def test_builtin(type_, default, expr, expected):
    text = BASE.format(type=type_, default=default, expr=expr)
    game = compile_text(text, "builtins.knap")
    assert new_game(game, players=3, seed=1).get("result") == expected


def test_every_builtin_function_is_covered_and_documented():
    covered = " ".join(case[2] for case in CASES)
    for name, spec in BUILTINS.items():
        assert f"{name}(" in covered, name
        assert spec.doc, name


# a value of a type no declared argument of a built-in takes: each declared argument given
# it is refused with K204 at that argument (ints are given a list, lists and players a text)
def _wrong_value(want) -> str:
    return "[1]" if want == INT else '"a text"'


@pytest.mark.parametrize(
    "name,n,position",
    [
        (name, len(sig), i)
        for name, spec in BUILTINS.items()
        for sig in spec.takes
        for i, want in enumerate(sig)
        if want != ANY
    ],
)
def test_a_builtin_refuses_an_argument_of_the_wrong_type(name, n, position):
    sig = BUILTINS[name].signature(n)
    assert sig is not None
    right = {INT: "1", BOOL: "true", PLAYER: "player(1)", ListOf(INT): "[1]"}
    args = [
        _wrong_value(want) if i == position else right.get(want, "[1]")
        for i, want in enumerate(sig)
    ]
    text = BASE.format(type="int", default="0", expr=f"len([{name}({', '.join(args)})])")
    with pytest.raises(KnapperError) as err:
        compile_text(text, "builtins.knap")
    assert f"K204]: argument {position + 1} of {name}()" in str(err.value)
