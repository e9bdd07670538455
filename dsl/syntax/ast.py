"""The abstract syntax tree: one frozen attrs class per construct.

Produced by `dsl.syntax.parse`, consumed by `dsl.semantics.resolve`, `dsl.semantics.check`,
`dsl.codegen` and `dsl.syntax.fmt`.
Every node has a `span` that is ignored by equality, so tests compare structure only.

Every class derives from `Node` and declares the fields that hold other nodes (`children`)
and, of those, the ones that hold statement blocks (`blocks`); every statement derives from
`Statement` and declares whether it can suspend (`suspends`). `walk`, `children_of`,
`blocks_of` and the passes' common base (`dsl.syntax.visitor`) follow these declarations, so a new
construct is seen by every generic pass once its class declares them (tests/test_passes.py
checks the declarations against the fields' types).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar, Union, get_args

import attrs

from dsl.errors import NO_SPAN, Span


def _span():
    return attrs.field(default=NO_SPAN, eq=False, repr=False, kw_only=True)


class Node:
    """The base of every AST node.

    `children`: the fields that hold nodes, in field order; such a field holds a node, None,
    or a tuple of nodes (or of tuples of them, as `If.branches`). `blocks`: those of them that
    hold statement blocks (`Block`), such as a loop's body."""

    __slots__ = ()
    children: ClassVar[tuple[str, ...]] = ()
    blocks: ClassVar[tuple[str, ...]] = ()
    span: Span  # every class declares it: `_span()`, ignored by equality


class Statement(Node):
    """The base of every statement.

    `suspends` (declared by every statement class, no default): whether the statement itself
    can stop the run loop, for a decision (`choose`, `ask`) or to run another procedure (a
    call), so that it must be an instruction of its own and the engine resumes after it.
    A compound statement (`if`, loops) does not suspend itself; `can_suspend` says whether
    anything inside it does. The code generator reads `type(stmt).suspends` instead of
    assuming that a statement it does not know runs as plain Python."""

    __slots__ = ()
    suspends: ClassVar[bool]


# ------------------------------------------------------------------ types and keys
@attrs.frozen
class TypeName(Node):
    name: str
    span: Span = _span()


@attrs.frozen
class TypeList(Node):
    children = ("elem",)

    elem: Type
    span: Span = _span()


Type = Union[TypeName, TypeList]


@attrs.frozen
class KeyName(Node):
    name: str
    span: Span = _span()


@attrs.frozen
class KeyRange(Node):
    lo: int
    hi: int
    span: Span = _span()


Key = Union[KeyName, KeyRange]


# ------------------------------------------------------------------ expressions
@attrs.frozen
class IntLit(Node):
    value: int
    span: Span = _span()


@attrs.frozen
class StrLit(Node):
    value: str
    span: Span = _span()


@attrs.frozen
class BoolLit(Node):
    value: bool
    span: Span = _span()


@attrs.frozen
class NoneLit(Node):
    span: Span = _span()


@attrs.frozen
class NameRef(Node):
    name: str
    span: Span = _span()


@attrs.frozen
class ListLit(Node):
    children = ("items",)

    items: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen
class CompFor(Node):
    children = ("iter",)

    name: str
    iter: Expr
    span: Span = _span()


@attrs.frozen
class Comprehension(Node):
    children = ("expr", "fors", "cond")

    expr: Expr
    fors: tuple[CompFor, ...]
    cond: Expr | None
    span: Span = _span()


@attrs.frozen
class IfExpr(Node):
    children = ("cond", "then", "other")

    cond: Expr
    then: Expr
    other: Expr
    span: Span = _span()


@attrs.frozen
class BinOp(Node):
    """Arithmetic, comparison, membership and boolean operators (`op` is the operator's text)."""

    children = ("left", "right")

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@attrs.frozen
class UnaryOp(Node):
    children = ("operand",)

    op: str  # "not" or "-"
    operand: Expr
    span: Span = _span()


