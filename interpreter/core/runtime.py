"""What compiled rules call while a game runs: dice, list moves, faults, the end, and the
helpers of the built-in functions.

`dsl.codegen` generates code that runs in a namespace holding `RUNTIME`; these functions are
the only things that code calls besides Python itself.
"""

from __future__ import annotations

from collections.abc import Callable

from interpreter.core import rng as _rng
from interpreter.core.budget import HELPERS as _BUDGET
from interpreter.core.budget import _elements
from interpreter.core.rng import INC as _INC
from interpreter.core.rng import MASK as _MASK
from interpreter.core.rng import MUL as _MUL
from interpreter.core.state import (
    END,
    RulesetFault,
    _offers,
    _parameter_values,
    _running,
    _waiting_inside,
    copy_deep,
)


def _die(st, sides: int) -> int:
    if st.script:
        if st.script.__class__ is not list:  # a chance tap (interpreter/core/chance.py)
            return st.script.roll(st, sides)
        value = st.script.pop(0)
        if not 1 <= value <= sides:
            raise RulesetFault("K406", f"scripted die {value} does not fit a {sides}-sided die")
        return value
    s = (st.rng * _MUL + _INC) & _MASK  # _rng.step, inlined: dice are hot
    st.rng = s
    return ((s >> 32) * sides >> 32) + 1


def _dice(st, n: int, sides: int) -> list:
    """`dice(n, sides)`: n results, each die charged to the budget as an element."""
    _elements(st, n)
    return [_die(st, sides) for _ in range(n)]


def _shuffle(st, items: list) -> None:
    if st.script.__class__ is not list:  # a chance tap (interpreter/core/chance.py)
        return st.script.shuffle(st, items)
    for i in range(len(items) - 1, 0, -1):
        s = _rng.step(st.rng)
        st.rng = s
        j = ((s >> 32) * (i + 1)) >> 32
        items[i], items[j] = items[j], items[i]


def _face(rows: dict, flipped: list, card, first: str, second: str):
    """A face of a two-sided card (`c.up`: `first` is the face up unless it was turned over)."""
    return rows[card][second if card in flipped else first]


def _remove(items: list, value, where: str) -> None:
    if value not in items:
        raise RulesetFault("K403", f"{value!r} is not in {where}")
    items.remove(value)


def _row_add(slots: list, value, where: str) -> None:
    for i, here in enumerate(slots):
        if here is None:
            slots[i] = value
            return
    raise RulesetFault("K412", f"{where} has no empty slot")


def _row_put(slots: list, index: int, value, where: str) -> None:
    if slots[index] is not None:
        raise RulesetFault("K413", f"slot {index} of {where} is taken")
    slots[index] = value


def _row_take(slots: list, value, where: str) -> None:
    if value is None or value not in slots:
        raise RulesetFault("K403", f"{value!r} is not in {where}")
    slots[slots.index(value)] = None


def _holds(table: dict, st, tested, who: int, card=None) -> bool:
    """`holds(c, p, card)`: a condition's value (`[tag, *arguments]`) is true of `who`, or
    every one of a list of them is. `table` is the compiled conditions by tag."""
    if type(tested) is list and tested and type(tested[0]) is str:
        try:
            return bool(table[tested[0]](st, who, card, *tested[1:]))
        except RecursionError:
            raise RulesetFault(
                "K416", "conditions tested inside conditions went on without end"
            ) from None
    return all(_holds(table, st, one, who, card) for one in tested)


def _amount(table: dict, st, measured, who: int, card=None) -> int:
    """`amount(m, p, card)`: a measure's value (`[tag, *arguments]`) for `who`, or the sum of
    a list of them. `table` is the compiled measures by tag."""
    if type(measured) is list and measured and type(measured[0]) is str:
        try:
            return table[measured[0]](st, who, card, *measured[1:])
        except RecursionError:
            raise RulesetFault(
                "K416", "measures read inside measures went on without end"
            ) from None
    return sum(_amount(table, st, one, who, card) for one in measured)


def _affordable(cells: list, start: int, kinds: dict, cost) -> bool:
    """`affordable(cost, pool[keys])`: the row of counts at `start` holds the cost, a list of
    kinds repeated for more."""
    return all(cells[start + kinds[k]] >= cost.count(k) for k in set(cost))


