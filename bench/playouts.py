"""Benchmark: random playouts in the interpreter against hand-written Python.

For each benchmark game (a bundled ruleset and a player count) this plays the same seeded
games with uniformly random agents twice: through the interpreter (`interpreter.api`) and
through the plain-Python reference in `bench/reference/`. The two sides run in alternating
batches over several rounds in one process, so drift in machine speed hits both. Each batch
is timed in CPU time (`time.process_time`), which other work on a shared machine disturbs
less, and in wall-clock time beside it; the table shows the median over rounds of games/s
and µs per decision in CPU time, the wall-clock games/s, and the ratio
interpreted/hand-written of the CPU games/s medians. Compiling a ruleset is done once before
any timing and reported on its own. Neanderthal and Aurignac have no reference: they are
timed on the interpreter's side only, against a limit in µs per decision.

    python bench/playouts.py                    # all games, about 1-2 minutes
    python bench/playouts.py --only pig --games 2000 --rounds 3
    python bench/playouts.py --json

Decisions per game are reported for both sides as a rules cross-check: in games without
chance (tic-tac-toe, Connect Four) the same agent seed must give the same game, decision for
decision; in games with dice the two sides roll different generators, so only the
distributions should agree.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import hashlib
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.reference import connect_four, cro_magnon, pig, tic_tac_toe  # noqa: E402
from dsl.errors import read_source  # noqa: E402
from dsl.pipeline import compile_text  # noqa: E402
from dsl.semantics.resolve import find_ruleset  # noqa: E402
from interpreter.api import load, new_game  # noqa: E402
from interpreter.core.game import Game  # noqa: E402

# Games whose interpreted/hand-written games/s ratio has a stated target (docs/performance.md).
TARGETS = {"tic-tac-toe": 0.6, "pig": 0.6, "connect-four": 0.6, "cro-magnon": 0.45}
# Games without a hand-written reference whose µs per decision has a stated limit (the same).
DECISION_LIMITS = {"neanderthal": 50.0, "aurignac": 30.0}
DEFAULT_ROUNDS = 5
COMPILE_REPEATS = 5


@attrs.frozen
class Case:
    """One benchmark game: a ruleset, a player count, its reference and default batch size."""

    ruleset: str
    players: int
    reference: ModuleType | None  # None: timed on the interpreter's side only
    games: int
    # the two sides roll different generators, so their games are compared only in
    # distribution, never seed for seed
    dice: bool = False

    @property
    def label(self) -> str:
        return f"{self.ruleset} {self.players}p"


# Batch sizes give each case 2-3 s per round on the machine in docs/performance.md.
CASES = [
    Case("tic-tac-toe", 2, tic_tac_toe, 40_000),
    Case("connect-four", 2, connect_four, 6_000),
    Case("pig", 2, pig, 6_000, dice=True),
    Case("pig", 4, pig, 4_000, dice=True),
    Case("cro-magnon", 2, cro_magnon, 200, dice=True),
    Case("cro-magnon", 4, cro_magnon, 80, dice=True),
    Case("neanderthal", 3, None, 60, dice=True),
    Case("aurignac", 4, None, 200, dice=True),
]


def interpreted_batch(game: Game, players: int, seeds: range) -> list[int]:
    decisions = []
    for seed in seeds:
        state = new_game(game, players=players, seed=seed)
        rng = random.Random(seed)
        while state.pending is not None:
            state.apply(rng.choice(state.pending[1]))
        decisions.append(state.decisions)
    return decisions


def reference_batch(
    playout: Callable[..., int], players: int, seeds: range, kw: dict[str, Any]
) -> list[int]:
    return [playout(seed, players, **kw) for seed in seeds]


def timed(run: Callable[[], list[int]]) -> tuple[float, float, list[int]]:
    """CPU seconds, wall-clock seconds and the decisions of each game of one batch."""
    gc.collect()
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    decisions = run()
    return time.process_time() - start_cpu, time.perf_counter() - start_wall, decisions


def measure_compile(rulesets: list[str]) -> dict[str, dict[str, float]]:
    """Seconds to compile each ruleset through the whole pipeline (`compile_text`, without
    `load`'s cache nor the compiled games kept on disk): the first time in this process, then
    the median of fresh compiles. The first compile of the first ruleset also builds the Lark
    parser.
    """
    times: dict[str, dict[str, float]] = {}
    for name in rulesets:
        path = str(find_ruleset(name))
        text = read_source(path)
        start = time.perf_counter()
        compile_text(text, path)
        first = time.perf_counter() - start
        again = []
        for _ in range(COMPILE_REPEATS):
            start = time.perf_counter()
            compile_text(text, path)
            again.append(time.perf_counter() - start)
        times[name] = {"first_s": first, "median_s": statistics.median(again)}
    return times


def side_summary(
    seconds: list[float], wall: list[float], games: int, decisions: list[int]
) -> dict[str, Any]:
    """`seconds` are CPU seconds per round, `wall` wall-clock seconds per round."""
    total = sum(decisions)
    per_round_gps = [games / s for s in seconds]
    per_round_us = [s / total * 1e6 for s in seconds] if total else [math.nan for _ in seconds]
    return {
        "games_per_s": statistics.median(per_round_gps),
        "us_per_decision": statistics.median(per_round_us),
        "games_per_s_rounds": per_round_gps,
        "wall_games_per_s": statistics.median([games / s for s in wall]),
        "decisions_per_game": total / games,
        "decisions_per_game_sd": statistics.stdev(decisions) if len(decisions) > 1 else 0.0,
    }


def run_case(
    case: Case, game: Game, games: int, rounds: int, log: Callable[[str], None]
) -> dict[str, Any]:
    seeds = range(games)
    kw: dict[str, Any] = {}
    if case.ruleset == "cro-magnon":
        kw["adjacency"] = {k: list(v) for k, v in game.adjacency.items()}
    interp_s: list[float] = []
    ref_s: list[float] = []
    interp_wall: list[float] = []
    ref_wall: list[float] = []
    interp_dec: list[int] = []
    ref_dec: list[int] = []
    for r in range(rounds):
        # Alternate which side goes first so neither always follows the other's garbage.
        order = ("interp", "ref") if r % 2 == 0 else ("ref", "interp")
        for side in order if case.reference is not None else ("interp",):
            if side == "interp":
                secs, wall, dec = timed(lambda: interpreted_batch(game, case.players, seeds))
                interp_s.append(secs)
                interp_wall.append(wall)
                if interp_dec and dec != interp_dec:
                    raise SystemExit(f"{case.label}: the interpreter is not deterministic")
                interp_dec = dec
            else:
                playout = case.reference.playout
                secs, wall, dec = timed(lambda: reference_batch(playout, case.players, seeds, kw))
                ref_s.append(secs)
                ref_wall.append(wall)
                ref_dec = dec
        reference = (
            f", reference {ref_s[-1]:.2f} s CPU ({ref_wall[-1]:.2f} s wall)" if ref_s else ""
        )
        log(
            f"{case.label}: round {r + 1}/{rounds} interpreter {interp_s[-1]:.2f} s CPU "
            f"({interp_wall[-1]:.2f} s wall){reference}"
        )
    interp = side_summary(interp_s, interp_wall, games, interp_dec)
    result = {
        "game": case.label,
        "ruleset": case.ruleset,
        "players": case.players,
        "games": games,
        "rounds": rounds,
        "interpreter": interp,
    }
    if not ref_s:
        result["us_per_decision_limit"] = DECISION_LIMITS.get(case.ruleset)
        return result
    ref = side_summary(ref_s, ref_wall, games, ref_dec)
    same = None if case.dice else sum(a == b for a, b in zip(interp_dec, ref_dec))
    result |= {
        "reference": ref,
        "ratio": interp["games_per_s"] / ref["games_per_s"],
        # Each round's two batches run back to back, so the spread of per-round ratios shows
        # how much the machine's speed moved during the run.
        "ratio_rounds": [
            a / b for a, b in zip(interp["games_per_s_rounds"], ref["games_per_s_rounds"])
        ],
        "same_decisions_per_seed": same,
        "target": TARGETS.get(case.ruleset),
    }
    return result


def source_digest() -> str:
    """A short hash of the code and rulesets measured, to tell runs of different code apart."""
    digest = hashlib.sha256()
    for pattern in ("dsl/**/*.py", "interpreter/**/*.py", "grammar/*", "rulesets/**/*.knap"):
        for path in sorted(ROOT.glob(pattern)):
            if path.is_file():
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def environment() -> dict[str, Any]:
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        # Other work on the machine skews every figure; the 1-minute load shows how much.
        "load_average_1min": os.getloadavg()[0],
        "source_digest": source_digest(),
    }


def print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    # Redirected output gets a fixed width wide enough for the table, not rich's default 80.
    console = Console(width=None if sys.stdout.isatty() else 170)
    env = report["environment"]
    table = Table(
        title=f"Random playouts, median of {report['rounds']} round(s), CPU time (wall beside)"
    )
    table.add_column("game")
    for column in (
        "games",
        "interp\ngames/s",
        "interp\nµs/dec",
        "interp\nwall g/s",
        "ref\ngames/s",
        "ref\nµs/dec",
        "ref\nwall g/s",
        "ratio",
        "ratio\nby round",
        "target",
        "dec/game\ninterp",
        "dec/game\nref",
        "same\nper seed",
    ):
        table.add_column(column, justify="right")
    for res in report["results"]:
        if "reference" not in res:
            continue
        interp, ref = res["interpreter"], res["reference"]
        target = res["target"]
        ratio = f"{res['ratio']:.3f}"
        if target is not None:
            ratio = f"[green]{ratio}[/green]" if res["ratio"] >= target else f"[red]{ratio}[/red]"
        table.add_row(
            res["game"],
            str(res["games"]),
            f"{interp['games_per_s']:,.1f}",
            f"{interp['us_per_decision']:.2f}",
            f"{interp['wall_games_per_s']:,.1f}",
            f"{ref['games_per_s']:,.1f}",
            f"{ref['us_per_decision']:.2f}",
            f"{ref['wall_games_per_s']:,.1f}",
            ratio,
            f"{min(res['ratio_rounds']):.2f}-{max(res['ratio_rounds']):.2f}",
            "" if target is None else f">= {target}",
            f"{interp['decisions_per_game']:.2f}",
            f"{ref['decisions_per_game']:.2f}",
            (
                "n/a (dice)"
                if res["same_decisions_per_seed"] is None
                else f"{res['same_decisions_per_seed']}/{res['games']}"
            ),
        )
    console.print(table)
    alone = [res for res in report["results"] if "reference" not in res]
    if alone:
        atable = Table(title="Games without a hand-written reference (CPU time, medians)")
        for column in ("game", "games", "games/s", "µs/decision", "wall g/s", "limit"):
            atable.add_column(column, justify="left" if column == "game" else "right")
        for res in alone:
            interp, limit = res["interpreter"], res["us_per_decision_limit"]
            us = f"{interp['us_per_decision']:.2f}"
            if limit is not None:
                us = (
                    f"[green]{us}[/green]"
                    if interp["us_per_decision"] <= limit
                    else f"[red]{us}[/red]"
                )
            atable.add_row(
                res["game"],
                str(res["games"]),
                f"{interp['games_per_s']:,.1f}",
                us,
                f"{interp['wall_games_per_s']:,.1f}",
                "" if limit is None else f"<= {limit:g} µs",
            )
        console.print(atable)
    console.print(
        f"Python {env['python']}, {env['cpus']} CPUs, load {env['load_average_1min']:.2f}, "
        f"source {env['source_digest']}, {env['date']}"
    )

    ctable = Table(title="Compile time (excluded from the playouts above)")
    ctable.add_column("ruleset")
    ctable.add_column("first compile in process", justify="right")
    ctable.add_column(f"median of {COMPILE_REPEATS} more", justify="right")
    for name, t in report["compile"].items():
        ctable.add_row(name, f"{t['first_s'] * 1e3:.1f} ms", f"{t['median_s'] * 1e3:.1f} ms")
    console.print(ctable)
    console.print("The first compile in the process also builds the Lark parser.")
    targets = ", ".join(f"{name} >= {value}" for name, value in TARGETS.items())
    console.print(
        "ratio = interpreted games/s / hand-written games/s (CPU time, medians of rounds). "
        f"Target ratios: {targets}."
    )
    for res in report["results"]:
        if res.get("target") is not None and res["ratio"] < res["target"]:
            console.print(
                f"[red]missed[/red]: {res['game']} ratio {res['ratio']:.3f} < {res['target']}"
            )
        limit, us = res.get("us_per_decision_limit"), res["interpreter"]["us_per_decision"]
        if limit is not None and us > limit:
            console.print(f"[red]missed[/red]: {res['game']} {us:.1f} µs per decision > {limit:g}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print a JSON object instead")
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="games per batch for every selected game (default: per game)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=DEFAULT_ROUNDS,
        help=f"alternating interpreter/reference rounds (default {DEFAULT_ROUNDS})",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="a ruleset (e.g. pig) or game label (e.g. 'pig 4p'); repeatable",
    )
    args = parser.parse_args(argv)

    cases = CASES
    if args.only:
        wanted = set(args.only)
        cases = [c for c in CASES if c.ruleset in wanted or c.label in wanted]
        if not cases:
            known = ", ".join(sorted({c.ruleset for c in CASES}))
            parser.error(f"no benchmark game matches {args.only}; known: {known}")
    if args.rounds < 1 or (args.games is not None and args.games < 2):
        parser.error("--rounds must be >= 1 and --games >= 2")

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    # Taken before compiling: the digest then names the code this process actually runs.
    env = environment()
    rulesets = list(dict.fromkeys(c.ruleset for c in cases))
    compile_times = measure_compile(rulesets)
    games = {name: load(name) for name in rulesets}

    results = [
        run_case(case, games[case.ruleset], args.games or case.games, args.rounds, log)
        for case in cases
    ]
    env["load_average_1min"] = os.getloadavg()[0]
    report = {
        "environment": env,
        "rounds": args.rounds,
        "compile": compile_times,
        "results": results,
        "targets": TARGETS,
        "decision_limits": DECISION_LIMITS,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
