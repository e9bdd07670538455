"""Stage 4a: checked procedures -> instruction IR (`dsl.codegen.ir`).

In: the checked program's procedures, and its `setup` and `round` (lowered together as
procedure 0, main); expressions become Python source through `dsl.codegen.exprs`. Out: one
`ProcIR` per procedure, and a `ChooseSite` for every decision, numbered in order.

A statement that can stop for a decision (`choose`, a call) becomes its own instruction, and
the `if`, `for`, `repeat` and `while` around it become branches and loop tests between
labels, with a loop's list and index in hidden locals. A statement that cannot stop runs as
plain Python: an `if` or a loop with no decision inside becomes Python's own `if` or loop,
inside one `Step`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from dsl.codegen.exprs import Exprs, Scope, _fresh
from dsl.codegen.ir import (
    NEXT,
    Branch,
    Call,
    CallEffect,
    Choose,
    Instr,
    Jump,
    Label,
    Leave,
    Line,
    LoopTest,
    ProcIR,
    Standing,
    Step,
)
from dsl.errors import Span
from dsl.semantics.access import Access
from dsl.semantics.builtins import EFFECT_CONTEXT
from dsl.semantics.resolve import Program
from dsl.semantics.symbols import FLIPPED, KNOWN
from dsl.semantics.types import EFFECT, elem
from dsl.syntax import ast
from dsl.syntax.visitor import Visitor, elsewhere, on
from interpreter.core import rng
from interpreter.core.game import ChooseSite
from interpreter.core.state import RET


class _Builder:
    """The instructions of one procedure as they are lowered, and where labels are placed."""

    def __init__(self) -> None:
        self.code: list[Instr] = []
        self.labels: dict[Label, int] = {}
        self.made = 0
        self.loop_ends: list[Label] = []  # where a `break` goes, innermost last
        self.deferred: list[tuple[Label, Label]] = []  # `simultaneously` blocks: start, end
        self.simultaneous = 0  # how many `simultaneously` blocks are being lowered

    def label(self) -> Label:
        self.made += 1
        return Label(self.made)

    def place(self, label: Label) -> None:
        self.labels[label] = len(self.code)

    def add(self, instr: Instr) -> None:
        self.code.append(instr)

    def step(self, text: str, span: Span) -> None:
        """Straight-line code, one or more lines, all from the statement at `span`."""
        self.add(Step(lines=tuple((line, span) for line in text.split("\n")), span=span))


class Lowerer(Visitor):
    """Statements -> instructions, appended to a `_Builder`; `block` runs a statement that
    cannot stop for a decision (and holds a block) as Python's own `if` or loop instead."""

    domain = ast.STATEMENTS

    def __init__(
        self,
        program: Program,
        exprs: Exprs,
        ask_forced: bool = False,
        remembered: dict[str, int] | None = None,
    ):
        self.program = program
        self.ex = exprs
        # put every decision to the player, even one with a single option
        self.ask_forced = ask_forced
        # every procedure's index, by name and depth (a rule replaced and called with
        # `base(...)` is at depth 1, 2...), main being 0
        procs = [
            (p.name, d) for p, d in ast.rules(program.decls.values()) if isinstance(p, ast.Proc)
        ]
        self.proc_index = {key: i + 1 for i, key in enumerate(procs)}
        self.rule: tuple[str, int] = ("main", 0)
        self.sites: list[ChooseSite] = []
        self.current_proc = "main"
        self.site_base = "setup"  # the name a decision takes without an `id` of its own
        self.native = _Native(self)
        self.changed: frozenset[str] = frozenset()  # in the procedure being lowered
        # the loop names that hold one of the game's players wherever they are read: the
        # loops over `players` being lowered whose bodies give the name no other value
        self.seated: frozenset[str] = frozenset()
        # the standing rules, in the order of `_STANDING`, and by each state name the rules
        # whose conditions read it: a statement writing it is followed by a `Standing` test
        self.access = Access(program, exprs.sym)
        self.standing = [p for p in program.get(ast.Proc) if p.kind == "whenever"]
        # with standing options, every decision offers them: it begins a block of its own,
        # which the engine runs again once a standing option taken there is done
        self.offering = any(p.kind == "option" for p in program.get(ast.Proc))
        # the state the remembered `fn`s read (dsl/codegen/memo.py): a statement writing it
        # forgets what they remember
        self.remembering = bool(remembered)
        self.remembered_reads = frozenset(
            name for fn in remembered or () for name in self.access.fn_reads(fn)
        )
        self.watch: dict[str, tuple[int, ...]] = {}
        for i, rule in enumerate(self.standing):
            assert rule.when is not None
            for name in self.access.reads(rule.when):
                self.watch[name] = self.watch.get(name, ()) + (i,)

    # ------------------------------------------------------------------ procedures
    def main(self) -> ProcIR:
        """`setup`, then the `round` loop, as procedure 0."""
        b = _Builder()
        scope = Scope()
        self.current_proc = "main"
        span = self.program_span()
        setup = self.program.one(ast.Setup)
        rnd = self.program.one(ast.Round)
        bodies = [x for x in (setup, rnd) if x is not None]
        self.changed = _changed_in_place(bodies)
        self.ex.small_names = self._small_locals(bodies, ())
        self._seat_locals(bodies, (), scope)
        self.site_base = "setup"
        if setup is not None:
            self.block(setup.body, b, scope)
        self.site_base = "round"
        if rnd is not None:
            top = b.label()
            b.place(top)
            message = self.ex.const(f"the game did not end within its {rnd.max} rounds")
            forget = f"\n{_FORGET}" if self.remembering else ""  # `round_number` changed
            b.step(
                f"st.rounds += 1\nif st.rounds > {rnd.max}: _fault('K404', {message}){forget}",
                rnd.span,
            )
            self.block(rnd.body, b, scope)
            b.add(Jump(target=top, span=rnd.span))
        b.add(Leave(lines=("_fault('K407', 'the game ended without `end game`')",), span=span))
        return self._done(b, "main", "main", None, span, scope)

    def program_span(self) -> Span:
        rnd = self.program.one(ast.Round) or self.program.one(ast.Setup)
        assert rnd is not None, "the checker refuses a ruleset with neither (K215)"
        return rnd.span

    def proc(self, proc: ast.Proc, depth: int = 0) -> ProcIR:
        context = EFFECT_CONTEXT if proc.kind == "effect" else ()
        given = tuple(p.name for p in self.moment_params(proc))
        if proc.kind == "window":
            # called with the moment's values; its parameter takes each player in turn
            assert proc.who is not None
            asked = ast.For(proc.params[0].name, proc.who, proc.body, span=proc.span)
            proc = attrs.evolve(proc, params=(), body=ast.Block((asked,), span=proc.body.span))
        scope = Scope(context + given + tuple(p.name for p in proc.params))
        self.changed = _changed_in_place(proc.body)
        self.ex.small_names = self._small_locals(proc.body, scope.names)
        self._seat_locals(proc.body, scope.names, scope)
        b = _Builder()
        name = ast.rule_label(proc.name, depth)
        self.current_proc = name
        self.site_base = proc.name + ("" if depth == 0 else f".base{'' if depth == 1 else depth}")
        self.rule = self.ex.rule = (proc.name, depth)
        self.ex.rule_kind = proc.kind
        if proc.signature_only:
            message = self.ex.const(f"effect {proc.name!r} has no rules in this ruleset")
            b.add(Leave(lines=(f"_fault('K417', {message})",), span=proc.span))
        self.block(proc.body, b, scope)
        b.add(Leave(lines=(f"return {RET}",), span=proc.body.span))
        return self._done(b, name, proc.kind, proc.cite, proc.span, scope)

    def moment_params(self, proc: ast.Proc) -> tuple[ast.ParamDecl, ...]:
        """The parameters of the moment an effect happens at (none for any other)."""
        moment = self.program.decls.get(proc.at) if proc.at is not None else None
        return moment.params if isinstance(moment, ast.Moment) else ()

    def _done(self, b: _Builder, name, kind, cite, span, scope: Scope) -> ProcIR:
        self.ex.small_names = frozenset()  # they were this procedure's
        return ProcIR(
            name,
            kind,
            cite,
            span,
            tuple(b.code),
            dict(b.labels),
            tuple(scope.names),
            tuple(b.deferred),
        )

    # ------------------------------------------------------------------ statements
    def block(self, block: ast.Block, b: _Builder, scope: Scope) -> None:
        for stmt in block.stmts:
            # with standing tests only after it, a statement may run as plain Python
            tested_after = b.simultaneous or isinstance(stmt, ast.Simultaneously)
            if (
                type(stmt).blocks
                and _native_ok(stmt)
                and (tested_after or not self._watched_inside(stmt))
            ):
                lines = self.native.visit(stmt, scope)
                b.add(Step(lines=tuple(lines), span=stmt.span))
            else:
                self.visit(stmt, b, scope)
                if self.forgets(stmt):
                    b.step(_FORGET, stmt.span)
            rules = () if b.simultaneous else self._watching(stmt)
            if rules:
                self._standing(b, rules, scope, stmt.span)

    def _small_locals(self, body, params) -> frozenset[str]:
        """The locals of a procedure that only ever hold numbers of at most 16 bits, or lists
        of them (`Exprs.small`): each is bound only by `for` loops over such a list written
        out or a `param` that is one, and no other statement names it."""
        return self._loop_locals(body, params, self._small_list)

    def _seat_locals(self, body, params, scope: Scope) -> None:
        """The locals of a procedure bound only by `for` loops over `players`, which no other
        statement names, hold a seat: a number from 0 to the most players less one, which a
        key of `player` is at that position (`Exprs._position`) and is small. Said in
        `scope` as the range of their values."""
        for name in self._loop_locals(body, params, lambda e: self.ex.seats(e, scope)):
            scope.ranges[name] = (0, self.ex.sym.max_players)

    def _loop_locals(self, body, params, test) -> frozenset[str]:
        """The locals bound only by `for` loops over lists that pass `test`, which no other
        statement names."""
        loops: dict[str, bool] = {}
        named: set[str] = set(params)
        for node in ast.walk(body):
            if isinstance(node, ast.For):
                loops[node.name] = loops.get(node.name, True) and test(node.iter)
            elif isinstance(node, ast.Statement):
                name = getattr(node, "name", None)
                if isinstance(name, str):
                    named.add(name)
                named.update(t.name for t in ast.children_of(node) if isinstance(t, ast.Target))
            elif isinstance(node, ast.MatchArm):
                named.update(node.binds)
        return frozenset(name for name, small in loops.items() if small and name not in named)

    def _small_list(self, e) -> bool:
        if isinstance(e, ast.ListLit):
            return all(_small_value(_literal(item)) for item in e.items)
        if isinstance(e, ast.NameRef) and self.ex.sym.kind.get(e.name) == "param":
            return _small_value(self.ex.sym.params[e.name])
        return False

    def item(self, s: ast.For, scope: Scope, source: str) -> str:
        """Python for the item `source` of a `for` loop's list, as its variable holds it: the
        item itself when the list is a constant of the rules (a `param`, a row's field, a list
        written out) and nothing in the procedure changes the variable in place; else its own
        copy, when the items may be lists."""
        constant = isinstance(s.iter, ast.FieldGet) or (
            isinstance(s.iter, ast.NameRef) and self.ex.steady(s.iter, scope)
        )
        if constant and s.name not in self.changed:
            return source
        return self.ex.item(s.iter, source)

    def forgets(self, stmt) -> bool:
        """Does `stmt` itself write state a remembered `fn` reads, so that the memo must be
        cleared after it (dsl/codegen/memo.py)? A shuffle, a flip or a reveal always: they
        change who sees what, which built-ins read."""
        if not self.remembering or type(stmt).blocks:
            return False
        if isinstance(stmt, (ast.Shuffle, ast.Flip, ast.Reveal)):
            return True
        return bool(self.access.writes(stmt) & self.remembered_reads)

    def _watching(self, stmt) -> tuple[int, ...]:
        """The standing rules whose conditions read what `stmt` itself writes; for a
        `simultaneously` block, what it writes in all, through the procedures it runs."""
        if not self.watch:
            return ()
        if isinstance(stmt, ast.Simultaneously):
            written = self.access.body_writes(stmt.body)
        else:
            written = self.access.writes(stmt)
        found = {i for name in written for i in self.watch.get(name, ())}
        return tuple(sorted(found))

    def _watched_inside(self, stmt) -> bool:
        """Does a statement inside `stmt` write what a standing rule reads? Then `stmt`
        cannot run as plain Python: the test after that statement may start the rule."""
        return bool(self.watch) and any(
            isinstance(node, ast.Statement) and self._watching(node) for node in ast.walk(stmt)
        )

    def _standing(self, b: _Builder, rules: tuple[int, ...], scope: Scope, span: Span) -> None:
        """Test the rules; when one starts, come back after its body to test them again."""
        check, done = b.label(), b.label()
        b.place(check)
        b.add(Standing(rules=rules, slot=scope.temp("standing"), done=done, span=span))
        b.add(Jump(target=check, span=span))
        b.place(done)

    @on(ast.Pass)
    def s_Pass(self, s, b, scope):
        pass

    @on(ast.Simultaneously)
    def s_Simultaneously(self, s: ast.Simultaneously, b, scope):
        """The block, with no standing test between its statements; the labels around it let
        the engine hold back the tests of the rules it calls (`_standing`), and `block` tests
        once after it."""
        start, end = b.label(), b.label()
        b.place(start)
        b.simultaneous += 1
        self.block(s.body, b, scope)
        b.simultaneous -= 1
        b.place(end)
        b.deferred.append((start, end))

    @on(ast.Let)
    def s_Let(self, s: ast.Let, b, scope):
        slot = scope.slot(s.name)
        if isinstance(s.value, ast.RollDice) and s.value.count == 1 and self.ex.fold:
            b.step(_rolled(f"L[{slot}]", s.value.sides), s.span)
            return
        b.step(f"L[{slot}] = {self.ex.owned(s.value, scope)}", s.span)

    @on(ast.Assign)
    def s_Assign(self, s: ast.Assign, b, scope):
        value = self.ex.owned(s.value, scope)
        b.step(f"{self.ex.place(s.target, scope)} {s.op} {value}", s.span)

    @on(ast.If)
    def s_If(self, s: ast.If, b, scope):
        end = b.label()
        for cond, body in s.branches:
            skip = b.label()
            b.add(Branch(cond=self.ex.x(cond, scope), orelse=skip, span=cond.span))
            self.block(body, b, scope)
            b.add(Jump(target=end, span=body.span))
            b.place(skip)
        if s.otherwise is not None:
            self.block(s.otherwise, b, scope)
        b.place(end)

    @on(ast.Match)
    def s_Match(self, s: ast.Match, b, scope):
        subject = scope.temp("match")
        b.step(f"L[{subject}] = {self.ex.x(s.subject, scope)}", s.subject.span)
        end = b.label()
        for arm in s.arms:
            skip = b.label()
            test = _arm_test(f"L[{subject}]", arm.name, arm.binds)
            b.add(Branch(cond=test, orelse=skip, span=arm.span))
            if arm.binds:
                b.step(_arm_binds(f"L[{subject}]", arm.binds, scope), arm.span)
            self.block(arm.body, b, scope)
            b.add(Jump(target=end, span=arm.body.span))
            b.place(skip)
        if s.otherwise is not None:
            self.block(s.otherwise, b, scope)
        b.place(end)

    def _loop(
        self,
        b: _Builder,
        test: LoopTest,
        body: Callable[[], None],
        span: Span,
        tally: tuple[str, ...] | None = None,
    ) -> None:
        """The test runs on entry, and again after the body (`body()` lowers it), where it
        joins the body's last straight run instead of jumping back to the first copy. The
        copy after the body runs `tally` first, when given, instead of the test's `before`."""
        start = b.label()
        b.add(test)
        b.place(start)
        b.loop_ends.append(test.exit)
        body()
        b.loop_ends.pop()
        before = test.before if tally is None else tally
        b.add(attrs.evolve(test, before=before, again=start, span=span))
        b.place(test.exit)

    def _loop_over(self, b: _Builder, test: LoopTest, body: ast.Block, scope: Scope) -> None:
        """A loop whose body is a block of statements."""
        self._loop(b, test, lambda: self.block(body, b, scope), body.span)

    def _for_each(
        self,
        b: _Builder,
        scope: Scope,
        walked: str,
        bind: Callable[[str], str],
        body: Callable[[], None],
        spans: tuple[Span, Span, Span],
    ) -> None:
        """A loop over the list `walked` (kept in a local): `bind(item)` is the line that
        gives each item to the body. `spans`: of the list, of the loop, of its body."""
        it, idx = scope.temp("items"), scope.temp("index")
        listed, loop, inner = spans
        b.step(f"L[{it}] = _steps(st, {walked})\nL[{idx}] = 0", listed)
        test = LoopTest(
            before=(f"k = L[{idx}]",),
            done=f"k >= len(L[{it}])",
            after=(bind(f"L[{it}][k]"), f"L[{idx}] = k + 1"),
            exit=b.label(),
            again=NEXT,
            span=loop,
        )
        self._loop(b, test, body, inner)

    @on(ast.For)
    def s_For(self, s: ast.For, b, scope):
        items = self.ex.x(s.iter, scope)
        walked = items if self.ex.steady(s.iter, scope) else f"list({items})"
        seated = (
            isinstance(s.iter, ast.NameRef)
            and s.iter.name == "players"
            and "players" not in scope.where
            and not _rebinds(s.body, s.name)
        )

        def body() -> None:
            before = self.seated
            self.seated = before | {s.name} if seated else before - {s.name}
            try:
                self.block(s.body, b, scope)
            finally:
                self.seated = before

        # the loop variable's slot comes after the loop's own (`bind` runs after them)
        self._for_each(
            b,
            scope,
            walked,
            lambda item: f"L[{scope.slot(s.name)}] = {self.item(s, scope, item)}",
            body,
            (s.iter.span, s.span, s.body.span),
        )

    @on(ast.Repeat)
    def s_Repeat(self, s: ast.Repeat, b, scope):
        left = scope.temp("left")
        b.step(f"L[{left}] = _count(st, {self.ex.x(s.count, scope)})", s.count.span)
        test = LoopTest(
            before=(),
            done=f"L[{left}] <= 0",
            after=(f"L[{left}] -= 1",),
            exit=b.label(),
            again=NEXT,
            span=s.span,
        )
        self._loop_over(b, test, s.body, scope)

    @on(ast.While)
    def s_While(self, s: ast.While, b, scope):
        turns = scope.temp("turns")
        bound = s.max if s.max is not None else 0
        message = self.ex.const(f"the loop ran more than its bound of {bound} times")
        b.step(f"L[{turns}] = 0\n{_WHILE_START}", s.span)
        # `while not c` is done when `c` holds: the test is `c` itself, not `not (not c)`
        cond = s.cond
        test = LoopTest(
            before=(),
            done=(
                self.ex.x(cond.operand, scope)
                if isinstance(cond, ast.UnaryOp) and cond.op == "not"
                else f"not ({self.ex.x(cond, scope)})"
            ),
            after=(
                f"L[{turns}] += 1",
                f"if L[{turns}] > {bound}: _fault('K405', {message})",
                _while_turn(bound),
            ),
            exit=b.label(),
            again=NEXT,
            span=s.span,
        )
        self._loop_over(b, test, s.body, scope)

    @on(ast.Outcry)
    def s_Outcry(self, s: ast.Outcry, b, scope):
        """Players of the list in turn, round and round (`index` counts the turns), until as
        many turns in a row as there are players passed: a raise (a change of the watched
        value) makes its own turn the first of the row."""
        it, idx, passes = scope.temp("items"), scope.temp("index"), scope.temp("passes")
        raises, seen = scope.temp("raises"), scope.temp("seen")
        items, watch = self.ex.x(s.iter, scope), self.ex.x(s.watch, scope)
        walked = items if self.ex.steady(s.iter, scope) else f"list({items})"
        b.step(
            f"L[{it}] = {walked}\nL[{idx}] = 0\nL[{passes}] = 0\nL[{raises}] = 0\n"
            f"L[{seen}] = {watch}",
            s.span,
        )
        var = scope.slot(s.name)  # after the loop's own slots
        item = self.ex.item(s.iter, f"L[{it}][L[{idx}] % len(L[{it}])]")
        message = self.ex.const(f"the outcry had more than its bound of {s.max} raises")
        entry = LoopTest(
            before=(),
            done=f"L[{passes}] >= len(L[{it}])",
            after=(f"L[{var}] = {item}", f"L[{idx}] += 1"),
            exit=b.label(),
            again=NEXT,
            span=s.span,
        )
        tally = (
            f"k = {watch}",
            f"r = k != L[{seen}]",
            f"L[{seen}] = k",
            f"L[{passes}] = 1 if r else L[{passes}] + 1",
            f"L[{raises}] += r",
            f"if L[{raises}] > {s.max}: _fault('K405', {message})",
        )
        self._loop(b, entry, lambda: self.block(s.body, b, scope), s.body.span, tally)

    @on(ast.Perform)
    def s_Perform(self, s: ast.Perform, b, scope):
        """A loop over the effects performed (one effect is a list of one), each pushing the
        frame of the effect its value names."""
        items, index = scope.temp("effects"), scope.temp("index")
        who, card, given = scope.temp("performer"), scope.temp("card"), scope.temp("context")
        effects = self.ex.x(s.effects, scope)
        if self.ex.typing.of(s.effects) == EFFECT:
            listed = f"[{effects}]"
        else:
            listed = effects if self.ex.steady(s.effects, scope) else f"list({effects})"
        on = self.ex.x(s.card, scope) if s.card is not None else "None"
        context = "[" + ", ".join(self.ex.owned(a, scope) for a in s.context) + "]"
        b.step(
            f"L[{items}] = {listed}\nL[{index}] = 0\n"
            f"L[{who}] = {self.ex.x(s.player, scope)}\nL[{card}] = {on}\n"
            f"L[{given}] = {context}",
            s.span,
        )
        test = LoopTest(
            before=(f"k = L[{index}]",),
            done=f"k >= len(L[{items}])",
            after=(f"L[{index}] = k + 1",),
            exit=b.label(),
            again=NEXT,
            span=s.span,
        )
        call = CallEffect(
            effect=f"L[{items}][L[{index}] - 1]",
            player=f"L[{who}]",
            card=f"L[{card}]",
            moment=s.moment,
            context=f"L[{given}]",
            span=s.span,
        )
        self._loop(b, test, lambda: b.add(call), s.span)

    @on(ast.Trigger)
    def s_Trigger(self, s: ast.Trigger, b, scope):
        """The moment's `before` windows, what it performs, then its `after` windows."""
        self._windows(s, "before", b, scope)
        self._perform_at(s, b, scope)
        self._windows(s, "after", b, scope)

    def _windows(self, s: ast.Trigger, side: str, b: _Builder, scope: Scope) -> None:
        args = tuple(self.ex.owned(a, scope) for a in s.args)
        for w in self.program.get(ast.Proc):
            if w.kind == "window" and w.at == s.moment and w.side == side:
                b.add(Call(proc=self.proc_index[(w.name, 0)], args=args, span=s.span))

    def _perform_at(self, s: ast.Trigger, b: _Builder, scope: Scope) -> None:
        """`trigger m for items by p` is `for x in items { perform x.m by p with x }`, with a
        loop variable no ruleset can name."""
        if isinstance(s.items, ast.ListLit) and not s.items.items:
            return
        name = f"$moment{len(scope.names)}"
        item = ast.NameRef(name, span=s.span)
        effects = ast.FieldGet(item, s.moment, span=s.span)
        perform = ast.Perform(
            effects, s.player, item, s.cite, span=s.span, moment=s.moment, context=s.args
        )
        if s.order is None:
            self.visit(
                ast.For(name, s.items, ast.Block((perform,), span=s.span), span=s.span), b, scope
            )
            return
        # `ordered by q`: as many times as there are items, q picks one of those left
        rest = f"$rest{len(scope.names)}"
        left = scope.temp("left")
        b.step(
            f"L[{scope.slot(rest)}] = list({self.ex.x(s.items, scope)})\n"
            f"L[{left}] = len(L[{scope.slot(rest)}])",
            s.items.span,
        )
        moment = self.program.decls.get(s.moment)
        words = getattr(moment, "template", None) or s.moment
        pick = ast.Choose(
            name,
            s.order,
            ast.NameRef(rest, span=s.span),
            f"which goes next ({words})",
            s.cite,
            span=s.span,
        )
        test = LoopTest(
            before=(),
            done=f"L[{left}] <= 0",
            after=(f"L[{left}] -= 1",),
            exit=b.label(),
            again=NEXT,
            span=s.span,
        )

        def body() -> None:
            self.visit(pick, b, scope)
            here, picked = scope.slot(rest), scope.slot(name)
            b.step(f"del L[{here}][L[{here}].index(L[{picked}])]", s.span)
            self.visit(perform, b, scope)

        self._loop(b, test, body, s.span)

    @on(ast.Break)
    def s_Break(self, s: ast.Break, b, scope):
        if b.loop_ends:
            b.add(Jump(target=b.loop_ends[-1], span=s.span))

    @on(ast.Choose)
    def s_Choose(self, s: ast.Choose, b, scope):
        options = self.ex.x(s.options, scope)
        player = self.ex.x(s.player, scope)
        slot = scope.slot(s.name)
        site = len(self.sites)
        self.sites.append(
            ChooseSite(
                s.prompt or f"choose {s.name}",
                s.cite,
                self.current_proc,
                s.span,
                s.always,
                s.secret,
                s.id or self.site_base,
                elem(self.ex.typing.of(s.options)),
                self._places(s, scope),
            )
        )
        if self.offering:
            b.place(b.label())
        b.add(
            Choose(
                options=options,
                as_list=_fresh(s.options),
                only=self.ex.item(s.options, "o[0]"),
                player=player,
                site=site,
                slot=slot,
                ask=s.always or self.ask_forced,
                placed=tuple(p[1] for p in self.sites[site].places),
                offers=self.offering,
                several=isinstance(s.options, ast.ListLit) and len(s.options.items) > 1,
                seated=isinstance(s.player, ast.NameRef) and s.player.name in self.seated,
                span=s.span,
            )
        )

    def _places(self, s, scope: Scope) -> tuple[tuple[str, int, object], ...]:
        """The locals a decision's prompt names, with their slots and types (checked: K247)."""
        types = self.ex.typing.places.get(id(s), {})
        return tuple((name, scope.slot(name.partition(".")[0]), t) for name, t in types.items())

    def _sites(
        self, s: ast.Agree | ast.Negotiate, prompts: dict[str, str], scope: Scope
    ) -> dict[str, int]:
        """One decision site per role of a joint statement, its prompt led by the role's words."""
        sites = {}
        prompt = s.prompt or f"choose {s.name}"
        for role, words in prompts.items():
            sites[role] = len(self.sites)
            key = f"{s.id or self.site_base}.{role}"
            items = s.options if isinstance(s, ast.Agree) else s.items
            self.sites.append(
                ChooseSite(
                    f"{words}: {prompt}",
                    s.cite,
                    self.current_proc,
                    s.span,
                    id=key,
                    item_type=elem(self.ex.typing.of(items)),
                    places=self._places(s, scope),
                )
            )
        return sites

    def _decide(
        self,
        b: _Builder,
        span: Span,
        site: int,
        options: str,
        player: str,
        into: int,
        only: str = "o[0]",
    ) -> None:
        """A decision of a joint statement: `options` always builds a new list."""
        if self.offering:
            b.place(b.label())
        b.add(
            Choose(
                options=options,
                as_list=True,
                only=only,
                player=player,
                site=site,
                slot=into,
                ask=False,
                offers=self.offering,
                placed=tuple(p[1] for p in self.sites[site].places),
                span=span,
            )
        )

    def _while(
        self,
        b: _Builder,
        done: str,
        body: Callable[[], None],
        span: Span,
        after: tuple[str, ...] = (),
    ) -> None:
        """A loop of a joint statement, its bound kept by the statement itself."""
        test = LoopTest(before=(), done=done, after=after, exit=b.label(), again=NEXT, span=span)
        self._loop(b, test, body, span)

    @on(ast.Agree)
    def s_Agree(self, s: ast.Agree, b, scope):
        """Proposals in turn (`made` counts them) until one is accepted by every other player
        of the group, each asked in order until one refuses; after `max` refused proposals
        the group's first player decides alone. With one option there is nothing to put to
        the others."""
        grp, opts, made, ok = (scope.temp(n) for n in ("group", "options", "proposals", "agreed"))
        who, voters, idx = (scope.temp(n) for n in ("proposer", "voters", "index"))
        voter, answer = scope.temp("voter"), scope.temp("answer")
        slot, one = scope.slot(s.name), self.ex.item(s.options, "o[0]")
        nobody = self.ex.const("an `agree` has nobody to decide")
        b.step(
            f"L[{grp}] = list({self.ex.x(s.group, scope)})\n"
            f"if not L[{grp}]: _fault('K402', {nobody})\n"
            f"L[{opts}] = list({self.ex.x(s.options, scope)})\nL[{made}] = 0\nL[{ok}] = False",
            s.span,
        )
        sites = self._sites(
            s,
            {
                "propose": "propose",
                "vote": "answer the proposal",
                "alone": "no agreement, decide alone",
            },
            scope,
        )

        def votes() -> None:
            b.step(f"L[{voter}] = L[{voters}][L[{idx}]]\nL[{idx}] += 1", s.span)
            pair = f"[[{ACCEPT!r}, L[{slot}]], [{REFUSE!r}, L[{slot}]]]"
            self._decide(b, s.span, sites["vote"], pair, f"L[{voter}]", answer)
            b.step(f"L[{ok}] = L[{answer}][0] == {ACCEPT!r}", s.span)

        def proposal() -> None:
            self._decide(b, s.span, sites["propose"], f"list(L[{opts}])", f"L[{who}]", slot, one)
            b.step(
                f"L[{ok}] = True\nL[{idx}] = 0\n"
                f"L[{voters}] = [] if len(L[{opts}]) < 2 else "
                f"[q for q in L[{grp}] if q != L[{who}]]",
                s.span,
            )
            self._while(b, f"not L[{ok}] or L[{idx}] >= len(L[{voters}])", votes, s.span)

        after = (f"L[{who}] = L[{grp}][L[{made}] % len(L[{grp}])]", f"L[{made}] += 1")
        self._while(b, f"L[{ok}] or L[{made}] >= {s.max}", proposal, s.span, after)
        done = b.label()
        b.add(Branch(cond=f"not L[{ok}]", orelse=done, span=s.span))
        self._decide(b, s.span, sites["alone"], f"list(L[{opts}])", f"L[{grp}][0]", slot, one)
        b.place(done)

    @on(ast.Negotiate)
    def s_Negotiate(self, s: ast.Negotiate, b, scope):
        """Bundles drafted one item at a time and offered in turn: the proposer `who` drafts
        into the statement's own slot (which the items read), until he offers or withdraws;
        the others answer in order until one does not accept. A counter makes its author the
        next proposer, and is offered only while fewer than `max` bundles were offered."""
        grp, qs, made, live = (scope.temp(n) for n in ("parties", "proposers", "offers", "open"))
        who, pick, drafting, steps = (
            scope.temp(n) for n in ("proposer", "pick", "drafting", "steps")
        )
        voters, idx, voter = (scope.temp(n) for n in ("voters", "index", "voter"))
        answer, said, result = (scope.temp(n) for n in ("answer", "said", "result"))
        slot = scope.slot(s.name)
        parties = self.ex.x(s.parties, scope)
        by = self.ex.x(s.proposers, scope) if s.proposers is not None else f"L[{grp}]"
        long = self.ex.const(f"a draft of the negotiation had more than {DRAFT_LIMIT} items")
        b.step(
            f"L[{grp}] = list({parties})\nL[{qs}] = list({by})\nL[{made}] = 0\n"
            f"L[{live}] = len(L[{grp}]) > 1\nL[{result}] = []\n"
            f"L[{who}] = L[{grp}][0] if L[{grp}] else None",
            s.span,
        )
        roles = {"draft": "draft a bundle", "answer": "answer the bundle"}
        sites = self._sites(s, roles, scope)
        offer, withdraw = f"[{OFFER!r}, list(L[{slot}])]", f"[{WITHDRAW!r}, list(L[{slot}])]"

        def draft() -> None:
            items = self.ex.x(s.items, scope)
            options = (
                f"[x for x in {items} if x not in L[{slot}]]"
                f" + ([{offer}] if L[{slot}] else []) + [{withdraw}]"
            )
            self._decide(b, s.span, sites["draft"], options, f"L[{who}]", pick)
            b.step(
                f"k = L[{pick}]\n"
                f"if k == {offer}:\n    L[{drafting}] = False\n    L[{made}] += 1\n"
                f"elif k == {withdraw}:\n    L[{drafting}] = False\n    L[{live}] = False\n"
                f"else:\n    L[{slot}] = L[{slot}] + [k]",
                s.span,
            )

        def answers() -> None:
            b.step(f"L[{voter}] = L[{voters}][L[{idx}]]\nL[{idx}] += 1", s.span)
            options = (
                f"[[{ACCEPT!r}, L[{slot}]], [{REFUSE!r}, L[{slot}]]]"
                f" + ([[{COUNTER!r}, L[{slot}]]] if L[{made}] < {s.max} and L[{voter}] in L[{qs}]"
                " else [])"
            )
            self._decide(b, s.span, sites["answer"], options, f"L[{voter}]", answer)
            b.step(f"L[{said}] = L[{answer}][0]", s.span)

        def bundle() -> None:
            b.step(f"L[{slot}] = []\nL[{drafting}] = True\nL[{steps}] = 0", s.span)
            after = (
                f"L[{steps}] += 1",
                f"if L[{steps}] > {DRAFT_LIMIT + 1}: _fault('K405', {long})",
            )
            self._while(b, f"not L[{drafting}]", draft, s.span, after)
            offered = b.label()
            b.add(Branch(cond=f"L[{live}]", orelse=offered, span=s.span))
            b.step(
                f"L[{voters}] = [r for r in L[{grp}] if r != L[{who}]]\nL[{idx}] = 0\n"
                f"L[{said}] = {ACCEPT!r}",
                s.span,
            )
            done = f"L[{said}] != {ACCEPT!r} or L[{idx}] >= len(L[{voters}])"
            self._while(b, done, answers, s.span)
            b.step(
                f"if L[{said}] == {ACCEPT!r}:\n    L[{result}] = L[{slot}]\n    L[{live}] = False\n"
                f"elif L[{said}] == {REFUSE!r}:\n    L[{live}] = False\n"
                f"else:\n    L[{who}] = L[{voter}]",
                s.span,
            )
            b.place(offered)

        self._while(b, f"not L[{live}]", bundle, s.span)
        b.step(f"L[{slot}] = L[{result}]", s.span)

    @on(ast.Quiet)
    def s_Quiet(self, s: ast.Quiet, b, scope):
        """Each player in turn, if he has standing options: those, or going on."""
        if not self.offering:
            return
        who, answer = scope.temp("quiet"), scope.temp("answer")
        site = len(self.sites)
        key = f"{self.site_base}.quiet"
        self.sites.append(ChooseSite(QUIET_PROMPT, s.cite, self.current_proc, s.span, id=key))
        if s.who is None:
            asked = "st.players"
        else:
            asked = self.ex.x(s.who, scope)
            asked = asked if self.ex.steady(s.who, scope) else f"list({asked})"

        def ask() -> None:
            b.place(b.label())
            b.add(
                Choose(
                    options=repr([GO_ON]),
                    as_list=True,
                    only="o[0]",
                    player=f"L[{who}]",
                    site=site,
                    slot=answer,
                    ask=False,
                    offers=True,
                    quiet=True,
                    span=s.span,
                )
            )

        self._for_each(
            b, scope, asked, lambda item: f"L[{who}] = {item}", ask, (s.span, s.span, s.span)
        )

    @on(ast.CallStmt)
    def s_CallStmt(self, s: ast.CallStmt, b, scope):
        args = tuple(self.ex.owned(a, scope) for a in s.args if not isinstance(a, ast.KwArg))
        name, depth = self.rule
        key = (name, depth + 1) if s.base else (s.name, 0)
        if s.base and self.ex.rule_kind == "effect":  # the replaced effect: same performer, card
            args = ("L[0]", "L[1]") + args
        b.add(Call(proc=self.proc_index[key], args=args, span=s.span))

    @on(ast.AddTo)
    def s_AddTo(self, s: ast.AddTo, b, scope):
        b.step(self.ex.put_into(s.target, self.ex.owned(s.value, scope), scope), s.span)

    @on(ast.Spend)
    def s_Spend(self, s: ast.Spend, b, scope):
        sink = self.ex.pool_cells(s.sink, scope) if s.sink is not None else "None, 0, None"
        where = self.ex.const(s.source.name)
        bag = self.ex.x(s.bag, scope)
        b.step(f"_spend({self.ex.pool_cells(s.source, scope)}, {sink}, {bag}, {where})", s.span)

    @on(ast.RemoveFrom)
    def s_RemoveFrom(self, s: ast.RemoveFrom, b, scope):
        b.step(self.ex.take_from(s.target, self.ex.x(s.value, scope), scope), s.span)

    @on(ast.Move)
    def s_Move(self, s: ast.Move, b, scope):
        ex = self.ex
        # the destination's keys are read after the source changed
        forget = f"\n{_FORGET}" if self.forgets(s) else ""
        b.step(
            f"v = {ex.x(s.value, scope)}\n{ex.take_from(s.source, 'v', scope)}{forget}\n"
            f"{ex.put_into(s.dest, 'v', scope)}",
            s.span,
        )

    @on(ast.Shuffle)
    def s_Shuffle(self, s: ast.Shuffle, b, scope):
        place = self.ex.place(s.target, scope)
        known = self.ex.sym.slot_of(KNOWN)
        if known is None:
            b.step(f"_shuffle(st, {place})", s.span)
            return
        # a shuffled entry is known to nobody any more
        b.step(
            f"items = {place}\n_shuffle(st, items)\n"
            f"for seen in st.g[{known}]:\n    seen[:] = [x for x in seen if x not in items]",
            s.span,
        )

    @on(ast.Flip)
    def s_Flip(self, s: ast.Flip, b, scope):
        flipped = self.ex.sym.slot_of(FLIPPED)
        b.step(
            f"c = {self.ex.x(s.value, scope)}\nturned = st.g[{flipped}]\n"
            "if c in turned: turned.remove(c)\nelse: turned.append(c)",
            s.span,
        )

    @on(ast.Reveal)
    def s_Reveal(self, s: ast.Reveal, b, scope):
        known = self.ex.sym.slot_of(KNOWN)
        b.step(
            f"v = {self.ex.x(s.value, scope)}\n"
            f"for q in {self.ex.x(s.to, scope)}:\n"
            f"    if v not in st.g[{known}][q]: st.g[{known}][q].append(v)",
            s.span,
        )

    @on(ast.Draw)
    def s_Draw(self, s: ast.Draw, b, scope):
        # draw from the top (the first item, or the first filled slot of a row)
        ex = self.ex
        count = ex.x(s.count, scope)
        is_row = ex.row_slot(s.source)[0]
        top = "[x for x in source if x is not None][:1]" if is_row else "source[:1]"
        b.step(
            f"source = {ex.container(s.source, scope)}\n"
            f"for _ in range(_count(st, {count})):\n"
            f"    top = {top}\n"
            f"    if not top: break\n"
            f"    {ex.take_from(s.source, 'top[0]', scope)}\n"
            + (f"    {_FORGET}\n" if self.forgets(s) else "")
            + f"    {ex.put_into(s.dest, 'top[0]', scope)}"
            + (f"\n    {_FORGET}" if self.forgets(s) else ""),
            s.span,
        )

    @on(ast.EndGame)
    def s_EndGame(self, s: ast.EndGame, b, scope):
        if s.stop:
            b.add(Leave(lines=("return _stop(st)",), span=s.span))
            return
        b.add(Leave(lines=(f"return _end(st, {self.ex.x(s.winners, scope)})",), span=s.span))

    @on(ast.Log)
    def s_Log(self, s: ast.Log, b, scope):
        args = ", ".join(self.ex.owned(a, scope) for a in s.args)  # as they are now
        # where the line comes from, for traces: the statement and its procedure; and for
        # events, a name and the checker's type for each value
        types = tuple(self.ex.typing.of(a) for a in s.args)
        where = self.ex.const((str(s.span), self.current_proc, s.fields(), types), "w")
        to = self.ex.x(s.to, scope) if s.to is not None else "None"  # who reads it
        b.step(
            f"if st.trace is not None: st.trace.append(('log', {s.text!r}, [{args}], {where}, "
            f"{to}))",
            s.span,
        )


