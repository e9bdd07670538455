"""Cross-check: the hand-written Cro-Magnon plays the interpreter's games decision for decision.

`bench/playouts.py` can only compare the two sides' decisions per game as distributions,
because each side rolls its own dice. Here each seeded game is first played through the
interpreter with a random agent, recording every die rolled and, for every decision, how
many options were offered and which one was taken. The reference in
`bench/reference/cro_magnon.py` then plays the same game with those dice and those picks:
every die must have the same number of sides, every decision the same number of options,
both sides must count the same decisions and end with the same bands on every territory.
A difference stops the run and names the seed.

    python bench/cro_magnon_replay.py                  # 2-6 players, a few dozen seeds each
    python bench/cro_magnon_replay.py --players 4 --games 200
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.reference import cro_magnon  # noqa: E402
from interpreter.api import load, new_game  # noqa: E402
from interpreter.core.chance import ChanceTap  # noqa: E402
from interpreter.core.game import Game  # noqa: E402
from interpreter.core.state import run  # noqa: E402

DEFAULT_GAMES = {2: 60, 3: 40, 4: 30, 5: 20, 6: 20}


class Mismatch(Exception):
    pass


class Replay(cro_magnon.Game):
    """The reference game, with its dice and its picks taken from a recorded game."""

    def __init__(self, steps: list[tuple], players: int, adjacency: dict[str, list[str]]):
        super().__init__(0, players, adjacency)
        self.steps = steps
        self.at = 0

    def _next(self, kind: str) -> tuple:
        if self.at == len(self.steps):
            raise Mismatch(f"step {self.at}: the reference wants a {kind}, the game had ended")
        step = self.steps[self.at]
        self.at += 1
        if step[0] != kind:
            raise Mismatch(f"step {self.at - 1}: the reference wants a {kind}, not a {step[0]}")
        return step

    def d(self, sides: int) -> int:
        _, recorded, value = self._next("die")
        if recorded != sides:
            raise Mismatch(
                f"step {self.at - 1}: a d{sides} here, the interpreter rolled a d{recorded}"
            )
        return value

    def choose(self, options: list) -> Any:
        if len(options) == 1:
            return options[0]
        self.decisions += 1
        _, offered, taken = self._next("decision")
        if offered != len(options):
            raise Mismatch(
                f"step {self.at - 1}: {len(options)} options here, the interpreter offered "
                f"{offered}: {options[:8]}"
            )
        return options[taken]


def record(game: Game, players: int, seed: int) -> tuple[list[tuple], Any]:
    """One interpreted game with a `random.Random(seed)` agent: its dice and decisions in
    order, and its final state."""
    state = new_game(game, players=players, seed=seed, run_now=False)
    state.script = ChanceTap()
    state.trace = []
    run(state)
    agent = random.Random(seed)
    picks = []
    while state.pending is not None:
        options = state.pending[1]
        option = agent.choice(options)
        picks.append((len(options), options.index(option)))
        state.apply(option)
    taken = iter(picks)
    steps = []
    for event in state.trace:
        if event[0] == "die":
            steps.append(event)
        elif event[0] == "decision":
            steps.append(("decision", *next(taken)))
    return steps, state


def replay(game: Game, players: int, seed: int) -> int:
    """Decisions in the game of `seed`; raises Mismatch where the two sides differ."""
    adjacency = {k: list(v) for k, v in game.adjacency.items()}
    steps, state = record(game, players, seed)
    ref = Replay(steps, players, adjacency)
    decisions = ref.play()
    if ref.at != len(steps):
        raise Mismatch(f"the reference ended with {len(steps) - ref.at} recorded steps unused")
    if decisions != state.decisions:
        raise Mismatch(f"{decisions} decisions, the interpreter counted {state.decisions}")
    for p in range(players):
        for t, name in enumerate(adjacency):
            if state.get("bands", p, name) != ref.bands[p][t]:
                raise Mismatch(
                    f"tribe {p + 1} ends with {ref.bands[p][t]} bands in {name}, "
                    f"the interpreter with {state.get('bands', p, name)}"
                )
    return decisions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, action="append", help="repeatable; default 2-6")
    parser.add_argument("--games", type=int, help="seeds 0..games-1 for every player count")
    args = parser.parse_args(argv)
    game = load("cro-magnon")
    failed = False
    for players in args.players or sorted(DEFAULT_GAMES):
        games = args.games or DEFAULT_GAMES.get(players, 20)
        total = 0
        for seed in range(games):
            try:
                total += replay(game, players, seed)
            except Mismatch as err:
                print(f"{players} players, seed {seed}: {err}")
                failed = True
                break
        else:
            print(
                f"{players} players, seeds 0-{games - 1}: the same games, "
                f"{total / games:.1f} decisions per game"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
