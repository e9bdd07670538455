"""Stage 4: a checked program -> `interpreter.core.game.Game`.

Rules are compiled to Python code, not re-walked as a tree, in three steps:

    lower.py   each procedure -> instruction IR (ir.py): jumps are labels, and
               expressions Python source (exprs.py)
    link.py    instructions -> blocks, jumps resolved to blocks, the resume rule checked
    emit.py    one Python function per block, its source kept

(all in dsl/codegen/)

A procedure runs as a flat tuple of those functions, each `(state, locals) -> next position`.
The engine's position is (procedure, block index, locals): plain data, so a game can be
saved in the middle of a phase. Generated code runs in a private namespace that holds only
the ruleset's data and the helpers of `interpreter.core.runtime`; no ruleset text is ever executed
as Python.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import attrs

from dsl.codegen import memo
from dsl.codegen.emit import emit
from dsl.codegen.emit import python as _python
from dsl.codegen.exprs import Exprs, Scope, all_pairs_distance, fn_name, intern_texts  # noqa: F401 - importable from here
from dsl.codegen.fastlocals import fast_locals
from dsl.codegen.ir import ProcIR
from dsl.codegen.link import link
from dsl.codegen.lower import Lowerer
from dsl.errors import Span
from dsl.semantics.builtins import EFFECT_CONTEXT
from dsl.semantics.check import Checked
from dsl.semantics.resolve import Program
from dsl.semantics.symbols import KNOWN, Symbols
from dsl.semantics.types import Basic, ListOf, Named
from dsl.syntax import ast
from interpreter.core.game import (
    BlockInfo,
    ChooseSite,
    Game,
    InvariantInfo,
    NoteInfo,
    Phrase,
    ProcInfo,
    VarSpec,
)

Closure = Callable[[Any, list], Any]


class Compiler:
    """`Compiler(checked).compile()`: the whole of stage 4, from a program whose checks found
    no error (`dsl.semantics.check.Checked`).

    `ask_forced`: put every decision to the player, even one with a single option (scenarios
    use it to script forced decisions, or to list the ones taken for the player).
    `fuse=False`: one block per IR instruction and no jump threading (`dsl.codegen.link`), and
    nothing worked out from the rules' text (`Exprs.fold`: every comprehension and loop a
    Python one, no bounds from tests): slower code that must play exactly as the fused code
    does (tests/test_codegen.py).
    `remember=False`: no `fn` keeps the values of its calls (dsl/codegen/memo.py); the same
    games again, at the cost of working every value out each time."""

    def __init__(
        self, checked: Checked, ask_forced: bool = False, fuse: bool = True, remember: bool = True
    ):
        assert not checked.errors, "only a program that passed its checks is compiled"
        self.program: Program = checked.program
        self.sym: Symbols = checked.symbols
        self.ask_forced = ask_forced
        self.fuse = fuse
        self.exprs = Exprs(checked.symbols, checked.typing, fold=fuse)
        self.env = self.exprs.env  # the namespace generated code runs in
        # the `fn`s whose calls are remembered (dsl/codegen/memo.py)
        self.remembered = memo.remembered(self.program, self.sym) if remember else {}
        self.env["_MISS"] = memo.MISS
        self.procs_ir: list[ProcIR] = []  # after `compile`: every procedure's IR, main first

    def lam(self, src: str) -> Closure:
        return _python(f"lambda st, L: {src}", self.env, "eval")

    def _standing_rule(self, rule: ast.Proc, index: int, nlocals: list[int]) -> tuple:
        """What the engine needs to test a standing rule and start it (`_standing` in
        interpreter/core/runtime.py): its name, its procedure, its condition as a function
        of the state and the parameters' values, each parameter's values (None: the
        players), and the room for the body's other locals."""
        assert rule.when is not None
        names = tuple(p.name for p in rule.params)
        self.exprs.rule, self.exprs.rule_kind = (rule.name, 0), rule.kind
        test = self.exprs.x(rule.when, Scope(names, python_params=True))
        params = "".join(f", v_{name}" for name in names)
        # the checker allows a player, an enum, a table or a map: a key's domain, but for
        # the players, who are known only once a game starts
        domains = tuple(
            None if p.type.name == "player" else self.sym.domain(ast.KeyName(p.type.name))
            for p in rule.params
            if isinstance(p.type, ast.TypeName)
        )
        return (
            rule.name,
            index,
            _python(f"lambda st{params}: {test}", self.env, "eval"),
            domains,
            nlocals[index] - len(names),
        )

    def _option(self, option: ast.Proc, index: int, nlocals: list[int], procs: dict) -> tuple:
        """What the engine needs to offer a standing option (`_offers` in
        interpreter/core/state.py): as for a standing rule, whose first parameter is the
        player; the part of the condition that reads the player alone (`guard`), tested once
        before the other parameters' values are tried; and the procedures named by `during`
        (None: any time)."""
        name, proc, test, domains, room = self._standing_rule(option, index, nlocals)
        assert option.when is not None
        rest = {p.name for p in option.params[1:]}
        alone = [
            c
            for c in _conjuncts(option.when)
            if not any(isinstance(n, ast.NameRef) and n.name in rest for n in ast.walk(c))
        ]
        guard = None
        if alone and rest:
            player = option.params[0].name
            scope = Scope((player,), python_params=True)
            body = " and ".join(f"({self.exprs.x(c, scope)})" for c in alone)
            guard = _python(f"lambda st, v_{player}: {body}", self.env, "eval")
        during = frozenset(procs[n] for n in option.during) if option.during else None
        return (name, proc, guard, test, domains[1:], room, during)

    # ------------------------------------------------------------------ whole program
    def compile(self) -> Game:
        sym = self.sym
        x = self.exprs.x
        rules = list(ast.rules(self.program.decls.values()))
        for fn, depth in rules:
            if not isinstance(fn, ast.Fn):
                continue
            context = EFFECT_CONTEXT if fn.kind != "fn" else ()
            names = context + tuple(p.name for p in fn.params)
            scope = Scope(names, python_params=True)
            params = "".join(f", v_{name}" for name in names)
            self.exprs.rule = (fn.name, depth)
            self.exprs.rule_kind = fn.kind
            body = x(fn.body, scope)
            if fn.signature_only:
                message = self.exprs.const(f"{fn.kind} {fn.name!r} has no rule in this ruleset")
                body = f"_fault('K417', {message})"
            # a call is a step of the work budget (interpreter/core/budget.py): a chain of
            # derived values each calling the one before twice is exponential
            where = self.exprs.const(f"{fn.kind} {fn.name!r}")
            charge = f"    st.left -= 1\n    if st.left < 0: _out_of_steps(st, {where})\n"
            number = self.remembered.get(fn.name) if depth == 0 else None
            if number is not None:
                names = tuple(f"v_{p.name}" for p in fn.params)
                code = memo.wrap(number, names, charge, body)
            else:
                code = f"{charge}    return {body}"
            source = f"def {fn_name(fn.name, depth)}(st{params}):\n{code}"
            if self.fuse:  # the variables it reads again in Python locals, once it works
                after = 1 + (memo.LOOKUP_LINES if number is not None else 0)
                source = fast_locals(source, after) or source
            _python(source, self.env, "exec")  # defines the function in self.env
        # what `holds` tests and `amount` reads, by the tag of a condition's or a measure's
        # value: (state, who, card, *args)
        self.env["_CONDITIONS"] = {
            fn.name: self.env[fn_name(fn.name, 0)]
            for fn in self.program.get(ast.Fn)
            if fn.kind in ("condition", "measure")
        }
        lower = Lowerer(self.program, self.exprs, self.ask_forced, self.remembered)
        self.procs_ir = [lower.main()] + [
            lower.proc(p, depth) for p, depth in rules if isinstance(p, ast.Proc)
        ]
        nlocals = [p.nlocals for p in self.procs_ir]
        effects = {p.name: p for p in self.program.get(ast.Proc) if p.kind == "effect"}
        # what `perform` calls, by the tag of an effect's value: its procedure, the room for
        # its locals after the performer, the card, its moment's parameters and its own, and
        # the moment it happens at (none: any)
        self.env["_EFFECTS"] = {
            name: (index, nlocals[index] - 2 - len(lower.moment_params(p)) - len(p.params), p.at)
            for name, p in effects.items()
            for index in [lower.proc_index[(name, 0)]]
        }
        self.env["_STANDING"] = tuple(
            self._standing_rule(rule, lower.proc_index[(rule.name, 0)], nlocals)
            for rule in lower.standing
        )
        by_name = {name: index for (name, depth), index in lower.proc_index.items() if depth == 0}
        self.env["_OPTIONS"] = tuple(
            self._option(p, by_name[p.name], nlocals, by_name)
            for p in self.program.get(ast.Proc)
            if p.kind == "option"
        )
        codes, infos = [], []
        # where a waiting frame holds back standing tests (`_standing`): by procedure, the
        # blocks it may resume at inside a `simultaneously`
        self.env["_DEFER"] = defer = {}
        for index, proc in enumerate(self.procs_ir):
            linked = link(proc, self.fuse)
            if proc.deferred:
                defer[index] = linked.deferred()
            out = emit(linked, index, nlocals, self.env)
            codes.append(out.functions)
            blocks = tuple(
                BlockInfo(block[0], len(block), _extent(proc, block), source)
                for block, source in zip(linked.blocks, out.sources)
            )
            infos.append(
                ProcInfo(
                    proc.name,
                    proc.kind,
                    proc.cite,
                    proc.span,
                    proc.nlocals,
                    out.spans,
                    proc.local_names,
                    out.line_spans,
                    blocks,
                    out.tails,
                )
            )
        var_specs = tuple(self._var_spec(slot, decl) for slot, decl in enumerate(sym.state_decls))
        copy_vars = _python(_vars_copier(var_specs, self._never_a_list), self.env, "eval")
        invariants = tuple(
            InvariantInfo(inv.name, inv.cite, inv.span, self.lam(x(inv.value, Scope())))
            for inv in self.program.get(ast.Invariant)
        )
        # what a finished game says of each player, by kind: score, role, result; and the
        # heuristic, how each stands in any position
        outcomes = {
            d.kind: self.lam(x(d.value, Scope((d.param,)))) for d in self.program.get(ast.Outcome)
        }
        score = outcomes.get("score")
        notes = tuple(
            NoteInfo(n.kind, n.name, n.text, n.cite, n.span, n.also)
            for n in self.program.get(ast.Note)
        )
        intern_texts(self.env)
        players = self.program.one(ast.Players)
        assert players is not None, "the checker refuses a ruleset without `players` (K215)"
        bound = self.program.one(ast.Bound)
        title = self.program.one(ast.Title)
        source = self.program.one(ast.Source)
        return Game(
            name=self.program.name,
            title=title.text if title else self.program.name,
            source=source.text if source else None,
            players=(players.lo, players.hi),
            bound=bound.decisions if bound else None,
            vars=var_specs,
            code=tuple(codes),
            procs=tuple(infos),
            main=0,
            sites=name_sites(lower.sites),
            views=tuple((g.title, g.names, g.whose) for g in view.groups)
            if (view := self.program.one(ast.View)) is not None
            else (),
            rows=sym.rows,
            tables={name: tuple(ids) for name, ids in sym.table_rows.items()},
            adjacency={k: tuple(v) for k, v in sym.adjacency.items()},
            named=sym.named_values(),
            invariants=invariants,
            score=score,
            role=outcomes.get("role"),
            result=outcomes.get("result"),
            heuristic=outcomes.get("heuristic"),
            notes=notes,
            params=dict(sym.params),
            fingerprint=fingerprint(self.program),
            functions={
                fn.name: self.env[fn_name(fn.name, 0)]
                for fn in self.program.get(ast.Fn)
                if fn.kind == "fn"
            },
            program=self.program,
            copy_vars=copy_vars,
            inlined=self.exprs.inlined_fns(),
            written_out=dict(self.exprs.written),
            remembers=bool(self.remembered),
            standing=self.env["_STANDING"],
            options=self.env["_OPTIONS"],
            deferred=defer,
            known_slot=sym.slot_of(KNOWN),
            phrases={
                d.name: Phrase(d.kind, d.name, tuple(x.name for x in d.params), d.template, d.cite)
                for d in self.program.decls.values()
                if isinstance(d, (ast.Proc, ast.Fn)) and d.kind in ast.TAGGED_KINDS
            }
            | {
                # a standing option's value is its name and its parameters but the player's
                d.name: Phrase(
                    "option", d.name, tuple(x.name for x in d.params[1:]), d.template, d.cite
                )
                for d in self.program.get(ast.Proc)
                if d.kind == "option"
            }
            | {
                # an enum value that carries values reads as its words, filled in
                name: Phrase(
                    "enum value", name, tuple(x.name for x in ps), titles.get(name), e.cite
                )
                for e in self.program.get(ast.Enum)
                for titles in [dict(e.titles)]
                for name, ps in e.payloads
            },
        )

    def _never_a_list(self, t) -> bool:
        """Is a value of type `t` never a Python list?"""
        if isinstance(t, Basic):
            return True
        if isinstance(t, Named):
            decl = self.sym.decls.get(t.name)
            return not (isinstance(decl, ast.Enum) and decl.payloads)
        return False

    def _var_spec(self, slot: int, decl) -> VarSpec:
        domains = tuple(self.sym.domain(k) for k in self.sym.keys_of(decl))
        size = 1
        for d in domains:
            size *= len(d)
        one = self._initial(decl)
        init = (lambda st: [one(st) for _ in range(size)]) if domains else one
        kind = type(decl).__name__.lower()
        keys = self.sym.keys_of(decl)
        by_player = ast.by_player(keys)
        return VarSpec(
            decl.name,
            slot,
            domains,
            decl.visibility,
            init,
            kind,
            decl.cite,
            decl.span,
            by_player,
            tuple(_key_kind(k) for k in keys),
            self.exprs.typing.of(decl),
        )

    def _initial(self, decl) -> Callable[[Any], Any]:
        """The initial value of one entry of a variable, zone or pool."""
        if isinstance(decl, ast.Zone):
            slots = decl.size or 0
            if decl.kind == "row":
                return lambda st: [None] * slots
            return lambda st: []
        if decl.value is None:
            return lambda st: 0
        value = self.lam(self.exprs.owned(decl.value, Scope()))
        return lambda st: value(st, [])