# what a quiet point asks, and the option that declines every standing option there
QUIET_PROMPT = "anything to do before play goes on?"
GO_ON = "go on"


def _rebinds(body: ast.Block, name: str) -> bool:
    """Whether a statement of `body` may give the local `name` a value: any node there but a
    read of it (`NameRef`) that holds the name (a `let`, an assignment, a loop or a decision
    or a match naming it, and, to be safe, a field or a call of that name)."""
    for node in ast.walk(body):
        if isinstance(node, ast.NameRef):
            continue
        kind: Any = type(node)  # every node class is an attrs class
        for field in attrs.fields(kind):
            value = getattr(node, field.name)
            if value == name or (isinstance(value, (tuple, list)) and name in value):
                return True
    return False


ACCEPT, REFUSE = "accept", "refuse"  # the answers to a proposal of `agree`
COUNTER = "counter"  # and, in a negotiation, the answer that makes a new proposal
OFFER, WITHDRAW = "offer", "withdraw"  # what ends a draft: offered, or no deal
DRAFT_LIMIT = 1000  # items in one draft of a negotiation: past it, a fault (K405)


class _Native(Visitor):
    """Python lines for a statement that cannot stop for a decision: ifs and loops become
    Python's own, so the whole statement runs inside one instruction."""

    domain = ast.STATEMENTS

    def __init__(self, lower: Lowerer):
        self.lower = lower
        self.ex = lower.ex

    def body(self, block: ast.Block, scope: Scope) -> list[Line]:
        lines = [line for stmt in block.stmts for line in self.visit(stmt, scope)]
        return [("    " + text, span) for text, span in lines or [("pass", block.span)]]

    @on(ast.If)
    def n_If(self, s: ast.If, scope):
        lines: list[Line] = []
        for n, (cond, body) in enumerate(s.branches):
            keyword = "if" if n == 0 else "elif"
            lines.append((f"{keyword} {self.ex.x(cond, scope)}:", cond.span))
            lines += self.body(body, scope)
        if s.otherwise is not None:
            lines.append(("else:", s.otherwise.span))
            lines += self.body(s.otherwise, scope)
        return lines

    @on(ast.Match)
    def n_Match(self, s: ast.Match, scope):
        subject = f"L[{scope.temp('match')}]"
        lines: list[Line] = [(f"{subject} = {self.ex.x(s.subject, scope)}", s.subject.span)]
        for n, arm in enumerate(s.arms):
            keyword = "if" if n == 0 else "elif"
            lines.append((f"{keyword} {_arm_test(subject, arm.name, arm.binds)}:", arm.span))
            binds = _arm_binds(subject, arm.binds, scope).split("\n") if arm.binds else []
            lines += [("    " + line, arm.span) for line in binds]
            lines += self.body(arm.body, scope)
        if s.otherwise is not None:
            lines.append(("else:", s.otherwise.span))
            lines += self.body(s.otherwise, scope)
        return lines

    @on(ast.For)
    def n_For(self, s: ast.For, scope):
        written = self.written_out(s, scope)
        if written is not None:
            return written
        items = self.ex.x(s.iter, scope)
        walked = items if self.ex.steady(s.iter, scope) else f"list({items})"
        var = f"L[{scope.slot(s.name)}]"
        item = self.lower.item(s, scope, "_v")
        charge: list[tuple[str, Span]] = []
        known = self.ex.length(s.iter, scope)
        if known is not None:  # its turns are charged here, without a call
            charge = [(f"st.left -= {known}", s.span), (_WHILE_START, s.span)]
        else:
            walked = f"_steps(st, {walked})"
        if item == "_v":
            return charge + [(f"for {var} in {walked}:", s.span)] + self.body(s.body, scope)
        head = [(f"for _v in {walked}:", s.span), (f"    {var} = {item}", s.span)]
        return charge + head + self.body(s.body, scope)

    def written_out(self, s: ast.For, scope: Scope) -> list[Line] | None:
        """A loop over a few items known when compiling (`Exprs.known_items`, but no
        `range`, whose list would be charged as items), whose body neither sets its name nor
        breaks: its body once per item, the name read as the item (as `Exprs.written_out`
        writes out a comprehension). The loop's steps are charged at its start, as for the
        loop; its local holds each item in turn, as the loop's would. None when the loop is
        not such."""
        if isinstance(s.iter, ast.CallExpr) and s.iter.name == "range":
            return None
        items = self.ex.known_items(s.iter, scope)
        room = self.ex.room
        if items is None or not room or len(items) > room or _rebinds(s.body, s.name):
            return None
        if any(isinstance(node, ast.Break) for node in ast.walk(s.body)):
            return None
        slot = scope.slot(s.name)
        where, walks = scope.where[s.name], scope.walks.get(s.name)
        ends = scope.ranges.pop(s.name, None)
        lines: list[Line] = [(f"st.left -= {len(items)}", s.span), (_WHILE_START, s.span)]
        self.ex.room = room // max(len(items), 1)
        try:
            for item in items:
                literal = self.ex.literal(item)
                lines.append((f"L[{slot}] = {self.lower.item(s, scope, literal)}", s.span))
                scope.where[s.name], scope.walks[s.name] = literal, (item,)
                lines += [line for stmt in s.body.stmts for line in self.visit(stmt, scope)]
        finally:
            self.ex.room = room
            scope.where[s.name] = where
            if walks is None:
                scope.walks.pop(s.name, None)
            else:
                scope.walks[s.name] = walks
            if ends is not None:
                scope.ranges[s.name] = ends
        return lines

    @on(ast.Repeat)
    def n_Repeat(self, s: ast.Repeat, scope):
        counter = f"_r{scope.temp('repeat')}"
        head = f"for {counter} in range(_count(st, {self.ex.x(s.count, scope)})):"
        return [(head, s.span)] + self.body(s.body, scope)

    @on(ast.While)
    def n_While(self, s: ast.While, scope):
        turns = f"_w{scope.temp('turns')}"
        bound = s.max if s.max is not None else 0
        message = self.ex.const(f"the loop ran more than its bound of {bound} times")
        return [
            (f"{turns} = 0", s.span),
            (_WHILE_START, s.span),
            (f"while {self.ex.x(s.cond, scope)}:", s.cond.span),
            (f"    {turns} += 1", s.span),
            (f"    if {turns} > {bound}: _fault('K405', {message})", s.span),
            ("    " + _while_turn(bound), s.span),
        ] + self.body(s.body, scope)

    @on(ast.Simultaneously)
    def n_Simultaneously(self, s: ast.Simultaneously, scope):
        return [line for stmt in s.body.stmts for line in self.visit(stmt, scope)]

    @on(ast.Break)
    def n_Break(self, s, scope):
        return [("break", s.span)]

    @on(ast.EndGame)
    def n_EndGame(self, s: ast.EndGame, scope):
        if s.stop:
            return [("return _stop(st)", s.span)]
        return [(f"return _end(st, {self.ex.x(s.winners, scope)})", s.span)]

    @on(ast.Pass)
    def n_Pass(self, s, scope):
        return [("pass", s.span)]

    @on(
        ast.Let,
        ast.Assign,
        ast.AddTo,
        ast.RemoveFrom,
        ast.Spend,
        ast.Move,
        ast.Shuffle,
        ast.Reveal,
        ast.Flip,
        ast.Draw,
        ast.Log,
    )
    def n_straight(self, s, scope):
        """A statement that lowers to straight-line steps: their lines."""
        sub = _Builder()
        self.lower.visit(s, sub, scope)
        if self.lower.forgets(s):
            sub.step(_FORGET, s.span)
        lines = []
        for instr in sub.code:
            if not isinstance(instr, Step):
                raise TypeError(f"{type(s).__name__} does not lower to straight-line code")
            lines += [(line, s.span) for line, _ in instr.lines]
        return lines

    suspending = elsewhere(
        ast.Choose,
        ast.Agree,
        ast.Negotiate,
        ast.Quiet,
        ast.Outcry,
        ast.CallStmt,
        ast.Perform,
        ast.Trigger,
        why="a statement that suspends is an instruction of its own",
    )


