"""Scenarios: a ruleset started from an explicit position, with scripted dice and decisions,
and expected facts about the result. This is how a rulebook's worked examples become tests.

    scenarios for "pig"
    import "pig-helpers.knap"               # libraries beside this file (optional)
    scenario "a one loses the turn total" §rules {
      players 2
      seed 1
      position { banked[player(1)] = 50 }   # replaces the ruleset's setup
      dice 6, 1                             # scripted dice, used before the generator
      dice strict                           # ... and no others: an unscripted die fails
      choices "roll"                        # scripted decisions, in order
      expect offered "hold"                 # an option of the decision now pending
      expect rejected "fold"                # refused as illegal, nothing changed
      choices "roll"
      expect banked[player(1)] == 50 as "nothing is banked"
    }

A scenario is compiled as an overlay of its ruleset: `position` replaces `setup`, `run`
replaces `round` with one call, and every scripted choice, expectation and the parts of
each expectation become derived values (`fn`), checked and compiled like any other
expression of the ruleset. Its steps (`choices` and `expect`) are carried out in the order
they are written; decisions with a single option are taken for the player between steps
(and listed when the scenario fails), unless `choices strict` asks for them to be scripted.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from dsl.codegen.compile import Compiler
from dsl.errors import (
    CheckProblem,
    Diagnostic,
    IllegalMove,
    KnapperError,
    Span,
    diag,
    read_source,
)
from dsl.semantics.check import check_program
from dsl.semantics.resolve import Program, find_ruleset, resolve_with_libraries
from dsl.syntax import ast
from dsl.syntax.fmt import expr as expr_text
from dsl.syntax.parse import parse
from interpreter.core import rng
from interpreter.core.chance import ChanceTap
from interpreter.core.game import Game
from interpreter.core.state import State, run, start

# how many parts of a failing expectation are shown, and how long each value may be
MAX_PARTS = 8
MAX_VALUE = 160


@attrs.frozen
class ScenarioResult:
    name: str
    cite: str | None
    passed: bool
    problems: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    forced: tuple[str, ...] = ()  # the single-option decisions taken for the player
    misprints: tuple[Misprint, ...] = ()  # worked examples whose book figure differs


@attrs.frozen
class Misprint:
    """`expect A == B printed C` where the game gives A a value other than C: the book's
    worked example prints a figure its own rules do not give."""

    span: Span  # the expectation
    what: str  # A, as the language writes it
    book: str  # C, as the language writes it
    rules: str  # A's value in the scenario's game


Write = Callable[[bytes], Any]


def run_file(path: Path, trace: Write | None = None) -> list[ScenarioResult]:
    """Run every scenario of the file at `path`; with `trace`, write each one's trace
    (interpreter/trace.py), its `game` field being the scenario's name."""
    text = read_source(path)
    file = parse(text, str(path))
    if file.kind != "scenarios":
        raise KnapperError(
            diag("K800", 'a scenario file starts with `scenarios for "ruleset"`', file.span)
        )
    here = path.parent
    base_path = find_ruleset(file.name, here, tree=here, span=file.span, what="scenarios for")
    if base_path is None:
        raise KnapperError(
            diag(
                "K801",
                f"no ruleset {file.name!r} for these scenarios",
                file.span,
                hint="name a bundled ruleset (`knapper list`) or a .knap file beside this one, "
                'e.g. `scenarios for "my-variant.knap"`',
            )
        )
    imports = tuple(item for item in file.items if isinstance(item, ast.Import))
    program, diagnostics, sources = resolve_with_libraries(base_path, imports, path)
    sources[str(path)] = text
    if program is None or any(d.severity == "error" for d in diagnostics):
        raise CheckProblem(diagnostics, sources)
    return [run_scenario(program, sc, sources, trace) for sc in file.scenarios]


# ---------------------------------------------------------------------- compiling
def _parts(value: ast.Expr) -> list[ast.Expr]:
    """The sub-expressions of an expectation worth showing when it fails, outermost first:
    every expression inside it but literals and operators (whose operands are shown), and
    nothing inside a comprehension (whose names are bound there)."""
    found: list[ast.Expr] = []

    def visit(e: ast.Node, top: bool) -> None:
        if isinstance(e, (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit)):
            return
        obvious = (
            isinstance(e, ast.CallExpr)
            and e.name == "player"
            and all(isinstance(a, ast.IntLit) for a in e.args)
        )  # `player(1)` is seat 0: showing it would only confuse
        shown = isinstance(e, ast.EXPRESSIONS) and not isinstance(e, ast.BinOp | ast.UnaryOp)
        if not top and not obvious and shown:
            found.append(e)  # type: ignore[arg-type]
        if not isinstance(e, ast.Comprehension):
            for inner in ast.children_of(e):
                visit(inner, False)

    visit(value, True)
    unique: dict[str, ast.Expr] = {}
    for part in found:
        unique.setdefault(expr_text(part), part)
    return list(unique.values())[:MAX_PARTS]


