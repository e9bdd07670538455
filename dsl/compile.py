"""Stage 4: a checked program -> `interpreter.game.Game`.

Every procedure becomes a flat list of Python closures (one per statement, plus jumps); every
expression becomes a closure `(state, locals) -> value`. Nothing walks the tree at run time.
The engine's position is (procedure, instruction index, locals), which is plain data.
"""

from __future__ import annotations

import hashlib
from collections import deque
from typing import Any, Callable

from dsl import ast
from dsl.builtins import BUILTINS, STATE_NAMES
from dsl.errors import Span
from dsl.resolve import Program
from dsl.symbols import Symbols
from interpreter import rng as _rng
from interpreter.game import ChooseSite, Game, NoteInfo, ProcInfo, VarSpec
from interpreter.state import CALL, END, RET, SUSPEND, RulesetFault

Closure = Callable[[Any, list], Any]


class CompileError(Exception):
    """An internal inconsistency: the checker should have reported it first."""


def _die(st, sides: int) -> int:
    if st.script:
        value = st.script.pop(0)
        if not 1 <= value <= sides:
            raise RulesetFault("K406", f"scripted die {value} does not fit a {sides}-sided die")
        return value
    s = _rng.step(st.rng)
    st.rng = s
    return ((s >> 32) * sides >> 32) + 1


def shuffle_list(st, items: list) -> None:
    for i in range(len(items) - 1, 0, -1):
        s = _rng.step(st.rng)
        st.rng = s
        j = ((s >> 32) * (i + 1)) >> 32
        items[i], items[j] = items[j], items[i]


def _fresh(expr) -> bool:
    """Does the expression always build a new value (so no copy is needed on assignment)?"""
    if isinstance(expr, (ast.ListLit, ast.Comprehension, ast.RollDice, ast.IntLit, ast.StrLit,
                         ast.BoolLit, ast.NoneLit, ast.BinOp, ast.UnaryOp)):
        return True
    if isinstance(expr, ast.CallExpr):
        spec = BUILTINS.get(expr.name)
        return spec is not None and spec.fresh
    return False


def _copying(f: Closure) -> Closure:
    def value(st, L):
        v = f(st, L)
        return v[:] if type(v) is list else v
    return value


class Scope:
    """Local variable slots of one procedure, function or global expression."""

    def __init__(self, params: tuple[str, ...] = ()):
        self.slots: dict[str, int] = {name: i for i, name in enumerate(params)}
        self.names: list[str] = list(params)

    def slot(self, name: str) -> int:
        if name not in self.slots:
            self.slots[name] = len(self.names)
            self.names.append(name)
        return self.slots[name]

    def temp(self, hint: str) -> int:
        name = f"${hint}{len(self.names)}"
        self.slots[name] = len(self.names)
        self.names.append(name)
        return self.slots[name]


class _Code:
    """Instructions of one procedure, built as factories and linked once labels are known."""

    def __init__(self):
        self.items: list[tuple[Callable[[int, dict], Closure], Span]] = []
        self.labels: dict[int, int] = {}
        self.next_label = 0
        self.loop_ends: list[int] = []

    def label(self) -> int:
        self.next_label += 1
        return self.next_label

    def place(self, label: int) -> None:
        self.labels[label] = len(self.items)

    def emit(self, factory, span: Span) -> None:
        self.items.append((factory, span))

    def link(self) -> tuple[tuple[Closure, ...], tuple[Span, ...]]:
        code = tuple(factory(pc, self.labels) for pc, (factory, _) in enumerate(self.items))
        return code, tuple(span for _, span in self.items)


def _simple(action: Callable[[Any, list], None]):
    def factory(pc, labels):
        nxt = pc + 1

        def ins(st, L):
            action(st, L)
            return nxt
        return ins
    return factory


