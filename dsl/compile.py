"""Stage 4: a checked program -> `interpreter.game.Game`.

Rules are compiled to Python code, not re-walked as a tree: every expression becomes Python
source inlined into one generated function, every statement becomes one generated
instruction `(state, locals) -> next position`, and each procedure is a flat tuple of them.
The engine's position is (procedure, instruction index, locals): plain data, so a game can be
saved in the middle of a phase. Generated code runs in a private namespace that holds only the
ruleset's data and the helpers of `interpreter.runtime`; no ruleset text is ever executed as Python.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections import deque
from collections.abc import Callable
from typing import Any

from dsl import ast
from dsl.builtins import BUILTINS, STATE_NAMES
from dsl.errors import Span
from dsl.resolve import Program
from dsl.symbols import Symbols
from interpreter.game import ChooseSite, Game, InvariantInfo, NoteInfo, ProcInfo, VarSpec
from interpreter.runtime import RUNTIME, copy_value
from interpreter.state import CALL, RET, SUSPEND

Closure = Callable[[Any, list], Any]
# positions in instruction sources, filled in when a procedure is linked; NUL never comes out
# of repr(), so no ruleset literal can be mistaken for a mark
_MARK = re.compile("\x00([^\x00]*)\x00")
_JUMP = re.compile("return \x00@([0-9]+)\x00")


def _fresh(expr) -> bool:
    """Does the expression always build a new value (so no copy is needed on assignment)?"""
    if isinstance(
        expr,
        (
            ast.ListLit,
            ast.Comprehension,
            ast.RollDice,
            ast.IntLit,
            ast.StrLit,
            ast.BoolLit,
            ast.NoneLit,
            ast.BinOp,
            ast.UnaryOp,
        ),
    ):
        return True
    if isinstance(expr, ast.CallExpr):
        spec = BUILTINS.get(expr.name)
        return spec is not None and spec.fresh
    return False


class Scope:
    """How local names are reached in generated code: `L[i]` slots, or Python names."""

    def __init__(self, params: tuple[str, ...] = (), python_params: bool = False):
        self.names: list[str] = []
        self.where: dict[str, str] = {}
        for name in params:
            if python_params:
                self.where[name] = f"v_{name}"
            else:
                self.slot(name)

    def slot(self, name: str) -> int:
        ref = self.where.get(name)
        if ref is not None and ref.startswith("L["):
            return int(ref[2:-1])
        self.names.append(name)
        self.where[name] = f"L[{len(self.names) - 1}]"
        return len(self.names) - 1

    def temp(self, hint: str) -> int:
        self.names.append(f"${hint}")
        return len(self.names) - 1

    def inner(self, bound: list[str]) -> Scope:
        """A scope for a comprehension: its loop names become Python names."""
        child = Scope.__new__(Scope)
        child.names = self.names
        child.where = dict(self.where)
        for name in bound:
            child.where[name] = f"v_{name}"
        return child


class _Code:
    """Instructions of one procedure as Python sources, linked once labels are known."""

    def __init__(self):
        self.items: list[tuple[str, Span]] = []
        self.line_spans: list[list[Span] | None] = []  # per line of a body, when they differ
        self.falls_through: list[bool] = []  # a step: runs to its end, then on to the next
        self.labels: dict[int, int] = {}
        self.next_label = 0
        self.loop_ends: list[int] = []

    def label(self) -> int:
        self.next_label += 1
        return self.next_label

    def place(self, label: int) -> None:
        self.labels[label] = len(self.items)

    def emit(self, body: str, span: Span, line_spans: list[Span] | None = None) -> None:
        """`body` is the instruction's Python body, with position marks (see `_MARK`)."""
        self.items.append((body, span))
        self.falls_through.append(False)
        self.line_spans.append(line_spans)

    def step(self, body: str, span: Span, line_spans: list[Span] | None = None) -> None:
        self.emit(body, span, line_spans)
        self.falls_through[-1] = True

    def blocks(self) -> list[list[int]]:
        """Instructions grouped into straight runs: steps, then the one that decides where to
        go. A jump target always starts a run, so every target is a run's first instruction."""
        targets = set(self.labels.values())
        runs: list[list[int]] = []
        for i in range(len(self.items)):
            if runs and i not in targets and self.falls_through[runs[-1][-1]]:
                runs[-1].append(i)
            else:
                runs.append([i])
        return runs


