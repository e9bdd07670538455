"""The abstract syntax tree: one frozen attrs class per construct.

Produced by `dsl.parse`, consumed by `dsl.resolve`, `dsl.check`, `dsl.compile` and `dsl.fmt`.
Every node has a `span` that is ignored by equality, so tests compare structure only.
"""

from __future__ import annotations

from typing import Union

import attrs

from dsl.errors import NO_SPAN, Span


def _span():
    return attrs.field(default=NO_SPAN, eq=False, repr=False, kw_only=True)


def node(cls):
    return attrs.frozen(cls)


# ------------------------------------------------------------------ types and keys
@node
class TypeName:
    name: str
    span: Span = _span()


@node
class TypeList:
    elem: Type
    span: Span = _span()


Type = Union[TypeName, TypeList]


@node
class KeyName:
    name: str
    span: Span = _span()


@node
class KeyRange:
    lo: int
    hi: int
    span: Span = _span()


Key = Union[KeyName, KeyRange]


# ------------------------------------------------------------------ expressions
@node
class IntLit:
    value: int
    span: Span = _span()


@node
class StrLit:
    value: str
    span: Span = _span()


@node
class BoolLit:
    value: bool
    span: Span = _span()


@node
class NoneLit:
    span: Span = _span()


@node
class NameRef:
    name: str
    span: Span = _span()


@node
class ListLit:
    items: tuple[Expr, ...]
    span: Span = _span()


@node
class CompFor:
    name: str
    iter: Expr
    span: Span = _span()


@node
class Comprehension:
    expr: Expr
    fors: tuple[CompFor, ...]
    cond: Expr | None
    span: Span = _span()


@node
class IfExpr:
    cond: Expr
    then: Expr
    other: Expr
    span: Span = _span()


@node
class BinOp:
    """Arithmetic, comparison, membership and boolean operators (`op` is the operator's text)."""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@node
class UnaryOp:
    op: str  # "not" or "-"
    operand: Expr
    span: Span = _span()


@node
class FieldGet:
    obj: Expr
    name: str
    span: Span = _span()


@node
class IndexGet:
    obj: Expr
    indices: tuple[Expr, ...]
    span: Span = _span()


@node
class KwArg:
    name: str
    value: Expr
    span: Span = _span()


@node
class CallExpr:
    name: str
    args: tuple[Expr | KwArg, ...]
    span: Span = _span()


@node
class RollDice:
    count: int
    sides: int
    span: Span = _span()


@node
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
@node
class Target:
    name: str
    indices: tuple[Expr, ...]
    span: Span = _span()


@node
class Let:
    name: str
    value: Expr
    span: Span = _span()


@node
class Assign:
    target: Target
    op: str  # "=", "+=", "-="
    value: Expr
    span: Span = _span()


@node
class If:
    branches: tuple[tuple[Expr, Block], ...]
    otherwise: Block | None
    span: Span = _span()


@node
class For:
    name: str
    iter: Expr
    body: Block
    span: Span = _span()


@node
class Repeat:
    count: Expr
    body: Block
    span: Span = _span()


@node
class While:
    cond: Expr
    max: int | None
    body: Block
    span: Span = _span()


@node
class Choose:
    name: str
    player: Expr
    options: Expr
    prompt: str | None
    cite: str | None
    span: Span = _span()


@node
class CallStmt:
    name: str
    args: tuple[Expr | KwArg, ...]
    cite: str | None
    span: Span = _span()


@node
class AddTo:
    value: Expr
    target: Target
    span: Span = _span()


@node
class RemoveFrom:
    value: Expr
    target: Target
    span: Span = _span()


@node
class Move:
    value: Expr
    source: Target
    dest: Target
    span: Span = _span()


@node
class Shuffle:
    target: Target
    span: Span = _span()


@node
class Draw:
    count: Expr
    source: Target
    dest: Target
    span: Span = _span()


@node
class EndGame:
    winners: Expr
    cite: str | None
    span: Span = _span()


@node
class Log:
    text: str
    args: tuple[Expr, ...]
    span: Span = _span()


@node
class Break:
    span: Span = _span()


@node
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


@node
class Block:
    stmts: tuple[Stmt, ...]
    span: Span = _span()


# ------------------------------------------------------------------ declarations
@node
class Import:
    path: str
    span: Span = _span()


