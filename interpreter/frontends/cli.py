"""The `knapper` command line: list, check, simulate, play, fmt, scenario.

Every error a user can cause is printed as a diagnostic (`path:line:col: error[CODE]: ...`)
with a non-zero exit status, never as a Python traceback.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from pathlib import Path
from typing import Any

import click
import orjson

from dsl.errors import KnapperError, read_source
from dsl.syntax.fmt import cite as format_cite


class _Group(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KnapperError as err:
            click.echo(err.render(), err=True)
            sys.exit(1)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except BrokenPipeError:  # the reader went away (`knapper diff ... | head`): stop quietly
            sys.stderr.close()
            sys.exit(0)
        except Exception as err:  # noqa: BLE001 - a bug in Knapper, reported without a traceback
            if os.environ.get("KNAPPER_DEBUG"):
                raise
            click.echo(
                f"internal error [K999]: {type(err).__name__}: {err}\n"
                "  = hint: this is a bug in Knapper; rerun with KNAPPER_DEBUG=1 for details",
                err=True,
            )
            sys.exit(3)


@click.group(cls=_Group)
@click.version_option(package_name="knapper")
def main() -> None:
    """Knapper: board-game rules as data. Check, simulate and play rulesets."""


@main.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def list_cmd(as_json: bool) -> None:
    """List the bundled rulesets (read from their headers; `knapper check` compiles them)."""
    from dsl.semantics.resolve import bundled_names, find_ruleset, inherited_header
    from interpreter.frontends.shown import literal, plain

    rows: list[dict[str, Any]] = []
    for name in bundled_names():
        path = find_ruleset(name)
        assert path is not None, "a bundled name has a file"
        head = inherited_header(path)
        if head is not None and head.players is not None:
            title, counts = head.title or name, list(head.players)
        else:  # a header this scan cannot follow: compile it to learn what it says
            try:
                from interpreter.api import load

                game = load(name)
                title, counts = game.title, list(game.players)
            except KnapperError as err:
                rows.append({"name": name, "error": err.code, "file": str(path)})
                continue
        rows.append({"name": name, "title": title, "players": counts, "file": str(path)})
    if as_json:
        click.echo(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
        return
    if not sys.stdout.isatty():  # piped: one plain line per ruleset, tab-separated, never cut
        for row in rows:
            if "error" in row:
                what, players = f"does not compile ({row['error']})", ""
            else:
                lo, hi = row["players"]
                what, players = row["title"], f"{lo}" if lo == hi else f"{lo}-{hi}"
            click.echo("\t".join(plain(x) for x in (row["name"], what, players, row["file"])))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("name", "title", "players", "file")
    for row in rows:
        name, file = literal(row["name"]), literal(row["file"])
        if "error" in row:
            table.add_row(name, f"[red]does not compile ({row['error']})[/red]", "", file)
            continue
        lo, hi = row["players"]
        table.add_row(name, literal(row["title"]), f"{lo}" if lo == hi else f"{lo}-{hi}", file)
    Console().print(table)


@main.command()
@click.argument("rulesets", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print diagnostics as JSON.")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Also print the warnings of the rulesets a variant extends (counted in one line "
    "otherwise).",
)
@click.option(
    "--show-code",
    metavar="NAME",
    help="Also print the Python generated for procedure NAME (`all`: every one; `main`: "
    "setup and the rounds), instruction by instruction.",
)
def check(rulesets: tuple[str, ...], as_json: bool, show_all: bool, show_code: str | None) -> None:
    """Check rulesets (bundled names or paths) and report every problem."""
    from dsl.errors import Span, diag
    from dsl.pipeline import check_text
    from dsl.semantics.resolve import find_ruleset, suggest_ruleset

    failed = False
    report = []
    seen: set[tuple] = set()  # warnings already printed or counted, so each shows once
    known: dict[str, set] = {}  # the warnings of each ruleset checked, by resolved path
    for name in rulesets:
        checked, program = None, None
        path = find_ruleset(name)
        if path is None:
            d = diag(
                "K100",
                f"no ruleset named or found at {name!r}",
                Span(name, 0, 0, 0, 0),
                hint=suggest_ruleset(name) or "run `knapper list`",
            )
            diagnostics, sources = [d], dict[str, str]()
        else:
            try:
                checked, diagnostics, sources = check_text(read_source(path), str(path))
            except KnapperError as err:
                checked, diagnostics, sources = None, err.diagnostics, {}
            program = checked.program if checked else None
            known[str(path.resolve())] = {_warning_key(d) for d in diagnostics}
        errors = [d for d in diagnostics if d.severity == "error"]
        failed |= bool(errors)
        code = None
        if show_code is not None and checked is not None and not errors:
            code = _generated_code(checked, show_code)
            failed |= code is None
        if as_json:
            report.append(
                {
                    "ruleset": name,
                    "ok": not errors,
                    "diagnostics": [d.to_json() for d in diagnostics],
                }
                | ({"code": [cli_code.as_json(info) for info in code]} if code else {})
            )
            continue
        from_base = set()
        if program is not None and program.kind == "variant" and not show_all:
            of_bases = _base_warnings(program, known)
            from_base = {id(d) for d in diagnostics if _warning_key(d) in of_bases}
        counted: list[Any] = []
        for d in diagnostics:
            key = (d.code, d.span, d.message)
            if id(d) in from_base:
                if key not in seen:
                    counted.append(d)
            elif key not in seen or d.severity == "error":
                click.echo(d.render(sources), err=True)
            seen.add(key)
        if counted:
            click.echo(_base_summary(counted, name), err=True)
        for info in code or ():
            click.echo(cli_code.listing(info))
        if not errors:
            click.echo(f"ok: {name}")
    if as_json:
        click.echo(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    sys.exit(1 if failed else 0)


def _generated_code(checked, name: str) -> list | None:
    """The compiled procedures `--show-code NAME` asks for, or None (the error is shown)."""
    game = cli_code.compile_program(checked)
    try:
        return cli_code.chosen(game, name)
    except LookupError as err:
        click.echo(f"error: {err}", err=True)
        return None


def _base_warnings(program, known: dict[str, set]) -> set[tuple | None]:
    """The warnings that the rulesets a variant extends or combines report on their own:
    what the variant's author did not cause. (A warning the variant causes in a base file,
    such as a gap left by a removed row, is not among them.) `known`: the warnings of the
    rulesets checked so far, by resolved path; a base checked once is not checked again."""
    from dsl.pipeline import load_program
    from dsl.semantics.paths import shown_path
    from dsl.semantics.resolve import find_ruleset

    here = Path(program.lineage[0]).parent
    # shown as the command line names them, so the files parsed for the variant are reused
    bases = [shown_path(Path(p)) for p in program.lineage[1:2]]
    for name in program.combines:
        try:
            combined = find_ruleset(name, relative_to=here, tree=here)
        except KnapperError:  # reported when the variant was resolved (K102)
            continue
        bases += [combined] if combined is not None else []
    found: set[tuple | None] = set()
    for base in bases:
        key = str(base.resolve())
        if key not in known:
            try:
                _, diagnostics, _ = load_program(read_source(base), str(base))
            except KnapperError:
                continue
            known[key] = {_warning_key(d) for d in diagnostics}
        found |= known[key]
    found.discard(None)
    return found


def _warning_key(d) -> tuple | None:
    if d.severity == "error" or d.span.line <= 0:
        return None
    return (d.code, str(Path(d.span.file).resolve()), d.span.line, d.span.col, d.message)


def _base_summary(counted: list, name: str) -> str:
    kinds = sorted({d.severity for d in counted})
    what = " and ".join(f"{k}s" for k in kinds) if len(counted) > 1 else kinds[0]
    files = sorted({Path(d.span.file).name for d in counted})
    shown = ", ".join(files[:3]) + (" …" if len(files) > 3 else "")
    them = "them" if len(counted) > 1 else "it"
    return (
        f"note: {len(counted)} {what} of the base ruleset ({shown}); "
        f"`knapper check --all {name}` shows {them}"
    )


@main.command()
@click.argument("base")
@click.argument("variant")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
def diff(base: str, variant: str, as_json: bool) -> None:
    """Print what VARIANT changes in BASE, rule by rule, with the sections it cites."""
    from dsl.tools.diff import diff_programs

    programs = [_program_or_exit(name) for name in (base, variant)]
    changes = diff_programs(programs[0], programs[1])
    if as_json:
        rows = [c.as_json() for c in changes]
        out = {"base": programs[0].name, "variant": programs[1].name, "changes": rows}
        click.echo(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return
    click.echo(f"{programs[1].name}: what it changes in {programs[0].name}")
    for change in changes:
        click.echo(change.render())
    click.echo(f"{len(changes)} change{'' if len(changes) == 1 else 's'}")


def _program_or_exit(name: str):
    """A checked program by bundled name or path; its diagnostics and exit 1 if it has errors."""
    from dsl.errors import Span, diag
    from dsl.pipeline import load_program
    from dsl.semantics.resolve import find_ruleset, suggest_ruleset

    path = find_ruleset(name)
    if path is None:
        hint = suggest_ruleset(name) or "run `knapper list`"
        click.echo(
            diag(
                "K100", f"no ruleset named or found at {name!r}", Span(name, 0, 0, 0, 0), hint=hint
            ).render({}),
            err=True,
        )
        sys.exit(1)
    try:
        program, diagnostics, sources = load_program(read_source(path), str(path))
    except KnapperError as err:
        click.echo(err.render(), err=True)
        sys.exit(1)
    errors = [d for d in diagnostics if d.severity == "error"]
    if program is None or errors:
        for d in errors or diagnostics:
            click.echo(d.render(sources), err=True)
        sys.exit(1)
    return program


def seating_options(flag: str, what: str):
    """`flag` (`--agents` or `--opponents`), `--budget` and `--depth`: who plays the seats,
    passed to the command as `seating` (interpreter/agents `Seating`)."""
    from interpreter.agents import AGENTS

    def decorate(command):
        def with_seating(*args, agent_names, search_budget, depth, **kwargs):
            from interpreter.agents import Seating

            names = tuple(agent_names.split(",")) if agent_names else ("random",)
            budgets = tuple(search_budget.split(",")) if search_budget else ()
            return command(*args, seating=Seating(names, budgets, depth), **kwargs)

        with_seating = functools.update_wrapper(with_seating, command)
        for option in (
            click.option(
                "--depth",
                type=int,
                default=None,
                metavar="N",
                help="At most N decisions per playout of a searching agent, then the "
                "position is judged by the ruleset's heuristic or score (default: play to "
                "the end).",
            ),
            click.option(
                "--budget",
                "search_budget",
                default=None,
                metavar="B",
                help="Each searching agent's budget per decision: playouts (200, the "
                "default) or CPU seconds (0.5s); one, or one per seat, comma-separated.",
            ),
            click.option(
                flag,
                "agent_names",
                default=None,
                metavar="NAMES",
                help=f"{what}: {', '.join(AGENTS)}; one for every seat or one per seat, "
                "comma-separated (default: random; docs/agents.md).",
            ),
        ):
            with_seating = option(with_seating)
        return with_seating

    return decorate


def budget_options(command):
    """`--max-steps` and `--max-items`: the work budget of the rules between two decisions
    (interpreter/core/budget.py), passed to the command as `budget` (None: the defaults)."""
    from interpreter.core.budget import DEFAULT_ELEMENTS, DEFAULT_STEPS

    def with_budget(*args, max_steps, max_items, **kwargs):
        from interpreter.core.budget import Budget

        chosen = {"steps": max_steps, "elements": max_items}
        chosen = {k: v for k, v in chosen.items() if v is not None}
        return command(*args, budget=Budget(**chosen) if chosen else None, **kwargs)

    with_budget = functools.update_wrapper(with_budget, command)
    for name, default, what in (
        ("--max-items", DEFAULT_ELEMENTS, "items of lists the rules may make"),
        ("--max-steps", DEFAULT_STEPS, "loop turns and `fn` calls the rules may make"),
    ):
        with_budget = click.option(
            name,
            type=click.IntRange(min=1),
            metavar="N",
            default=None,
            help=f"Work budget: the {what} between two decisions (default {default:,}).",
        )(with_budget)
    return with_budget


@main.command()
@click.argument("ruleset")
@click.option("-n", "--games", default=100, show_default=True, help="Number of games.")
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the first game (default: a random 64-bit one, printed).",
)
@click.option("--players", type=int, default=None, help="Number of players (default: fewest).")
@click.option("--jobs", "-j", default=1, show_default=True, help="Worker processes (joblib).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option(
    "--check-invariants", is_flag=True, help="Check declared invariants after every step."
)
@click.option(
    "--backend",
    default=None,
    help="joblib backend for --jobs > 1 (loky, multiprocessing, threading), or a cluster: "
    "dask or ray (the extra knapper[scale]), where --jobs 1 means every worker.",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="With --backend dask: the Dask scheduler to run on (default: a local cluster).",
)
@click.option(
    "--address",
    metavar="ADDRESS",
    default=None,
    help="With --backend ray: the Ray cluster to run on (default: a local Ray).",
)
@click.option(
    "--save-final",
    type=click.Path(file_okay=False, writable=True),
    default=None,
    help="Write each game's end state as a save file in this folder "
    "(read it with `knapper export-final`).",
)
@click.option(
    "--trace",
    "trace_file",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write every step of every game to this file as JSON lines.",
)
@seating_options("--agents", "Who plays each seat")
@budget_options
def simulate(
    ruleset,
    games,
    seed,
    players,
    jobs,
    as_json,
    check_invariants,
    backend,
    scheduler,
    address,
    save_final,
    trace_file,
    budget,
    seating,
) -> None:
    """Play -n seeded games of RULESET (random agents, or --agents) and summarise them."""
    from interpreter.api import load
    from interpreter.simulate import simulate as run

    if scheduler is not None and backend != "dask":
        raise click.UsageError("--scheduler is the address of a Dask scheduler: add --backend dask")
    if address is not None and backend != "ray":
        raise click.UsageError("--address is the address of a Ray cluster: add --backend ray")

    game = load(ruleset)  # report compile errors before starting workers
    seating.describe(players if players is not None else game.players[0])  # and wrong agents
    if seed is None:
        import secrets

        seed = secrets.randbits(64)
        click.echo(f"seed {seed}", err=True)
    if save_final is not None:
        Path(save_final).mkdir(parents=True, exist_ok=True)
    out = _open_trace(trace_file) if trace_file is not None else None
    try:
        summary = _simulate_with_progress(
            run,
            ruleset,
            games,
            seed,
            players,
            jobs,
            check_invariants,
            backend,
            scheduler or address,
            save_final,
            out,
            budget,
            seating,
        )
    except KnapperError as err:
        if out is not None and getattr(err, "trace", None):
            out.write(err.trace)  # type: ignore[attr-defined]
        raise
    finally:
        if out is not None:
            out.close()
    if as_json:
        click.echo(orjson.dumps(summary.to_json(), option=orjson.OPT_INDENT_2).decode())
        return
    _print_summary(summary)


def _open_trace(path: str):
    """The trace file, opened for writing, or a one-line error saying why it cannot be."""
    try:
        return open(path, "wb")  # noqa: SIM115 - closed by the caller
    except OSError as err:
        raise click.FileError(path, hint=err.strerror or str(err)) from None


def _simulate_with_progress(
    run,
    ruleset,
    games,
    seed,
    players,
    jobs,
    check_invariants,
    backend,
    address,
    save_final,
    out,
    budget,
    seating,
):
    from interpreter.frontends.shown import literal

    with games_progress(f"simulating {literal(ruleset)}", games) as advance:
        summary, _ = run(
            ruleset,
            games,
            seed=seed,
            players=players,
            jobs=jobs,
            check_invariants=check_invariants,
            backend=backend,
            address=address,
            progress=advance,
            save_final=save_final,
            trace=out.write if out is not None else None,
            budget=budget,
            seating=seating,
        )
    return summary


@contextlib.contextmanager
def games_progress(description: str, total: int):
    """A progress bar on standard error, gone when done: yields `advance(k)`, to call as
    each k games are played."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=_stderr_console(),
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda k: bar.advance(task, k)


