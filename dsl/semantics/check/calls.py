"""Stage 3, part of the type check (`dsl/semantics/check/types.py`): calls and the card
vocabulary.

`Calls` is mixed into `TypeChecker`: what a call calls (a procedure, a derived value, a
built-in, an effect or a condition, or with `base(...)` the rule a replacing one replaces),
its arguments, and the checks of an effect's or a condition's words (its text names its
parameters; words without rules are warned of).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import attrs

from dsl.errors import Note, diag, did_you_mean
from dsl.semantics.builtins import BUILTINS, EFFECT_CONTEXT
from dsl.semantics.types import (
    ANY,
    BOOL,
    CONDITION,
    EFFECT,
    INT,
    MEASURE,
    PLAYER,
    ListOf,
    Named,
    Type,
    fits,
    show,
)
from dsl.syntax import ast


class Calls:
    """Calls and the effect/condition vocabulary, for `TypeChecker` (which gives `sym`,
    `rule`, `out`, `error`, `expr`, `type_of` and `named`)."""

    sym: Any
    rule: object
    out: list
    program: Any
    cell_field: str | None
    # TypeChecker's own methods, declared here for the type checker only
    error: Callable[..., None]
    expect: Callable[..., None]
    expr: Callable[..., Type]
    type_of: Callable[..., Type]
    pool_row: Callable[..., str | None]
    named: Callable[[str], Type]
    local: Callable[..., None]

    def given(self, d: ast.Proc | ast.Fn) -> None:
        """An effect or a condition declared by its words only should have its rules in a
        ruleset. A warning, not an error: a test harness may import the cards without the
        rules that play them; performing or testing it is then K417."""
        if d.signature_only and self.program.kind != "library":
            self.out.append(
                diag(
                    "K232",
                    f"{d.kind} {d.name!r} is declared by its words only, and no file gives its "
                    "rules: performing or testing it stops the game (K417)",
                    d.span,
                    severity="warning",
                    hint=f"declare the {d.kind} again with its rules in a file that imports "
                    "this one",
                )
            )

    def context(self, d: ast.Proc | ast.Fn) -> dict[str, Type]:
        """The names an effect's or a condition's body has without declaring them: who
        performs or is tested (`self`) and the card (`this`, none without one); and its
        text checked."""
        for name in EFFECT_CONTEXT:
            self.local(name, d.span)
        self.template(d)
        return {"self": PLAYER, "this": ANY}

    def template(self, d: Any) -> None:
        """Every `{name}` in the words of an effect, a condition, a measure or an enum value
        that carries values is one of its parameters."""
        names = [p.name for p in d.params]
        for name in re.findall(r"{([^{}]*)}", d.template or ""):
            if name not in names:
                self.error(
                    "K231",
                    f"the text of {d.kind} {d.name!r} names {{{name}}}, which is not one of "
                    "its parameters",
                    d.span,
                    hint=did_you_mean(name, names)
                    or "write `{name}` for each parameter the text shows",
                )

    def callee(self, c) -> tuple[str | None, Any]:
        """What a call calls: its kind and declaration (a `base(...)` call: the rule that the
        one being checked replaces)."""
        if c.base:
            decl = self.rule.base if isinstance(self.rule, (ast.Proc, ast.Fn)) else None
            kind = None if decl is None else decl.kind
            return kind, decl
        return self.sym.kind.get(c.name), self.sym.decls.get(c.name)

    def call(self, c, scope, statement: bool):
        kind, decl = self.callee(c)
        args = [a for a in c.args if not isinstance(a, ast.KwArg)]
        for a in c.args:
            if isinstance(a, ast.KwArg):
                self.error("K203", "named arguments are only used in table rows", a.span)
        if statement:
            if kind in ("proc", "phase", "step") or (kind == "effect" and c.base):
                # `base(...)` in a replacing effect does the effect it replaces
                return self.check_args(c, decl, args, scope)
            if kind in ("whenever", "option", "window"):
                what = {
                    "whenever": "a standing rule: it runs by itself whenever its condition holds",
                    "option": "a standing option: the engine offers it to the player while "
                    "its condition holds",
                    "window": "a window: it opens by itself at every trigger of its moment",
                }[kind]
                self.error(
                    "K236",
                    f"{c.name!r} is {what}, and is never called",
                    c.span,
                    hint="move what both need into a proc, and call that",
                )
                return ANY
            if kind == "effect":
                self.error(
                    "K222",
                    f"{c.name!r} is an effect: calling it makes a value, which does nothing "
                    "on its own",
                    c.span,
                    hint=f"perform it: `perform {c.name}(...) by p`",
                )
                return ANY
            if kind in ("fn", "condition", "measure", "enum value") or c.name in BUILTINS:
                self.error(
                    "K222",
                    f"{c.name!r} computes a value; it cannot stand alone as a statement",
                    c.span,
                    hint="use it in an expression, e.g. `let x = ...`",
                )
                return ANY
            self.error(
                "K201",
                f"unknown procedure {c.name!r}",
                c.span,
                hint=did_you_mean(
                    c.name, [n for n, k in self.sym.kind.items() if k in ("proc", "phase", "step")]
                ),
            )
            return ANY
        if kind == "fn":
            self.check_args(c, decl, args, scope)
            return self.type_of(decl.result) if decl.result is not None else ANY
        if kind == "enum value":
            carried = dict(decl.payloads).get(c.name)
            if carried is None:
                self.error(
                    "K203",
                    f"{c.name!r} is a value of {decl.name!r} that carries nothing: write it "
                    "without ( )",
                    c.span,
                )
                return Named("enum", decl.name)
            self.check_args(c, _Carrier(carried, decl.span), args, scope)
            return Named("enum", decl.name)
        if kind == "effect" and c.base:
            self.error(
                "K222",
                "`base(...)` in a replacing effect does the effect it replaces; it has no value",
                c.span,
                hint="write it as a statement on its own line",
            )
            return ANY
        if kind in ("condition", "measure") and c.base:  # the replaced one's value
            self.check_args(c, decl, args, scope)
            return BOOL if kind == "condition" else INT
        if kind == "effect" and decl.at is not None and self.cell_field != decl.at:
            self.error(
                "K233",
                f"effect {c.name!r} happens only at moment {decl.at!r}: it may stand only in "
                f"a row's field {decl.at!r}",
                c.span,
                hint=f"put it in the {decl.at!r} field of a row; `trigger {decl.at}` performs it",
            )
        if kind in ("effect", "condition", "measure"):
            self.check_args(c, decl, args, scope)
            return {"effect": EFFECT, "condition": CONDITION}.get(kind, MEASURE)
        if kind in ("proc", "phase", "step"):
            self.error(
                "K222",
                f"{c.name!r} is a {kind}; it changes the game and has no value",
                c.span,
                hint="call it as a statement on its own line",
            )
            return ANY
        spec = BUILTINS.get(c.name)
        if spec is None:
            self.error(
                "K201",
                f"unknown function {c.name!r}",
                c.span,
                hint=did_you_mean(
                    c.name,
                    list(BUILTINS)
                    + [n for n, k in self.sym.kind.items() if k == "fn" or k in ast.TAGGED_KINDS],
                ),
            )
            return ANY
        lo, hi = spec.arity
        if not lo <= len(args) <= hi:
            wanted = str(lo) if lo == hi else f"{lo} or {hi}"
            self.error(
                "K203",
                f"{c.name}() takes {wanted} argument(s), not {len(args)}",
                c.span,
                hint=f"{c.name}: {spec.doc}",
            )
            return ANY
        if c.name in ("nodes", "rows", "values"):
            wanted = {"nodes": "map", "rows": "table", "values": "enum"}[c.name]
            arg = args[0]
            if not (isinstance(arg, ast.NameRef) and self.sym.kind.get(arg.name) == wanted):
                self.error("K204", f"{c.name}() takes the name of a {wanted}", arg.span)
                return ANY
            if wanted == "enum" and self.sym.decls[arg.name].payloads:
                self.error(
                    "K204",
                    f"values() lists an enum's values, and some values of {arg.name!r} "
                    "carry values",
                    arg.span,
                )
                return ANY
            return ListOf(self.named(arg.name))
        if c.name == "affordable":
            pool = args[1]
            if isinstance(pool, ast.NameRef):
                pool = ast.IndexGet(pool, (), span=pool.span)
            if not (isinstance(pool, ast.IndexGet) and isinstance(pool.obj, ast.NameRef)):
                self.error("K204", "affordable() takes a pool, such as has[p]", args[1].span)
                return BOOL
            target = ast.Target(pool.obj.name, pool.indices, span=pool.span)
            kind = self.pool_row(target, scope, "affordable() reads")
            want = ListOf(Named("enum", kind)) if kind is not None else ANY
            self.expect(self.expr(args[0], scope), want, args[0].span, "a cost")
            return BOOL
        types = [self.expr(a, scope) for a in args]
        declared = spec.signature(len(args)) or ()
        for i, (given, expected, arg) in enumerate(zip(types, declared, args)):
            self.expect(given, expected, arg.span, f"argument {i + 1} of {c.name}()")
        if c.name in ("holds", "amount"):
            read = CONDITION if c.name == "holds" else MEASURE
            verb = "tests" if c.name == "holds" else "reads"
            tested = types[0]
            if not (fits(tested, read) or fits(tested, ListOf(read))):
                self.error(
                    "K204",
                    f"what {c.name}() {verb} should be {show(read)} or list of {show(read)}, "
                    f"not {show(tested)}",
                    args[0].span,
                )
            about = "who holds() tests" if c.name == "holds" else "whose amount() it reads"
            self.expect(types[1], PLAYER, args[1].span, about)
        result = spec.result
        assert result is not None, f"{c.name}() is typed above"
        return result(types) if callable(result) else result

    def check_args(self, c, decl, args, scope):
        params = decl.params
        if len(params) != len(args):
            self.out.append(
                diag(
                    "K203",
                    f"{c.name!r} takes {plural(len(params), 'argument')}, not {len(args)}",
                    c.span,
                    notes=(Note(decl.span, f"{c.name!r} is defined here"),),
                )
            )
            return ANY
        for p, a in zip(params, args):
            self.expect(
                self.expr(a, scope),
                self.type_of(p.type),
                a.span,
                f"argument {p.name!r} of {c.name!r}",
            )
        return ANY


@attrs.frozen
class _Carrier:
    """What `check_args` needs of an enum value that carries values: its parameters."""

    params: tuple
    span: object


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")