@attrs.frozen
class FieldGet(Node):
    children = ("obj",)

    obj: Expr
    name: str
    span: Span = _span()


@attrs.frozen
class IndexGet(Node):
    children = ("obj", "indices")

    obj: Expr
    indices: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen
class KwArg(Node):
    children = ("value",)

    name: str
    value: Expr
    span: Span = _span()


@attrs.frozen
class CallExpr(Node):
    children = ("args",)

    name: str
    args: tuple[Expr | KwArg, ...]
    span: Span = _span()
    # `base(...)` in a replacing rule: calls the rule its declaration replaces (its `base`)
    base: bool = False


@attrs.frozen
class RollDice(Node):
    count: int
    sides: int
    span: Span = _span()


@attrs.frozen
class RollTable(Node):
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
class Target(Node):
    children = ("indices",)

    name: str
    indices: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen
class Let(Statement):
    suspends = False
    children = ("value",)

    name: str
    value: Expr
    span: Span = _span()


@attrs.frozen
class Assign(Statement):
    suspends = False
    children = ("target", "value")

    target: Target
    op: str  # "=", "+=", "-="
    value: Expr
    span: Span = _span()


@attrs.frozen
class If(Statement):
    suspends = False
    children = ("branches", "otherwise")
    blocks = ("branches", "otherwise")

    branches: tuple[tuple[Expr, Block], ...]
    otherwise: Block | None
    span: Span = _span()


@attrs.frozen
class MatchArm(Node):
    """One arm of a `match`: a value's name, the names bound to what it carries, a block."""

    children = ("body",)
    blocks = ("body",)

    name: str
    binds: tuple[str, ...]
    body: Block
    span: Span = _span()


@attrs.frozen
class Match(Statement):
    """`match x { rest { } buy(c) { } else { } }`: the arm of the value's name runs, with
    what the value carries bound to the arm's names."""

    suspends = False
    children = ("subject", "arms", "otherwise")
    blocks = ("otherwise",)  # and each arm's (`blocks_of` looks into the arms)

    subject: Expr
    arms: tuple[MatchArm, ...]
    otherwise: Block | None
    span: Span = _span()


@attrs.frozen
class Simultaneously(Statement):
    """`simultaneously { ... }`: the statements take effect as one; standing rules are
    tested once the block is done, never between its statements or inside what it calls."""

    suspends = False
    children = ("body",)
    blocks = ("body",)

    body: Block
    span: Span = _span()


@attrs.frozen
class For(Statement):
    suspends = False
    children = ("iter", "body")
    blocks = ("body",)

    name: str
    iter: Expr
    body: Block
    span: Span = _span()


@attrs.frozen
class Repeat(Statement):
    suspends = False
    children = ("count", "body")
    blocks = ("body",)

    count: Expr
    body: Block
    span: Span = _span()


@attrs.frozen
class While(Statement):
    suspends = False
    children = ("cond", "body")
    blocks = ("body",)

    cond: Expr
    max: int | None
    body: Block
    span: Span = _span()


@attrs.frozen
class Choose(Statement):
    suspends = True
    children = ("player", "options")

    name: str
    player: Expr
    options: Expr
    prompt: str | None
    cite: str | None
    span: Span = _span()
    # `ask`: put to the player even when only one option is left, so that being asked
    # (or not) tells nobody how many options there were.
    always: bool = False
    # `secret`: the other players learn that the choice was made, not what was chosen
    secret: bool = False
    # `id NAME`: the decision's stable name for front-ends (None: the rule's name)
    id: str | None = None


@attrs.frozen
class Agree(Statement):
    """`let x = agree ps from options max n as "..."`: a decision the players of `ps` take
    together. They propose in turn, the first of `ps` first; each proposal is put to every
    other player of `ps` in order, and the first who refuses ends it; a proposal all accept
    is the decision. After `n` refused proposals the first player of `ps` decides alone."""

    suspends = True
    children = ("group", "options")

    name: str
    group: Expr
    options: Expr
    max: int
    prompt: str | None
    cite: str | None
    span: Span = _span()
    id: str | None = None  # `id NAME`, as for `choose`


