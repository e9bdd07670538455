"""Names and types: every name bound, every operation applied to values it accepts.

Types are those of `dsl/semantics/types.py`. `any` and `none` fit everything, so the
checker only reports what is certainly wrong. The type found for each expression is kept in
a `Typing` the compiler reads.
"""

from __future__ import annotations

import re

import attrs

from dsl.errors import Diagnostic, Note, Span, diag, did_you_mean
from dsl.semantics.builtins import BUILTINS, STATE_TYPES
from dsl.semantics.check.calls import Calls, plural
from dsl.semantics.check.data import known_type
from dsl.semantics.symbols import Symbols
from dsl.semantics.types import (
    ANY,
    BASICS,
    BOOL,
    EFFECT,
    INT,
    NONE,
    PLAYER,
    TEXT,
    ListOf,
    Named,
    Type,
    Typing,
    elem,
    fits,
    known,
    show,
)
from dsl.syntax import ast
from dsl.syntax.fmt import params as fmt_params
from dsl.syntax.visitor import Visitor, elsewhere, on

FACES = ("up", "down")  # what `c.up` and `c.down` read of a two-sided card (`sides`)


class TypeChecker(Calls, Visitor):
    """One handler per node class: a declaration's checks, a statement's checks in a scope
    (local name -> type), an expression's, a type's or a key's type."""

    not_given = elsewhere(
        ast.File,
        ast.Import,
        *ast.OVERLAYS,
        why="resolve merges the files and applies imports and overlays before checking",
    )
    scenario_parts = elsewhere(
        ast.Scenario,
        *ast.SCENARIO_STEPS,
        why="a scenario's parts become declarations (interpreter/scenario.py) to be checked",
    )
    with_parent = elsewhere(
        ast.KwArg,
        ast.Row,
        ast.ViewGroup,
        ast.MapNode,
        ast.MapEdge,
        ast.ParamDecl,
        ast.MatchArm,
        why="the call, table, map, fn, proc or match that holds it checks it",
    )

    def __init__(self, program, symbols: Symbols):
        self.program = program
        self.sym = symbols
        self.out: list[Diagnostic] = []
        self.typing = Typing()
        # the field whose cell is being checked (an effect `at m` may stand only in m's field)
        self.cell_field: str | None = None
        # the fn or proc being checked: its `base` is what a `base(...)` call in it calls
        self.rule: object = None

    # ------------------------------------------------------------------ helpers
    def error(self, code, message, span, hint=None):
        self.out.append(diag(code, message, span, hint=hint))

    def type_of(self, t) -> Type:
        return ANY if t is None else self.visit(t)

    def named(self, name: str) -> Type:
        """The type a declared name gives its values: a table's rows are its record's."""
        kind = self.sym.kind.get(name)
        match kind:
            case "table":
                return Named("record", self.sym.decls[name].record)
            case "enum" | "record" | "map":
                return Named(kind, name)
            case _:
                return ANY

    @on(ast.TypeList)
    def t_TypeList(self, t: ast.TypeList) -> Type:
        return ListOf(self.type_of(t.elem))

    @on(ast.TypeName)
    def t_TypeName(self, t: ast.TypeName) -> Type:
        if not known_type(t.name, self.sym):
            self.error(
                "K202",
                f"unknown type {t.name!r}",
                t.span,
                hint=did_you_mean(
                    t.name,
                    ["int", "bool", "text", "player", "effect"]
                    + [
                        n
                        for n, k in self.sym.kind.items()
                        if k in ("enum", "record", "table", "map")
                    ],
                ),
            )
            return ANY
        return BASICS.get(t.name) or self.named(t.name)

    def expect(self, actual, expected, span, what: str):
        if not fits(actual, expected):
            self.error("K204", f"{what} should be {show(expected)}, not {show(actual)}", span)

    def key_type(self, key):
        return self.visit(key)

    @on(ast.KeyRange)
    def k_KeyRange(self, key: ast.KeyRange) -> Type:
        return INT

    @on(ast.KeyName)
    def k_KeyName(self, key: ast.KeyName) -> Type:
        if key.name == "player":
            return PLAYER
        return ANY if self.sym.kind.get(key.name) == "record" else self.named(key.name)

    def state_type(self, decl) -> Type:
        if isinstance(decl, ast.Var):
            return self.type_of(decl.type)
        if isinstance(decl, ast.Zone):
            return ListOf(self.type_of(decl.elem))
        assert isinstance(decl, ast.Pool), decl
        return INT

    # ------------------------------------------------------------------ declarations
    def run(self) -> list[Diagnostic]:
        for decl, _depth in ast.rules(self.program.decls.values()):
            self.rule = decl
            self.visit(decl)
        return self.out

    @on(ast.Moment)
    def d_Moment(self, d: ast.Moment) -> None:
        """Its parameters are typed; every field named for it holds effects."""
        for p in d.params:
            self.type_of(p.type)
        for record in self.program.get(ast.Record):
            for f in record.fields:
                if f.name == d.name:
                    self.expect(
                        self.type_of(f.type),
                        ListOf(EFFECT),
                        f.type.span,
                        f"field {f.name!r}, named for a moment,",
                    )

    @on(ast.View)
    def d_View(self, d: ast.View) -> None:
        """A view shows state: each name is a variable, zone or pool a seat may see, once in
        the groups of everyone's entries, once among `own` and once among `others`; those two
        show entries by seat, so they name only what is keyed by player first (K248)."""
        seen: set[tuple[str, str]] = set()
        for group in d.groups:
            for name in group.names:
                decl = self.sym.decls.get(name)
                if not isinstance(decl, (ast.Var, ast.Zone, ast.Pool)):
                    self.error(
                        "K248",
                        f"the view names {name!r}, which is no variable, zone or pool",
                        d.span,
                        hint=did_you_mean(name, [s.name for s in self.sym.state_decls]),
                    )
                    continue
                if decl.visibility == "scratch":
                    self.error("K248", f"the view names {name!r}, which is scratch", d.span)
                elif group.whose != "all" and not ast.by_player(self.sym.keys_of(decl)):
                    self.error(
                        "K248",
                        f"the view's {group.whose!r} group {group.title!r} names {name!r}, "
                        "which is not kept per player",
                        d.span,
                        hint="`own` and `others` show entries by seat: name variables keyed "
                        "by player first",
                    )
                clash = {
                    "all": ("all", "own", "others"),
                    "own": ("all", "own"),
                    "others": ("all", "others"),
                }[group.whose]
                if any((name, w) in seen for w in clash):
                    self.error("K248", f"the view names {name!r} twice", d.span)
                seen.add((name, group.whose))

    @on(ast.Title, ast.Source, ast.Players, ast.Bound, ast.Map, ast.Note)
    def d_untyped(self, d) -> None:
        """Nothing in these has a type (`Symbols` binds the names of enums and maps)."""

    @on(ast.Enum)
    def d_Enum(self, d: ast.Enum) -> None:
        """What a value carries has types, and its words name only what it carries."""
        titles = dict(d.titles)
        for name, params in d.payloads:
            for p in params:
                self.type_of(p.type)
            self.template(_Worded(name, params, titles.get(name), d.span))

    @on(ast.Param)
    def d_Param(self, d: ast.Param):
        self.expect(
            self.expr(d.value, {}),
            self.type_of(d.type),
            d.value.span,
            f"the value of parameter {d.name!r}",
        )

    @on(ast.Record)
    def d_Record(self, d: ast.Record):
        for f in d.fields:
            self.visit(f)
        if d.sides is not None:
            self.two_sides(d, d.sides)

    def two_sides(self, d: ast.Record, sides: tuple[str, str]) -> None:
        """`sides a, b` names two fields of one type; `up` and `down` read them."""
        fields = {f.name: f for f in d.fields}
        missing = [n for n in sides if n not in fields]
        taken = [n for n in FACES if n in fields]
        if missing or taken or sides[0] == sides[1]:
            self.error(
                "K243",
                f"{d.name!r}: `sides` names two different fields of the record"
                + (f" ({', '.join(map(repr, missing))} is not one)" if missing else "")
                + (f"; a field may not be called {taken[0]!r}" if taken else ""),
                d.span,
                hint="`sides front, back` after the fields, each a field of the record; "
                "`c.up` and `c.down` read the face up and the face down",
            )
            return
        a, b = (self.type_of(fields[n].type) for n in sides)
        if a != b:
            self.error(
                "K243",
                f"{d.name!r}: the two sides are of different types ({show(a)}, {show(b)})",
                fields[sides[1]].span,
            )

    @on(ast.Field)
    def f_Field(self, f: ast.Field):
        t = self.type_of(f.type)
        if f.default is not None:
            self.cell_field = f.name
            self.expect(self.expr(f.default, {}), t, f.default.span, f"the default of {f.name!r}")
            self.cell_field = None

    @on(ast.Table)
    def d_Table(self, d: ast.Table):
        record = self.program.decls.get(d.record)
        if not isinstance(record, ast.Record):
            return
        types = [(f.name, self.type_of(f.type)) for f in record.fields]
        by_name = dict(types)
        for row in d.rows:
            positional = [a for a in row.args if not isinstance(a, ast.KwArg)]
            for (name, t), value in zip(types, positional):
                self.cell_field = name
                self.expect(
                    self.expr(value, {}), t, value.span, f"field {name!r} of row {row.name!r}"
                )
            for arg in row.args:
                if isinstance(arg, ast.KwArg) and arg.name in by_name:
                    self.cell_field = arg.name
                    self.expect(
                        self.expr(arg.value, {}),
                        by_name[arg.name],
                        arg.span,
                        f"field {arg.name!r} of row {row.name!r}",
                    )
            self.cell_field = None

    def initial(self, d, value) -> None:
        """An initial value is computed before the game starts: it may not read the state."""
        for node in ast.walk(value):
            name = node.name if isinstance(node, ast.NameRef) else None
            if name is not None and self.sym.kind.get(name) in ("var", "zone", "pool"):
                self.error(
                    "K230",
                    f"the initial value of {d.name!r} reads {name!r}, which does not exist yet "
                    "when the game starts",
                    node.span,
                    hint="start from a constant and set it in `setup`",
                )

    @on(ast.Var)
    def d_Var(self, d: ast.Var):
        self.initial(d, d.value)
        self.expect(
            self.expr(d.value, {}),
            self.type_of(d.type),
            d.value.span,
            f"the initial value of {d.name!r}",
        )

    @on(ast.Zone)
    def d_Zone(self, d: ast.Zone):
        if d.elem is not None:
            self.type_of(d.elem)

    @on(ast.Pool)
    def d_Pool(self, d: ast.Pool):
        if d.value is not None:
            self.initial(d, d.value)
            self.expect(self.expr(d.value, {}), INT, d.value.span, "a pool's count")

    @on(ast.Fn)
    def d_Fn(self, d: ast.Fn):
        for p in d.params:
            self.local(p.name, p.span)
        scope: dict[str, Type] = {p.name: self.type_of(p.type) for p in d.params}
        if d.kind in ("condition", "measure"):
            scope = self.context(d) | scope
            self.given(d)
        result = self.expr(d.body, scope)
        if d.result is not None:
            self.expect(result, self.type_of(d.result), d.body.span, f"the value of {d.name!r}")
        if d.kind in ("condition", "measure"):
            wanted = BOOL if d.kind == "condition" else INT
            self.expect(result, wanted, d.body.span, f"the {d.kind} {d.name!r}")
        self.no_rolls(d.body, f"the derived value {d.name!r}")

    def no_rolls(self, e, what: str) -> None:
        """A value read without changing the state (a derived value, a standing rule's
        condition) rolls no dice."""
        for node in ast.rolls(e):
            self.error(
                "K218",
                f"{what} rolls dice; derived values must not change the state",
                node.span,
                hint="roll in a proc and pass the result",
            )

    @on(ast.Proc)
    def d_Proc(self, d: ast.Proc):
        for p in d.params:
            self.local(p.name, p.span)
        scope: dict[str, Type] = {p.name: self.type_of(p.type) for p in d.params}
        if d.kind == "effect":
            scope = self.context(d) | self.moment_context(d) | scope
        if d.kind == "window":
            scope = self.moment_context(d) | scope
            self.window(d, scope)
        if d.when is not None:
            self.standing(d, scope)
        self.given(d)
        self.block(d.body, scope)

    def standing(self, d: ast.Proc, scope: dict[str, Type]) -> None:
        """A standing rule's or option's condition is a bool that rolls nothing, and the
        engine can list every value of its parameters (players, a plain enum's values, a
        table's rows, a map's places) to test it for each. An option's first parameter is
        the player who may take it; `during` names procedures."""
        assert d.when is not None
        what = f"the condition of {d.name!r}"
        self.expect(self.expr(d.when, dict(scope)), BOOL, d.when.span, what)
        self.no_rolls(d.when, what)
        listed_params = d.params
        if d.kind == "option":
            first = d.params[0] if d.params else None
            if first is None or scope[first.name] != PLAYER:
                self.error(
                    "K238",
                    f"the standing option {d.name!r} needs the player who takes it as its "
                    "first parameter",
                    first.span if first is not None else d.span,
                    hint=f"write `option {d.name}(p: player, ...)`",
                )
            listed_params = d.params[1:]
            for name in d.during:
                if self.sym.kind.get(name) not in ("proc", "phase", "step", "effect"):
                    self.error(
                        "K239",
                        f"`during {name}`: {name!r} is not a procedure of this ruleset",
                        d.span,
                        hint=did_you_mean(name, self.procedures())
                        or "name the phases or steps while which the option is open",
                    )
        for p in listed_params:
            t = scope[p.name]
            named = p.type.name if isinstance(p.type, ast.TypeName) else None
            listed = t == PLAYER or (
                isinstance(t, Named)
                and self.sym.kind.get(named or "") in ("enum", "table", "map")
                and (t.kind != "enum" or not self.sym.decls[t.name].payloads)
            )
            if not listed:
                self.error(
                    "K204",
                    f"a standing rule is tested for every value of its parameters, and "
                    f"{show(t)} cannot be listed",
                    p.span,
                    hint="give it a player, an enum, a table or a map",
                )

    def window(self, d: ast.Proc, scope: dict[str, Type]) -> None:
        """A window's one parameter is the player it asks, taken in turn from its `for`
        list, which the moment's values may compute."""
        assert d.who is not None
        q = d.params[0]
        if scope[q.name] != PLAYER:
            self.error(
                "K238",
                f"the window {d.name!r} asks players: its parameter must be a player",
                q.span,
                hint=f"write `window {d.name}({q.name}: player) for ...`",
            )
        outer = {n: t for n, t in scope.items() if n != q.name}
        self.expect(self.expr(d.who, outer), ListOf(PLAYER), d.who.span, "who the window asks")

    def procedures(self) -> list[str]:
        return [n for n, k in self.sym.kind.items() if k in ("proc", "phase", "step")]

    def moment_context(self, d: ast.Proc) -> dict[str, Type]:
        """The parameters of the moment an effect happens at (`at m`): locals of its body."""
        if d.at is None:
            return {}
        moment = self.sym.decls.get(d.at) if self.sym.kind.get(d.at) == "moment" else None
        if not isinstance(moment, ast.Moment):
            self.error(
                "K201",
                f"unknown moment {d.at!r}",
                d.span,
                hint=did_you_mean(d.at, self.names_of("moment")),
            )
            return {}
        for p in moment.params:
            self.local(p.name, d.span)
        return {p.name: self.type_of(p.type) for p in moment.params}

    @on(ast.Setup)
    def d_Setup(self, d: ast.Setup):
        self.block(d.body, {})

    @on(ast.Round)
    def d_Round(self, d: ast.Round):
        self.block(d.body, {})

    @on(ast.Outcome)
    def d_Outcome(self, d: ast.Outcome):
        t = self.expr(d.value, {d.param: PLAYER})
        if d.kind in ("score", "heuristic"):
            self.expect(t, INT, d.value.span, f"a {d.kind}")
        elif not (isinstance(t, Named) and t.kind in ("enum", "record")) and t not in (ANY, NONE):
            self.error(
                "K204",
                f"a {d.kind} names what a player is or reached: an enum value or a table's "
                f"row, not {show(t)}",
                d.value.span,
                hint="declare an enum of them (or a table with a row each) and name one",
            )

    @on(ast.Invariant)
    def d_Invariant(self, d: ast.Invariant):
        self.expect(self.expr(d.value, {}), BOOL, d.value.span, f"invariant {d.name!r}")

    # ------------------------------------------------------------------ statements
    @on(ast.Block)
    def block(self, block: ast.Block, scope: dict):
        for stmt in block.stmts:
            self.stmt(stmt, scope)

    def stmt(self, s, scope: dict) -> None:
        self.visit(s, scope)

    @on(ast.Let)
    def s_Let(self, s: ast.Let, scope: dict):
        self.local(s.name, s.span)
        scope[s.name] = self.expr(s.value, scope)

    @on(ast.Assign)
    def s_Assign(self, s: ast.Assign, scope: dict):
        target, op, value = s.target, s.op, s.value
        t = self.target(target, scope)
        v = self.expr(value, scope)
        if op == "=" and t == NONE and not target.indices and target.name in scope:
            scope[target.name] = v  # `let x = none`: x holds what is first given it, or none
        elif op == "=":
            self.expect(v, t, value.span, f"the value assigned to {target.name!r}")
        elif not isinstance(t, ListOf):
            self.expect(t, INT, target.span, f"{target.name!r} (with {op})")
            self.expect(v, INT, value.span, f"the right side of {op}")

    @on(ast.If)
    def s_If(self, s: ast.If, scope: dict):
        for cond, body in s.branches:
            self.expect(self.expr(cond, scope), BOOL, cond.span, "a condition")
            self.block(body, scope)
        if s.otherwise is not None:
            self.block(s.otherwise, scope)

    @on(ast.Match)
    def s_Match(self, s: ast.Match, scope: dict):
        t = self.expr(s.subject, scope)
        enum = self.sym.decls.get(t.name) if isinstance(t, Named) and t.kind == "enum" else None
        if enum is None and t != ANY:
            self.error(
                "K204", f"match tells apart the values of an enum, not {show(t)}", s.subject.span
            )
        values = enum.values if enum is not None else ()
        carried = dict(enum.payloads) if enum is not None else {}
        seen: dict[str, Span] = {}
        for arm in s.arms:
            name, binds, body, span = arm.name, arm.binds, arm.body, arm.span
            params = carried.get(name, ())
            if enum is not None and name not in values:
                self.error(
                    "K201",
                    f"{name!r} is not a value of {enum.name!r}",
                    span,
                    hint=did_you_mean(name, list(values)),
                )
            elif name in seen:
                self.out.append(
                    diag(
                        "K235",
                        f"two arms for {name!r}: only the first would ever run",
                        span,
                        notes=(Note(seen[name], "the first"),),
                    )
                )
            elif enum is not None and len(binds) != len(params):
                self.error(
                    "K203",
                    f"{name!r} carries {plural(len(params), 'value')}; the arm names {len(binds)}",
                    span,
                    hint=f"{name}({', '.join(p.name for p in params)})" if params else name,
                )
            seen.setdefault(name, span)
            for i, bound in enumerate(binds):
                self.local(bound, span)
                scope[bound] = self.type_of(params[i].type) if i < len(params) else ANY
            self.block(body, scope)
        if s.otherwise is not None:
            self.block(s.otherwise, scope)
        elif enum is not None:
            missing = [v for v in values if v not in seen]
            if missing:
                self.error(
                    "K234",
                    f"match on {enum.name!r} has no arm for {', '.join(missing)}",
                    s.span,
                    hint="add an arm for each, or an `else` for the rest",
                )

    @on(ast.For)
    def s_For(self, s: ast.For, scope: dict):
        self.local(s.name, s.span)
        scope[s.name] = self.elem(self.expr(s.iter, scope), s.iter.span)
        self.block(s.body, scope)

    @on(ast.Outcry)
    def s_Outcry(self, s: ast.Outcry, scope: dict):
        self.expr(s.watch, scope)  # read before the block runs, so without `p`
        self.local(s.name, s.span)
        scope[s.name] = self.elem(self.expr(s.iter, scope), s.iter.span)
        self.block(s.body, scope)

    @on(ast.Repeat)
    def s_Repeat(self, s: ast.Repeat, scope: dict):
        self.expect(self.expr(s.count, scope), INT, s.count.span, "a repeat count")
        self.block(s.body, scope)

    @on(ast.Simultaneously)
    def s_Simultaneously(self, s: ast.Simultaneously, scope: dict):
        self.block(s.body, scope)

    @on(ast.While)
    def s_While(self, s: ast.While, scope: dict):
        self.expect(self.expr(s.cond, scope), BOOL, s.cond.span, "a loop condition")
        self.block(s.body, scope)

    def prompt_places(self, s: ast.Choose | ast.Agree | ast.Negotiate, scope: dict) -> None:
        """Each `{name}` of a decision's prompt names a local known there, and each
        `{name.field}` a field of the row such a local holds (K247)."""
        found = {}
        for place in ast.places(s.prompt or ""):
            local, _, field = place.partition(".")
            if local in scope and field:
                found[place] = self.field(scope[local], field, s.span)
            elif place in scope:
                found[place] = scope[place]
            else:
                self.error(
                    "K247",
                    f"the prompt has a place {{{place}}} for a local that is not known here",
                    s.span,
                    hint=did_you_mean(place, list(scope)) or "a prompt names locals only",
                )
        self.typing.places[id(s)] = found

    @on(ast.Choose)
    def s_Choose(self, s: ast.Choose, scope: dict):
        self.local(s.name, s.span)
        self.prompt_places(s, scope)
        self.expect(self.expr(s.player, scope), PLAYER, s.player.span, "who decides")
        scope[s.name] = self.elem(self.expr(s.options, scope), s.options.span)

    @on(ast.Agree)
    def s_Agree(self, s: ast.Agree, scope: dict):
        self.local(s.name, s.span)
        self.prompt_places(s, scope)
        self.expect(self.expr(s.group, scope), ListOf(PLAYER), s.group.span, "who decide together")
        scope[s.name] = self.elem(self.expr(s.options, scope), s.options.span)

    @on(ast.Negotiate)
    def s_Negotiate(self, s: ast.Negotiate, scope: dict):
        self.local(s.name, s.span)
        self.prompt_places(s, scope)
        self.expect(self.expr(s.parties, scope), ListOf(PLAYER), s.parties.span, "the parties")
        if s.proposers is not None:
            self.expect(
                self.expr(s.proposers, scope), ListOf(PLAYER), s.proposers.span, "who may counter"
            )
        # the items may read the draft, a list of items: typed once they are known
        scope[s.name] = ListOf(ANY)
        scope[s.name] = ListOf(self.elem(self.expr(s.items, scope), s.items.span))

    @on(ast.CallStmt)
    def s_CallStmt(self, s: ast.CallStmt, scope: dict):
        self.call(s, scope, statement=True)

    @on(ast.AddTo, ast.RemoveFrom)
    def s_AddTo(self, s: ast.AddTo | ast.RemoveFrom, scope: dict):
        t = self.zone(s.target, scope)
        self.expect(
            self.expr(s.value, scope),
            self.elem(t, s.target.span),
            s.value.span,
            f"an item of {s.target.name!r}",
        )

    @on(ast.Spend)
    def s_Spend(self, s: ast.Spend, scope: dict):
        kind = self.pool_row(s.source, scope, "`spend` takes from")
        if s.sink is not None:
            into = self.pool_row(s.sink, scope, "`spend ... to` gives to")
            if kind is not None and into is not None and into != kind:
                self.error(
                    "K204",
                    f"{s.sink.name!r} counts {into}, but what is spent is {kind}",
                    s.sink.span,
                )
        if kind is not None:
            self.expect(self.expr(s.bag, scope), ListOf(Named("enum", kind)), s.bag.span, "a cost")
        else:
            self.expr(s.bag, scope)

    def pool_row(self, t: ast.Target, scope: dict, verb: str) -> str | None:
        """A pool named by all its keys but the kind it counts (`has[p]`): that kind (an
        enum's name), or None after reporting what is wrong."""
        decl = self.sym.decls.get(t.name) if t.name not in scope else None
        if not isinstance(decl, ast.Pool):
            what = "a local" if t.name in scope else self.sym.kind.get(t.name)
            if what is None:
                self.unknown(t.name, t.span, scope)
            else:
                article = "an" if what[0] in "aeiou" else "a"
                self.error("K204", f"{verb} a pool, and {t.name!r} is {article} {what}", t.span)
            return None
        if len(t.indices) != len(decl.keys):
            self.error(
                "K209",
                f"{t.name!r} is a pool of {decl.enum}: give its keys but not the {decl.enum}, "
                f"which the cost says ({t.name}[{', '.join(_key_text(k) for k in decl.keys)}])",
                t.span,
            )
            return None
        for key, index in zip(decl.keys, t.indices):
            self.expect(
                self.expr(index, scope), self.key_type(key), index.span, f"a key of {t.name!r}"
            )
        return decl.enum

    @on(ast.Move)
    def s_Move(self, s: ast.Move, scope: dict):
        t = self.elem(self.zone(s.source, scope), s.source.span)
        self.elem(self.zone(s.dest, scope), s.dest.span)
        self.expect(self.expr(s.value, scope), t, s.value.span, f"an item of {s.source.name!r}")

    @on(ast.Flip)
    def s_Flip(self, s: ast.Flip, scope: dict):
        t = self.expr(s.value, scope)
        record = self.program.decls.get(t.name) if isinstance(t, Named) else None
        if known(t) and not (isinstance(record, ast.Record) and record.sides is not None):
            self.error(
                "K244",
                f"only a two-sided card can be turned over, not a value of type {show(t)}",
                s.value.span,
                hint="declare the record's faces with `sides front, back`",
            )

    @on(ast.Reveal)
    def s_Reveal(self, s: ast.Reveal, scope: dict):
        self.expr(s.value, scope)
        self.expect(self.expr(s.to, scope), ListOf(PLAYER), s.to.span, "who is shown it")

    @on(ast.Shuffle)
    def s_Shuffle(self, s: ast.Shuffle, scope: dict):
        self.elem(self.target(s.target, scope), s.target.span)

    @on(ast.Draw)
    def s_Draw(self, s: ast.Draw, scope: dict):
        self.expect(self.expr(s.count, scope), INT, s.count.span, "how many to draw")
        self.elem(self.zone(s.source, scope), s.source.span)
        self.elem(self.zone(s.dest, scope), s.dest.span)

    @on(ast.EndGame)
    def s_EndGame(self, s: ast.EndGame, scope: dict):
        self.expect(self.expr(s.winners, scope), ListOf(PLAYER), s.winners.span, "the winners")

    @on(ast.Trigger)
    def s_Trigger(self, s: ast.Trigger, scope: dict):
        if self.sym.kind.get(s.moment) != "moment":
            self.error(
                "K201",
                f"unknown moment {s.moment!r}",
                s.span,
                hint=did_you_mean(s.moment, self.names_of("moment"))
                or 'declare it: `moment name "when ..."`',
            )
        else:
            moment = self.sym.decls[s.moment]
            if len(s.args) != len(moment.params):
                self.out.append(
                    diag(
                        "K203",
                        f"moment {s.moment!r} takes {plural(len(moment.params), 'argument')}, "
                        f"not {len(s.args)}",
                        s.span,
                        notes=(Note(moment.span, f"{s.moment!r} is declared here"),),
                    )
                )
            for p, a in zip(moment.params, s.args):
                self.expect(
                    self.expr(a, scope),
                    self.type_of(p.type),
                    a.span,
                    f"argument {p.name!r} of moment {s.moment!r}",
                )
            item = self.elem(self.expr(s.items, scope), s.items.span)
            self.expect(
                self.field(item, s.moment, s.items.span),
                ListOf(EFFECT),
                s.items.span,
                f"what the items do at {s.moment!r}",
            )
        self.expect(self.expr(s.player, scope), PLAYER, s.player.span, "who performs")
        if s.order is not None:
            self.expect(self.expr(s.order, scope), PLAYER, s.order.span, "who orders them")

    @on(ast.Perform)
    def s_Perform(self, s: ast.Perform, scope: dict):
        t = self.expr(s.effects, scope)
        if not (fits(t, EFFECT) or fits(t, ListOf(EFFECT))):
            self.error(
                "K204",
                f"what is performed should be effect or list of effect, not {show(t)}",
                s.effects.span,
            )
        self.expect(self.expr(s.player, scope), PLAYER, s.player.span, "who performs")
        if s.card is not None:
            self.expr(s.card, scope)

    @on(ast.Log)
    def s_Log(self, s: ast.Log, scope: dict):
        if s.to is not None:
            self.expect(self.expr(s.to, scope), PLAYER, s.to.span, "the player a log line is for")
        for a in s.args:
            self.expr(a, scope)
        fields = s.fields()
        for place in s.places():
            if place not in fields:
                self.error(
                    "K246",
                    f"the log line's text has a place {{{place}}} for a value it does not log",
                    s.span,
                    hint=did_you_mean(place, list(fields))
                    or f"its values are named {', '.join(fields) or 'nothing'}; "
                    "name one with `name = expr`",
                )

    @on(ast.Quiet)
    def s_Quiet(self, s: ast.Quiet, scope: dict):
        if s.who is not None:
            self.expect(self.expr(s.who, scope), ListOf(PLAYER), s.who.span, "who is asked")

    @on(ast.Break, ast.Pass)
    def s_nothing(self, s, scope: dict):
        """Nothing to check."""

    @on(ast.Target)
    def target(self, t: ast.Target, scope: dict):
        if t.name in scope:
            base = scope[t.name]
            for index in t.indices:
                self.list_index(index, scope)
                base = self.elem(base, t.span)
            return base
        kind = self.sym.kind.get(t.name)
        if kind not in ("var", "zone", "pool"):
            if kind is None:
                self.unknown(t.name, t.span, scope)
            else:
                self.error(
                    "K208",
                    f"{t.name!r} is a {kind} and cannot be changed",
                    t.span,
                    hint="declare state with `var`, or a local with `let`",
                )
            return ANY
        decl = self.sym.decls[t.name]
        return self.indexed(decl, t.indices, t.span, scope)

    def zone(self, t: ast.Target, scope: dict):
        """The list a card goes into or comes out of: a slot `z[i]` of a row zone stands for
        the row itself (the card goes into that slot)."""
        decl = self.sym.decls.get(t.name) if t.name not in scope else None
        if isinstance(decl, ast.Zone) and decl.kind == "row":
            keys = len(self.sym.keys_of(decl))
            if len(t.indices) == keys + 1:
                self.list_index(t.indices[-1], scope)
                return self.target(ast.Target(t.name, t.indices[:-1], span=t.span), scope)
        return self.target(t, scope)

    def indexed(self, decl, indices, span, scope):
        t = self.state_type(decl)
        keys = self.sym.keys_of(decl)
        if keys:
            if len(indices) == len(keys) + 1 and isinstance(t, ListOf):
                # after the keys, one more index reads an item (a slot of a row zone)
                self.list_index(indices[-1], scope)
                self.indexed(decl, indices[:-1], span, scope)
                return t.elem
            if len(indices) != len(keys):
                self.error(
                    "K209",
                    f"{decl.name!r} has {plural(len(keys), 'key')} but "
                    f"{len(indices)} {'was' if len(indices) == 1 else 'were'} given",
                    span,
                    hint=f"write {decl.name}["
                    + ", ".join(
                        k.name if isinstance(k, ast.KeyName) else f"{k.lo}..{k.hi}" for k in keys
                    )
                    + "]",
                )
                return t
            for key, index in zip(keys, indices):
                self.expect(
                    self.expr(index, scope),
                    self.key_type(key),
                    index.span,
                    f"a key of {decl.name!r}",
                )
            return t
        for index in indices:
            self.list_index(index, scope)
            t = self.elem(t, span)
        return t

    def list_index(self, index, scope):
        """Lists are indexed by int; a player also indexes a per-seat list (seat 1 is 0)."""
        t = self.expr(index, scope)
        if t != PLAYER:
            self.expect(t, INT, index.span, "a list index")

    def elem(self, t: Type, span) -> Type:
        item = elem(t)
        if item is None:
            self.error("K204", f"a list is needed here, not {show(t)}", span)
            return ANY
        return item

    def local(self, name: str, span) -> None:
        """A local must not hide a declared name: `let year = 5` would never touch the state."""
        kind = self.sym.kind.get(name)
        if kind is None and name not in STATE_TYPES:
            return
        self.out.append(
            diag(
                "K229",
                f"the local {name!r} would hide the {kind or 'built-in name'} of the same name",
                span,
                notes=(Note(self.sym.spans[name], "declared here"),) if kind else (),
                hint="pick another name for the local",
            )
        )

    def names_of(self, *kinds: str) -> list[str]:
        return [n for n, k in self.sym.kind.items() if k in kinds]

    def unknown(self, name, span, scope):
        candidates = list(scope) + list(self.sym.kind) + list(BUILTINS) + list(STATE_TYPES)
        self.error("K201", f"unknown name {name!r}", span, hint=did_you_mean(name, candidates))

    # ------------------------------------------------------------------ expressions
    def expr(self, e, scope: dict) -> Type:
        t = self.visit(e, scope)
        self.typing.note(e, t)
        return t

    @on(ast.IntLit)
    def x_IntLit(self, e, scope: dict) -> Type:
        return INT

    @on(ast.StrLit)
    def x_StrLit(self, e, scope: dict) -> Type:
        return TEXT

    @on(ast.BoolLit)
    def x_BoolLit(self, e, scope: dict) -> Type:
        return BOOL

    @on(ast.NoneLit)
    def x_NoneLit(self, e, scope: dict) -> Type:
        return NONE

    @on(ast.NameRef)
    def x_NameRef(self, e: ast.NameRef, scope: dict):
        return self.name(e.name, e.span, scope)

    @on(ast.ListLit)
    def x_ListLit(self, e: ast.ListLit, scope: dict):
        types = [self.expr(i, scope) for i in e.items]
        if not types or not all(fits(t, types[0]) for t in types):
            return ListOf(ANY)  # a tuple-like list such as [color, 2]: items vary
        return ListOf(types[0])

    @on(ast.Comprehension)
    def x_Comprehension(self, e: ast.Comprehension, scope: dict):
        inner = dict(scope)
        for f in e.fors:
            self.visit(f, inner)
        if e.cond is not None:
            self.expect(self.expr(e.cond, inner), BOOL, e.cond.span, "a filter")
        return ListOf(self.expr(e.expr, inner))

    @on(ast.CompFor)
    def x_CompFor(self, f: ast.CompFor, scope: dict):
        """A comprehension's `for`: binds its name in the comprehension's own scope."""
        self.local(f.name, f.span)
        scope[f.name] = self.elem(self.expr(f.iter, scope), f.iter.span)

    @on(ast.IfExpr)
    def x_IfExpr(self, e: ast.IfExpr, scope: dict):
        self.expect(self.expr(e.cond, scope), BOOL, e.cond.span, "a condition")
        a, b = self.expr(e.then, scope), self.expr(e.other, scope)
        return a if known(a) else b

    @on(ast.UnaryOp)
    def x_UnaryOp(self, e: ast.UnaryOp, scope: dict):
        if e.op == "not":
            self.expect(self.expr(e.operand, scope), BOOL, e.operand.span, "the operand of `not`")
            return BOOL
        self.expect(self.expr(e.operand, scope), INT, e.operand.span, "the operand of `-`")
        return INT

    @on(ast.FieldGet)
    def x_FieldGet(self, e: ast.FieldGet, scope: dict):
        return self.field(self.expr(e.obj, scope), e.name, e.span)

    @on(ast.IndexGet)
    def x_IndexGet(self, e: ast.IndexGet, scope: dict):
        obj, indices = e.obj, e.indices
        if (
            isinstance(obj, ast.NameRef)
            and obj.name not in scope
            and self.sym.kind.get(obj.name) in ("var", "zone", "pool")
        ):
            return self.indexed(self.sym.decls[obj.name], indices, e.span, scope)
        t = self.expr(obj, scope)
        if len(indices) != 1:
            self.error("K209", "a list takes one index", e.span)
        for index in indices:
            self.list_index(index, scope)
        return self.elem(t, e.span)

    @on(ast.CallExpr)
    def x_CallExpr(self, e: ast.CallExpr, scope: dict):
        return self.call(e, scope, statement=False)

    @on(ast.RollDice)
    def x_RollDice(self, e: ast.RollDice, scope: dict):
        if e.count < 1 or e.sides < 1:
            self.error("K228", "a roll needs at least one die with at least one side", e.span)
        return INT if e.count <= 1 else ListOf(INT)

    @on(ast.RollTable)
    def x_RollTable(self, e: ast.RollTable, scope: dict):
        table = e.table
        decl = self.sym.decls.get(table)
        if decl is None or self.sym.kind.get(table) != "table":
            self.error(
                "K201",
                f"unknown table {table!r}",
                e.span,
                hint=(
                    f"for dice write the count too, as in `roll 1{table}`"
                    if re.fullmatch(r"d[0-9]+", table)
                    else did_you_mean(table, self.names_of("table"))
                ),
            )
            return ANY
        if decl.dice is None:
            self.error("K214", f"table {table!r} is not rolled (it has no `roll NdS`)", e.span)
        return self.named(table)

    def name(self, name, span, scope):
        if name in scope:
            return scope[name]
        if name in STATE_TYPES:
            return STATE_TYPES[name]
        kind = self.sym.kind.get(name)
        if kind is None:
            self.unknown(name, span, scope)
            return ANY
        decl = self.sym.decls[name]
        if kind == "enum value":
            if name in dict(decl.payloads):
                self.error(
                    "K203",
                    f"{name!r} carries values: write {name}(...)",
                    span,
                    hint=f"{decl.name} {name}({fmt_params(dict(decl.payloads)[name])})",
                )
            return Named("enum", decl.name)
        if kind == "row" or kind == "node":
            return self.named(self.sym.owner[name])
        if kind == "param":
            return self.type_of(decl.type)
        if kind in ("var", "zone", "pool"):
            if self.sym.keys_of(decl):
                self.error("K209", f"{name!r} needs its key(s): {name}[...]", span)
            return self.state_type(decl)
        self.error(
            "K204",
            f"{name!r} is a {kind}, not a value",
            span,
            hint="call it with (...)" if kind in ("fn",) else None,
        )
        return ANY

    def field(self, t, name, span):
        if name in ("id", "title", "table"):
            return TEXT
        if not known(t):
            return ANY
        record = self.program.decls.get(t.name) if isinstance(t, Named) else None
        if not isinstance(record, ast.Record):
            self.error("K205", f"a value of type {show(t)} has no fields", span)
            return ANY
        for f in record.fields:
            if f.name == name:
                return self.type_of(f.type)
        if name in FACES:
            if record.sides is None:
                self.error(
                    "K244",
                    f"{record.name!r} is not a two-sided card: it has no face {name}",
                    span,
                    hint=f"declare its faces: `{record.keyword} {record.name} {{ ... }} "
                    "sides front, back`",
                )
                return ANY
            return self.field(t, record.sides[0], span)
        self.error(
            "K205",
            f"{record.name!r} has no field {name!r}",
            span,
            hint=did_you_mean(name, [f.name for f in record.fields] + ["id", "title"]),
        )
        return ANY

    @on(ast.BinOp)
    def binop(self, e: ast.BinOp, scope):
        a, b = self.expr(e.left, scope), self.expr(e.right, scope)
        op = e.op
        if op in ("and", "or"):
            self.expect(a, BOOL, e.left.span, f"the left side of `{op}`")
            self.expect(b, BOOL, e.right.span, f"the right side of `{op}`")
            return BOOL
        if op in ("in", "not in"):
            self.expect(a, self.elem(b, e.right.span), e.left.span, f"the left side of `{op}`")
            return BOOL
        if op in ("==", "!="):
            if not fits(a, b):
                self.error(
                    "K204",
                    f"comparing {show(a)} with {show(b)} is always "
                    f"{'false' if op == '==' else 'true'}",
                    e.span,
                    hint=(
                        "a player is not a number: compare with `player(n)`, or use `seat(p)`"
                        if {a, b} == {PLAYER, INT}
                        else None
                    ),
                )
            return BOOL
        if op == "+" and (isinstance(a, ListOf) or isinstance(b, ListOf)):
            # joining lists of different kinds is how options end in "done": a mixed list
            self.expect(a, ListOf(ANY), e.left.span, "the left side of `+`")
            self.expect(b, ListOf(ANY), e.right.span, "the right side of `+`")
            if isinstance(a, ListOf) and isinstance(b, ListOf) and not fits(a.elem, b.elem):
                return ListOf(ANY)
            return a if a != ANY else b
        self.expect(a, INT, e.left.span, f"the left side of `{op}`")
        self.expect(b, INT, e.right.span, f"the right side of `{op}`")
        return BOOL if op in ("<", "<=", ">", ">=") else INT


def check_types(program, symbols: Symbols) -> tuple[Typing, list[Diagnostic]]:
    checker = TypeChecker(program, symbols)
    found = checker.run()
    for decl in program.get((ast.Var, ast.Zone, ast.Pool)):
        # a state declaration's type is its entries' type, which observations label by
        checker.typing.note(decl, checker.state_type(decl))
    return checker.typing, found


def _key_text(key) -> str:
    return key.name if isinstance(key, ast.KeyName) else f"{key.lo}..{key.hi}"


@attrs.frozen
class _Worded:
    """An enum value that carries values, as `template` checks its words."""

    name: str
    params: tuple
    template: str | None
    span: Span
    kind: str = "enum value"
