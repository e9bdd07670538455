"""Benchmark: the cost of a refused move.

An agent or a front-end may try many options that are not legal (a search, a user's clicks);
each try raises `IllegalMove`. This times a loop of refused `state.apply` calls at a
ruleset's first decision (tic-tac-toe unless told) in CPU time (`time.process_time`), with
and without showing the error, and prints the median over rounds in µs per refusal.

    python bench/refusals.py
    python bench/refusals.py --ruleset neanderthal --tries 2000 --rounds 7
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dsl.errors import IllegalMove  # noqa: E402
from interpreter.api import load, new_game  # noqa: E402


def refusals(ruleset: str, tries: int, show: bool) -> float:
    """CPU seconds for `tries` refused moves (each error shown with `str` when `show`)."""
    state = new_game(load(ruleset), seed=0)
    start = time.process_time()
    for _ in range(tries):
        try:
            state.apply("no such option")
        except IllegalMove as err:
            if show:
                str(err)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ruleset", default="tic-tac-toe")
    parser.add_argument("--tries", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    ns = parser.parse_args()
    refusals(ns.ruleset, 100, True)  # warm up: compile the ruleset, fill the caches
    for show in (False, True):
        times = [refusals(ns.ruleset, ns.tries, show) for _ in range(ns.rounds)]
        micro = statistics.median(times) / ns.tries * 1e6
        label = "refused, error shown" if show else "refused, error not shown"
        print(f"{label:<26} {micro:8.1f} µs per refusal (median of {ns.rounds} rounds)")


if __name__ == "__main__":
    main()