@attrs.frozen
class Negotiate(Statement):
    """`let deal = negotiate ps by qs from items max n as "..."`: an open negotiation among
    the parties `ps`. The first of `ps` drafts a bundle, one item at a time, from `items`
    (read again before each item, with `deal` standing for the draft so far), and offers it
    or withdraws; every other party in turn accepts, refuses (no deal) or, if he is one of
    `qs` (all of `ps` without `by`) and fewer than `n` bundles were offered, counters with a
    bundle of his own. `deal` is the bundle all others accepted, or `[]`."""

    suspends = True
    children = ("parties", "proposers", "items")

    name: str
    parties: Expr
    proposers: Expr | None
    items: Expr
    max: int
    prompt: str | None
    cite: str | None
    span: Span = _span()
    id: str | None = None  # `id NAME`, as for `choose`


@attrs.frozen
class CallStmt(Statement):
    suspends = True
    children = ("args",)

    name: str
    args: tuple[Expr | KwArg, ...]
    cite: str | None
    span: Span = _span()
    # `base(...)` in a replacing rule: calls the rule its declaration replaces (its `base`)
    base: bool = False


@attrs.frozen
class AddTo(Statement):
    suspends = False
    children = ("value", "target")

    value: Expr
    target: Target
    span: Span = _span()


@attrs.frozen
class RemoveFrom(Statement):
    suspends = False
    children = ("value", "target")

    value: Expr
    target: Target
    span: Span = _span()


@attrs.frozen
class Spend(Statement):
    """`spend bag from pool[keys] to other[keys]`: one of each kind in the bag (a list of
    the pool's enum, repeated for more) leaves the pool, and goes to `sink` if given. The
    game stops (K419) if the pool is short."""

    suspends = False
    children = ("bag", "source", "sink")

    bag: Expr
    source: Target
    sink: Target | None
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Move(Statement):
    suspends = False
    children = ("value", "source", "dest")

    value: Expr
    source: Target
    dest: Target
    span: Span = _span()


@attrs.frozen
class Shuffle(Statement):
    suspends = False
    children = ("target",)

    target: Target
    span: Span = _span()


@attrs.frozen
class Reveal(Statement):
    """`reveal x to ps`: the players of `ps` see the face of `x`, and know it until it is
    shuffled: a zone `visible backs` shows it to them where it lies face down."""

    suspends = False
    children = ("value", "to")

    value: Expr
    to: Expr
    span: Span = _span()


@attrs.frozen
class Flip(Statement):
    """`flip c`: turns the two-sided card `c` over (its record declares `sides`)."""

    suspends = False
    children = ("value",)

    value: Expr
    span: Span = _span()


@attrs.frozen
class Draw(Statement):
    suspends = False
    children = ("count", "source", "dest")

    count: Expr
    source: Target
    dest: Target
    span: Span = _span()


@attrs.frozen
class EndGame(Statement):
    suspends = False
    children = ("winners",)

    winners: Expr
    cite: str | None
    span: Span = _span()
    # a scenario's stop after its `run`: play stops there, but the game is not over, so
    # `game_over` and `winners` say only what the rules themselves did (never parsed)
    stop: bool = False