def _vars_copier(specs: tuple[VarSpec, ...], never_a_list: Callable[[Any], bool]) -> str:
    """The source of a function that copies a state's variables (`State.g`) so that the copy
    shares no list with them, each as deep as its type says: a value that is never a list
    (`never_a_list`: a number, a flag, a text, a row, an enum value that carries nothing)
    as it is; a keyed variable's list of them by a slice; a list of them one level more;
    anything else (lists of lists, values that carry values, what the checker cannot know)
    all the way down. Much faster than copying every variable all the way down, which a
    searching agent does at every copy of a game."""
    parts = []
    for spec in specs:
        one = f"g[{spec.slot}]"
        t = spec.type
        if never_a_list(t):
            parts.append(f"{one}[:]" if spec.domains else one)
        elif isinstance(t, ListOf) and never_a_list(t.elem):
            parts.append(
                f"[x[:] if x.__class__ is list else x for x in {one}]"
                if spec.domains
                else f"_copy({one})"
            )
        else:
            parts.append(f"_copy_deep({one})")
    return f"lambda g: [{', '.join(parts)}]"


def _conjuncts(e: ast.Expr) -> list[ast.Expr]:
    """The operands of a chain of `and`s, in order (the expression itself if it is none)."""
    if isinstance(e, ast.BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _extent(proc: ProcIR, block: tuple[int, ...]) -> Span:
    """The source a block comes from: from its first statement to its last (the last one's
    span alone when they are in different files)."""
    first, last = proc.code[block[0]].span, proc.code[block[-1]].span
    if first.file != last.file or (first.line, first.col) > (last.line, last.col):
        return last
    return Span(first.file, first.line, first.col, last.end_line, last.end_col)


def fingerprint(program: Program) -> str:
    digest = hashlib.sha256()
    for path in sorted(program.sources):
        digest.update(path.encode())
        digest.update(program.sources[path].encode())
    return digest.hexdigest()[:16]


def _key_kind(key) -> str:
    """What a variable's key ranges over: `player`, `int`, or the enum, table or map named."""
    return "int" if isinstance(key, ast.KeyRange) else key.name


def name_sites(sites: list[ChooseSite]) -> tuple[ChooseSite, ...]:
    """Each decision's stable name: a rule's first decision takes the rule's name (or its
    own `id`), later ones of the same name `.2`, `.3`..., in the order of the source. The
    checker has refused two `id`s alike (K245), so only rules' names repeat here."""
    seen: dict[str, int] = {}
    out = []
    for site in sites:
        count = seen[site.id] = seen.get(site.id, 0) + 1
        out.append(site if count == 1 else attrs.evolve(site, id=f"{site.id}.{count}"))
    return tuple(out)