_LOOPS = (ast.For, ast.Repeat, ast.While, ast.Outcry)
_FORGET = "st.memo.clear()"  # what remembered `fn`s knew is out of date (dsl/codegen/memo.py)

# A `while` loop and the work budget (interpreter/core/budget.py): the budget is checked as
# the loop starts, and each turn is a step. A loop bounded by at most `_SHORT_WHILE` turns
# only counts them (a subtraction, no call): it can overrun the budget by no more than its
# bound before the next check, at the start of a loop or a `fn` call.
_SHORT_WHILE = 10_000
_WHILE_START = "if st.left < 0: _out_of_steps(st, 'a loop')"


def _rolled(place: str, sides: int) -> str:
    """`place = roll 1dN` with the die written in place: the generator stepped as
    `interpreter.core.runtime._die` steps it, without a call; scripted dice and a chance
    tap still go through `_die`."""
    return (
        f"if st.script: {place} = _die(st, {sides})\n"
        f"else:\n"
        f"    _s = (st.rng * {rng.MUL} + {rng.INC}) & {rng.MASK}\n"
        f"    st.rng = _s\n"
        f"    {place} = ((_s >> 32) * {sides} >> 32) + 1"
    )


def _while_turn(bound: int) -> str:
    return "st.left -= 1" if bound <= _SHORT_WHILE else "_turn(st)"