@attrs.frozen
class Log(Statement):
    """`log "text", args`: a line for the game's record. `{name}` in the text is a
    template's place for the value of that name: `name = expr` names a value, a variable or
    a field is named after itself (`p`, `b.kind` is `kind`), a call after the function;
    others are `value2` for the second."""

    suspends = False
    children = ("args", "to")

    text: str
    args: tuple[Expr, ...]
    span: Span = _span()
    names: tuple[str | None, ...] = ()  # per value, the name `name = expr` gave it
    to: Expr | None = None  # `log to p`: the one player who reads the line (None: everyone)

    def fields(self) -> tuple[str, ...]:
        """Each value's name; a name met again takes its place (`p_3`)."""
        out: list[str] = []
        for i, a in enumerate(self.args):
            given = self.names[i] if i < len(self.names) else None
            if given is not None:
                name = given
            elif isinstance(a, NameRef):
                name = a.name
            elif isinstance(a, FieldGet):
                name = a.name
            elif isinstance(a, IndexGet) and isinstance(a.obj, NameRef):
                name = a.obj.name
            elif isinstance(a, CallExpr):
                name = a.name
            else:
                name = f"value{i + 1}"
            out.append(name if name not in out else f"{name}_{i + 1}")
        return tuple(out)

    def places(self) -> tuple[str, ...]:
        """The names the text's `{...}` places stand for, in order."""
        return places(self.text)


def places(text: str) -> tuple[str, ...]:
    """The names a text's `{...}` places stand for (a log line, a prompt), in order."""
    return tuple(re.findall(r"{([^{}]*)}", text))


@attrs.frozen
class Perform(Statement):
    """`perform effects by player [with card]`: run an effect, or each of a list of them in
    order, for `player` (`self` in the effect's body) and `card` (`card`, else none)."""

    suspends = True
    children = ("effects", "player", "card", "context")

    effects: Expr
    player: Expr
    card: Expr | None
    cite: str | None
    span: Span = _span()
    # set only by the lowering of `trigger`: the moment, and the values of its parameters
    # that effects happening at it read
    moment: str | None = None
    context: tuple[Expr, ...] = ()


@attrs.frozen
class Trigger(Statement):
    """`trigger moment for items by player`: each item (a row) in order performs the
    effects its field named for the moment holds, by `player`, with the item as `this`.
    Without `by`, `player` is `none`: what happens at the moment happens to nobody.
    `ordered by q`: q picks, item by item, which goes next."""

    suspends = True
    children = ("items", "player", "args", "order")

    moment: str
    items: Expr
    player: Expr
    cite: str | None
    span: Span = _span()
    args: tuple[Expr, ...] = ()  # the moment's parameters' values
    order: Expr | None = None  # who picks the order (`ordered by q`); none: as listed


@attrs.frozen
class Break(Statement):
    suspends = False

    span: Span = _span()


@attrs.frozen
class Pass(Statement):
    suspends = False

    span: Span = _span()


@attrs.frozen
class Outcry(Statement):
    """`outcry p in ps on bid max n { ... }`: an open outcry. The block runs for each player
    of `ps` in turn, round and round; when it changes the value of `bid` (a raise), everyone
    gets another chance; it ends once every player of `ps` has passed (run the block without
    a raise) since the last raise, the raiser counting as having passed. More than `max`
    raises is a fault (K405). `bid` is read outside the block, so it may not name `p`."""

    suspends = True
    children = ("iter", "watch", "body")
    blocks = ("body",)

    name: str
    iter: Expr
    watch: Expr
    max: int
    body: Block
    span: Span = _span()


@attrs.frozen
class Quiet(Statement):
    """`quiet` or `quiet among ps`: each player in turn (of all, or of the list `ps`) may take
    his standing options (`option`) before play goes on; one who has none is not asked."""

    suspends = True
    children = ("who",)

    who: Expr | None = None  # the players asked, in order (None: all of them)
    cite: str | None = None
    span: Span = _span()


Stmt = Union[
    Let,
    Assign,
    If,
    Match,
    For,
    Repeat,
    While,
    Outcry,
    Simultaneously,
    Quiet,
    Choose,
    Agree,
    Negotiate,
    CallStmt,
    AddTo,
    RemoveFrom,
    Spend,
    Move,
    Shuffle,
    Reveal,
    Flip,
    Draw,
    EndGame,
    Log,
    Perform,
    Trigger,
    Break,
    Pass,
]


