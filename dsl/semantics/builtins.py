"""The language's built-in names and functions.

Each built-in says how many arguments it takes, whether it always returns a new list
(`fresh`, so assignments need not copy), its result type for the checker, and the Python
source it compiles to (a template over its arguments' sources). The helpers the templates
call (`_player`, `_order_by`, ...) are runtime code: they live in interpreter/core/runtime.py,
whose namespace the generated code runs in.
"""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class Builtin:
    name: str
    arity: tuple[int, int]
    result: Any  # a type, or a callable(arg_types) -> type
    template: str  # Python source with {0}, {1} for the arguments' sources
    fresh: bool = False
    doc: str = ""


def _list_of(t):
    return ("list", t)


def _elem(types):
    t = types[0] if types else "any"
    return t[1] if isinstance(t, tuple) else "any"


def _smallest(types):
    return _elem(types) if len(types) == 1 else types[0]


def _same(types):
    return types[0] if types else "any"


BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in [
        Builtin("len", (1, 1), "int", "len({0})", doc="number of items in a list"),
        Builtin("sum", (1, 1), "int", "sum({0})", doc="sum of a list of numbers"),
        Builtin(
            "min",
            (1, 2),
            _smallest,
            "min({args})",
            doc="the smaller of two numbers, or the smallest item of a non-empty list",
        ),
        Builtin(
            "max",
            (1, 2),
            _smallest,
            "max({args})",
            doc="the larger of two numbers, or the largest item of a non-empty list",
        ),
        Builtin("any", (1, 1), "bool", "any({0})", doc="true if some item is true"),
        Builtin("all", (1, 1), "bool", "all({0})", doc="true if every item is true"),
        Builtin(
            "sorted", (1, 1), _same, "sorted({0})", fresh=True, doc="the list in ascending order"
        ),
        Builtin(
            "reversed",
            (1, 1),
            _same,
            "list(reversed({0}))",
            fresh=True,
            doc="the list back to front",
        ),
        Builtin(
            "unique",
            (1, 1),
            _same,
            "_unique({0})",
            fresh=True,
            doc="the list without repeats, first occurrences kept",
        ),
        Builtin("first", (1, 1), _elem, "({0})[0]", doc="the first item"),
        Builtin("last", (1, 1), _elem, "({0})[-1]", doc="the last item"),
        Builtin("abs", (1, 1), "int", "abs({0})", doc="absolute value"),
        Builtin("count", (2, 2), "int", "({0}).count({1})", doc="occurrences of a value in a list"),
        Builtin("index", (2, 2), "int", "({0}).index({1})", doc="position of a value (from 0)"),
        Builtin(
            "range",
            (2, 2),
            _list_of("int"),
            "list(range({0}, {1}))",
            fresh=True,
            doc="the integers a, a+1, ..., b-1",
        ),
        Builtin(
            "order_by",
            (2, 2),
            _same,
            "_order_by({0}, {1})",
            fresh=True,
            doc="the items sorted by a list of keys, one per item (stable: ties keep their order)",
        ),
        Builtin(
            "dice",
            (2, 2),
            _list_of("int"),
            "[_die(st, {1}) for _ in range({0})]",
            fresh=True,
            doc="roll a computed number of dice: dice(n, 6) is a list of n six-sided results",
        ),
        Builtin("half_up", (1, 1), "int", "(-(-({0}) // 2))", doc="half, rounded up"),
        Builtin("half_down", (1, 1), "int", "(({0}) // 2)", doc="half, rounded down"),
        Builtin(
            "player", (1, 1), "player", "_player(st, {0})", doc="the player in seat n (from 1)"
        ),
        Builtin("seat", (1, 1), "int", "(({0}) + 1)", doc="a player's seat number (from 1)"),
        Builtin(
            "seats_from",
            (1, 1),
            _list_of("player"),
            "_seats_from(st, {0})",
            fresh=True,
            doc="every player in seat order, starting with the given one",
        ),
        Builtin(
            "next_player",
            (1, 1),
            "player",
            "((({0}) + 1) % st.n)",
            doc="the next player in seat order",
        ),
        Builtin(
            "adjacent",
            (1, 1),
            lambda ts: _list_of(ts[0] if ts else "any"),
            "list(_ADJ[{0}])",
            fresh=True,
            doc="the neighbours of a map node, in declared order",
        ),
        Builtin(
            "distance",
            (2, 2),
            "int",
            "_DIST[{0}].get({1}, _FAR)",
            doc="number of edges on the shortest path between two nodes",
        ),
        Builtin(
            "nodes", (1, 1), "nodes", "", fresh=True, doc="the nodes of a map, in declared order"
        ),
        Builtin("rows", (1, 1), "rows", "", fresh=True, doc="the rows of a table, copies repeated"),
        Builtin(
            "values",
            (1, 1),
            "values",
            "",
            fresh=True,
            doc="the values of an enum, in declared order",
        ),
    ]
}

STATE_NAMES: dict[str, str] = {
    "players": "st.players",
    "num_players": "st.n",
    "round_number": "st.rounds",
    "winners": "list(st.winners or [])",
    "game_over": "(st.winners is not None)",
}
STATE_TYPES = {
    "players": ("list", "player"),
    "num_players": "int",
    "round_number": "int",
    "winners": ("list", "player"),
    "game_over": "bool",
}
