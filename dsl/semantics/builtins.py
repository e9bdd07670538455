"""The language's built-in names and functions.

Each built-in says how many arguments it takes and of what types (`takes`: one signature
per number of arguments), whether it always returns a new list (`fresh`, so assignments
need not copy), its result type for the checker, and the Python
source it compiles to (a template over its arguments' sources). The helpers the templates
call (`_player`, `_order_by`, ...) are runtime code: they live in interpreter/core/runtime.py,
whose namespace the generated code runs in.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from dsl.semantics.types import ANY, BOOL, INT, PLAYER, ListOf, Type


@attrs.frozen
class Builtin:
    name: str
    arity: tuple[int, int]
    result: Type | Callable[[list[Type]], Type] | None  # None: the checker works it out
    template: str  # Python source with {0}, {1} for the arguments' sources
    fresh: bool = False
    doc: str = ""
    # the types the arguments must fit, one signature per number of arguments; empty: the
    # checker types the arguments itself (holds, amount, affordable, nodes, rows, values)
    takes: tuple[tuple[Type, ...], ...] = ()

    def signature(self, n: int) -> tuple[Type, ...] | None:
        """The argument types of a call with `n` arguments, if declared."""
        return next((sig for sig in self.takes if len(sig) == n), None)


def _elem(types: list[Type]) -> Type:
    t = types[0] if types else ANY
    return t.elem if isinstance(t, ListOf) else ANY


def _smallest(types: list[Type]) -> Type:
    return _elem(types) if len(types) == 1 else types[0]


def _same(types: list[Type]) -> Type:
    return types[0] if types else ANY


def _list_of_first(types: list[Type]) -> Type:
    return ListOf(types[0] if types else ANY)


BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in [
        Builtin(
            "len", (1, 1), INT, "len({0})", doc="number of items in a list", takes=((ListOf(ANY),),)
        ),
        Builtin(
            "sum", (1, 1), INT, "sum({0})", doc="sum of a list of numbers", takes=((ListOf(INT),),)
        ),
        Builtin(
            "min",
            (1, 2),
            _smallest,
            "min({args})",
            doc="the smaller of two numbers, or the smallest item of a non-empty list",
            takes=((ListOf(INT),), (INT, INT)),
        ),
        Builtin(
            "max",
            (1, 2),
            _smallest,
            "max({args})",
            doc="the larger of two numbers, or the largest item of a non-empty list",
            takes=((ListOf(INT),), (INT, INT)),
        ),
        Builtin(
            "any",
            (1, 1),
            BOOL,
            "any({0})",
            doc="true if some item is true; stops at the first true one",
            takes=((ListOf(BOOL),),),
        ),
        Builtin(
            "all",
            (1, 1),
            BOOL,
            "all({0})",
            doc="true if every item is true; stops at the first false one",
            takes=((ListOf(BOOL),),),
        ),
        Builtin(
            "sorted",
            (1, 1),
            _same,
            "sorted({0})",
            fresh=True,
            doc="the list in ascending order",
            takes=((ListOf(ANY),),),
        ),
        Builtin(
            "reversed",
            (1, 1),
            _same,
            "list(reversed({0}))",
            fresh=True,
            doc="the list back to front",
            takes=((ListOf(ANY),),),
        ),
        Builtin(
            "unique",
            (1, 1),
            _same,
            "_unique({0})",
            fresh=True,
            doc="the list without repeats, first occurrences kept",
            takes=((ListOf(ANY),),),
        ),
        Builtin("first", (1, 1), _elem, "({0})[0]", doc="the first item", takes=((ListOf(ANY),),)),
        Builtin("last", (1, 1), _elem, "({0})[-1]", doc="the last item", takes=((ListOf(ANY),),)),
        Builtin("abs", (1, 1), INT, "abs({0})", doc="absolute value", takes=((INT,),)),
        Builtin(
            "count",
            (2, 2),
            INT,
            "({0}).count({1})",
            doc="occurrences of a value in a list",
            takes=((ListOf(ANY), ANY),),
        ),
        Builtin(
            "index",
            (2, 2),
            INT,
            "({0}).index({1})",
            doc="position of a value (from 0)",
            takes=((ListOf(ANY), ANY),),
        ),
        Builtin(
            "range",
            (2, 2),
            ListOf(INT),
            "_range(st, {0}, {1})",
            fresh=True,
            doc="the integers a, a+1, ..., b-1",
            takes=((INT, INT),),
        ),
        Builtin(
            "order_by",
            (2, 2),
            _same,
            "_order_by({0}, {1})",
            fresh=True,
            doc="the items sorted by a list of keys, one per item (stable: ties keep their order)",
            takes=((ListOf(ANY), ListOf(ANY)),),
        ),
        Builtin(
            "dice",
            (2, 2),
            ListOf(INT),
            "_dice(st, {0}, {1})",
            fresh=True,
            doc="roll a computed number of dice: dice(n, 6) is a list of n six-sided results",
            takes=((INT, INT),),
        ),
        Builtin(
            "half_up", (1, 1), INT, "(-(-({0}) // 2))", doc="half, rounded up", takes=((INT,),)
        ),
        Builtin(
            "half_down", (1, 1), INT, "(({0}) // 2)", doc="half, rounded down", takes=((INT,),)
        ),
        Builtin(
            "player",
            (1, 1),
            PLAYER,
            "_player(st, {0})",
            doc="the player in seat n (from 1)",
            takes=((INT,),),
        ),
        Builtin(
            "seat",
            (1, 1),
            INT,
            "(({0}) + 1)",
            doc="a player's seat number (from 1)",
            takes=((PLAYER,),),
        ),
        Builtin(
            "seats_from",
            (1, 1),
            ListOf(PLAYER),
            "_seats_from(st, {0})",
            fresh=True,
            doc="every player in seat order, starting with the given one",
            takes=((PLAYER,),),
        ),
        Builtin(
            "next_player",
            (1, 1),
            PLAYER,
            "((({0}) + 1) % st.n)",
            doc="the next player in seat order",
            takes=((PLAYER,),),
        ),
        Builtin(
            "adjacent",
            (1, 1),
            _list_of_first,
            "list(_ADJ[{0}])",
            fresh=True,
            doc="the neighbours of a map node, in declared order",
        ),
        Builtin(
            "distance",
            (2, 2),
            INT,
            "_DIST[{0}].get({1}, _FAR)",
            doc="number of edges on the shortest path between two nodes",
        ),
        Builtin(
            "holds",
            (2, 3),
            BOOL,
            "_holds(_CONDITIONS, st, {args})",
            doc="holds(c, p) or holds(c, p, x): the condition c (or every one of a list) is "
            "true of player p (and the card x)",
        ),
        Builtin(
            "amount",
            (2, 3),
            INT,
            "_amount(_CONDITIONS, st, {args})",
            doc="amount(m, p) or amount(m, p, x): the measure m of player p (and the card x); "
            "of a list of measures, their sum",
        ),
        Builtin(
            "affordable",
            (2, 2),
            BOOL,
            "",
            doc="affordable(cost, pool[keys]): the pool holds every kind the cost (a list of "
            "the pool's kinds, repeated for more) names, as often as it names it",
        ),
        Builtin("nodes", (1, 1), None, "", fresh=True, doc="the nodes of a map, in declared order"),
        Builtin("rows", (1, 1), None, "", fresh=True, doc="the rows of a table, copies repeated"),
        Builtin(
            "values",
            (1, 1),
            None,
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
    "decisions_taken": "st.decisions",
}
STATE_TYPES = {
    "players": ListOf(PLAYER),
    "num_players": INT,
    "round_number": INT,
    "winners": ListOf(PLAYER),
    "game_over": BOOL,
    "decisions_taken": INT,
}

# The names an effect's or a condition's body has without declaring them: who performs it or
# is tested, and the card, `this` (`perform e by p with c`, `holds(c, p, c)`).
EFFECT_CONTEXT = ("self", "this")