@attrs.frozen
class Block(Node):
    children = ("stmts",)

    stmts: tuple[Stmt, ...]
    span: Span = _span()


# ------------------------------------------------------------------ declarations
@attrs.frozen
class Import(Node):
    path: str
    span: Span = _span()


@attrs.frozen
class Title(Node):
    text: str
    span: Span = _span()


@attrs.frozen
class Source(Node):
    text: str
    span: Span = _span()


@attrs.frozen
class Players(Node):
    lo: int
    hi: int
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Bound(Node):
    decisions: int
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Param(Node):
    children = ("type", "value")

    name: str
    type: Type
    value: Expr
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Enum(Node):
    children = ("payloads",)

    name: str
    values: tuple[str, ...]
    cite: str | None
    span: Span = _span()
    # (value, title) for the values that carry the words or glyph a reader sees
    titles: tuple[tuple[str, str], ...] = ()
    # (value, parameters) for the values that carry values (`buy(c: card)`): such a value
    # is `[name, *arguments]` at run time, and the enum a sum type
    payloads: tuple[tuple[str, tuple[ParamDecl, ...]], ...] = ()


@attrs.frozen
class Field(Node):
    children = ("type", "default")

    name: str
    type: Type
    span: Span = _span()
    # the value of a row that does not give one (a constant); none without it
    default: Expr | None = None


@attrs.frozen
class Record(Node):
    children = ("fields",)

    keyword: str  # record | card | tile
    name: str
    fields: tuple[Field, ...]
    cite: str | None
    span: Span = _span()
    # `sides a, b`: the fields that are the two faces of each row (a up at the start)
    sides: tuple[str, str] | None = None


@attrs.frozen
class Row(Node):
    children = ("args",)

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
class Table(Node):
    children = ("rows",)

    name: str
    record: str
    dice: str | None  # e.g. "1d100"
    rows: tuple[Row, ...]
    cite: str | None
    span: Span = _span()
    # `reconstructed ["reason"]`: the book leaves (part of) this table out; `reason` says
    # what is missing and how the rows were built. The authored rows carry their own
    # marker; a marked table none of whose rows is marked is authored in every row.
    reconstructed: bool = attrs.field(default=False, kw_only=True)
    reason: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class MapNode(Node):
    name: str
    title: str | None
    cite: str | None
    span: Span = _span()


@attrs.frozen
class MapEdge(Node):
    a: str
    others: tuple[str, ...]
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Map(Node):
    children = ("items",)

    name: str
    items: tuple[MapNode | MapEdge, ...]
    cite: str | None
    span: Span = _span()
    # `reconstructed ["reason"]`: the book does not print this board; its places and
    # connections are authored, and `reason` says what they were built from
    reconstructed: bool = attrs.field(default=False, kw_only=True)
    reason: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class Var(Node):
    children = ("keys", "type", "value")

    name: str
    keys: tuple[Key, ...]
    type: Type
    value: Expr
    visibility: str
    cite: str | None
    span: Span = _span()


def by_player(keys: tuple[Key, ...]) -> bool:
    """Whether state with these keys is kept per player (`var x[player, ...]`)."""
    return bool(keys) and isinstance(keys[0], KeyName) and keys[0].name == "player"


@attrs.frozen
class Zone(Node):
    children = ("keys", "elem")

    name: str
    keys: tuple[Key, ...]
    kind: str  # deck | pile | hand | list | row
    size: int | None  # slots of a row
    elem: Type | None
    visibility: str
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Pool(Node):
    children = ("keys", "value")

    name: str
    keys: tuple[Key, ...]
    enum: str
    value: Expr | None
    visibility: str
    cite: str | None
    span: Span = _span()


@attrs.frozen
class ParamDecl(Node):
    children = ("type",)

    name: str
    type: Type
    span: Span = _span()


# the declarations whose calls are values rather than actions: a row may hold them, and
# `perform`, `holds` and `amount` use them (`[tag, *arguments]` at run time)
TAGGED_KINDS = ("effect", "condition", "measure")


