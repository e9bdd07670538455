"""The abstract syntax tree: one frozen attrs class per construct.

Produced by `dsl.parse`, consumed by `dsl.resolve`, `dsl.check`, `dsl.compile` and `dsl.fmt`.
Every node has a `span` that is ignored by equality, so tests compare structure only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Union

import attrs

from dsl.errors import NO_SPAN, Span


def _span():
    return attrs.field(default=NO_SPAN, eq=False, repr=False, kw_only=True)


# ------------------------------------------------------------------ types and keys
@attrs.frozen
class TypeName:
    name: str
    span: Span = _span()


@attrs.frozen
class TypeList:
    elem: Type
    span: Span = _span()


Type = Union[TypeName, TypeList]


@attrs.frozen
class KeyName:
    name: str
    span: Span = _span()


@attrs.frozen
class KeyRange:
    lo: int
    hi: int
    span: Span = _span()


Key = Union[KeyName, KeyRange]


# ------------------------------------------------------------------ expressions
@attrs.frozen
class IntLit:
    value: int
    span: Span = _span()


@attrs.frozen
class StrLit:
    value: str
    span: Span = _span()


@attrs.frozen
class BoolLit:
    value: bool
    span: Span = _span()


@attrs.frozen
class NoneLit:
    span: Span = _span()


@attrs.frozen
class NameRef:
    name: str
    span: Span = _span()


@attrs.frozen
class ListLit:
    items: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen
class CompFor:
    name: str
    iter: Expr
    span: Span = _span()


@attrs.frozen
class Comprehension:
    expr: Expr
    fors: tuple[CompFor, ...]
    cond: Expr | None
    span: Span = _span()


@attrs.frozen
class IfExpr:
    cond: Expr
    then: Expr
    other: Expr
    span: Span = _span()


@attrs.frozen
class BinOp:
    """Arithmetic, comparison, membership and boolean operators (`op` is the operator's text)."""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@attrs.frozen
class UnaryOp:
    op: str  # "not" or "-"
    operand: Expr
    span: Span = _span()


@attrs.frozen
class FieldGet:
    obj: Expr
    name: str
    span: Span = _span()


@attrs.frozen
class IndexGet:
    obj: Expr
    indices: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen
class KwArg:
    name: str
    value: Expr
    span: Span = _span()


@attrs.frozen
class CallExpr:
    name: str
    args: tuple[Expr | KwArg, ...]
    span: Span = _span()


@attrs.frozen
class RollDice:
    count: int
    sides: int
    span: Span = _span()


@attrs.frozen
class RollTable:
    table: str
    span: Span = _span()


Expr = Union[
    IntLit,
    StrLit,
    BoolLit,
    NoneLit,
    NameRef,
    ListLit,
    Comprehension,
    IfExpr,
    BinOp,
    UnaryOp,
    FieldGet,
    IndexGet,
    CallExpr,
    RollDice,
    RollTable,
]


# ------------------------------------------------------------------ statements
@attrs.frozen
class Target:
    name: str
    indices: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen
class Let:
    name: str
    value: Expr
    span: Span = _span()


@attrs.frozen
class Assign:
    target: Target
    op: str  # "=", "+=", "-="
    value: Expr
    span: Span = _span()


@attrs.frozen
class If:
    branches: tuple[tuple[Expr, Block], ...]
    otherwise: Block | None
    span: Span = _span()


@attrs.frozen
class For:
    name: str
    iter: Expr
    body: Block
    span: Span = _span()


@attrs.frozen
class Repeat:
    count: Expr
    body: Block
    span: Span = _span()


@attrs.frozen
class While:
    cond: Expr
    max: int | None
    body: Block
    span: Span = _span()


@attrs.frozen
class Choose:
    name: str
    player: Expr
    options: Expr
    prompt: str | None
    cite: str | None
    span: Span = _span()
    # `ask`: put to the player even when only one option is left, so that being asked
    # (or not) tells nobody how many options there were.
    always: bool = False


@attrs.frozen
class CallStmt:
    name: str
    args: tuple[Expr | KwArg, ...]
    cite: str | None
    span: Span = _span()


@attrs.frozen
class AddTo:
    value: Expr
    target: Target
    span: Span = _span()


@attrs.frozen
class RemoveFrom:
    value: Expr
    target: Target
    span: Span = _span()


@attrs.frozen
class Move:
    value: Expr
    source: Target
    dest: Target
    span: Span = _span()


@attrs.frozen
class Shuffle:
    target: Target
    span: Span = _span()


@attrs.frozen
class Draw:
    count: Expr
    source: Target
    dest: Target
    span: Span = _span()


@attrs.frozen
class EndGame:
    winners: Expr
    cite: str | None
    span: Span = _span()
    # a scenario's stop after its `run`: play stops there, but the game is not over, so
    # `game_over` and `winners` say only what the rules themselves did (never parsed)
    stop: bool = False


@attrs.frozen
class Log:
    text: str
    args: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen
class Break:
    span: Span = _span()


@attrs.frozen
class Pass:
    span: Span = _span()


Stmt = Union[
    Let,
    Assign,
    If,
    For,
    Repeat,
    While,
    Choose,
    CallStmt,
    AddTo,
    RemoveFrom,
    Move,
    Shuffle,
    Draw,
    EndGame,
    Log,
    Break,
    Pass,
]


@attrs.frozen
class Block:
    stmts: tuple[Stmt, ...]
    span: Span = _span()


# ------------------------------------------------------------------ declarations
@attrs.frozen
class Import:
    path: str
    span: Span = _span()


@attrs.frozen
class Title:
    text: str
    span: Span = _span()


@attrs.frozen
class Source:
    text: str
    span: Span = _span()


@attrs.frozen
class Players:
    lo: int
    hi: int
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Bound:
    decisions: int
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Param:
    name: str
    type: Type
    value: Expr
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Enum:
    name: str
    values: tuple[str, ...]
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Field:
    name: str
    type: Type
    span: Span = _span()


@attrs.frozen
class Record:
    keyword: str  # record | card | tile
    name: str
    fields: tuple[Field, ...]
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Row:
    lo: int | None
    hi: int | None
    name: str
    title: str | None
    args: tuple[Expr | KwArg, ...]
    copies: int | None
    cite: str | None
    span: Span = _span()
    # `reconstructed ["reason"]`: the book does not print (all of) these values; they are
    # authored, and `reason` says which or why
    reconstructed: bool = attrs.field(default=False, kw_only=True)
    reason: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class Table:
    name: str
    record: str
    dice: str | None  # e.g. "1d100"
    rows: tuple[Row, ...]
    cite: str | None
    span: Span = _span()


@attrs.frozen
class MapNode:
    name: str
    title: str | None
    cite: str | None
    span: Span = _span()


@attrs.frozen
class MapEdge:
    a: str
    others: tuple[str, ...]
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Map:
    name: str
    items: tuple[MapNode | MapEdge, ...]
    cite: str | None
    span: Span = _span()
    # `reconstructed ["reason"]`: the book does not print this board; its places and
    # connections are authored, and `reason` says what they were built from
    reconstructed: bool = attrs.field(default=False, kw_only=True)
    reason: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class Var:
    name: str
    keys: tuple[Key, ...]
    type: Type
    value: Expr
    visibility: str
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Zone:
    name: str
    keys: tuple[Key, ...]
    kind: str  # deck | pile | hand | list | row
    size: int | None  # slots of a row
    elem: Type | None
    visibility: str
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Pool:
    name: str
    keys: tuple[Key, ...]
    enum: str
    value: Expr | None
    visibility: str
    cite: str | None
    span: Span = _span()


@attrs.frozen
class ParamDecl:
    name: str
    type: Type
    span: Span = _span()


@attrs.frozen
class Fn:
    name: str
    params: tuple[ParamDecl, ...]
    result: Type | None
    body: Expr
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Proc:
    kind: str  # proc | phase | step
    name: str
    params: tuple[ParamDecl, ...]
    body: Block
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Setup:
    body: Block
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Round:
    max: int
    body: Block
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Score:
    param: str
    value: Expr
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Invariant:
    name: str
    value: Expr
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Note:
    kind: str  # interpretation | deviation | contradiction
    name: str
    text: str
    cite: str | None
    span: Span = _span()
    # further sections the note cites (a contradiction names every place that disagrees)
    also: tuple[str, ...] = ()


Decl = Union[
    Import,
    Title,
    Source,
    Players,
    Bound,
    Param,
    Enum,
    Record,
    Table,
    Map,
    Var,
    Zone,
    Pool,
    Fn,
    Proc,
    Setup,
    Round,
    Score,
    Invariant,
    Note,
]


# ------------------------------------------------------------------ overlays
@attrs.frozen
class SetParam:
    name: str
    value: Expr
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Replace:
    decl: Decl
    span: Span = _span()


@attrs.frozen
class AddDecl:
    decl: Decl
    span: Span = _span()


@attrs.frozen
class AddRow:
    table: str
    row: Row
    span: Span = _span()


@attrs.frozen
class RemoveDecl:
    name: str
    span: Span = _span()


@attrs.frozen
class RemoveRow:
    table: str
    row: str
    span: Span = _span()


Overlay = Union[SetParam, Replace, AddDecl, AddRow, RemoveDecl, RemoveRow]


# ------------------------------------------------------------------ scenarios
@attrs.frozen
class ScenarioChoices:
    """`choices a, b`: decisions taken in order, each when it is pending."""

    values: tuple[Expr, ...]
    span: Span = _span()


# what an `expect` asserts: that a condition holds, or something of an option at the
# pending decision
EXPECT_KINDS = ("holds", "offered", "not offered", "rejected")


@attrs.frozen
class ScenarioExpect:
    kind: str  # one of EXPECT_KINDS
    value: Expr
    label: str | None
    span: Span = _span()


ScenarioStep = Union[ScenarioChoices, ScenarioExpect]

# what a scenario may declare strict: unscripted dice or shuffles, unscripted forced decisions
STRICT_PARTS = ("dice", "shuffles", "choices")


@attrs.frozen
class Scenario:
    """A worked example: a position, scripted chance, then steps (choices and expectations)
    carried out in the order they are written."""

    name: str
    cite: str | None
    players: int | None
    seed: int | None
    position: Block | None
    run: CallStmt | None
    dice: tuple[int, ...]
    steps: tuple[ScenarioStep, ...]
    strict: tuple[str, ...] = ()  # the STRICT_PARTS declared, in the order of STRICT_PARTS
    span: Span = _span()


# ------------------------------------------------------------------ files
@attrs.frozen
class File:
    kind: str  # ruleset | variant | library | scenarios
    name: str
    extends: str | None
    cite: str | None
    items: tuple[Decl | Overlay, ...]
    scenarios: tuple[Scenario, ...] = ()
    span: Span = _span()
    # `variant "x" extends "a", "b"`: further variants whose overlays are combined
    combines: tuple[str, ...] = ()


def decl_name(decl: Decl) -> str | None:
    """The name a declaration binds, or None for anonymous ones (setup, title, ...)."""
    name = getattr(decl, "name", None)
    if isinstance(decl, Note):
        return f"{decl.kind}:{decl.name}"
    return name if isinstance(name, str) else None


def decl_key(decl: Decl) -> str:
    """The key overlays use: a declaration's name, or its kind for singletons."""
    name = decl_name(decl)
    if name is not None:
        return name
    return type(decl).__name__.lower()


def walk(node) -> Iterator:
    """Every AST node inside `node` (itself included), depth first, in source order."""
    if isinstance(node, (tuple, list)):
        for item in node:
            yield from walk(item)
    elif attrs.has(type(node)) and not isinstance(node, Span):
        yield node
        for field in attrs.fields(type(node)):
            if field.name != "span":
                yield from walk(getattr(node, field.name))