def _native_ok(s: ast.Statement, loops: int = 0) -> bool:
    """Can `s` run as plain Python inside one instruction: nothing in it suspends (stops for
    a decision or calls a procedure), and no `break` in it leaves a loop that is not itself
    part of it? Each statement class declares whether it suspends (`ast.Statement`); one
    that does not say is refused, never taken for plain Python."""
    suspends = getattr(type(s), "suspends", None)
    if not isinstance(suspends, bool):
        raise TypeError(f"{type(s).__name__} does not declare whether it can suspend")
    if suspends:
        return False
    if isinstance(s, ast.Break):
        return loops > 0
    inner = loops + 1 if isinstance(s, _LOOPS) else loops
    return all(_native_ok(x, inner) for block in ast.blocks_of(s) for x in block.stmts)


def _literal(e):
    """The value of a number or a list of numbers written out, else None."""
    if isinstance(e, ast.IntLit):
        return e.value
    if isinstance(e, ast.UnaryOp) and e.op == "-" and isinstance(e.operand, ast.IntLit):
        return -e.operand.value
    if isinstance(e, ast.ListLit):
        items = [_literal(item) for item in e.items]
        return None if any(item is None for item in items) else items
    return None


def _small_value(value) -> bool:
    """A number of at most 16 bits, or a list (at any depth) of only such numbers."""
    if isinstance(value, (list, tuple)):
        return all(_small_value(item) for item in value)
    return type(value) is int and abs(value) < 1 << 16


def _changed_in_place(body) -> frozenset[str]:
    """The names that a statement in `body` changes in place (a cell or an item set, a list
    added to with `+=`, a zone or pool moved from or to), as opposed to given a new value."""
    out = set()
    for node in ast.walk(body):
        if not isinstance(node, ast.Statement):
            continue
        for target in ast.children_of(node):
            if not isinstance(target, ast.Target):
                continue
            if isinstance(node, ast.Assign) and node.op == "=" and not target.indices:
                continue
            out.add(target.name)
    return frozenset(out)


def _arm_test(subject: str, name: str, binds: tuple[str, ...]) -> str:
    """Python for "the value is this arm's": a plain enum value is its name; one that carries
    values is `[name, *values]` (the checker made sure an arm binds what its value carries)."""
    if binds:
        return f"type({subject}) is list and {subject}[0] == {name!r}"
    return f"({subject} == {name!r} or (type({subject}) is list and {subject}[0] == {name!r}))"


def _arm_binds(subject: str, binds: tuple[str, ...], scope: Scope) -> str:
    return "\n".join(f"L[{scope.slot(b)}] = {subject}[{i + 1}]" for i, b in enumerate(binds))
