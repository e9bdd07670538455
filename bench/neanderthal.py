"""Benchmark: random playouts of Neanderthal, and the cost of a decision turn by turn.

Two measurements, both with uniformly random agents through the public API (the loop of
bench/playouts.py; a decision with a single option is applied automatically and not counted):

1. Throughput. For neanderthal (3 players) and neanderthal-2p, the same seeded batch of games
   is played in several rounds; the two games alternate within each round, so drift in
   machine speed hits both. Reported: the median over rounds of games/s and of µs per
   decision (batch time / decisions, so setup and auto-applied moves are included).
2. Cost by turn. Over many games, every `state.apply` is timed on its own and filed under
   the turn it was made in (the ruleset's `turn` variable before the decision; 0 = setup).
   If the cost of a decision grew with the length of the game (a state that grows, a scan
   over history), the last turns would cost more than the first. Reported: µs per decision
   for each turn number and for each turn counted back from the end of its game, and the
   ratio of each game's last three turns to the first three (turns 1-3).

    python bench/neanderthal.py                 # about 1 minute
    python bench/neanderthal.py --json
    python bench/neanderthal.py --games 20 --rounds 3 --turn-games 100

Compiling the rulesets is done once before any timing and reported on its own.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.playouts import COMPILE_REPEATS, environment, measure_compile  # noqa: E402
from interpreter.api import load, new_game  # noqa: E402
from interpreter.core.game import Game  # noqa: E402

DEFAULT_ROUNDS = 5
DEFAULT_TURN_GAMES = 200
# Turns at each end of a game compared by the ratio.
EDGE_TURNS = 3
SITES_SHOWN = 8


@attrs.frozen
class Case:
    """One benchmark game: a ruleset, a player count and its default batch size."""

    ruleset: str
    players: int
    games: int

    @property
    def label(self) -> str:
        return f"{self.ruleset} {self.players}p"


# Batch sizes give each case about 3 s per round on the machine in docs/neanderthal.md.
CASES = [Case("neanderthal", 3, 40), Case("neanderthal-2p", 2, 60)]


# ================================================================ throughput


def batch(game: Game, players: int, seeds: range) -> list[int]:
    decisions = []
    for seed in seeds:
        state = new_game(game, players=players, seed=seed)
        rng = random.Random(seed)
        while state.pending is not None:
            state.apply(rng.choice(state.pending[1]))
        decisions.append(state.decisions)
    return decisions


def throughput(
    cases: list[Case], games: dict[str, Game], sizes: dict[str, int], rounds: int, log
) -> list[dict[str, Any]]:
    seconds: dict[str, list[float]] = {c.label: [] for c in cases}
    decisions: dict[str, list[int]] = {}
    for r in range(rounds):
        order = cases if r % 2 == 0 else list(reversed(cases))
        for case in order:
            seeds = range(sizes[case.label])
            gc.collect()
            start = time.perf_counter()
            dec = batch(games[case.ruleset], case.players, seeds)
            seconds[case.label].append(time.perf_counter() - start)
            if case.label in decisions and decisions[case.label] != dec:
                raise SystemExit(f"{case.label}: the interpreter is not deterministic")
            decisions[case.label] = dec
        log(
            f"round {r + 1}/{rounds}: "
            + ", ".join(f"{c.label} {seconds[c.label][-1]:.2f} s" for c in cases)
        )
    results = []
    for case in cases:
        n = sizes[case.label]
        dec = decisions[case.label]
        total = sum(dec)
        gps = [n / s for s in seconds[case.label]]
        us = [s / total * 1e6 for s in seconds[case.label]]
        results.append(
            {
                "game": case.label,
                "ruleset": case.ruleset,
                "players": case.players,
                "games": n,
                "rounds": rounds,
                "games_per_s": statistics.median(gps),
                "us_per_decision": statistics.median(us),
                "games_per_s_rounds": gps,
                "us_per_decision_rounds": us,
                "decisions_per_game": total / n,
                "decisions_per_game_sd": statistics.stdev(dec) if n > 1 else 0.0,
            }
        )
    return results


# ================================================================ cost by turn


def timed_game(game: Game, players: int, seed: int) -> tuple[int, list[tuple[int, int, float]]]:
    """Play one game, timing every apply: (last turn, [(turn, site, seconds) per decision]).

    The site is the `choose` the decision answers; its time runs to the next decision."""
    state = new_game(game, players=players, seed=seed)
    rng = random.Random(seed)
    clock = time.perf_counter
    out = []
    while state.pending is not None:
        turn = state.get("turn")
        site = state.pending[2]
        option = rng.choice(state.pending[1])
        start = clock()
        state.apply(option)
        out.append((turn, site, clock() - start))
    return state.get("turn"), out


def _us(cells: list[tuple[int, float]]) -> float:
    """µs per decision of (decisions, seconds) cells pooled; nan for none."""
    n = sum(c[0] for c in cells)
    return sum(c[1] for c in cells) / n * 1e6 if n else math.nan


def by_turn(case: Case, game: Game, games: int, log) -> dict[str, Any]:
    # One row per decision: (seed, turn, the game's last turn, site, seconds).
    timed: list[tuple[int, int, int, int, float]] = []
    gc.collect()
    for seed in range(games):
        last, timings = timed_game(game, case.players, seed)
        timed += [(seed, turn, last, site, secs) for turn, site, secs in timings]
        if (seed + 1) % 50 == 0:
            log(f"{case.label}: cost by turn, {seed + 1}/{games} games")

    site_time: dict[int, list] = defaultdict(lambda: [0, 0.0])
    for _, _, _, site, secs in timed:
        site_time[site][0] += 1
        site_time[site][1] += secs
    total = sum(v[1] for v in site_time.values()) or 1e-9
    order = sorted(site_time, key=lambda k: -site_time[k][1])
    top = order[0]  # the decision that takes most of the time, shown apart in every row
    by_site = [
        {
            "prompt": game.sites[k].prompt,
            "proc": game.sites[k].proc,
            "decisions": site_time[k][0],
            "us_per_decision": site_time[k][1] / site_time[k][0] * 1e6,
            "share_of_time": site_time[k][1] / total,
        }
        for k in order
    ]

    def rows(key) -> list[dict[str, Any]]:
        groups: dict[int, list] = defaultdict(list)
        for row in timed:
            k = key(row)
            if k is not None:
                groups[k].append(row)
        out = []
        for k, group in sorted(groups.items()):
            seeds = {r[0] for r in group}
            top_cells = [(1, r[4]) for r in group if r[3] == top]
            other_cells = [(1, r[4]) for r in group if r[3] != top]
            out.append(
                {
                    "turn": k,
                    "games": len(seeds),
                    "decisions": len(group),
                    "decisions_per_game": len(group) / len(seeds),
                    "us_per_decision": _us([(1, r[4]) for r in group]),
                    "top_decisions": len(top_cells),
                    "top_us_per_decision": _us(top_cells),
                    "other_us_per_decision": _us(other_cells),
                }
            )
        return out

    def first(r) -> bool:
        return 1 <= r[1] <= EDGE_TURNS

    def last(r) -> bool:
        return r[1] > 0 and r[2] - r[1] < EDGE_TURNS

    def ratio(keep) -> float:
        a = _us([(1, r[4]) for r in timed if last(r) and keep(r)])
        b = _us([(1, r[4]) for r in timed if first(r) and keep(r)])
        return a / b

    per_game: dict[int, list] = defaultdict(lambda: [[0, 0.0], [0, 0.0]])
    for r in timed:
        for i, test in enumerate((first, last)):
            if test(r):
                per_game[r[0]][i][0] += 1
                per_game[r[0]][i][1] += r[4]
    per_game_ratio = [_us([e]) / _us([f]) for f, e in per_game.values() if f[0] and e[0]]
    return {
        "game": case.label,
        "games": games,
        "by_turn": rows(lambda r: r[1]),
        # setup (turn 0) is shown by turn number only
        "by_turns_before_end": rows(lambda r: r[2] - r[1] if r[1] else None),
        "by_site": by_site,
        "top_site": {"proc": game.sites[top].proc, "prompt": game.sites[top].prompt},
        "first_turns_us": _us([(1, r[4]) for r in timed if first(r)]),
        "last_turns_us": _us([(1, r[4]) for r in timed if last(r)]),
        "ratio_last_to_first": ratio(lambda r: True),
        "ratio_last_to_first_top": ratio(lambda r: r[3] == top),
        "ratio_last_to_first_other": ratio(lambda r: r[3] != top),
        "ratio_per_game_median": statistics.median(per_game_ratio) if per_game_ratio else None,
        "ratio_per_game_quartiles": (
            statistics.quantiles(per_game_ratio, n=4) if len(per_game_ratio) > 1 else None
        ),
    }


# ================================================================ printing


def _fmt(us: float) -> str:
    return "-" if math.isnan(us) else f"{us:.1f}"


def print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 120)
    env = report["environment"]
    table = Table(title=f"Neanderthal random playouts, median of {report['rounds']} round(s)")
    table.add_column("game")
    for column in ("games", "games/s", "µs/dec", "games/s\nby round", "dec/game", "sd"):
        table.add_column(column, justify="right")
    for res in report["throughput"]:
        gps = res["games_per_s_rounds"]
        table.add_row(
            res["game"],
            str(res["games"]),
            f"{res['games_per_s']:,.1f}",
            f"{res['us_per_decision']:.1f}",
            f"{min(gps):.1f}-{max(gps):.1f}",
            f"{res['decisions_per_game']:.1f}",
            f"{res['decisions_per_game_sd']:.1f}",
        )
    console.print(table)
    console.print(
        f"Python {env['python']}, {env['cpus']} CPUs, load {env['load_average_1min']:.2f}, "
        f"source {env['source_digest']}, {env['date']}"
    )

    for res in report["by_turn"]:
        top = res["top_site"]["proc"]
        for key, label in (("by_turn", "turn"), ("by_turns_before_end", "turns before end")):
            table = Table(title=f"{res['game']}: µs per decision by {label}, {res['games']} games")
            for column in (
                label,
                "games",
                "dec/game",
                "µs/dec",
                f"{top}\ndec/game",
                f"{top}\nµs/dec",
                "others\nµs/dec",
            ):
                table.add_column(column, justify="right")
            for row in res[key]:
                table.add_row(
                    str(row["turn"])
                    + (" (setup)" if key == "by_turn" and row["turn"] == 0 else ""),
                    str(row["games"]),
                    f"{row['decisions_per_game']:.1f}",
                    f"{row['us_per_decision']:.1f}",
                    f"{row['top_decisions'] / row['games']:.1f}",
                    _fmt(row["top_us_per_decision"]),
                    _fmt(row["other_us_per_decision"]),
                )
            console.print(table)
        table = Table(title=f"{res['game']}: where the time goes, by the decision answered")
        for column in ("decision (proc: prompt)", "decisions", "µs/dec", "share of time"):
            table.add_column(column, justify="left" if column.startswith("decision ") else "right")
        for row in res["by_site"][:SITES_SHOWN]:
            table.add_row(
                f"{row['proc']}: {row['prompt'][:60]}",
                str(row["decisions"]),
                f"{row['us_per_decision']:.1f}",
                f"{row['share_of_time']:.1%}",
            )
        console.print(table)
        quartiles = res["ratio_per_game_quartiles"]
        console.print(
            f"{res['game']}: turns 1-{EDGE_TURNS} {res['first_turns_us']:.1f} µs/decision, "
            f"each game's last {EDGE_TURNS} turns {res['last_turns_us']:.1f} µs/decision: "
            f"ratio [bold]{res['ratio_last_to_first']:.2f}[/bold]"
            + (
                f" (per game: median {res['ratio_per_game_median']:.2f}, "
                f"quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f})"
                if quartiles
                else ""
            )
            + f"; {top} alone {res['ratio_last_to_first_top']:.2f}, "
            f"the other decisions {res['ratio_last_to_first_other']:.2f}"
        )

    ctable = Table(title="Compile time (excluded from the playouts above)")
    ctable.add_column("ruleset")
    ctable.add_column("first compile in process", justify="right")
    ctable.add_column(f"median of {COMPILE_REPEATS} more", justify="right")
    for name, t in report["compile"].items():
        ctable.add_row(name, f"{t['first_s'] * 1e3:.1f} ms", f"{t['median_s'] * 1e3:.1f} ms")
    console.print(ctable)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print a JSON object instead")
    parser.add_argument(
        "--games", type=int, default=None, help="games per throughput batch (default: per game)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=DEFAULT_ROUNDS,
        help=f"throughput rounds (default {DEFAULT_ROUNDS})",
    )
    parser.add_argument(
        "--turn-games",
        type=int,
        default=DEFAULT_TURN_GAMES,
        help=f"games of each for the cost by turn (default {DEFAULT_TURN_GAMES}; 0 skips it)",
    )
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="neanderthal or neanderthal-2p"
    )
    args = parser.parse_args(argv)
    cases = [c for c in CASES if not args.only or c.ruleset in args.only or c.label in args.only]
    if not cases:
        parser.error(f"no benchmark game matches {args.only}")
    if args.rounds < 1 or (args.games is not None and args.games < 1) or args.turn_games < 0:
        parser.error("--rounds and --games must be >= 1, --turn-games >= 0")

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    env = environment()  # before compiling: the digest names the code this process runs
    rulesets = list(dict.fromkeys(c.ruleset for c in cases))
    compile_times = measure_compile(rulesets)
    games = {name: load(name) for name in rulesets}
    sizes = {c.label: args.games or c.games for c in cases}
    results = throughput(cases, games, sizes, args.rounds, log)
    turns = [by_turn(c, games[c.ruleset], args.turn_games, log) for c in cases if args.turn_games]
    env["load_average_1min"] = os.getloadavg()[0]
    report = {
        "environment": env,
        "rounds": args.rounds,
        "edge_turns": EDGE_TURNS,
        "compile": compile_times,
        "throughput": results,
        "by_turn": turns,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
