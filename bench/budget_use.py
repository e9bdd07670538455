"""How much of the work budget the bundled rulesets use: the most steps and elements any one
run of the rules (from one decision to the next) took, over seeded random games.

    python bench/budget_use.py               # every bundled ruleset, 20 games each
    python bench/budget_use.py --games 5 --only pig

The default budget (interpreter/core/budget.py) should stay at least 100 times above the
largest numbers printed here (docs/reliability.md records the last run).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dsl.semantics.resolve import bundled_names  # noqa: E402
from interpreter.api import load, new_game  # noqa: E402


def most_used(name: str, games: int) -> tuple[int, int, int]:
    """(steps, elements, decisions) at most in one run, over `games` games of `name`."""
    game = load(name)
    steps = elements = decisions = 0
    for seed in range(games):
        players = game.players[0] + seed % (game.players[1] - game.players[0] + 1)
        state = new_game(game, players=players, seed=seed)
        picker = random.Random(seed)
        while True:
            budget = state.budget
            steps = max(steps, budget.steps - state.left)
            elements = max(elements, budget.elements - state.room)
            if state.pending is None:
                break
            state.apply(picker.choice(state.pending[1]))
            decisions += 1
    return steps, elements, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--only", action="append")
    args = parser.parse_args()
    print(f"{'ruleset':28} {'steps':>8} {'elements':>9} {'decisions':>10}")
    for name in args.only or bundled_names():
        steps, elements, decisions = most_used(name, args.games)
        print(f"{name:28} {steps:>8} {elements:>9} {decisions:>10}")


if __name__ == "__main__":
    main()