@attrs.frozen
class Fn(Node):
    children = ("params", "result", "body", "base")

    name: str
    params: tuple[ParamDecl, ...]
    result: Type | None
    body: Expr
    cite: str | None
    span: Span = _span()
    # the rule this one replaced, kept when this one calls it with `base(...)` (a `replace`
    # in a variant): `walk` goes into it, and `rules` lists it as a rule of its own
    base: Fn | None = None
    # `condition` (a `bool`) and `measure` (an `int`): calls are values (`has(hide, 1)`),
    # with the text a reader sees (`{param}` where an argument goes)
    kind: str = "fn"  # fn | condition | measure
    template: str | None = None
    # a condition or measure declared by its words only (no `= expr`; `body` is `true` or
    # 0): the file that imports it gives its rule (see `Proc.signature_only`)
    signature_only: bool = False


@attrs.frozen
class Proc(Node):
    children = ("params", "body", "base", "when", "who")
    blocks = ("body",)

    kind: str  # proc | phase | step | effect | whenever | option | window
    name: str
    params: tuple[ParamDecl, ...]
    body: Block
    cite: str | None
    span: Span = _span()
    # the rule this one replaced, kept when this one calls it with `base(...)` (see `Fn.base`)
    base: Proc | None = None
    # an effect's text, with `{param}` where an argument goes ("draw {n} card(s)")
    template: str | None = None
    # an effect declared by its words only (no block; `body` is empty): the file that
    # imports it gives its rules (`dsl/semantics/resolve.py` joins the two)
    signature_only: bool = False
    # `at m`: the effect happens only at moment m (a row's field for m holds it), and its
    # body reads m's parameters
    at: str | None = None
    # a standing rule's condition (`whenever name(p: player): cond { ... }`): the body runs
    # by itself, for the parameters' values, whenever it holds; a standing option's
    # (`option`): the player may take it while it holds
    when: Expr | None = None
    # a standing option's `during`: the procedures one of which must be running
    during: tuple[str, ...] = ()
    # a reaction window (`window w(q: player) for who after m`): the players it asks, in
    # order (its one parameter takes each in turn), and whether it opens `before` or
    # `after` what the moment `at` performs
    who: Expr | None = None
    side: str | None = None


@attrs.frozen
class Setup(Node):
    children = ("body",)
    blocks = ("body",)

    body: Block
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Round(Node):
    children = ("body",)
    blocks = ("body",)

    max: int
    body: Block
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Outcome(Node):
    """`score(p) = ...`, `role(p) = ...` or `result(p) = ...`: what a finished game says of
    each player (an int; the role he plays; a named result, an enum value or a row)."""

    children = ("value",)

    kind: str  # score | role | result
    param: str
    value: Expr
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Invariant(Node):
    children = ("value",)

    name: str
    value: Expr
    cite: str | None
    span: Span = _span()


@attrs.frozen
class ViewGroup(Node):
    """One titled group of a `view`: its variables, and whose entries it shows — `all`, the
    viewing seat's `own` (of variables keyed by player first), or the `others`'."""

    title: str
    names: tuple[str, ...]
    whose: str = "all"
    span: Span = _span()


@attrs.frozen
class View(Node):
    """`view { "Title": a, b  "Yours" own: c  "Theirs" others: c }`: what a seat's view
    shows, as groups of variables with their titles, in order. Front-ends show the groups;
    variables in none follow them. A singleton: a variant may `replace view { ... }`."""

    children = ("groups",)

    groups: tuple[ViewGroup, ...]
    span: Span = _span()


@attrs.frozen
class Note(Node):
    kind: str  # interpretation | deviation | contradiction | erratum
    name: str
    text: str
    cite: str | None
    span: Span = _span()
    # further sections the note cites (a contradiction names every place that disagrees)
    also: tuple[str, ...] = ()
    # an erratum's correction (`printed "A1.6" should "E2"`): the words as the book prints
    # them at its place, if given, and what they should say
    printed: str | None = None
    fix: str | None = None


