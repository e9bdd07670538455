"""Stage 3's types: what the checker knows about a value, and the record of it per node.

A type is one of a closed set of frozen classes (`Type`); every function here matches on all
of them and ends in `assert_never`, so a new kind of type (a sum type, say) is added by one
class and mypy then names every function that must learn it.

- `Basic`: `int`, `bool`, `text` or `player`.
- `Named`: the values of an enum, the rows of a record's tables, or the nodes of a map.
- `ListOf`: a list and the type of its items.
- `Tagged`: a value of one of several declared shapes, each named by its tag: `effect` is
  the type of an effect's value (`draw(2)`: the tag `draw`, the argument 2), `condition`
  that of a condition's (`has(hide, 1)`).
- `Unknown` (`ANY`): the checker cannot tell; it fits everything, so only what is
  certainly wrong is reported. `Nothing` (`NONE`): the type of `none`, which fits
  everything too.

`Typing` keeps the type the checker found for each expression node, so the compiler reads
types instead of guessing them (`dsl/codegen/` copies a list that may hold lists deeply,
and a flat one shallowly).
"""

from __future__ import annotations

from typing import Literal, assert_never

import attrs


@attrs.frozen
class Basic:
    name: Literal["int", "bool", "text", "player"]


@attrs.frozen
class Named:
    kind: Literal["enum", "record", "map"]
    name: str


@attrs.frozen
class ListOf:
    elem: Type


@attrs.frozen
class Tagged:
    name: Literal["effect", "condition", "measure"]


@attrs.frozen
class Unknown:
    pass


@attrs.frozen
class Nothing:
    pass


Type = Basic | Named | ListOf | Tagged | Unknown | Nothing

INT = Basic("int")
BOOL = Basic("bool")
TEXT = Basic("text")
PLAYER = Basic("player")
EFFECT = Tagged("effect")
CONDITION = Tagged("condition")
MEASURE = Tagged("measure")
ANY = Unknown()
NONE = Nothing()
BASICS: dict[str, Type] = {t.name: t for t in (INT, BOOL, TEXT, PLAYER, EFFECT, CONDITION, MEASURE)}


def show(t: Type) -> str:
    """The type as an error message names it: `int`, `color`, `list of card`, `any`."""
    match t:
        case Basic(name) | Named(_, name) | Tagged(name):
            return name
        case ListOf(elem):
            return f"list of {show(elem)}"
        case Unknown():
            return "any"
        case Nothing():
            return "none"
        case _:
            assert_never(t)


def fits(value: Type, expected: Type) -> bool:
    """May a value of type `value` stand where `expected` is wanted? (`any` and `none` fit
    everywhere; lists fit when their items do.)"""
    if value is expected:  # the common case, and cheap: the basic types are shared values
        return True
    match value, expected:
        case (Unknown() | Nothing(), _) | (_, Unknown() | Nothing()):
            return True
        case ListOf(a), ListOf(b):
            return fits(a, b)
        case (ListOf(), _) | (_, ListOf()):
            return False
        case (Basic() | Named() | Tagged(), Basic() | Named() | Tagged()):
            return value == expected
        case _:
            raise AssertionError(f"no rule fits {value!r} to {expected!r}")


def known(t: Type) -> bool:
    """Is anything known about the value (neither `any` nor `none`)?"""
    match t:
        case Unknown() | Nothing():
            return False
        case Basic() | Named() | ListOf() | Tagged():
            return True
        case _:
            assert_never(t)


def elem(t: Type) -> Type | None:
    """The type of a list's items; `any` for a value that may be a list; None for a value
    that is certainly not one."""
    match t:
        case ListOf(item):
            return item
        case Unknown() | Nothing():
            return ANY
        case Basic() | Named() | Tagged():
            return None
        case _:
            assert_never(t)


def may_hold_lists(t: Type) -> bool:
    """May a value of this type be a list with lists inside (so that copying it one level
    deep would leave two places sharing an inner list)?"""
    match t:
        case ListOf(item):
            return may_be_list(item)
        case Unknown() | Nothing():
            return True
        case Basic() | Named() | Tagged():
            return False
        case _:
            assert_never(t)


def may_be_list(t: Type) -> bool:
    match t:
        case ListOf() | Unknown() | Nothing():
            return True
        case Basic() | Named() | Tagged():
            # a tagged value is kept as a list (`["draw", 2]`), but no statement changes one
            return False
        case _:
            assert_never(t)


class Typing:
    """The type of every expression node the checker visited, by node identity (two equal
    nodes in different places may have different types: `x` is a local in each procedure).
    Identity is enough because the program that holds the nodes outlives its `Typing`
    (both live in one `Checked` record)."""

    def __init__(self) -> None:
        self._types: dict[int, Type] = {}
        # per decision statement (by identity), the type of each local its prompt names
        self.places: dict[int, dict[str, Type]] = {}

    def note(self, node: object, t: Type) -> None:
        """Record a node's type; a node met twice with two types (one node object shared by
        two places) is `any`, which every use of a type must treat as "could be anything"."""
        key = id(node)
        old = self._types.get(key)
        if old is not None and old is not t and old != t:
            t = ANY
        self._types[key] = t

    def of(self, node: object) -> Type:
        """The node's type; `any` for a node the checker did not see."""
        return self._types.get(id(node), ANY)

    def __len__(self) -> int:
        return len(self._types)