class Compiler:
    def __init__(self, program: Program, symbols: Symbols):
        self.program = program
        self.sym = symbols
        self.fn_cells: dict[str, list] = {}
        self.proc_index: dict[str, int] = {}
        self.codes: list = []
        self.procs: list[ProcInfo] = []
        self.sites: list[ChooseSite] = []
        self.current_proc = "main"

    # ------------------------------------------------------------------ whole program
    def compile(self) -> Game:
        sym = self.sym
        procs = self.program.get(ast.Proc)
        for i, proc in enumerate(procs):
            self.proc_index[proc.name] = i + 1  # 0 is main
        for fn in self.program.get(ast.Fn):
            self.fn_cells[fn.name] = [None]
        for fn in self.program.get(ast.Fn):
            self.fn_cells[fn.name][0] = self._fn(fn)
        self.codes = [None] * (len(procs) + 1)
        self.procs = [None] * (len(procs) + 1)
        self.nlocals = [0] * (len(procs) + 1)
        unlinked = [self._main()] + [self._proc(proc) for proc in procs]
        for index, (code, info) in enumerate(unlinked):
            linked, spans = code.link()
            self.codes[index] = linked
            self.procs[index] = ProcInfo(*info[:4], self.nlocals[index], spans, info[4])
        var_specs = tuple(self._var_spec(slot, decl) for slot, decl in enumerate(sym.state_decls))
        invariants = tuple(
            (inv.name, inv.cite, self.expr(inv.value, Scope()))
            for inv in self.program.get(ast.Invariant))
        score_decl = self.program.one(ast.Score)
        score = None
        if score_decl is not None:
            scope = Scope((score_decl.param,))
            body = self.expr(score_decl.value, scope)
            pad = len(scope.names) - 1
            score = (lambda st, L, body=body, pad=pad: body(st, L + [None] * pad))
        notes = tuple(NoteInfo(n.kind, n.name, n.text, n.cite, n.span) for n in self.program.get(ast.Note))
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
            code=tuple(self.codes),
            procs=tuple(self.procs),
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
            program=self.program,
        )

    def _main(self):
        code = _Code()
        scope = Scope()
        self.current_proc = "main"
        setup = self.program.one(ast.Setup)
        if setup is not None:
            self.block(setup.body, code, scope)
        rnd = self.program.one(ast.Round)
        if rnd is not None:
            top = code.label()
            code.place(top)
            bound = rnd.max

            def count_round(st, L):
                st.rounds += 1
                if st.rounds > bound:
                    raise RulesetFault("K404", f"the game did not end within its {bound} rounds")
            code.emit(_simple(count_round), rnd.span)
            self.block(rnd.body, code, scope)
            code.emit(lambda pc, labels: (lambda st, L, t=labels[top]: t), rnd.span)
        code.emit(_fault_factory("K407", "the game ended without `end game`"), self.program_span())
        self.nlocals[0] = len(scope.names)
        return code, ("main", "main", None, self.program_span(), tuple(scope.names))

    def program_span(self) -> Span:
        rnd = self.program.one(ast.Round) or self.program.one(ast.Setup)
        return rnd.span if rnd is not None else Span(self.program.path, 1, 1, 1, 1)

    def _proc(self, proc: ast.Proc):
        scope = Scope(tuple(p.name for p in proc.params))
        code = _Code()
        self.current_proc = proc.name
        self.block(proc.body, code, scope)
        code.emit(lambda pc, labels: (lambda st, L: RET), proc.body.span)
        self.nlocals[self.proc_index[proc.name]] = len(scope.names)
        return code, (proc.name, proc.kind, proc.cite, proc.span, tuple(scope.names))

    def _fn(self, fn: ast.Fn) -> Closure:
        scope = Scope(tuple(p.name for p in fn.params))
        body = self.expr(fn.body, scope)
        pad = len(scope.names) - len(fn.params)
        if pad == 0:
            return body
        extra = [None] * pad
        return lambda st, args: body(st, args + extra)

    def _var_spec(self, slot: int, decl) -> VarSpec:
        domains = tuple(self.sym.domain(k) for k in decl.keys)
        size = 1
        for d in domains:
            size *= len(d)
        if isinstance(decl, ast.Zone):
            n = decl.size
            one = (lambda st: [None] * n) if decl.kind == "row" else (lambda st: [])
        elif isinstance(decl, ast.Pool):
            value = self.expr(decl.value, Scope()) if decl.value is not None else (lambda st, L: 0)
            one = lambda st, value=value: value(st, [])  # noqa: E731
        else:
            value = _copying(self.expr(decl.value, Scope()))
            one = lambda st, value=value: value(st, [])  # noqa: E731
        if domains:
            init = lambda st, one=one, size=size: [one(st) for _ in range(size)]  # noqa: E731
        else:
            init = one
        kind = type(decl).__name__.lower()
        return VarSpec(decl.name, slot, domains, decl.visibility, init, kind, decl.cite, decl.span)

    # ------------------------------------------------------------------ statements
    def block(self, block: ast.Block, code: _Code, scope: Scope) -> None:
        for stmt in block.stmts:
            self.stmt(stmt, code, scope)

    def stmt(self, s, code: _Code, scope: Scope) -> None:
        method = getattr(self, "s_" + type(s).__name__)
        method(s, code, scope)

    def s_Pass(self, s, code, scope):
        pass

    def s_Let(self, s: ast.Let, code, scope):
        value = self.expr(s.value, scope)
        if not _fresh(s.value):
            value = _copying(value)
        i = scope.slot(s.name)

        def factory(pc, labels):
            nxt = pc + 1

            def ins(st, L):
                L[i] = value(st, L)
                return nxt
            return ins
        code.emit(factory, s.span)

    def s_Assign(self, s: ast.Assign, code, scope):
        value = self.expr(s.value, scope)
        if s.op == "=" and not _fresh(s.value):
            value = _copying(value)
        getter, setter = self.target(s.target, scope)
        if s.op == "+=":
            def action(st, L):
                setter(st, L, getter(st, L) + value(st, L))
        elif s.op == "-=":
            def action(st, L):
                setter(st, L, getter(st, L) - value(st, L))
        else:
            def action(st, L):
                setter(st, L, value(st, L))
        code.emit(_simple(action), s.span)

    def s_If(self, s: ast.If, code, scope):
        end = code.label()
        for cond_expr, body in s.branches:
            cond = self.expr(cond_expr, scope)
            skip = code.label()

            def factory(pc, labels, cond=cond, skip=skip):
                nxt, other = pc + 1, labels[skip]

                def ins(st, L):
                    return nxt if cond(st, L) else other
                return ins
            code.emit(factory, cond_expr.span)
            self.block(body, code, scope)
            code.emit(_jump(end), body.span)
            code.place(skip)
        if s.otherwise is not None:
            self.block(s.otherwise, code, scope)
        code.place(end)

    def s_For(self, s: ast.For, code, scope):
        items = self.expr(s.iter, scope)
        it, idx, var = scope.temp("items"), scope.temp("index"), scope.slot(s.name)

        def init(st, L):
            L[it] = list(items(st, L))
            L[idx] = 0
        code.emit(_simple(init), s.iter.span)
        top, end = code.label(), code.label()
        code.place(top)

        def factory(pc, labels):
            nxt, out = pc + 1, labels[end]

            def ins(st, L):
                k = L[idx]
                seq = L[it]
                if k >= len(seq):
                    return out
                L[var] = seq[k]
                L[idx] = k + 1
                return nxt
            return ins
        code.emit(factory, s.span)
        code.loop_ends.append(end)
        self.block(s.body, code, scope)
        code.loop_ends.pop()
        code.emit(_jump(top), s.body.span)
        code.place(end)

    def s_Repeat(self, s: ast.Repeat, code, scope):
        count = self.expr(s.count, scope)
        left = scope.temp("left")

        def init(st, L):
            L[left] = count(st, L)
        code.emit(_simple(init), s.count.span)
        top, end = code.label(), code.label()
        code.place(top)

        def factory(pc, labels):
            nxt, out = pc + 1, labels[end]

            def ins(st, L):
                if L[left] <= 0:
                    return out
                L[left] -= 1
                return nxt
            return ins
        code.emit(factory, s.span)
        code.loop_ends.append(end)
        self.block(s.body, code, scope)
        code.loop_ends.pop()
        code.emit(_jump(top), s.body.span)
        code.place(end)

    def s_While(self, s: ast.While, code, scope):
        cond = self.expr(s.cond, scope)
        turns = scope.temp("turns")
        bound = s.max if s.max is not None else 0

        def init(st, L):
            L[turns] = 0
        code.emit(_simple(init), s.span)
        top, end = code.label(), code.label()
        code.place(top)

        def factory(pc, labels):
            nxt, out = pc + 1, labels[end]

            def ins(st, L):
                if not cond(st, L):
                    return out
                L[turns] += 1
                if L[turns] > bound:
                    raise RulesetFault("K405", f"the loop ran more than its bound of {bound} times")
                return nxt
            return ins
        code.emit(factory, s.cond.span)
        code.loop_ends.append(end)
        self.block(s.body, code, scope)
        code.loop_ends.pop()
        code.emit(_jump(top), s.body.span)
        code.place(end)

    def s_Break(self, s: ast.Break, code, scope):
        if code.loop_ends:
            code.emit(_jump(code.loop_ends[-1]), s.span)

    def s_Choose(self, s: ast.Choose, code, scope):
        player = self.expr(s.player, scope)
        options = self.expr(s.options, scope)
        slot = scope.slot(s.name)
        site = len(self.sites)
        prompt = s.prompt or f"choose {s.name}"
        self.sites.append(ChooseSite(prompt, s.cite, self.current_proc, s.span))

        def factory(pc, labels):
            nxt = pc + 1

            def ins(st, L):
                opts = options(st, L)
                if type(opts) is not list:
                    opts = list(opts)
                count = len(opts)
                if count == 1:
                    L[slot] = opts[0]
                    return nxt
                if count == 0:
                    raise RulesetFault("K402", f"the decision {prompt!r} has no options")
                who = player(st, L)
                if type(who) is not int or not 0 <= who < st.n:
                    raise RulesetFault("K408", f"{who!r} is not a player")
                st.pending = (who, opts, site, slot)
                return SUSPEND
            return ins
        code.emit(factory, s.span)

    def s_CallStmt(self, s: ast.CallStmt, code, scope):
        if s.name not in self.proc_index:
            raise CompileError(f"unknown procedure {s.name}")
        index = self.proc_index[s.name]
        args = [self.expr(a, scope) for a in s.args if not isinstance(a, ast.KwArg)]

        def factory(pc, labels):
            pad = [None] * (self.nlocals[index] - len(args))

            def ins(st, L):
                st.stack.append([index, 0, [a(st, L) for a in args] + pad])
                return CALL
            return ins
        code.emit(factory, s.span)

    def s_AddTo(self, s: ast.AddTo, code, scope):
        value = self.expr(s.value, scope)
        container, _ = self.target(s.target, scope)

        def action(st, L):
            container(st, L).append(value(st, L))
        code.emit(_simple(action), s.span)

    def s_RemoveFrom(self, s: ast.RemoveFrom, code, scope):
        value = self.expr(s.value, scope)
        container, _ = self.target(s.target, scope)
        where = s.target.name

        def action(st, L):
            v = value(st, L)
            items = container(st, L)
            if v not in items:
                raise RulesetFault("K403", f"{v!r} is not in {where}")
            items.remove(v)
        code.emit(_simple(action), s.span)

    def s_Move(self, s: ast.Move, code, scope):
        value = self.expr(s.value, scope)
        source, _ = self.target(s.source, scope)
        dest, _ = self.target(s.dest, scope)
        where = s.source.name

        def action(st, L):
            v = value(st, L)
            items = source(st, L)
            if v not in items:
                raise RulesetFault("K403", f"{v!r} is not in {where}")
            items.remove(v)
            dest(st, L).append(v)
        code.emit(_simple(action), s.span)

    def s_Shuffle(self, s: ast.Shuffle, code, scope):
        container, _ = self.target(s.target, scope)
        code.emit(_simple(lambda st, L: shuffle_list(st, container(st, L))), s.span)

    def s_Draw(self, s: ast.Draw, code, scope):
        count = self.expr(s.count, scope)
        source, _ = self.target(s.source, scope)
        dest, _ = self.target(s.dest, scope)

        def action(st, L):
            items, out = source(st, L), dest(st, L)
            for _ in range(min(count(st, L), len(items))):
                out.append(items.pop(0))
        code.emit(_simple(action), s.span)

    def s_EndGame(self, s: ast.EndGame, code, scope):
        winners = self.expr(s.winners, scope)

        def factory(pc, labels):
            def ins(st, L):
                w = list(winners(st, L))
                for p in w:
                    if type(p) is not int or not 0 <= p < st.n:
                        raise RulesetFault("K408", f"{p!r} is not a player")
                st.winners = w
                st.pending = None
                if st.trace is not None:
                    st.trace.append(("end", w))
                return END
            return ins
        code.emit(factory, s.span)

    def s_Log(self, s: ast.Log, code, scope):
        args = [self.expr(a, scope) for a in s.args]
        text = s.text

        def action(st, L):
            if st.trace is not None:
                st.trace.append(("log", text, [a(st, L) for a in args]))
        code.emit(_simple(action), s.span)

    # ------------------------------------------------------------------ targets
    def target(self, t: ast.Target, scope: Scope):
        """(getter, setter) for an assignable place; getter returns the container for lists."""
        if t.name in scope.slots:
            i = scope.slots[t.name]
            if not t.indices:
                def get(st, L):
                    return L[i]

                def put(st, L, v):
                    L[i] = v
                return get, put
            index = self.expr(t.indices[0], scope)

            def get(st, L):
                return L[i][index(st, L)]

            def put(st, L, v):
                L[i][index(st, L)] = v
            return get, put
        slot = self.sym.slot_of(t.name)
        if slot is None:
            raise CompileError(f"{t.name} is not assignable")
        decl = self.sym.decls[t.name]
        if decl.keys and t.indices:
            flat = self.flat_index(decl, t.indices, scope)

            def get(st, L):
                return st.g[slot][flat(st, L)]

            def put(st, L, v):
                st.g[slot][flat(st, L)] = v
            return get, put
        if t.indices:
            index = self.expr(t.indices[0], scope)

            def get(st, L):
                return st.g[slot][index(st, L)]

            def put(st, L, v):
                st.g[slot][index(st, L)] = v
            return get, put

        def get(st, L):
            return st.g[slot]

        def put(st, L, v):
            st.g[slot] = v
        return get, put

    def flat_index(self, decl, indices, scope: Scope) -> Closure:
        maps = [self.sym.domain_index(k) for k in decl.keys]
        keys = [self.expr(e, scope) for e in indices]
        if len(keys) == 1:
            (m0,), (k0,) = maps, keys
            return lambda st, L: m0[k0(st, L)]
        if len(keys) == 2:
            (m0, m1), (k0, k1) = maps, keys
            s0 = len(m1)
            return lambda st, L: m0[k0(st, L)] * s0 + m1[k1(st, L)]
        sizes = [len(m) for m in maps]

        def flat(st, L):
            index = 0
            for m, k, size in zip(maps, keys, sizes):
                index = index * size + m[k(st, L)]
            return index
        return flat

    # ------------------------------------------------------------------ expressions
    def expr(self, e, scope: Scope) -> Closure:
        return getattr(self, "e_" + type(e).__name__)(e, scope)

    def e_IntLit(self, e, scope):
        v = e.value
        return lambda st, L: v

    e_StrLit = e_BoolLit = e_IntLit

    def e_NoneLit(self, e, scope):
        return lambda st, L: None

    def e_NameRef(self, e: ast.NameRef, scope):
        name = e.name
        if name in scope.slots:
            i = scope.slots[name]
            return lambda st, L: L[i]
        if name in STATE_NAMES:
            return STATE_NAMES[name]
        slot = self.sym.slot_of(name)
        if slot is not None:
            return lambda st, L: st.g[slot]
        const = self.sym.constant(name)
        return lambda st, L: const

    def e_ListLit(self, e, scope):
        items = [self.expr(i, scope) for i in e.items]
        return lambda st, L: [f(st, L) for f in items]

    def e_Comprehension(self, e: ast.Comprehension, scope):
        iters = []
        for comp in e.fors:
            iters.append((scope.slot(comp.name), self.expr(comp.iter, scope)))
        body = self.expr(e.expr, scope)
        cond = self.expr(e.cond, scope) if e.cond is not None else None
        if len(iters) == 1:
            (i, it), = iters
            if cond is None:
                return lambda st, L: [body(st, L) for L[i] in it(st, L)]
            return lambda st, L: [body(st, L) for L[i] in it(st, L) if cond(st, L)]
        if len(iters) == 2:
            (i, it), (j, jt) = iters
            if cond is None:
                return lambda st, L: [body(st, L) for L[i] in it(st, L) for L[j] in jt(st, L)]
            return lambda st, L: [body(st, L) for L[i] in it(st, L) for L[j] in jt(st, L)
                                  if cond(st, L)]

        def comp(st, L):
            out: list = []

            def level(k):
                if k == len(iters):
                    if cond is None or cond(st, L):
                        out.append(body(st, L))
                    return
                slot, it = iters[k]
                for L[slot] in it(st, L):
                    level(k + 1)
            level(0)
            return out
        return comp

    def e_IfExpr(self, e, scope):
        c, t, o = self.expr(e.cond, scope), self.expr(e.then, scope), self.expr(e.other, scope)
        return lambda st, L: t(st, L) if c(st, L) else o(st, L)

    def e_UnaryOp(self, e, scope):
        f = self.expr(e.operand, scope)
        if e.op == "not":
            return lambda st, L: not f(st, L)
        return lambda st, L: -f(st, L)

    def e_BinOp(self, e: ast.BinOp, scope):
        a, b = self.expr(e.left, scope), self.expr(e.right, scope)
        op = e.op
        if isinstance(e.right, ast.IntLit | ast.StrLit | ast.NoneLit) or (
                isinstance(e.right, ast.NameRef) and self.sym.is_constant(e.right.name)
                and e.right.name not in scope.slots):
            c = b(None, [])
            special = _CONST_OPS.get(op)
            if special is not None:
                return special(a, c)
        return _OPS[op](a, b)

    def e_FieldGet(self, e: ast.FieldGet, scope):
        obj = self.expr(e.obj, scope)
        rows = self.sym.rows
        name = e.name

        def get(st, L):
            row = obj(st, L)
            try:
                return rows[row][name]
            except KeyError:
                if row is None:
                    raise RulesetFault("K409", f"`.{name}` of none") from None
                raise RulesetFault("K409", f"{row!r} has no field {name!r}") from None
        return get

    def e_IndexGet(self, e: ast.IndexGet, scope):
        if isinstance(e.obj, ast.NameRef) and e.obj.name not in scope.slots:
            decl = self.sym.decls.get(e.obj.name)
            if decl is not None and getattr(decl, "keys", None):
                slot = self.sym.slot_of(e.obj.name)
                flat = self.flat_index(decl, e.indices, scope)
                return lambda st, L: st.g[slot][flat(st, L)]
        obj = self.expr(e.obj, scope)
        index = self.expr(e.indices[0], scope)
        return lambda st, L: obj(st, L)[index(st, L)]

    def e_CallExpr(self, e: ast.CallExpr, scope):
        args = [self.expr(a, scope) for a in e.args if not isinstance(a, ast.KwArg)]
        if e.name in self.fn_cells:
            cell = self.fn_cells[e.name]
            if len(args) == 1:
                (a0,) = args
                return lambda st, L: cell[0](st, [a0(st, L)])
            return lambda st, L: cell[0](st, [a(st, L) for a in args])
        spec = BUILTINS[e.name]
        return spec.build(self.sym, e.args, args)

    def e_RollDice(self, e: ast.RollDice, scope):
        sides, count = e.sides, e.count
        if count == 1:
            return lambda st, L: _die(st, sides)
        return lambda st, L: [_die(st, sides) for _ in range(count)]

    def e_RollTable(self, e: ast.RollTable, scope):
        count, sides, lookup = self.sym.roll_table(e.table)
        if count == 1:
            return lambda st, L: lookup[_die(st, sides)]
        return lambda st, L: lookup[sum(_die(st, sides) for _ in range(count))]