@main.command("export-final")
@click.argument("save", type=click.Path(dir_okay=False))
@click.option("--ruleset", default=None, help="The ruleset (default: the one named in SAVE).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="Write here.")
def export_final_cmd(save: str, ruleset: str | None, output: str | None) -> None:
    """Write the end state and scores of a finished game (a save file) as JSON.

    The JSON form is documented in docs/cli.md: a record of the game that another ruleset,
    a campaign's next game say, can start from."""
    from pathlib import Path

    from interpreter.api import load
    from interpreter.export import export_final
    from interpreter.save import host_key, load_state

    data = read_source(Path(save))
    game = load(ruleset) if ruleset is not None else None
    exported = export_final(load_state(data, game, save, key=host_key()))
    text = orjson.dumps(exported, option=orjson.OPT_INDENT_2).decode()
    if output is None:
        click.echo(text)
    else:
        Path(output).write_text(text + "\n", encoding="utf-8")


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def _print_summary(summary) -> None:
    from rich.console import Console
    from rich.table import Table

    from interpreter.frontends.shown import literal

    console = Console()
    console.print(f"{literal(summary.ruleset)}: {summary.games} games, {summary.players} players")
    table = Table()
    table.add_column("seat")
    agents = summary.agents or ("random",) * summary.players
    table.add_column("agent")
    table.add_column("wins", justify="right")
    table.add_column("win rate", justify="right")
    for seat, wins in enumerate(summary.wins, start=1):
        rate = f"{wins / max(1, summary.games):.1%}"
        table.add_row(f"P{seat}", literal(agents[seat - 1]), str(wins), rate)
    table.add_row(
        "no winner",
        "",
        str(summary.no_winner),
        f"{summary.no_winner / max(1, summary.games):.1%}",
    )
    console.print(table)
    console.print(
        f"decisions per game: {summary.decisions_mean:.1f} ± {summary.decisions_sd:.1f}; "
        f"rounds per game: {summary.rounds_mean:.1f} ± {summary.rounds_sd:.1f}"
    )
    console.print(
        f"{summary.decisions_per_second:,.0f} decisions/s; {summary.seconds:.2f} s in all"
    )


@main.command()
@click.argument("ruleset")
@click.option("--players", type=int, default=None, help="Number of players.")
@click.option(
    "--seats",
    default=None,
    help="The seats played at this terminal: `1,3`, or `all` (default: 1); the others are agents.",
)
@click.option("--seat", type=int, default=None, help="One seat (1 = first): `--seats N`.")
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the dice and the agents (default: a random one, printed).",
)
@click.option(
    "--load",
    "saved",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Go on with a game saved with `s FILE`.",
)
@click.option(
    "--trace",
    "trace_file",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write every step of the game to this file as JSON lines.",
)
@seating_options("--opponents", "Who plays the seats not at the terminal")
@budget_options
def play(ruleset, players, seats, seat, seed, saved, trace_file, budget, seating) -> None:
    """Play RULESET at the terminal, at one seat or several, against random agents or
    --opponents."""
    import secrets

    from interpreter.frontends.play import play_terminal

    if seats is not None and seat is not None:
        raise click.BadParameter("give --seats or --seat, not both", param_hint="--seat")
    chosen = _seats(seats if seats is not None else str(seat or 1))
    if seed is None:
        seed = secrets.randbits(64)
    play_terminal(
        ruleset, players, chosen, seed, saved, trace=trace_file, budget=budget, seating=seating
    )