@attrs.frozen
class Moment(Node):
    """`moment name "text" §cite`: a moment of play rows may react to. A record's field of
    the same name (`list of effect`) holds what each row does then; `trigger` does it."""

    children = ("params",)

    name: str
    template: str | None
    cite: str | None
    span: Span = _span()
    # what the moment passes to the effects that happen at it (`moment m(target: player)`)
    params: tuple[ParamDecl, ...] = ()


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
    Outcome,
    Invariant,
    Note,
    Moment,
    View,
]


# ------------------------------------------------------------------ overlays
@attrs.frozen
class SetParam(Node):
    children = ("value",)

    name: str
    value: Expr
    cite: str | None
    span: Span = _span()


@attrs.frozen
class Replace(Node):
    children = ("decl",)

    decl: Decl
    span: Span = _span()


@attrs.frozen
class AddDecl(Node):
    children = ("decl",)

    decl: Decl
    span: Span = _span()


@attrs.frozen
class AddRow(Node):
    children = ("row",)

    table: str
    row: Row
    span: Span = _span()


@attrs.frozen
class RemoveDecl(Node):
    name: str
    span: Span = _span()


@attrs.frozen
class RemoveRow(Node):
    table: str
    row: str
    span: Span = _span()


Overlay = Union[SetParam, Replace, AddDecl, AddRow, RemoveDecl, RemoveRow]


# ------------------------------------------------------------------ scenarios
@attrs.frozen
class ScenarioChoices(Node):
    """`choices a, b`: decisions taken in order, each when it is pending."""

    children = ("values",)

    values: tuple[Expr, ...]
    span: Span = _span()


# what an `expect` asserts: that a condition holds, or something of an option at the
# pending decision
EXPECT_KINDS = ("holds", "offered", "not offered", "rejected")


@attrs.frozen
class ScenarioExpect(Node):
    children = ("value", "printed")

    kind: str  # one of EXPECT_KINDS
    value: Expr
    label: str | None
    span: Span = _span()
    # `expect A == B printed C`: the figure the book prints for A in its worked example,
    # where the rules give B (a finding of `knapper lint` when they differ: K844)
    printed: Expr | None = None


ScenarioStep = Union[ScenarioChoices, ScenarioExpect]

# what a scenario may declare strict: unscripted dice or shuffles, unscripted forced decisions
STRICT_PARTS = ("dice", "shuffles", "choices")


@attrs.frozen
class Scenario(Node):
    """A worked example: a position, scripted chance, then steps (choices and expectations)
    carried out in the order they are written."""

    children = ("position", "run", "steps")
    blocks = ("position",)

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
class File(Node):
    children = ("items", "scenarios")

    kind: str  # ruleset | variant | library | scenarios
    name: str
    extends: str | None
    cite: str | None
    items: tuple[Decl | Overlay, ...]
    scenarios: tuple[Scenario, ...] = ()
    span: Span = _span()
    # `variant "x" extends "a", "b"`: further variants whose overlays are combined
    combines: tuple[str, ...] = ()


def row_cells(row: Row, fields: Sequence[str]) -> list[tuple[str, Expr]]:
    """A row's values by field name, as written: the positional ones in the fields' order
    (any beyond the last field left out), then the named ones."""
    positional = [a for a in row.args if not isinstance(a, KwArg)]
    named = [(a.name, a.value) for a in row.args if isinstance(a, KwArg)]
    return list(zip(fields, positional)) + named


def reconstructed_rows(table: Table) -> tuple[Row, ...]:
    """The rows whose values are authored: those marked, or every row of a marked table
    none of whose rows is marked."""
    marked = tuple(r for r in table.rows if r.reconstructed)
    return marked or (table.rows if table.reconstructed else ())


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
    if isinstance(decl, Outcome):
        return f"{decl.kind}()"  # never a name: `role` may also name an enum
    return type(decl).__name__.lower()


