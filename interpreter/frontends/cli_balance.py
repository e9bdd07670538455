"""`knapper balance NAME -o DIR`: a balance study of a ruleset, as a report with pictures.

Plays seeded games (`interpreter.balance`; random seats, or `--agents`, moved one seat on
each game unless `--no-rotate`) and writes the report of `interpreter/frontends/balance_report.py`
into DIR; `--json` prints the study's data instead of (or, with `-o`, beside) the summary.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click
import orjson

from dsl.errors import KnapperError, Span, diag


def register(main: click.Group) -> None:
    """Add this module's command to the `knapper` group."""
    from interpreter.frontends.cli import seating_options

    @main.command("balance")
    @click.argument("ruleset")
    @click.option("-n", "--games", default=100, show_default=True, help="Games to play.")
    @click.option("--seed", type=int, default=0, show_default=True, help="First game's seed.")
    @click.option("--players", type=int, default=None, help="Players (default: the fewest).")
    @click.option("--jobs", "-j", default=1, show_default=True, help="Worker processes.")
    @click.option(
        "--rotate/--no-rotate",
        default=True,
        show_default=True,
        help="Seat the agents one place on in each game, so that a seat's advantage is not "
        "taken for an agent's strength.",
    )
    @click.option(
        "-o",
        "--output",
        type=click.Path(file_okay=False),
        default=None,
        help="Folder to write the report in (report.md, report.html, balance.json, pictures).",
    )
    @click.option("--json", "as_json", is_flag=True, help="Print the study as JSON.")
    @seating_options("--agents", "Who plays each seat")
    def balance_cmd(
        ruleset: str,
        games: int,
        seed: int,
        players: int | None,
        jobs: int,
        rotate: bool,
        output: str | None,
        as_json: bool,
        seating,
    ) -> None:
        """Play -n seeded games of RULESET and report who wins, by seat and by agent (with
        95% intervals), scores, game length and which rules the games reached."""
        from interpreter.api import load, seat_count
        from interpreter.balance import balance
        from interpreter.frontends.cli import games_progress

        if output is None and not as_json:
            raise click.UsageError("say where to write the report (-o DIR), or ask for --json")
        if games < 1 or jobs < 1:
            raise KnapperError(
                diag(
                    "K514",
                    f"a balance study needs at least one game and one job, not -n {games} "
                    f"-j {jobs}",
                    Span("<command line>", 0, 0, 0, 0),
                )
            )
        game = load(ruleset)
        n = seat_count(game, players)
        seating.describe(n)  # wrong agents are an error before any game
        if output is not None:
            _check_writable(Path(output))
        with games_progress(f"playing {games} games", games) as advance:
            study = balance(game, games, seed, n, seating, rotate, jobs, progress=advance)
        if as_json:
            click.echo(orjson.dumps(study.to_json(), option=orjson.OPT_INDENT_2).decode())
        if output is not None:
            from interpreter.frontends.balance_report import write_report

            command = f"knapper balance {shlex.quote(ruleset)} -n {games} --seed {seed}"
            command += f" --players {n}" + seating.options() + ("" if rotate else " --no-rotate")
            command += f" -o {shlex.quote(output)}"
            files = write_report(study, Path(output), command)
            if not as_json:
                click.echo(_summary(study))
                click.echo(f"wrote {len(files)} files to {output} (open report.html)")


def _check_writable(folder: Path) -> None:
    """K514 before any game when the report's folder cannot be made."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise KnapperError(
            diag(
                "K514",
                f"cannot write the report to {str(folder)!r}: {err.strerror}",
                Span(str(folder), 0, 0, 0, 0),
                hint="give -o a folder that can be created",
            )
        ) from None


def _summary(study) -> str:
    seats = ", ".join(
        f"{r.label} {100 * r.rate:.1f}% [{100 * r.interval[0]:.0f}–{100 * r.interval[1]:.0f}]"
        for r in study.by_seat
    )
    lines = [f"{study.title}, {study.finished} games: {seats}; no winner {study.no_winner}"]
    if len(study.by_agent) > 1:
        lines.append(
            "by agent: " + ", ".join(f"{r.label} {100 * r.rate:.1f}%" for r in study.by_agent)
        )
    return "\n".join(lines)