def _spend(cells, start, kinds, into, into_start, into_kinds, cost, where: str) -> None:
    """`spend cost from pool[keys] to other[keys]`: one of each kind named leaves the pool
    (and joins the other). The whole cost or nothing: a short pool stops the game."""
    if not _affordable(cells, start, kinds, cost):
        short = [k for k in set(cost) if cells[start + kinds[k]] < cost.count(k)]
        raise RulesetFault("K419", f"{where} holds too few {sorted(short)} to spend {cost!r}")
    for k in cost:
        cells[start + kinds[k]] -= 1
        if into is not None:
            into[into_start + into_kinds[k]] += 1


def _standing(st, table: tuple, defer: dict, rules: tuple[int, ...]):
    """Start the first standing rule of `rules` whose condition holds for some values of its
    parameters, tried in order, and that is not already running for them: push its frame and
    return (rule, values); None if there is none, or if a frame waits inside a
    `simultaneously` block, whose own test comes after it. `table` is `_STANDING`, `defer`
    `_DEFER` (see `dsl.codegen.compile`)."""
    for r in rules:
        _name, proc, test, domains, room = table[r]
        for values in _parameter_values(st, domains):
            if test(st, *values) and not _running(st, proc, values):
                # the running frame's own position is not kept up to date, and its tests
                # inside a block are left out anyway: only the frames below it count
                if defer and _waiting_inside(st.stack[:-1], defer):
                    return None
                st.stack.append([proc, 0, list(values) + [None] * room])
                return (r, values)
    return None


def _settled(st, table: tuple, fired: tuple) -> None:
    """A standing rule's body has returned: it must have made its condition false, or it
    would start again at once, for ever."""
    r, values = fired
    name, _proc, test, _domains, _room = table[r]
    if test(st, *values):
        shown = ", ".join(repr(v) for v in values)
        raise RulesetFault(
            "K420",
            f"the standing rule {name!r} ended with its condition still true for ({shown}); "
            "it would run again for ever",
        )


def _no_options(st, site: int):
    raise RulesetFault("K402", f"the decision {st.game.sites[site].prompt!r} has no options")


def _not_a_player(who):
    raise RulesetFault("K408", f"{who!r} is not a player")


def _end(st, winners) -> int:
    winners = list(winners)
    for p in winners:
        if type(p) is not int or not 0 <= p < st.n:
            raise RulesetFault("K408", f"{p!r} is not a player")
    st.winners = winners
    st.pending = None
    if st.trace is not None:
        st.trace.append(("end", winners))
    return END


def _stop(st) -> int:
    """A scenario's stop after its `run`: nothing is pending and the game is not over."""
    st.pending = None
    return END


def _fault(code: str, message: str):
    raise RulesetFault(code, message)


def copy_value(value):
    """Lists are values: a list read from the state is copied before it is stored again."""
    return value[:] if type(value) is list else value


# ---------------------------------------------------------------------- built-ins' helpers
# (the templates of dsl/semantics/builtins.py call these by name)
def _unique(items):
    return list(dict.fromkeys(items))


def _player(st, n):
    if type(n) is not int or not 1 <= n <= st.n:
        raise RulesetFault("K408", f"there is no player {n!r} in a {st.n}-player game")
    return n - 1


def _seats_from(st, p):
    n = st.n
    return [(p + i) % n for i in range(n)]


def _order_by(items, keys):
    if len(items) != len(keys):
        raise RulesetFault("K411", "order_by() needs one key per item")
    return [items[i] for i in sorted(range(len(items)), key=keys.__getitem__)]


HELPERS: dict[str, Callable] = {
    "_unique": _unique,
    "_dice": _dice,
    "_player": _player,
    "_seats_from": _seats_from,
    "_order_by": _order_by,
}


RUNTIME = {
    "_die": _die,
    "_shuffle": _shuffle,
    "_remove": _remove,
    "_row_add": _row_add,
    "_row_put": _row_put,
    "_row_take": _row_take,
    "_holds": _holds,
    "_amount": _amount,
    "_affordable": _affordable,
    "_spend": _spend,
    "_standing": _standing,
    "_offers": _offers,
    "_settled": _settled,
    "_no_options": _no_options,
    "_not_a_player": _not_a_player,
    "_end": _end,
    "_stop": _stop,
    "_fault": _fault,
    "_face": _face,
    "_copy": copy_value,
    "_copy_deep": copy_deep,
    "RulesetFault": RulesetFault,
    **HELPERS,
    **_BUDGET,
}