def rules(decls: Iterable[Any]) -> Iterator[tuple[Any, int]]:
    """Every declaration of `decls`, each followed by the rules it replaced and calls with
    `base(...)` (its `base`, that one's `base`...), with their depth (0 for the declaration)."""
    for decl in decls:
        depth = 0
        while decl is not None:
            yield decl, depth
            decl = decl.base if isinstance(decl, (Proc, Fn)) else None
            depth += 1


def rule_label(name: str, depth: int) -> str:
    """How messages, traces and the call graph name a rule `depth` replacements down (one
    its replacement calls with `base(...)`): `name`, `name (replaced)`, `name (replaced 2x)`."""
    if depth == 0:
        return name
    return f"{name} (replaced{'' if depth == 1 else f' {depth}x'})"


def walk(node) -> Iterator[Node]:
    """Every AST node inside `node` (itself included; or inside a tuple or list of nodes),
    depth first, in source order, following each class's `children`."""
    stack = list(_nodes(node))
    stack.reverse()
    while stack:
        here = stack.pop()
        yield here
        inner = list(children_of(here))
        inner.reverse()
        stack += inner


def rolls(node) -> Iterator[Node]:
    """The dice rolls inside `node`: `roll` of dice or of a table, and `dice(n, s)`."""
    for here in walk(node):
        if isinstance(here, (RollDice, RollTable)) or (
            isinstance(here, CallExpr) and here.name == "dice"
        ):
            yield here


def children_of(node: Node) -> Iterator[Node]:
    """The nodes directly inside `node`, in field order (tuples flattened, None left out)."""
    for name in node.children:
        yield from _nodes(getattr(node, name))


def blocks_of(node: Node) -> Iterator[Block]:
    """The statement blocks directly inside `node` (a loop's body, each branch of an `if`,
    each arm of a `match`: the blocks of a part of it that is neither block nor statement)."""
    for name in node.children:
        for inner in _nodes(getattr(node, name)):
            if name in node.blocks and isinstance(inner, Block):
                yield inner
            elif not isinstance(inner, (Block, Statement)) and inner.blocks:
                yield from blocks_of(inner)


def can_suspend(stmt: Statement) -> bool:
    """Whether running `stmt` can suspend: it suspends itself, or a statement in one of its
    blocks can."""
    return stmt.suspends or any(
        can_suspend(inner) for block in blocks_of(stmt) for inner in block.stmts
    )


def _nodes(value) -> Iterator[Node]:
    if isinstance(value, Node):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _nodes(item)


# ------------------------------------------------------------------ the classes, by category
TYPES: tuple[type[Node], ...] = get_args(Type)
KEYS: tuple[type[Node], ...] = get_args(Key)
EXPRESSIONS: tuple[type[Node], ...] = get_args(Expr)
STATEMENTS: tuple[type[Statement], ...] = get_args(Stmt)
DECLARATIONS: tuple[type[Node], ...] = get_args(Decl)
OVERLAYS: tuple[type[Node], ...] = get_args(Overlay)
SCENARIO_STEPS: tuple[type[Node], ...] = get_args(ScenarioStep)
# every node class of this module, in the order of definition (tests/test_passes.py checks
# that every pass has a handler for each)
NODE_CLASSES: tuple[type[Node], ...] = tuple(
    value
    for value in tuple(globals().values())
    if isinstance(value, type) and issubclass(value, Node) and value not in (Node, Statement)
)
# the classes that belong to no category above: parts of a construct (a row of a table, a
# branch's block, a comprehension's `for`), and whole scenarios and files
PARTS: tuple[type[Node], ...] = tuple(
    c
    for c in NODE_CLASSES
    if c not in TYPES + KEYS + EXPRESSIONS + STATEMENTS + DECLARATIONS + OVERLAYS + SCENARIO_STEPS
)