class Compiler:
    def __init__(self, program: Program, symbols: Symbols, ask_forced: bool = False):
        self.program = program
        # put every decision to the player, even one with a single option (scenarios use it
        # to script forced decisions, or to list the ones taken for the player)
        self.ask_forced = ask_forced
        self.sym = symbols
        self.env: dict[str, Any] = dict(RUNTIME)
        self.env.update(_R=symbols.rows, _ADJ=symbols.adjacency)
        self.consts: dict[int, str] = {}
        self.proc_index: dict[str, int] = {}
        self.sites: list[ChooseSite] = []
        self.current_proc = "main"
        self.nlocals: list[int] = []

    # ------------------------------------------------------------------ namespace
    def const(self, value: Any, hint: str = "k") -> str:
        """A name in the generated code's namespace bound to `value`."""
        key = id(value)
        if key not in self.consts:
            name = f"_{hint}{len(self.consts)}"
            self.env[name] = value
            self.consts[key] = name
        return self.consts[key]

    def lam(self, src: str) -> Closure:
        return _python(f"lambda st, L: {src}", self.env, "eval")

    # ------------------------------------------------------------------ whole program
    def compile(self) -> Game:
        sym = self.sym
        procs = self.program.get(ast.Proc)
        for i, proc in enumerate(procs):
            self.proc_index[proc.name] = i + 1  # 0 is main
        self.nlocals = [0] * (len(procs) + 1)
        for fn in self.program.get(ast.Fn):
            scope = Scope(tuple(p.name for p in fn.params), python_params=True)
            params = "".join(f", v_{p.name}" for p in fn.params)
            self.env[f"_F_{fn.name}"] = _python(
                f"lambda st{params}: {self.x(fn.body, scope)}", self.env, "eval"
            )
        unlinked = [self._main()] + [self._proc(proc) for proc in procs]
        codes, infos = [], []
        for index, (code, info) in enumerate(unlinked):
            linked, spans, line_spans = self._link(code, index)
            codes.append(linked)
            name, kind, cite, span, local_names = info
            infos.append(
                ProcInfo(
                    name, kind, cite, span, self.nlocals[index], spans, local_names, line_spans
                )
            )
        var_specs = tuple(self._var_spec(slot, decl) for slot, decl in enumerate(sym.state_decls))
        invariants = tuple(
            InvariantInfo(inv.name, inv.cite, inv.span, self.lam(self.x(inv.value, Scope())))
            for inv in self.program.get(ast.Invariant)
        )
        score_decl = self.program.one(ast.Score)
        score = None
        if score_decl is not None:
            score = self.lam(self.x(score_decl.value, Scope((score_decl.param,))))
        notes = tuple(
            NoteInfo(n.kind, n.name, n.text, n.cite, n.span, n.also)
            for n in self.program.get(ast.Note)
        )
        players = self.program.one(ast.Players)
        bound = self.program.one(ast.Bound)
        title = self.program.one(ast.Title)
        source = self.program.one(ast.Source)
        return Game(
            name=self.program.name,
            title=title.text if title else self.program.name,
            source=source.text if source else None,
            players=(players.lo, players.hi) if players else (1, 1),
            bound=bound.decisions if bound else None,
            vars=var_specs,
            code=tuple(codes),
            procs=tuple(infos),
            main=0,
            sites=tuple(self.sites),
            rows=sym.rows,
            tables={name: tuple(ids) for name, ids in sym.table_rows.items()},
            adjacency={k: tuple(v) for k, v in sym.adjacency.items()},
            invariants=invariants,
            score=score,
            notes=notes,
            params=dict(sym.params),
            fingerprint=fingerprint(self.program),
            functions={fn.name: self.env[f"_F_{fn.name}"] for fn in self.program.get(ast.Fn)},
            program=self.program,
        )

    def _link(self, code: _Code, index: int):
        """One Python function per straight run of statements (fewer calls per step).

        Returns the functions, the span of each run's deciding statement, and for each run
        the span of every generated line, so an error points at the exact statement."""
        runs = code.blocks()
        where = {run[0]: n for n, run in enumerate(runs)}
        # a run that only jumps elsewhere is skipped by whoever would go through it
        jumps = {}
        for n, run in enumerate(runs):
            jump = _JUMP.fullmatch(code.items[run[0]][0])
            if len(run) == 1 and jump is not None:
                jumps[n] = where[code.labels[int(jump[1])]]
        for n in list(jumps):
            seen = {n}
            while jumps[n] in jumps and jumps[n] not in seen:
                seen.add(jumps[n])
                jumps[n] = jumps[jumps[n]]
        self._jumps = jumps
        out, spans, line_spans = [], [], []
        for pc, run in enumerate(runs):
            lines: list[str] = []
            lines_at: list[Span] = []
            for i in run:
                body, span = code.items[i]
                text = _MARK.sub(lambda m: self._resolve_mark(m[1], pc, code, where), body)
                body_lines = text.split("\n")
                lines += ["    " + line for line in body_lines]
                lines_at += code.line_spans[i] or [span] * len(body_lines)
            if code.falls_through[run[-1]]:
                lines.append(f"    return {self._jumps.get(pc + 1, pc + 1)}")
                lines_at.append(code.items[run[-1]][1])
            name = f"_i{index}_{pc}"
            _python(f"def {name}(st, L):\n" + "\n".join(lines), self.env, "exec")
            out.append(self.env.pop(name))
            spans.append(code.items[run[-1]][1])
            line_spans.append(tuple(lines_at))
        return tuple(out), tuple(spans), tuple(line_spans)

    def _resolve_mark(self, mark: str, pc: int, code: _Code, where: dict[int, int]) -> str:
        if mark == "next":
            return str(self._jumps.get(pc + 1, pc + 1))
        if mark.startswith("@"):
            target = where[code.labels[int(mark[1:])]]
            return str(self._jumps.get(target, target))
        index, nargs = mark[len("locals") :].split("-")
        return str(self.nlocals[int(index)] - int(nargs))

    def _main(self):
        code = _Code()
        scope = Scope()
        self.current_proc = "main"
        span = self.program_span()
        setup = self.program.one(ast.Setup)
        if setup is not None:
            self.block(setup.body, code, scope)
        rnd = self.program.one(ast.Round)
        if rnd is not None:
            top = code.label()
            code.place(top)
            message = self.const(f"the game did not end within its {rnd.max} rounds")
            code.step(
                f"st.rounds += 1\nif st.rounds > {rnd.max}: _fault('K404', {message})", rnd.span
            )
            self.block(rnd.body, code, scope)
            code.emit(f"return \x00@{top}\x00", rnd.span)
        code.emit("_fault('K407', 'the game ended without `end game`')", span)
        self.nlocals[0] = len(scope.names)
        return code, ("main", "main", None, span, tuple(scope.names))

    def program_span(self) -> Span:
        rnd = self.program.one(ast.Round) or self.program.one(ast.Setup)
        return rnd.span if rnd is not None else Span(self.program.path, 1, 1, 1, 1)

    def _proc(self, proc: ast.Proc):
        scope = Scope(tuple(p.name for p in proc.params))
        code = _Code()
        self.current_proc = proc.name
        self.block(proc.body, code, scope)
        code.emit(f"return {RET}", proc.body.span)
        self.nlocals[self.proc_index[proc.name]] = len(scope.names)
        return code, (proc.name, proc.kind, proc.cite, proc.span, tuple(scope.names))

    def _var_spec(self, slot: int, decl) -> VarSpec:
        domains = tuple(self.sym.domain(k) for k in self.sym.keys_of(decl))
        size = 1
        for d in domains:
            size *= len(d)
        one = self._initial(decl)
        init = (lambda st: [one(st) for _ in range(size)]) if domains else one
        kind = type(decl).__name__.lower()
        keys = self.sym.keys_of(decl)
        by_player = bool(keys) and isinstance(keys[0], ast.KeyName) and keys[0].name == "player"
        return VarSpec(
            decl.name, slot, domains, decl.visibility, init, kind, decl.cite, decl.span, by_player
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
        value = self.lam(self.x(decl.value, Scope()))
        return lambda st: copy_value(value(st, []))

    # ------------------------------------------------------------------ statements
    def block(self, block: ast.Block, code: _Code, scope: Scope) -> None:
        for stmt in block.stmts:
            if isinstance(stmt, _COMPOUND) and _native_ok(stmt, 0):
                lines = self.native(stmt, scope)
                code.step("\n".join(t for t, _ in lines), stmt.span, [sp for _, sp in lines])
            else:
                getattr(self, "s_" + type(stmt).__name__)(stmt, code, scope)

    def native(self, s, scope: Scope) -> list[tuple[str, Span]]:
        """Python lines for a statement that cannot stop for a decision: ifs and loops become
        Python's own, so the whole statement runs as one instruction."""
        if isinstance(s, ast.If):
            lines: list[tuple[str, Span]] = []
            for n, (cond, body) in enumerate(s.branches):
                keyword = "if" if n == 0 else "elif"
                lines.append((f"{keyword} {self.x(cond, scope)}:", cond.span))
                lines += self._native_body(body, scope)
            if s.otherwise is not None:
                lines.append(("else:", s.otherwise.span))
                lines += self._native_body(s.otherwise, scope)
            return lines
        if isinstance(s, ast.For):
            items = self.x(s.iter, scope)
            head = f"for L[{scope.slot(s.name)}] in list({items}):"
            return [(head, s.span)] + self._native_body(s.body, scope)
        if isinstance(s, ast.Repeat):
            counter = f"_r{scope.temp('repeat')}"
            head = f"for {counter} in range({self.x(s.count, scope)}):"
            return [(head, s.span)] + self._native_body(s.body, scope)
        if isinstance(s, ast.While):
            turns = f"_w{scope.temp('turns')}"
            bound = s.max if s.max is not None else 0
            message = self.const(f"the loop ran more than its bound of {bound} times")
            return [
                (f"{turns} = 0", s.span),
                (f"while {self.x(s.cond, scope)}:", s.cond.span),
                (f"    {turns} += 1", s.span),
                (f"    if {turns} > {bound}: _fault('K405', {message})", s.span),
            ] + self._native_body(s.body, scope)
        if isinstance(s, ast.Break):
            return [("break", s.span)]
        if isinstance(s, ast.EndGame):
            if s.stop:
                return [("return _stop(st)", s.span)]
            return [(f"return _end(st, {self.x(s.winners, scope)})", s.span)]
        if isinstance(s, ast.Pass):
            return [("pass", s.span)]
        sub = _Code()
        getattr(self, "s_" + type(s).__name__)(s, sub, scope)
        return [(line, s.span) for body, _ in sub.items for line in body.split("\n")]

    def _native_body(self, block: ast.Block, scope: Scope) -> list[tuple[str, Span]]:
        lines = [line for stmt in block.stmts for line in self.native(stmt, scope)]
        return [("    " + text, span) for text, span in lines or [("pass", block.span)]]

    def s_Pass(self, s, code, scope):
        pass

    def s_Let(self, s: ast.Let, code, scope):
        value = self.x(s.value, scope)
        if not _fresh(s.value):
            value = f"_copy({value})"
        code.step(f"L[{scope.slot(s.name)}] = {value}", s.span)

    def s_Assign(self, s: ast.Assign, code, scope):
        value = self.x(s.value, scope)
        if s.op == "=" and not _fresh(s.value):
            value = f"_copy({value})"
        code.step(f"{self.place(s.target, scope)} {s.op} {value}", s.span)

    def s_If(self, s: ast.If, code, scope):
        end = code.label()
        for cond, body in s.branches:
            skip = code.label()
            code.emit(
                f"return \x00next\x00 if {self.x(cond, scope)} else \x00@{skip}\x00", cond.span
            )
            self.block(body, code, scope)
            code.emit(f"return \x00@{end}\x00", body.span)
            code.place(skip)
        if s.otherwise is not None:
            self.block(s.otherwise, code, scope)
        code.place(end)

    def _loop(self, code: _Code, s, test: str, body: ast.Block, scope: Scope) -> None:
        """The loop's test runs once on entry and again at the end of each pass, where it
        joins the last straight run of the body: one call fewer per pass than a jump back."""
        start, end = code.label(), code.label()
        test = test.replace("\x00end\x00", f"\x00@{end}\x00")
        code.emit(test, s.span)
        code.place(start)
        code.loop_ends.append(end)
        self.block(body, code, scope)
        code.loop_ends.pop()
        code.emit(test.replace("\x00next\x00", f"\x00@{start}\x00"), body.span)
        code.place(end)

    def s_For(self, s: ast.For, code, scope):
        it, idx = scope.temp("items"), scope.temp("index")
        code.step(f"L[{it}] = list({self.x(s.iter, scope)})\nL[{idx}] = 0", s.iter.span)
        var = scope.slot(s.name)
        test = (
            f"k = L[{idx}]\nif k >= len(L[{it}]): return \x00end\x00\n"
            f"L[{var}] = L[{it}][k]\nL[{idx}] = k + 1\nreturn \x00next\x00"
        )
        self._loop(code, s, test, s.body, scope)

    def s_Repeat(self, s: ast.Repeat, code, scope):
        left = scope.temp("left")
        code.step(f"L[{left}] = {self.x(s.count, scope)}", s.count.span)
        test = f"if L[{left}] <= 0: return \x00end\x00\nL[{left}] -= 1\nreturn \x00next\x00"
        self._loop(code, s, test, s.body, scope)

    def s_While(self, s: ast.While, code, scope):
        turns = scope.temp("turns")
        bound = s.max if s.max is not None else 0
        message = self.const(f"the loop ran more than its bound of {bound} times")
        code.step(f"L[{turns}] = 0", s.span)
        test = (
            f"if not ({self.x(s.cond, scope)}): return \x00end\x00\nL[{turns}] += 1\n"
            f"if L[{turns}] > {bound}: _fault('K405', {message})\nreturn \x00next\x00"
        )
        self._loop(code, s, test, s.body, scope)

    def s_Break(self, s: ast.Break, code, scope):
        if code.loop_ends:
            code.emit(f"return \x00@{code.loop_ends[-1]}\x00", s.span)

    def s_Choose(self, s: ast.Choose, code, scope):
        options = self.x(s.options, scope)
        player = self.x(s.player, scope)
        slot = scope.slot(s.name)
        site = len(self.sites)
        self.sites.append(
            ChooseSite(s.prompt or f"choose {s.name}", s.cite, self.current_proc, s.span, s.always)
        )
        code.emit(
            f"o = {options}\n"
            + ("" if _fresh(s.options) else "if o.__class__ is not list: o = list(o)\n")
            + (
                f"if not o: _no_options(st, {site})\n"
                if s.always or self.ask_forced
                else f"if len(o) < 2:\n"
                f"    if not o: _no_options(st, {site})\n"
                f"    L[{slot}] = o[0]\n    return \x00next\x00\n"
            )
            + f"who = {player}\n"
            f"if who.__class__ is not int or not 0 <= who < st.n: _not_a_player(who)\n"
            f"st.pending = (who, o, {site}, {slot})\nreturn {SUSPEND}",
            s.span,
        )

    def s_CallStmt(self, s: ast.CallStmt, code, scope):
        index = self.proc_index[s.name]
        args = ", ".join(self.x(a, scope) for a in s.args if not isinstance(a, ast.KwArg))
        nargs = len([a for a in s.args if not isinstance(a, ast.KwArg)])
        # the callee's local count is known only after all procedures are compiled
        code.emit(
            f"st.stack.append([{index}, 0, [{args}] + [None] * \x00locals{index}-{nargs}\x00])\n"
            f"return {CALL}",
            s.span,
        )

    def s_AddTo(self, s: ast.AddTo, code, scope):
        code.step(self.put_into(s.target, self.x(s.value, scope), scope), s.span)

    def s_RemoveFrom(self, s: ast.RemoveFrom, code, scope):
        code.step(self.take_from(s.target, self.x(s.value, scope), scope), s.span)

    def s_Move(self, s: ast.Move, code, scope):
        code.step(
            f"v = {self.x(s.value, scope)}\n{self.take_from(s.source, 'v', scope)}\n"
            f"{self.put_into(s.dest, 'v', scope)}",
            s.span,
        )

    # A `row N` zone keeps its N slots: taking a card leaves a gap (none), adding fills the
    # first gap, and `z[i]` (after any keys) names slot i. Other zones are plain lists.
    def _row_slot(self, t: ast.Target):
        """(is a row zone, the slot index expression or None)."""
        decl = self.sym.decls.get(t.name)
        if not (isinstance(decl, ast.Zone) and decl.kind == "row"):
            return False, None
        keys = len(self.sym.keys_of(decl))
        return True, (t.indices[keys] if len(t.indices) == keys + 1 else None)

    def _container(self, t: ast.Target, scope: Scope) -> str:
        is_row, slot = self._row_slot(t)
        if slot is not None:
            t = ast.Target(t.name, t.indices[:-1], span=t.span)
        return self.place(t, scope)

    def put_into(self, t: ast.Target, value: str, scope: Scope) -> str:
        is_row, slot = self._row_slot(t)
        where = repr(t.name)
        if slot is not None:
            return f"_row_put({self._container(t, scope)}, {self.x(slot, scope)}, {value}, {where})"
        if is_row:
            return f"_row_add({self.place(t, scope)}, {value}, {where})"
        return f"{self.place(t, scope)}.append({value})"

    def take_from(self, t: ast.Target, value: str, scope: Scope) -> str:
        is_row, _slot = self._row_slot(t)
        helper = "_row_take" if is_row else "_remove"
        return f"{helper}({self._container(t, scope)}, {value}, {t.name!r})"

    def s_Shuffle(self, s: ast.Shuffle, code, scope):
        code.step(f"_shuffle(st, {self.place(s.target, scope)})", s.span)

    def s_Draw(self, s: ast.Draw, code, scope):
        # draw from the top (the first item, or the first filled slot of a row)
        count = self.x(s.count, scope)
        is_row = self._row_slot(s.source)[0]
        top = "[x for x in source if x is not None][:1]" if is_row else "source[:1]"
        code.step(
            f"source = {self._container(s.source, scope)}\n"
            f"for _ in range({count}):\n"
            f"    top = {top}\n"
            f"    if not top: break\n"
            f"    {self.take_from(s.source, 'top[0]', scope)}\n"
            f"    {self.put_into(s.dest, 'top[0]', scope)}",
            s.span,
        )

    def s_EndGame(self, s: ast.EndGame, code, scope):
        if s.stop:
            code.emit("return _stop(st)", s.span)
            return
        code.emit(f"return _end(st, {self.x(s.winners, scope)})", s.span)

    def s_Log(self, s: ast.Log, code, scope):
        args = ", ".join(self.x(a, scope) for a in s.args)
        # where the line comes from, for traces: the statement and its procedure
        where = self.const((str(s.span), self.current_proc), "w")
        code.step(
            f"if st.trace is not None: st.trace.append(('log', {s.text!r}, [{args}], {where}))",
            s.span,
        )

    # ------------------------------------------------------------------ places
    def place(self, t: ast.Target, scope: Scope) -> str:
        """Python source for an assignable place (a local, a variable, a keyed cell)."""
        if t.name in scope.where:
            base = scope.where[t.name]
            return base + "".join(f"[{self.x(i, scope)}]" for i in t.indices)
        slot = self.sym.slot_of(t.name)
        decl = self.sym.decls[t.name]
        keys = self.sym.keys_of(decl)
        if keys and t.indices:
            item = "".join(f"[{self.x(i, scope)}]" for i in t.indices[len(keys) :])
            return f"st.g[{slot}][{self.flat(decl, t.indices[: len(keys)], scope)}]{item}"
        return f"st.g[{slot}]" + "".join(f"[{self.x(i, scope)}]" for i in t.indices)

    def flat(self, decl, indices, scope: Scope) -> str:
        parts = []
        keys = self.sym.keys_of(decl)
        sizes = [len(self.sym.domain(k)) for k in keys]
        for n, (key, index) in enumerate(zip(keys, indices)):
            index_map = self.const(self.sym.domain_index(key), "m")
            stride = 1
            for size in sizes[n + 1 :]:
                stride *= size
            term = f"{index_map}[{self.x(index, scope)}]"
            parts.append(term if stride == 1 else f"{term} * {stride}")
        return " + ".join(parts)

    # ------------------------------------------------------------------ expressions
    def x(self, e, scope: Scope) -> str:
        return getattr(self, "x_" + type(e).__name__)(e, scope)

    def x_IntLit(self, e, scope):
        return repr(e.value)

    x_StrLit = x_BoolLit = x_IntLit

    def x_NoneLit(self, e, scope):
        return "None"

    def x_NameRef(self, e: ast.NameRef, scope):
        name = e.name
        if name in scope.where:
            return scope.where[name]
        if name in STATE_NAMES:
            return STATE_NAMES[name]
        slot = self.sym.slot_of(name)
        if slot is not None:
            return f"st.g[{slot}]"
        value = self.sym.constant(name)
        if value is None or isinstance(value, (int, str, bool)):
            return repr(value)
        return f"_copy({self.const(value)})"

    def x_ListLit(self, e, scope):
        return "[" + ", ".join(self.x(i, scope) for i in e.items) + "]"

    def x_Comprehension(self, e: ast.Comprehension, scope):
        parts = []
        inner = scope
        for comp in e.fors:
            iter_src = self.x(comp.iter, inner)
            inner = inner.inner([comp.name])
            parts.append(f"for v_{comp.name} in {iter_src}")
        cond = f" if {self.x(e.cond, inner)}" if e.cond is not None else ""
        return f"[{self.x(e.expr, inner)} {' '.join(parts)}{cond}]"

    def x_IfExpr(self, e, scope):
        return f"({self.x(e.then, scope)} if {self.x(e.cond, scope)} else {self.x(e.other, scope)})"

    def x_UnaryOp(self, e, scope):
        return (
            f"(not {self.x(e.operand, scope)})"
            if e.op == "not"
            else f"(-{self.x(e.operand, scope)})"
        )

    def x_BinOp(self, e: ast.BinOp, scope):
        return f"({self.x(e.left, scope)} {e.op} {self.x(e.right, scope)})"

    def x_FieldGet(self, e: ast.FieldGet, scope):
        return f"_R[{self.x(e.obj, scope)}][{e.name!r}]"

    def x_IndexGet(self, e: ast.IndexGet, scope):
        if isinstance(e.obj, ast.NameRef) and e.obj.name not in scope.where:
            decl = self.sym.decls.get(e.obj.name)
            keys = self.sym.keys_of(decl) if decl is not None else ()
            if keys:
                item = "".join(f"[{self.x(i, scope)}]" for i in e.indices[len(keys) :])
                flat = self.flat(decl, e.indices[: len(keys)], scope)
                return f"st.g[{self.sym.slot_of(e.obj.name)}][{flat}]{item}"
        return f"{self.x(e.obj, scope)}[{self.x(e.indices[0], scope)}]"

    def x_CallExpr(self, e: ast.CallExpr, scope):
        args = [a for a in e.args if not isinstance(a, ast.KwArg)]
        if self.sym.kind.get(e.name) == "fn":
            return f"_F_{e.name}(st" + "".join(", " + self.x(a, scope) for a in args) + ")"
        if e.name in ("nodes", "rows", "values"):
            arg = args[0]
            assert isinstance(arg, ast.NameRef), "the checker allows only a name here"
            name = arg.name
            items = {"nodes": self.sym.map_nodes, "rows": self.sym.table_rows}.get(e.name)
            values = items[name] if items is not None else list(self.sym.decls[name].values)
            return f"list({self.const(tuple(values), 'c')})"
        if e.name == "distance":
            table = all_pairs_distance(self.sym.adjacency)
            self.env.update(_DIST=table, _FAR=len(table) + 1)
        sources = [self.x(a, scope) for a in args]
        return BUILTINS[e.name].template.format(*sources, args=", ".join(sources))

    def x_RollDice(self, e: ast.RollDice, scope):
        if e.count == 1:
            return f"_die(st, {e.sides})"
        return f"[_die(st, {e.sides}) for _ in range({e.count})]"

    def x_RollTable(self, e: ast.RollTable, scope):
        count, sides, lookup = self.sym.roll_table(e.table)
        table = self.const(tuple(lookup), "t")
        if count == 1:
            return f"{table}[_die(st, {sides})]"
        return f"{table}[sum(_die(st, {sides}) for _ in range({count}))]"


_COMPOUND = (ast.If, ast.For, ast.Repeat, ast.While)


def _native_ok(s, loops: int) -> bool:
    """Can `s` run as plain Python inside one instruction (no decision, no procedure call,
    no `break` out of a loop that is not itself part of it)?"""
    if isinstance(s, (ast.Choose, ast.CallStmt)):
        return False
    if isinstance(s, ast.Break):
        return loops > 0
    if isinstance(s, ast.If):
        blocks = [body for _, body in s.branches] + ([s.otherwise] if s.otherwise else [])
        return all(_native_ok(x, loops) for b in blocks for x in b.stmts)
    if isinstance(s, (ast.For, ast.Repeat, ast.While)):
        return all(_native_ok(x, loops + 1) for x in s.body.stmts)
    return True


def _python(source: str, namespace: dict, mode: str):
    """Compile generated code. Python's own warnings about it (`None[0]` is "not
    subscriptable") are not the author's concern: the checker and the run-time errors
    speak for such code."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        code = compile(source, "<rules>", mode)
    if mode == "eval":
        return eval(code, namespace)  # noqa: S307 - generated by this module
    exec(code, namespace)  # noqa: S102 - generated by this module
    return None


def fingerprint(program: Program) -> str:
    digest = hashlib.sha256()
    for path in sorted(program.sources):
        digest.update(path.encode())
        digest.update(program.sources[path].encode())
    return digest.hexdigest()[:16]


def all_pairs_distance(adjacency: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    result: dict[str, dict[str, int]] = {}
    for start in adjacency:
        dist = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there in adjacency[here]:
                if there not in dist:
                    dist[there] = dist[here] + 1
                    queue.append(there)
        result[start] = dist
    return result
