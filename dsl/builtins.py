"""The language's built-in names and functions.

Each built-in says how many arguments it takes, whether it always returns a new list
(`fresh`, so assignments need not copy), its result type for the checker, and how to build
its closure from the compiled arguments. Names that read the state (`players`) are closures.
"""

from __future__ import annotations

from typing import Any, Callable

import attrs

from dsl import ast


@attrs.frozen
class Builtin:
    name: str
    arity: tuple[int, int]
    result: Any  # a type, or a callable(arg_types) -> type
    build: Callable  # (symbols, arg_asts, arg_closures) -> closure
    fresh: bool = False
    doc: str = ""


def _pure(fn, fresh=False):
    """A built-in that just applies a Python function to its evaluated arguments."""
    def build(sym, asts, args):
        if len(args) == 1:
            (a,) = args
            return lambda st, L: fn(a(st, L))
        if len(args) == 2:
            a, b = args
            return lambda st, L: fn(a(st, L), b(st, L))
        return lambda st, L: fn(*[a(st, L) for a in args])
    return build


def _unique(items):
    return list(dict.fromkeys(items))


def _half_up(n):
    return -(-n // 2)


def _player(st, n):
    if type(n) is not int or not 1 <= n <= st.n:
        from interpreter.state import RulesetFault

        raise RulesetFault("K408", f"there is no player {n!r} in a {st.n}-player game")
    return n - 1


def _build_player(sym, asts, args):
    (a,) = args
    return lambda st, L: _player(st, a(st, L))


def _build_seats_from(sym, asts, args):
    (a,) = args

    def seats(st, L):
        p, n = a(st, L), st.n
        return [(p + i) % n for i in range(n)]
    return seats


def _build_next_player(sym, asts, args):
    (a,) = args
    return lambda st, L: (a(st, L) + 1) % st.n


def _build_adjacent(sym, asts, args):
    (a,) = args
    adjacency = sym.adjacency
    return lambda st, L: list(adjacency[a(st, L)])


def _build_distance(sym, asts, args):
    from dsl.compile import all_pairs_distance

    a, b = args
    table = all_pairs_distance(sym.adjacency)
    far = len(table) + 1
    return lambda st, L: table[a(st, L)].get(b(st, L), far)


def _constant_list(kind: str, source: Callable):
    def build(sym, asts, args):
        (arg,) = asts
        items = source(sym, arg.name) if isinstance(arg, ast.NameRef) else []
        return lambda st, L: list(items)
    return build


def _list_of(t):
    return ("list", t)


def _elem(types):
    t = types[0] if types else "any"
    return t[1] if isinstance(t, tuple) else "any"


def _same(types):
    return types[0] if types else "any"


BUILTINS: dict[str, Builtin] = {b.name: b for b in [
    Builtin("len", (1, 1), "int", _pure(len), doc="number of items in a list"),
    Builtin("sum", (1, 1), "int", _pure(sum), doc="sum of a list of numbers"),
    Builtin("min", (1, 1), _elem, _pure(min), doc="smallest item of a non-empty list"),
    Builtin("max", (1, 1), _elem, _pure(max), doc="largest item of a non-empty list"),
    Builtin("any", (1, 1), "bool", _pure(any), doc="true if some item is true"),
    Builtin("all", (1, 1), "bool", _pure(all), doc="true if every item is true"),
    Builtin("sorted", (1, 1), _same, _pure(sorted), fresh=True, doc="the list in ascending order"),
    Builtin("reversed", (1, 1), _same, _pure(lambda x: list(reversed(x))), fresh=True,
            doc="the list back to front"),
    Builtin("unique", (1, 1), _same, _pure(_unique), fresh=True,
            doc="the list without repeats, first occurrences kept"),
    Builtin("first", (1, 1), _elem, _pure(lambda x: x[0]), doc="the first item"),
    Builtin("last", (1, 1), _elem, _pure(lambda x: x[-1]), doc="the last item"),
    Builtin("abs", (1, 1), "int", _pure(abs), doc="absolute value"),
    Builtin("count", (2, 2), "int", _pure(lambda x, v: x.count(v)), doc="occurrences of a value"),
    Builtin("index", (2, 2), "int", _pure(lambda x, v: x.index(v)), doc="position of a value (from 0)"),
    Builtin("range", (2, 2), _list_of("int"), _pure(lambda a, b: list(range(a, b))), fresh=True,
            doc="the integers a, a+1, ..., b-1"),
    Builtin("half_up", (1, 1), "int", _pure(_half_up), doc="half, rounded up"),
    Builtin("half_down", (1, 1), "int", _pure(lambda n: n // 2), doc="half, rounded down"),
    Builtin("player", (1, 1), "player", _build_player, doc="the player in seat n (from 1)"),
    Builtin("seat", (1, 1), "int", _pure(lambda p: p + 1), doc="a player's seat number (from 1)"),
    Builtin("seats_from", (1, 1), _list_of("player"), _build_seats_from, fresh=True,
            doc="every player in seat order, starting with the given one"),
    Builtin("next_player", (1, 1), "player", _build_next_player, doc="the next player in seat order"),
    Builtin("adjacent", (1, 1), lambda ts: _list_of(ts[0] if ts else "any"),
            _build_adjacent, fresh=True, doc="the neighbours of a map node, in declared order"),
    Builtin("distance", (2, 2), "int", _build_distance,
            doc="number of edges on the shortest path between two nodes"),
    Builtin("nodes", (1, 1), "nodes", _constant_list("map", lambda s, n: s.map_nodes.get(n, [])),
            fresh=True, doc="the nodes of a map, in declared order"),
    Builtin("rows", (1, 1), "rows", _constant_list("table", lambda s, n: s.table_rows.get(n, [])),
            fresh=True, doc="the rows of a table, copies repeated"),
    Builtin("values", (1, 1), "values",
            _constant_list("enum", lambda s, n: list(s.decls[n].values) if s.kind.get(n) == "enum" else []),
            fresh=True, doc="the values of an enum, in declared order"),
]}

STATE_NAMES: dict[str, Callable] = {
    "players": lambda st, L: st.players,
    "num_players": lambda st, L: st.n,
    "round_number": lambda st, L: st.rounds,
}
STATE_TYPES = {"players": ("list", "player"), "num_players": "int", "round_number": "int"}