def _jump(label: int):
    return lambda pc, labels: (lambda st, L, t=labels[label]: t)


def _fault_factory(code: str, message: str):
    def factory(pc, labels):
        def ins(st, L):
            raise RulesetFault(code, message)
        return ins
    return factory


def _and(a, b):
    return lambda st, L: a(st, L) and b(st, L)


def _or(a, b):
    return lambda st, L: a(st, L) or b(st, L)


_OPS = {
    "+": lambda a, b: lambda st, L: a(st, L) + b(st, L),
    "-": lambda a, b: lambda st, L: a(st, L) - b(st, L),
    "*": lambda a, b: lambda st, L: a(st, L) * b(st, L),
    "//": lambda a, b: lambda st, L: a(st, L) // b(st, L),
    "%": lambda a, b: lambda st, L: a(st, L) % b(st, L),
    "==": lambda a, b: lambda st, L: a(st, L) == b(st, L),
    "!=": lambda a, b: lambda st, L: a(st, L) != b(st, L),
    "<": lambda a, b: lambda st, L: a(st, L) < b(st, L),
    "<=": lambda a, b: lambda st, L: a(st, L) <= b(st, L),
    ">": lambda a, b: lambda st, L: a(st, L) > b(st, L),
    ">=": lambda a, b: lambda st, L: a(st, L) >= b(st, L),
    "in": lambda a, b: lambda st, L: a(st, L) in b(st, L),
    "not in": lambda a, b: lambda st, L: a(st, L) not in b(st, L),
    "and": _and,
    "or": _or,
}

_CONST_OPS = {
    "+": lambda a, c: lambda st, L: a(st, L) + c,
    "-": lambda a, c: lambda st, L: a(st, L) - c,
    "*": lambda a, c: lambda st, L: a(st, L) * c,
    "//": lambda a, c: lambda st, L: a(st, L) // c,
    "%": lambda a, c: lambda st, L: a(st, L) % c,
    "==": lambda a, c: lambda st, L: a(st, L) == c,
    "!=": lambda a, c: lambda st, L: a(st, L) != c,
    "<": lambda a, c: lambda st, L: a(st, L) < c,
    "<=": lambda a, c: lambda st, L: a(st, L) <= c,
    ">": lambda a, c: lambda st, L: a(st, L) > c,
    ">=": lambda a, c: lambda st, L: a(st, L) >= c,
}


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