def _seats(text: str) -> tuple[int, ...]:
    """`all` (every seat: the empty tuple) or seat numbers separated by commas."""
    if text.strip() == "all":
        return ()
    try:
        seats = tuple(int(part) for part in text.split(","))
    except ValueError:
        message = f"{text!r} is not `all` or seats like 1,3"
        raise click.BadParameter(message, param_hint="--seats") from None
    return seats


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=8000, show_default=True, help="The port to listen on.")
@click.option(
    "--db",
    default="knapper-games.db",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="The SQLite file that keeps the games (made if missing; resumed if there).",
)
def serve(host, port, db) -> None:
    """Serve games in the browser: create, join a seat by its link, play, watch."""
    try:
        import uvicorn

        from interpreter.frontends.web.app import make_app
        from interpreter.frontends.web.store import Store
    except ImportError as err:
        raise click.ClickException(
            f'knapper serve needs the web extra ({err.name} is missing): pip install "knapper[web]"'
        ) from None
    click.echo(f"knapper serve: games kept in {db}; open http://{host}:{port}/")
    app = make_app(Store(db))
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_keep_alive=30)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--check", "check_only", is_flag=True, help="Exit 1 if a file is not formatted.")
@click.option("--write", "-w", is_flag=True, help="Rewrite the files in place.")
def fmt(files, check_only, write) -> None:
    """Format ruleset files (prints to stdout unless --write or --check)."""
    from dsl.syntax.fmt import format_text

    unformatted = []
    for name in files:
        text = read_source(name)
        out = format_text(text, name)
        if check_only:
            if out != text:
                unformatted.append(name)
        elif write:
            if out != text:
                Path(name).write_text(out, encoding="utf-8")
        else:
            click.echo(out, nl=False)
    for name in unformatted:
        click.echo(f"would reformat {name}", err=True)
    sys.exit(1 if unformatted else 0)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--trace",
    "trace_path",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the trace of every scenario to this file (JSON lines; `game` names the scenario).",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also list the decisions with one option taken for the player.",
)
def scenario(files, trace_path: str | None, verbose: bool) -> None:
    """Run scenario files and report each scenario's result with its cited section."""
    from interpreter.scenario import run_file

    failed = 0
    total = 0
    out = open(trace_path, "wb") if trace_path else None  # noqa: SIM115 - closed below
    try:
        for name in files:
            for result in run_file(Path(name), trace=out.write if out else None):
                total += 1
                mark = "PASS" if result.passed else "FAIL"
                cite = format_cite(result.cite)
                click.echo(f"{mark} {result.name}{cite}")
                for line in result.problems:
                    click.echo(f"    {line}")
                for line in result.warnings:
                    click.echo(f"    warning: {line}")
                for m in result.misprints:
                    click.echo(
                        f"    the book prints {m.book} for {m.what}; the rules give {m.rules} "
                        f"(line {m.span.line})"
                    )
                if verbose and result.passed and result.forced:
                    click.echo("    decisions with one option, taken for the player:")
                    for line in result.forced:
                        click.echo(f"      {line}")
                failed += not result.passed
    finally:
        if out is not None:
            out.close()
    click.echo(f"{total - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()


# Commands that live in modules of their own.
from interpreter.frontends import cli_balance, cli_code, cli_doc, cli_lint, cli_trace  # noqa: E402

for _module in (cli_lint, cli_trace, cli_doc, cli_balance):
    _module.register(main)
