"""What both adapters share about play: the fixed action space, where action `i` is the
`i`-th option of the pending decision in the ruleset's stable order, and the rewards.

In: a `Game` and a player count, then a `State`. Out: how many actions to reserve, the option
an action index stands for (or a K515 error), each player's reward for a finished game.

The language declares no upper bound on a decision's options, so the bound is measured: the
most options any decision offered in seeded random games, times a safety margin. A decision
that offers more than the space holds has only its first options reachable
(docs/adapters.md, "Limits").
"""

from __future__ import annotations

import math
import operator
import random
from typing import Any

from dsl.errors import IllegalMove, diag
from interpreter.api import new_game
from interpreter.core.game import Game
from interpreter.core.state import State

MEASURE_GAMES = 50
MARGIN = 2.0

# (fingerprint, players, games, seed) -> the most options seen; measuring plays whole games
_measured: dict[tuple[str, int, int, int], int] = {}


def measure(game: Game, players: int, games: int = MEASURE_GAMES, seed: int = 0) -> int:
    """The most options any decision offered in `games` random games (game k: seed
    `seed + k` for its dice and for the random choices), remembered for the process."""
    key = (game.fingerprint, players, games, seed)
    if key not in _measured:
        most = 1
        for k in range(games):
            state = new_game(game, players, seed + k)
            pick = random.Random(seed + k)
            while not state.is_over() and state.decisions < state.bound:
                options = state.legal()
                most = max(most, len(options))
                state.apply(pick.choice(options))
        _measured[key] = most
    return _measured[key]


def space_size(
    game: Game,
    players: int,
    games: int = MEASURE_GAMES,
    seed: int = 0,
    margin: float = MARGIN,
) -> int:
    """How many actions to reserve: the measured most options times `margin`, rounded up."""
    return max(1, math.ceil(measure(game, players, games, seed) * margin))


def legal_count(state: State, size: int) -> int:
    """How many actions are legal now: the pending options that fit in the space."""
    pending = state.pending
    return 0 if pending is None else min(len(pending[1]), size)


def option_at(state: State, action: Any, size: int) -> Any:
    """The option that action index `action` stands for; K515 for anything that is not the
    index of a pending option inside the space (the state is not touched)."""
    decision = state.decision()
    count = legal_count(state, size)
    index = _index(action)
    if decision is not None and index is not None and 0 <= index < count:
        return decision.options[index]
    span = state.game.sites[decision.site].span if decision else state.game.procs[0].span
    if decision is None:
        why, hint = "the game is over: no action is legal", None
    else:
        why = f"action {action!r} is not legal here: the decision has {count} legal action(s)"
        hint = f"give an index from 0 to {count - 1} (the action mask's ones)"
    raise IllegalMove(diag("K515", why, span, hint=hint))


def _index(action: Any) -> int | None:
    """An integer (numpy's too) as an index; None for anything else, booleans included."""
    if isinstance(action, bool):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def rewards_of(state: State) -> list[float]:
    """Each player's reward for a finished game: +1 a winner, -1 the others, 0 on no winner."""
    outcome = state.outcome()
    winners = outcome["winners"] if outcome else []
    if not winners:
        return [0.0] * state.n
    return [1.0 if p in winners else -1.0 for p in range(state.n)]
