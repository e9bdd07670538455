"""Benchmark: how strong the searching agents are, as results of whole games.

Each match plays seeded games through `interpreter.simulate.simulate` (the path of
`knapper simulate --agents`), with the seats swapped in every other game so that neither
agent always moves first, and reports wins, losses and draws of the first-named agent with
a 95 % Wilson interval on its win rate, and the CPU seconds (and wall seconds) it took.

    python bench/agents.py                       # the default matches, a few minutes
    python bench/agents.py --games 40 --json
    python bench/agents.py --match "tic-tac-toe ismcts:1000 random"

The default matches: on tic-tac-toe, ismcts with 1000 playouts against random, and against
itself (draws); on Pig, flatmc with 20 playouts per option against random. These are the
figures docs/agents.md quotes; they are measurements, not tests.
"""

from __future__ import annotations

import argparse
import json
import math
import time

from interpreter.agents import Seating
from interpreter.simulate import simulate

MATCHES = (
    "tic-tac-toe ismcts:1000 random",
    "tic-tac-toe ismcts:1000 ismcts:1000",
    "pig flatmc:20 random",
)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def match(spec: str, games: int, depth: int | None) -> dict:
    ruleset, first, second = spec.split()
    (a, _, a_budget), (b, _, b_budget) = first.partition(":"), second.partition(":")
    won = lost = drawn = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for order in (0, 1):  # the first-named agent at seat 1, then at seat 2
        names = (a, b) if order == 0 else (b, a)
        budgets = (a_budget or "200", b_budget or "200")
        budgets = budgets if order == 0 else budgets[::-1]
        count = games // 2 + (games % 2 if order == 0 else 0)
        seating = Seating(names, budgets, depth)
        _, results = simulate(ruleset, count, seed=order * 100_000, seating=seating)
        for r in results:
            if not r.winners or len(r.winners) > 1:
                drawn += 1
            elif r.winners[0] == order:
                won += 1
            else:
                lost += 1
    low, high = wilson(won, won + lost + drawn)
    return {
        "match": spec,
        "games": won + lost + drawn,
        "won": won,
        "lost": lost,
        "drawn": drawn,
        "win_rate_95": [round(low, 3), round(high, 3)],
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "wall_seconds": round(time.perf_counter() - wall, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per match")
    parser.add_argument("--match", action="append", help="RULESET AGENT[:BUDGET] AGENT[:BUDGET]")
    parser.add_argument("--depth", type=int, default=None, help="decisions per playout")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for spec in args.match or MATCHES:
        row = match(spec, args.games, args.depth)
        rows.append(row)
        if not args.json:
            low, high = row["win_rate_95"]
            print(
                f"{spec:40} won {row['won']:4} lost {row['lost']:4} drawn {row['drawn']:4}"
                f"  win rate {low:.3f}..{high:.3f}  {row['cpu_seconds']} s CPU"
                f" ({row['wall_seconds']} s wall)",
                flush=True,
            )
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