@attrs.define
class _Compiled:
    """A scenario's program, compiled, and the names of its derived values."""

    game: Game
    env: dict[str, Any]
    # per step: for choices, the fns of the values; for expect, (fn, [(text, fn) of parts])
    steps: list[Any]
    # per invariant name: (its text, [(text, fn) of its parts])
    invariants: dict[str, tuple[str, list[tuple[str, str]]]]


def scenario_program(program: Program, sc: ast.Scenario) -> tuple[Program, list, dict]:
    decls = dict(program.decls)
    if sc.position is not None:
        decls["setup"] = ast.Setup(sc.position, sc.cite, span=sc.position.span)
    if sc.run is not None:
        body = ast.Block(
            (sc.run, ast.EndGame(ast.ListLit(()), None, span=sc.run.span, stop=True)),
            span=sc.run.span,
        )
        decls["round"] = ast.Round(1, body, sc.cite, span=sc.run.span)

    def fn(name: str, value: ast.Expr, bool_typed: bool = False) -> str:
        kind = ast.TypeName("bool", span=value.span) if bool_typed else None
        decls[name] = ast.Fn(name, (), kind, value, sc.cite, span=value.span)
        return name

    def parts(prefix: str, value: ast.Expr) -> list[tuple[str, str]]:
        return [(expr_text(p), fn(f"{prefix}_{k}", p)) for k, p in enumerate(_parts(value))]

    steps: list[Any] = []
    for i, step in enumerate(sc.steps):
        if isinstance(step, ast.ScenarioChoices):
            steps.append([fn(f"scenario_choice_{i}_{j}", v) for j, v in enumerate(step.values)])
        elif step.kind == "holds":
            value = step.value
            checked = fn(f"scenario_expect_{i}", value, True)
            book = None
            if step.printed is not None and isinstance(value, ast.BinOp) and value.op == "==":
                book = (
                    fn(f"scenario_rules_{i}", value.left),
                    fn(f"scenario_book_{i}", step.printed),
                )
            steps.append((checked, parts(f"scenario_part_{i}", value), book))
        else:
            steps.append((fn(f"scenario_expect_{i}", step.value), [], None))
    invariants = {
        inv.name: (expr_text(inv.value), parts(f"scenario_invariant_{inv.name}", inv.value))
        for inv in program.get(ast.Invariant)
    }
    return attrs.evolve(program, decls=decls), steps, invariants


def _within(inner: Span, outer: Span) -> bool:
    return (
        inner.file == outer.file
        and (outer.line, outer.col) <= (inner.line, inner.col)
        and (
            inner.end_line,
            inner.end_col,
        )
        <= (outer.end_line, outer.end_col)
    )


def _without_failing_parts(program: Program, errors: list[Diagnostic]) -> tuple[Program, set]:
    parts = {
        name: decl.span
        for name, decl in program.decls.items()
        if name.startswith(("scenario_part_", "scenario_invariant_"))
    }
    dropped = set()
    for error in errors:  # the innermost part holding the error
        holding = [
            (span.end_line - span.line, span.end_col - span.col, name)
            for name, span in parts.items()
            if _within(error.span, span)
        ]
        if holding:
            dropped.add(min(holding)[2])
    decls = {k: v for k, v in program.decls.items() if k not in dropped}
    return attrs.evolve(program, decls=decls), dropped


def _keep_parts(step: Any, dropped: set) -> Any:
    if isinstance(step, tuple):
        name, parts, book = step
        return name, [p for p in parts if p[1] not in dropped], book
    return step


# ---------------------------------------------------------------------- running
class _Stop(Exception):
    """The scenario cannot go on (a scripted choice was refused, the game ended early)."""


def run_scenario(
    program: Program, sc: ast.Scenario, sources: dict[str, str], trace: Write | None = None
) -> ScenarioResult:
    overlay, step_fns, invariant_parts = scenario_program(program, sc)
    checked = check_program(overlay)
    errors = checked.errors
    if errors:  # a part that cannot stand alone (`cell` of `cell[2]`) is not shown
        overlay, dropped = _without_failing_parts(overlay, errors)
        if dropped:
            step_fns = [_keep_parts(s, dropped) for s in step_fns]
            invariant_parts = {
                k: (text, [p for p in ps if p[1] not in dropped])
                for k, (text, ps) in invariant_parts.items()
            }
            checked = check_program(overlay)
            errors = checked.errors
    if errors:
        return ScenarioResult(sc.name, sc.cite, False, tuple(d.render(sources) for d in errors))
    compiler = Compiler(checked, ask_forced=True)
    game = compiler.compile()
    runner = _Runner(sc, game, compiler.env, invariant_parts, trace)
    runner.play(step_fns)
    return runner.result()


