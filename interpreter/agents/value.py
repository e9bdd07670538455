"""What a position is worth to each seat, in 0..1, for agents that search.

A finished game: 1 to each winner and 0 to the others; when nobody wins, 0.5 to everyone (a
draw is better than a loss, worse than a win; in a cooperative game a shared win is still
better than no winner). An unfinished one (a playout cut short): each seat's share of the
others it stands above by the ruleset's `heuristic(p)`, else its `score(p)`, a tie counting
half; 0.5 to everyone when the ruleset declares neither, or when one seat plays alone.
"""

from __future__ import annotations

from interpreter.core.state import State


def values(state: State) -> list[float]:
    n = state.n
    winners = state.winners
    if winners is not None:
        if not winners:
            return [0.5] * n
        return [1.0 if p in winners else 0.0 for p in range(n)]
    standing = state.standing() if n > 1 else None
    if standing is None:
        return [0.5] * n
    out = []
    for p in range(n):
        above = sum(1.0 if standing[p] > s else 0.5 if standing[p] == s else 0.0 for s in standing)
        out.append((above - 0.5) / (n - 1))  # less the tie with itself
    return out


def margin(state: State, seat: int) -> float:
    """How far `seat` stands ahead of the best other seat (its own standing when alone), for
    a one-step comparison of options; a finished game ranks above any unfinished one by its
    value (`values`)."""
    if state.winners is not None:
        return 1e18 * (values(state)[seat] - 0.5)
    standing = state.standing()
    if standing is None:
        return 0.0
    others = [s for p, s in enumerate(standing) if p != seat]
    return float(standing[seat] - (max(others) if others else 0))
