"""Which lines of the rules ran in random games, and which branches never did.

`Probe(game)` is a copy of the game whose every instruction notes, while it runs, the
lines of the rules it executes (Python's line tracing, on the generated code alone). An
instruction stops being watched, and runs at full speed, once all its lines have been
seen; so only the instructions holding a branch not yet taken stay slow.

`arms_never_run(game, spans, played)` walks the ruleset's `if` and `match` statements and
finds each arm (K858) that never ran in games where its statement did: a condition that
never holds, or a value that never comes. An arm with nothing to see (`else {}`, `{ break }`,
`{ pass }`) is not reported, nor an arm whose statement never ran (the procedure, loop or
arm around it is reported instead).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from dsl.errors import Diagnostic, Span, diag
from dsl.syntax import ast
from interpreter.core.game import Game
from interpreter.explain import enclosing_cite, source_text, span_contains

FIRST_LINE = 2  # line 1 of an instruction's function is its `def`
# statements that leave no line of their own to see (a `break` may become the branch's
# jump): an arm of nothing else is not reported
QUIET = (ast.Break, ast.Pass)


class Probe:
    """A copy of the game whose instructions note the lines they run (`ran`: the
    instructions entered; `spans`: the statements of the lines executed; `entered`: the
    procedures called, for counting the games that call each). Inside
    `with probe.paused():` nothing is noted: what a searching agent plays on copies of
    the game while it thinks is not what the game reached."""

    def __init__(self, game: Game):
        self.ran: set[tuple[int, int]] = set()
        self.spans: set[Span] = set()
        self.entered: set[int] = set()  # the procedures called since it was last emptied
        self._paused = [False]
        codes = [list(proc) for proc in game.code]
        for proc, instructions in enumerate(codes):
            lines = game.procs[proc].line_spans
            for pc in range(len(instructions)):
                at = lines[pc] if pc < len(lines) else ()
                instructions[pc] = self._watch(codes, proc, pc, at)
        self.game = attrs.evolve(game, code=tuple(codes))  # type: ignore[arg-type]

    def _watch(
        self, codes: list[list[Callable]], proc: int, pc: int, at: tuple[Span, ...]
    ) -> Callable:
        plain = codes[proc][pc]
        code = getattr(plain, "__code__", None)
        if pc == 0:  # a call begins here: noted in `entered` for as long as the probe lives
            first, entered = plain, self.entered

            def plain(st, L):
                if not paused[0]:
                    entered.add(proc)
                return first(st, L)

        unseen = set(range(FIRST_LINE, FIRST_LINE + len(at)))
        ran, spans, paused = self.ran, self.spans, self._paused

        def line(frame, event, _arg):
            if event == "line" and frame.f_lineno in unseen:
                unseen.discard(frame.f_lineno)
                spans.add(at[frame.f_lineno - FIRST_LINE])
            return line

        def call(frame, _event, _arg):
            return line if frame.f_code is code else None

        def watched(st, L):
            if paused[0]:
                return plain(st, L)
            ran.add((proc, pc))
            if code is None or not unseen:
                codes[proc][pc] = plain  # the engine reads this list: later calls go straight in
                return plain(st, L)
            before = sys.gettrace()
            sys.settrace(call)
            try:
                return plain(st, L)
            finally:
                sys.settrace(before)
                if not unseen:
                    codes[proc][pc] = plain

        return watched

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        self._paused[0] = True
        try:
            yield
        finally:
            self._paused[0] = False


@attrs.frozen
class Arm:
    """One arm of an `if` or a `match`: what it is called, the statement's head (the line
    that runs whenever the statement does) and the arm's statements."""

    label: str
    head: Span
    body: ast.Block


def arms(program: Any) -> Iterator[Arm]:
    """Every arm of every `if` and `match` in the program's rules, each named by the code
    that leads to it (the `if n > 6` arm, the `else` arm of `if n > 6`, the `snow` arm of
    `match w`)."""
    sources = getattr(program, "sources", {})

    def code(span: Span) -> str:
        text = source_text(span, sources) or "…"
        return text if len(text) <= 40 else text[:39] + "…"

    seen: set[Span] = set()
    for decl in getattr(program, "decls", {}).values():
        for node in ast.walk(decl):
            if node.span in seen or not isinstance(node, (ast.If, ast.Match)):
                continue
            seen.add(node.span)
            if isinstance(node, ast.If):
                head = node.branches[0][0].span
                for n, (cond, body) in enumerate(node.branches):
                    word = "if" if n == 0 else "elif"
                    yield Arm(f"the `{word} {code(cond.span)}` arm", head, body)
                last = f"the `else` arm of `if {code(head)}`"
            else:
                head = node.subject.span
                for arm in node.arms:
                    yield Arm(f"the `{arm.name}` arm of `match {code(head)}`", head, arm.body)
                last = f"the `else` arm of `match {code(head)}`"
            if node.otherwise is not None:
                yield Arm(last, head, node.otherwise)


def arms_never_run(game: Game, spans: set[Span], played: str) -> list[tuple[Arm, Diagnostic]]:
    """Each arm that never ran though its statement did, with its finding."""
    found = []
    for arm in arms(game.program):
        if arm.head not in spans or all(isinstance(s, QUIET) for s in arm.body.stmts):
            continue
        if any(span_contains(s.span, ran) for s in arm.body.stmts for ran in spans):
            continue
        first = arm.body.stmts[0].span
        found.append(
            (
                arm,
                diag(
                    "K858",
                    f"{arm.label} never ran in {played}, though its statement did",
                    first,
                    severity="warning",
                    cite=enclosing_cite(game.program, first),
                    hint="a condition that never holds (or always does), or a value that "
                    "never comes; more games (--simulate N) may take it",
                ),
            )
        )
    return found