class _Runner:
    def __init__(self, sc: ast.Scenario, game: Game, env: dict, invariants: dict, trace):
        self.sc = sc
        self.game = game
        self.env = env
        self.invariants = invariants
        self.problems: list[str] = []
        self.warnings: list[str] = []
        self.taken: list[str] = []  # the forced decisions taken for the player
        self.broken: set = set()  # the spans of the invariants already reported
        self.misprints: list[Misprint] = []
        self.strict_choices = "choices" in sc.strict
        self.recorder = None
        players = sc.players if sc.players is not None else game.players[0]
        self.state: State = start(game, players, rng.seed_state(sc.seed or 0), run_now=False)
        self.tap = ChanceTap(
            sc.dice, strict_dice="dice" in sc.strict, strict_shuffles="shuffles" in sc.strict
        )
        self.state.script = self.tap
        self.generator_start = self.state.rng
        if trace is not None:
            from interpreter.trace import Recorder

            self.recorder = Recorder(self.state, sc.name, trace, scenario=sc.name)

    def value(self, name: str) -> Any:
        return self.env[f"_F_{name}"](self.state)

    def shown(self, value: Any) -> str:
        """An option as the game names it (a row by its title)."""
        return _cut(self.game.describe(value))

    def literal(self, value: Any) -> str:
        """A value as the language would write it (a row by its id): for expectations."""
        return _cut(_literal(value))

    def at(self) -> str:
        return _at(self.state, self.game)

    def forced(self, pending) -> bool:
        """A decision the engine takes itself in a game: a `choose` with one option."""
        return len(pending.options) == 1 and not self.game.sites[pending.site].always

    # ------------------------------------------------------------------ the steps
    def play(self, step_fns: list) -> None:
        try:
            run(self.state)
            self.sync()
            self.settle()
            self.check_invariants("after the position")
            for step, fns in zip(self.sc.steps, step_fns):
                if isinstance(step, ast.ScenarioChoices):
                    for value, name in zip(step.values, fns):
                        self.choose(value, name)
                else:
                    self.expect(step, fns)
        except _Stop:
            pass
        except KnapperError as err:
            if self.recorder is not None:
                self.recorder.fail(err)
            self.problems.append(err.render())
            return
        self.finish()

    def sync(self) -> None:
        if self.recorder is not None:
            self.recorder.sync()

    def settle(self) -> None:
        """Take the decisions the engine would take itself: a `choose` with one option."""
        while not self.strict_choices and (pending := self.state.waiting()) is not None:
            if not self.forced(pending):
                return
            self.taken.append(f"{self.at()}: {self.shown(pending.options[0])}")
            self.apply(pending.options[0])

    def apply(self, option: Any) -> None:
        """Apply a legal option. A forced decision (one the engine would take itself) does
        not count towards the ruleset's `bound`, as in a game."""
        state = self.state
        pending = state.waiting()
        assert pending is not None  # callers apply only at a pending decision
        if self.forced(pending):
            state.bound += 1
        state.apply(option)
        self.sync()

    def choose(self, value: ast.Expr, name: str) -> None:
        state = self.state
        if state.pending is None:
            self.problems.append(
                f"scripted choice {expr_text(value)} (line {value.span.line}): "
                + ("the game is over" if state.is_over() else "no decision is pending")
            )
            raise _Stop
        option = self.value(name)
        if option not in state.legal():
            options = ", ".join(self.shown(o) for o in state.legal())
            self.problems.append(
                f"scripted choice {self.shown(option)!r} (line {value.span.line}) is not legal "
                f"at {self.at()}; options: {options}"
            )
            raise _Stop
        self.apply(option)
        self.settle()

    def expect(self, step: ast.ScenarioExpect, fns) -> None:
        name, parts, book = fns
        what = step.label or expr_text(step.value)
        line = step.value.span.line
        try:
            value = self.value(name)
        except Exception as err:  # noqa: BLE001 - reported as the scenario's failure
            self.problems.append(f"{what}: could not be evaluated ({err!r}) (line {line})")
            return
        if step.kind == "holds":
            if not value:
                self.problems.append(f"expected {what} (line {line})" + self.explain(parts))
            if step.printed is not None:
                self.compare_printed(step, book, line)
            return
        pending = self.state.waiting()
        if pending is None:
            self.problems.append(
                f"expect {step.kind} {expr_text(step.value)} (line {line}): no decision is "
                "pending" + (" (the game is over)" if self.state.is_over() else "")
            )
            return
        options = pending.options
        if step.kind == "rejected":
            self.reject(value, what, line)
        elif (value in options) != (step.kind == "offered"):
            listed = ", ".join(self.shown(o) for o in options)
            verb = "is not" if step.kind == "offered" else "is"
            self.problems.append(
                f"expected {what}: {self.shown(value)!r} {verb} an option at {self.at()} "
                f"(line {line}); options: {listed}"
            )

    def compare_printed(self, step: ast.ScenarioExpect, book, line: int) -> None:
        """`expect A == B printed C`: note a misprint when A is not C."""
        if book is None:
            self.problems.append(
                f"`printed` gives the book's figure for A in `expect A == B printed C`; "
                f"this expectation is no `==` (line {line})"
            )
            return
        rules, printed = (self.value(name) for name in book)
        if rules != printed:
            assert isinstance(step.value, ast.BinOp)  # as `book` is only made for `==`
            what = expr_text(step.value.left)
            self.misprints.append(
                Misprint(step.span, what, self.literal(printed), self.literal(rules))
            )

    def reject(self, option: Any, what: str, line: int) -> None:
        before = self.state.clone()
        try:
            self.state.apply(option)
        except IllegalMove:
            if not _same(before, self.state):
                self.problems.append(f"{what}: refused, but the state changed (line {line})")
            return
        self.problems.append(
            f"expected {what} to be rejected: {self.shown(option)!r} was accepted at "
            f"{_at(before, self.game)} (line {line})"
        )
        raise _Stop

    def explain(self, parts: list[tuple[str, str]]) -> str:
        """The values of a failing expectation's parts, one per line (like pytest's)."""
        lines = []
        for text, name in parts:
            try:
                shown = self.literal(self.value(name))
            except Exception as err:  # noqa: BLE001 - shown as the part's value
                shown = f"<could not be evaluated: {err}>"
            if shown != text:
                lines.append(f"\n      {text} = {shown}")
        return "".join(lines)

    def check_invariants(self, when: str) -> None:
        for broken in self.state.check_invariants():
            self.broken.add(broken.span)
            self.problems.append(self.invariant_problem(broken, when))
        if self.problems:
            raise _Stop

    def invariant_problem(self, broken: Diagnostic, when: str) -> str:
        name = next((i.name for i in self.game.invariants if i.span == broken.span), "")
        text, parts = self.invariants.get(name, ("", []))
        cite = f" ({broken.cite})" if broken.cite else ""
        lines = [f"{broken.message} {when}{cite}: it requires {text}" + self.explain(parts)]
        lines.append(
            "\n      hint: the `position` (or the rules run after it) must leave it true; "
            f"it is declared at {broken.span}"
        )
        return "".join(lines)

    def finish(self) -> None:
        self.settle()
        state = self.state
        if self.sc.run is not None and state.pending is not None:
            self.problems.append(
                f"`run {self.sc.run.name}` stopped at {self.at()}, which has no scripted choice"
            )
        if list(self.tap):
            self.problems.append(f"{len(self.tap)} scripted dice were not used: {list(self.tap)}")
        for broken in state.check_invariants():
            if broken.span not in self.broken:  # each broken invariant is reported once
                self.problems.append(self.invariant_problem(broken, "at the end"))
        if self.sc.seed is None and state.rng != self.generator_start:
            self.warnings.append(
                "chance was drawn from the generator, and no `seed` is given: the result "
                "depends on the default seed 0; add `seed N` (or script the dice and declare "
                "`dice strict`)"
            )

    def result(self) -> ScenarioResult:
        problems = list(self.problems)
        if problems and self.taken:
            problems.append(
                "decisions with one option, taken for the player:"
                + "".join(f"\n      {line}" for line in self.taken)
            )
        if problems and self.state.pending is not None and self.sc.run is None:
            problems.append(f"the game stopped at {self.at()}")
        return ScenarioResult(
            self.sc.name,
            self.sc.cite,
            not self.problems,
            tuple(problems),
            tuple(self.warnings),
            tuple(self.taken),
            tuple(self.misprints),
        )


def _cut(text: str) -> str:
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def _literal(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return str(value)


def _at(state: State, game: Game) -> str:
    pending = state.waiting()
    if pending is None:
        return "no decision is pending"
    return f"P{pending.who + 1}'s decision {game.sites[pending.site].prompt!r}"


def _same(a: State, b: State) -> bool:
    return (a.g, a.stack, a.rng, a.pending, a.decisions, a.winners) == (
        b.g,
        b.stack,
        b.rng,
        b.pending,
        b.decisions,
        b.winners,
    )