@node
class Title:
    text: str
    span: Span = _span()


@node
class Source:
    text: str
    span: Span = _span()


@node
class Players:
    lo: int
    hi: int
    cite: str | None
    span: Span = _span()


@node
class Bound:
    decisions: int
    cite: str | None
    span: Span = _span()


@node
class Param:
    name: str
    type: Type
    value: Expr
    cite: str | None
    span: Span = _span()


@node
class Enum:
    name: str
    values: tuple[str, ...]
    cite: str | None
    span: Span = _span()


@node
class Field:
    name: str
    type: Type
    span: Span = _span()


@node
class Record:
    keyword: str  # record | card | tile
    name: str
    fields: tuple[Field, ...]
    cite: str | None
    span: Span = _span()


@node
class Row:
    lo: int | None
    hi: int | None
    name: str
    title: str | None
    args: tuple[Expr | KwArg, ...]
    copies: int | None
    cite: str | None
    span: Span = _span()


@node
class Table:
    name: str
    record: str
    dice: str | None  # e.g. "1d100"
    rows: tuple[Row, ...]
    cite: str | None
    span: Span = _span()


@node
class MapNode:
    name: str
    title: str | None
    cite: str | None
    span: Span = _span()


@node
class MapEdge:
    a: str
    others: tuple[str, ...]
    cite: str | None
    span: Span = _span()


@node
class Map:
    name: str
    items: tuple[MapNode | MapEdge, ...]
    cite: str | None
    span: Span = _span()


@node
class Var:
    name: str
    keys: tuple[Key, ...]
    type: Type
    value: Expr
    visibility: str
    cite: str | None
    span: Span = _span()


@node
class Zone:
    name: str
    keys: tuple[Key, ...]
    kind: str  # deck | pile | hand | list | row
    size: int | None  # slots of a row
    elem: Type | None
    visibility: str
    cite: str | None
    span: Span = _span()


@node
class Pool:
    name: str
    keys: tuple[Key, ...]
    enum: str
    value: Expr | None
    visibility: str
    cite: str | None
    span: Span = _span()


@node
class ParamDecl:
    name: str
    type: Type
    span: Span = _span()


@node
class Fn:
    name: str
    params: tuple[ParamDecl, ...]
    result: Type | None
    body: Expr
    cite: str | None
    span: Span = _span()


@node
class Proc:
    kind: str  # proc | phase | step
    name: str
    params: tuple[ParamDecl, ...]
    body: Block
    cite: str | None
    span: Span = _span()


@node
class Setup:
    body: Block
    cite: str | None
    span: Span = _span()


@node
class Round:
    max: int
    body: Block
    cite: str | None
    span: Span = _span()


@node
class Score:
    param: str
    value: Expr
    cite: str | None
    span: Span = _span()


@node
class Invariant:
    name: str
    value: Expr
    cite: str | None
    span: Span = _span()


@node
class Note:
    kind: str  # interpretation | deviation
    name: str
    text: str
    cite: str | None
    span: Span = _span()


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
@node
class SetParam:
    name: str
    value: Expr
    cite: str | None
    span: Span = _span()


@node
class Replace:
    decl: Decl
    span: Span = _span()


@node
class AddDecl:
    decl: Decl
    span: Span = _span()


@node
class AddRow:
    table: str
    row: Row
    span: Span = _span()


@node
class RemoveDecl:
    name: str
    span: Span = _span()


@node
class RemoveRow:
    table: str
    row: str
    span: Span = _span()


Overlay = Union[SetParam, Replace, AddDecl, AddRow, RemoveDecl, RemoveRow]


# ------------------------------------------------------------------ scenarios
@node
class Scenario:
    name: str
    cite: str | None
    players: int | None
    seed: int | None
    position: Block | None
    run: CallStmt | None
    dice: tuple[int, ...]
    choices: tuple[Expr, ...]
    expects: tuple[tuple[Expr, str | None], ...]
    span: Span = _span()


# ------------------------------------------------------------------ files
@node
class File:
    kind: str  # ruleset | variant | library | scenarios
    name: str
    extends: str | None
    cite: str | None
    items: tuple[Decl | Overlay, ...]
    scenarios: tuple[Scenario, ...] = ()
    span: Span = _span()


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
