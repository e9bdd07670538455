"""`knapper lint NAME|PATH`: a ruleset's consistency findings, grouped by rulebook section.

Runs the front end (parse, resolve, check), reads the rulebook text the ruleset names with
`source`, and prints `dsl.tools.lint`'s findings; `--simulate N` adds the dynamic findings of
`interpreter.coverage`. Exit status 1 when a finding is an error, else 0.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import attrs
import click
import orjson

from dsl.errors import Diagnostic, KnapperError, Span, diag, read_source
from dsl.tools import errata
from dsl.tools.lint import LintResult, lint
from interpreter.misprints import misprint_findings

VIEW = ("errors", "book", "readings")  # what `knapper lint` shows unless asked for more

EXPLAIN = {
    "K802": "a citation names no section of the rulebook",
    "K803": "the rulebook refers to a section it does not contain",
    "K804": "the words before a reference do not appear in the section it cites",
    "K805": "the rulebook gives two values for one thing",
    "K806": "two overlays of a variant chain set one thing differently",
    "K807": "a dice table has results no row covers",
    "K808": "a dice table has results two rows cover",
    "K809": "an erratum the ruleset records: the book is wrong here, and what it should say",
    "K840": "a printed table numbers a row otherwise than the ruleset's table",
    "K842": "the table of contents and the headings disagree",
    "K843": "one name spelled two ways in the rulebook",
    "K844": "a worked example prints a figure its rules do not give",
    "K810": "a phase, step or proc that nothing calls",
    "K811": "a fn that nothing uses",
    "K812": "an enum value never named",
    "K813": "a table never read",
    "K814": "a table row never named",
    "K815": "state that is never read",
    "K816": "a parameter never used",
    "K817": "a record or map never used",
    "K820": "the setup already breaks a declared invariant",
    "K821": "a cost in a kind its pool never holds",
    "K822": "a cost beyond what its pool can ever hold",
    "K830": "a declared deviation from the book",
    "K831": "a declared interpretation of the book",
    "K832": "table rows or a map marked `reconstructed`: authored, not printed in the book",
}


def lint_ruleset(
    name_or_path: str,
    sources: str | Path | None = None,
    setup_check: bool = True,
    scenarios: Iterable[Path] = (),
) -> LintResult:
    """The findings for a bundled ruleset or a `.knap` file (raises KnapperError if it does
    not resolve), with the worked examples of the scenario files beside it and in
    `scenarios` whose book figure the rules do not give (K844)."""
    from dsl.pipeline import check_text
    from dsl.semantics.resolve import find_ruleset, suggest_ruleset
    from dsl.tools.sources import locate, read_source_text, sources_dir

    path = find_ruleset(name_or_path)
    if path is None:
        raise KnapperError(
            diag(
                "K100",
                f"no ruleset named or found at {name_or_path!r}",
                Span(name_or_path, 0, 0, 0, 0),
                hint=suggest_ruleset(name_or_path) or "run `knapper list`",
            )
        )
    checked, diagnostics, texts = check_text(read_source(path), str(path))
    if checked is None:
        raise KnapperError(diagnostics, texts)
    program = checked.program
    notices: list[str] = []
    from dsl.syntax import ast

    declared = program.one(ast.Source)
    text = None
    if declared is None:
        notices.append("the ruleset names no source text (`source`): citations are not checked")
    else:
        directory = sources_dir(sources)
        found = locate(declared.text, directory, declared.span)
        if found is None:
            where = (
                f"in {directory}"
                if directory
                else "(no --sources, KNAPPER_SOURCES or ../shared/rulebooks)"
            )
            notices.append(
                f"source text {declared.text!r} not found {where}: citations and the text's "
                "own references are not checked"
            )
        else:
            text = read_source_text(found, declared.text)
    result = lint(program, diagnostics, text, notices)
    if not any(d.severity == "error" for d in diagnostics):
        extra, more_notices = misprint_findings(program, text, scenarios)
        if setup_check:
            extra += setup_findings(checked)
        result = attrs.evolve(
            result,
            diagnostics=result.diagnostics + extra,
            notices=result.notices + more_notices,
        )
    return result


def setup_findings(checked) -> list[Diagnostic]:
    """Counts that exceed what the ruleset declares: the declared invariants, checked after
    every decision of the setup and when the first round begins (seed 0, every player
    count; the setup's own decisions are taken by the seeded random agent)."""
    import random

    from dsl.codegen.compile import Compiler
    from interpreter.core.state import start

    game = Compiler(checked).compile()
    out = []
    lo, hi = game.players
    for n in range(lo, hi + 1):
        try:
            state = start(game, n, 0)
            agent = random.Random(0)
            # as `--check-invariants` does, the invariants are checked once a decision has
            # been taken (or when the first round begins), not before the setup's first one
            broken = state.check_invariants() if state.rounds > 0 else []
            for _ in range(2000):  # a setup asks a bounded number of questions
                if broken or state.pending is None or state.rounds > 0:
                    break
                state.apply(agent.choice(state.legal()))
                broken = state.check_invariants()
        except KnapperError:
            continue  # a setup that fails is a runtime finding of --simulate, not this check
        for problem in broken:
            out.append(
                diag(
                    "K820",
                    f"with {n} players, {problem.message} during the setup",
                    problem.span,
                    severity="error",
                    cite=problem.cite,
                    hint="a count dealt by the setup exceeds (or misses) the declared total",
                )
            )
    return out


def render_human(result: LintResult, name: str, shown: Iterable[str] = VIEW) -> str:
    """The errata view of the findings (`dsl.tools.errata`): the groups in `shown`."""
    return errata.render(result.diagnostics, result.text, name, result.notices, shown, EXPLAIN)


def register(main: click.Group) -> None:
    """Add this module's commands to the `knapper` group."""
    from interpreter.frontends.cli import seating_options

    @main.command("lint")
    @click.argument("ruleset")
    @click.option("--sources", "sources", type=click.Path(), help="Folder of rulebook texts.")
    @click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
    @click.option(
        "--cleanup", is_flag=True, help="Also show clean-up of the ruleset (unused rules, ...)."
    )
    @click.option("--all", "everything", is_flag=True, help="Show every finding and note.")
    @click.option(
        "--scenarios",
        "scenarios",
        multiple=True,
        type=click.Path(exists=True),
        help="Also the worked examples of these scenario files (or folders of them).",
    )
    @click.option(
        "--simulate", type=int, default=0, help="Also play N games (random, or --agents)."
    )
    @click.option("--seed", type=int, default=0, help="First seed of the simulated games.")
    @click.option("--players", type=int, default=None, help="Players in simulated games.")
    @click.option("--jobs", "-j", default=1, show_default=True, help="Worker processes.")
    @seating_options("--agents", "Who plays each seat of the simulated games")
    def lint_cmd(
        ruleset: str,
        sources: str | None,
        as_json: bool,
        cleanup: bool,
        everything: bool,
        scenarios: tuple[str, ...],
        simulate: int,
        seed: int,
        players: int | None,
        jobs: int,
        seating,
    ) -> None:
        """Report a ruleset's findings against its rulebook text: errors, then the book's
        errata in book order, then the readings the ruleset settles."""
        result = lint_ruleset(ruleset, sources, scenarios=[Path(s) for s in scenarios])
        if simulate > 0:
            result = _with_dynamic(result, ruleset, players, simulate, seed, seating, jobs)
        errors = [d for d in result.diagnostics if d.severity == "error"]
        if as_json:
            report = {
                "ruleset": ruleset,
                "ok": not errors,
                "notices": result.notices,
                "findings": [e.to_json() for e in errata.entries(result.diagnostics, result.text)],
                "reconstructed": [r.to_json() for r in result.reconstructed],
            }
            click.echo(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
        else:
            shown = list(VIEW)
            if cleanup or everything:
                shown.append("cleanup")
            if simulate > 0 or everything:
                shown.append("coverage")
            click.echo(render_human(result, ruleset, shown))
        sys.exit(1 if errors else 0)


def _with_dynamic(
    result: LintResult,
    ruleset: str,
    players: int | None,
    games: int,
    seed: int,
    seating,
    jobs: int,
) -> LintResult:
    from interpreter.api import load
    from interpreter.coverage import dynamic_findings
    from interpreter.frontends.cli import games_progress

    game = load(ruleset)
    n = players or game.players[0]
    seating.describe(n)  # wrong agents are an error before any game
    with games_progress(f"playing {games} games", games) as advance:
        found = dynamic_findings(game, n, games, seed, seating, jobs=jobs, progress=advance)
    return attrs.evolve(result, diagnostics=result.diagnostics + list(found))
