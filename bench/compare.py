"""Benchmark: Knapper against OpenSpiel on the same games, with random agents.

For tic-tac-toe and Pig (2 players, to 100 points) this plays the same number of seeded
random games four ways, in one process and in alternating rounds so that drift in the
machine's speed hits every side:

    knapper          the bundled ruleset, through `interpreter.api` (as bench/playouts.py)
    hand-written     the plain-Python reference in bench/reference/
    OpenSpiel C++    `pyspiel.load_game(...)`, driven by a Python loop
    OpenSpiel Python OpenSpiel's pure-Python implementation (tic-tac-toe only: it has none
                     of Pig)

Every side's agent draws from its own `random.Random(seed)` and plays uniformly among the
legal moves; OpenSpiel's chance nodes (Pig's die) are sampled uniformly too (a fair die:
checked at the first one). Each batch is timed in CPU time (`time.process_time`) with wall
time beside it; the table shows medians over rounds and the ratio of Knapper's games/s to
each other side's. Decisions per game are a cross-check of the rules: Knapper and the
hand-written games count only decisions with a choice, OpenSpiel every move (tic-tac-toe's
last, forced, move too).

    python bench/compare.py                 # about a minute
    python bench/compare.py --rounds 3 --games 2000 --json

OpenSpiel comes with the optional extra `pip install -e ".[bench]"`; without it the
OpenSpiel columns say so and the rest still runs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.playouts import environment, interpreted_batch, timed  # noqa: E402
from bench.reference import pig, tic_tac_toe  # noqa: E402
from interpreter.api import load  # noqa: E402

# Knapper games/s over the other side's, by (game, side): the goals of docs/performance.md.
GOALS = {("pig", "OpenSpiel C++"): 1.0, ("tic-tac-toe", "OpenSpiel Python"): 5.0}
SIDES = ("knapper", "hand-written", "OpenSpiel C++", "OpenSpiel Python")
# games per batch: 1-3 s per side and round on the machine of docs/performance.md
GAMES = {"tic-tac-toe": 20_000, "pig": 3_000}


def openspiel_batch(make_state: Callable[[], Any], seeds: range) -> list[int]:
    """Random games of an OpenSpiel game from a Python loop: the moves taken by the players
    (chance outcomes are not moves) of each game."""
    moves = []
    for seed in seeds:
        rng = random.Random(seed)
        state = make_state()
        taken = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                taken += 1
        moves.append(taken)
    return moves


def openspiel_games() -> dict[str, dict[str, Callable[[], Any]]] | str:
    """By game, by side: a function giving a new initial state; or why OpenSpiel is absent."""
    try:
        import pyspiel
        from open_spiel.python.games import tic_tac_toe as python_tic_tac_toe
    except ImportError as err:
        return f"OpenSpiel is not installed ({err.name}): pip install -e '.[bench]'"
    cpp_pig = pyspiel.load_game("pig", {"players": 2, "winscore": 100})
    _fair_die(cpp_pig)
    cpp_ttt = pyspiel.load_game("tic_tac_toe")
    python_ttt = python_tic_tac_toe.TicTacToeGame()
    return {
        "tic-tac-toe": {
            "OpenSpiel C++": cpp_ttt.new_initial_state,
            "OpenSpiel Python": python_ttt.new_initial_state,
        },
        "pig": {"OpenSpiel C++": cpp_pig.new_initial_state},
    }


def _fair_die(game: Any) -> None:
    """Uniform sampling of chance outcomes is right only for a fair die: check it."""
    state = game.new_initial_state()
    while not state.is_chance_node():
        state.apply_action(state.legal_actions()[0])  # roll
    probabilities = {p for _action, p in state.chance_outcomes()}
    if len(probabilities) != 1:
        raise SystemExit(f"OpenSpiel's {game} has an unfair die: {sorted(probabilities)}")


def run_game(
    name: str, games: int, rounds: int, others: dict[str, Callable[[], Any]], log
) -> dict[str, Any]:
    compiled = load(name)
    reference = {"tic-tac-toe": tic_tac_toe, "pig": pig}[name]
    seeds = range(games)
    batches: dict[str, Callable[[], list[int]]] = {
        "knapper": lambda: interpreted_batch(compiled, 2, seeds),
        "hand-written": lambda: [reference.playout(seed, 2) for seed in seeds],
    }
    for side, make in others.items():
        batches[side] = lambda make=make: openspiel_batch(make, seeds)
    cpu: dict[str, list[float]] = {side: [] for side in batches}
    wall: dict[str, list[float]] = {side: [] for side in batches}
    moves: dict[str, list[int]] = {}
    order = list(batches)
    for r in range(rounds):
        for side in order if r % 2 == 0 else reversed(order):
            secs, walls, taken = timed(batches[side])
            cpu[side].append(secs)
            wall[side].append(walls)
            moves[side] = taken
        log(
            f"{name}: round {r + 1}/{rounds}: "
            + ", ".join(f"{side} {cpu[side][-1]:.2f} s" for side in order)
        )
    sides = {
        side: {
            "games_per_s": statistics.median(games / s for s in cpu[side]),
            "wall_games_per_s": statistics.median(games / s for s in wall[side]),
            "us_per_game": statistics.median(s / games * 1e6 for s in cpu[side]),
            "moves_per_game": sum(moves[side]) / games,
        }
        for side in order
    }
    knapper = sides["knapper"]["games_per_s"]
    for side, figures in sides.items():
        figures["knapper_over_this"] = knapper / figures["games_per_s"]
        figures["goal"] = GOALS.get((name, side))
    return {"game": name, "games": games, "rounds": rounds, "sides": sides}


def print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 150)
    table = Table(
        title=f"Random games, median of {report['rounds']} rounds, CPU time (wall beside)"
    )
    for column in ("game", "side", "games/s", "µs/game", "wall g/s", "decisions/game"):
        table.add_column(column, justify="left" if column in ("game", "side") else "right")
    table.add_column("knapper ÷ side", justify="right")
    table.add_column("goal", justify="right")
    for result in report["results"]:
        for side in SIDES:
            figures = result["sides"].get(side)
            if figures is None:
                why = report["missing"] or "OpenSpiel has no pure-Python Pig"
                table.add_row(result["game"], side, "-", "-", "-", "-", f"n/a: {why}", "")
                continue
            ratio, goal = figures["knapper_over_this"], figures["goal"]
            shown = f"{ratio:.2f}"
            if goal is not None:
                shown = f"[green]{shown}[/green]" if ratio >= goal else f"[red]{shown}[/red]"
            table.add_row(
                result["game"],
                side,
                f"{figures['games_per_s']:,.0f}",
                f"{figures['us_per_game']:.1f}",
                f"{figures['wall_games_per_s']:,.0f}",
                f"{figures['moves_per_game']:.2f}",
                shown,
                "" if goal is None else f">= {goal}",
            )
        table.add_section()
    console.print(table)
    env = report["environment"]
    console.print(
        f"Python {env['python']}, {env['cpus']} CPUs, load {env['load_average_1min']:.2f}, "
        f"source {env['source_digest']}, {env['date']}"
    )
    if report["missing"]:
        console.print(report["missing"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print a JSON object instead")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument(
        "--games", type=int, default=None, help="games per batch (default: per game)"
    )
    args = parser.parse_args(argv)
    if args.rounds < 1 or (args.games is not None and args.games < 1):
        parser.error("--rounds and --games must be >= 1")

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    env = environment()
    others = openspiel_games()
    missing = others if isinstance(others, str) else None
    results = [
        run_game(
            name,
            args.games or GAMES[name],
            args.rounds,
            {} if missing else others[name],  # type: ignore[index]
            log,
        )
        for name in ("tic-tac-toe", "pig")
    ]
    report = {"environment": env, "rounds": args.rounds, "missing": missing, "results": results}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
