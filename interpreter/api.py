"""The small public API for front-ends: load a ruleset, start a game.

game = load("cro-magnon")          # a bundled name or a path; compiled once, reusable
state = new_game(game, players=3, seed=7)
"""

from __future__ import annotations

import functools

from dsl.errors import KnapperError, Span, diag
from dsl.pipeline import compile_path
from interpreter import rng
from interpreter.game import Game
from interpreter.state import State, start


@functools.lru_cache(maxsize=64)
def load(name_or_path: str) -> Game:
    return compile_path(name_or_path)


def new_game(
    game: Game, players: int | None = None, seed: int = 0, dice: list[int] | None = None
) -> State:
    n = players if players is not None else game.players[0]
    lo, hi = game.players
    if not lo <= n <= hi:
        raise KnapperError(
            diag(
                "K503",
                f"{game.name} is played by {lo}..{hi} players, not {n}",
                Span(game.name, 0, 0, 0, 0),
            )
        )
    return start(game, n, rng.seed_state(seed), script=dice)
