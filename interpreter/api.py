"""The small public API for front-ends: load a ruleset, start a game.

game = load("pig")                 # a bundled name or a path; compiled once, reusable
state = new_game(game, players=3, seed=7)
"""

from __future__ import annotations

import secrets
import threading
from pathlib import Path

from dsl.errors import KnapperError, Span, diag
from dsl.pipeline import compile_path
from dsl.semantics.resolve import find_ruleset
from interpreter.core import rng
from interpreter.core.budget import Budget
from interpreter.core.game import Game
from interpreter.core.state import State, start


def load(name_or_path: str) -> Game:
    """A bundled ruleset by name, or a `.knap` file: compiled once, then reused until that
    file or any file it imports or extends changes. Threads that load one ruleset at once
    wait for a single compilation and share its Game."""
    path = find_ruleset(name_or_path)
    if path is None:
        return compile_path(name_or_path)  # reports the unknown name
    key = str(path)
    game = _fresh(key)
    if game is not None:
        return game
    with _lock_for(key):
        game = _fresh(key)  # another thread may have compiled it while this one waited
        if game is None:
            game = compile_path(key)
            _cache[key] = (_stamps(game.program.sources), game)
    return game


def _fresh(key: str) -> Game | None:
    """The cached Game for `key`, if none of its files changed since it was compiled."""
    cached = _cache.get(key)
    if cached is not None and cached[0] == _stamps(cached[1].program.sources):
        return cached[1]
    return None


def _lock_for(key: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(key, threading.Lock())


def _stamps(files) -> tuple[int, ...]:
    out = []
    for name in sorted(files):
        try:
            out.append(Path(name).stat().st_mtime_ns)
        except OSError:
            out.append(-1)
    return tuple(out)


# The one module-level cache kept on purpose (see tests/test_globals.py): a memo of immutable
# Games, checked against their files' stamps. A lock per file makes it single-flight: threads
# that miss at once compile it once, and the others take that Game.
_cache: dict[str, tuple[tuple[int, ...], Game]] = {}
_locks: dict[str, threading.Lock] = {}  # one per file ever loaded; never removed
_locks_guard = threading.Lock()  # held only to find or add a file's lock


def seat_count(game: Game, players: int | None) -> int:
    """The number of players a game of `game` has when asked for `players` (None: the
    fewest it allows); K503 for a number it does not allow."""
    n = players if players is not None else game.players[0]
    lo, hi = game.players
    if not lo <= n <= hi:
        raise KnapperError(
            diag(
                "K503",
                f"{game.name} is played by {lo if lo == hi else f'{lo} to {hi}'} players, not {n}",
                Span(game.name, 0, 0, 0, 0),
            )
        )
    return n


def new_game(
    game: Game,
    players: int | None = None,
    seed: int | None = None,
    dice: list[int] | None = None,
    run_now: bool = True,
    budget: Budget | None = None,
) -> State:
    """A new game, its setup already played; with `run_now=False` the setup waits for
    `interpreter.core.state.run(state)`, so a trace can watch it too. `budget` limits the
    work of the rules between two decisions (`interpreter.core.budget.Budget`; its
    defaults by default).

    Without a `seed` the game draws a random 64-bit one (`secrets.randbits(64)`), kept as
    `state.seed` so the game can be played again: a known or guessable seed tells every die
    and every hidden card. Tests and golden files pass their seed."""
    n = seat_count(game, players)
    if seed is None:
        seed = secrets.randbits(64)
    if dice or not run_now or budget is not None:
        state = start(game, n, rng.seed_state(seed), script=dice, run_now=run_now, budget=budget)
    else:
        state = _set_up(game, n, rng.seed_state(seed))
    # only the seed's low 64 bits reach the generator, so they are all a save needs
    state.seed = seed & rng.MASK
    state.dealt = tuple(dice or ())
    return state


def _set_up(game: Game, n: int, generator: int) -> State:
    """A game of `n` players with its setup played, from the generator state `generator`.

    A setup that rolls no die plays the same whatever the seed: the first one is kept
    (`Game.prepared`, by player count) and every later game starts from a copy of it with
    its own generator, which costs a fraction of playing the setup again."""
    kept = game.prepared.get(n)
    if kept is not None:
        state = kept.clone()
        state.rng = generator
        return state
    state = start(game, n, generator)
    if state.rng == generator and not state.script:  # no die was rolled
        game.prepared[n] = state.clone()
    return state
