"""What the searching agents share: how much they may search, and a random playout.

A budget is a number of playouts (`200`) or of CPU seconds per decision (`0.5s`). A budget
of playouts is reproducible: the same seed gives the same choices on every machine; one of
seconds gives as many playouts as the time allows, so its choices depend on the machine.

A playout in which the rules fail (a K4xx error) is dropped and counted in the agent's
`dropped`: the copy it played was dealt by the agent (interpreter/agents/sample.py), and a
deal that looks the same to the seat may still break what the rules take for granted
elsewhere (where a kind of card can be). Such a deal teaches nothing about the game; an
error of the real game shows when the chosen option is applied to it.
"""

from __future__ import annotations

import random
import time
from typing import Any

import attrs

from dsl.errors import KnapperError, Span, diag
from interpreter.core.state import Decision, State


@attrs.frozen
class SearchBudget:
    playouts: int | None = 200
    seconds: float | None = None

    @classmethod
    def parse(cls, text: str) -> SearchBudget:
        """`200` (playouts) or `0.5s` (CPU seconds), per decision."""
        raw = text.strip()
        try:
            if raw.endswith("s"):
                seconds = float(raw[:-1])
                if seconds > 0:
                    return cls(None, seconds)
            elif int(raw) > 0:
                return cls(int(raw), None)
        except ValueError:
            pass
        raise agent_error(
            f"a search budget is a number of playouts (200) or of seconds (0.5s), more "
            f"than 0, not {text!r}",
            "--budget",
        )

    def counter(self):
        """A test to call before each playout: True while the budget allows one more."""
        if self.seconds is not None:
            deadline = time.process_time() + self.seconds
            done = [0]

            def more() -> bool:
                done[0] += 1
                return done[0] == 1 or time.process_time() < deadline  # at least one

            return more
        left = [self.playouts]

        def more_playouts() -> bool:
            left[0] -= 1
            return left[0] >= 0

        return more_playouts

    def __str__(self) -> str:
        return f"{self.seconds}s" if self.seconds is not None else str(self.playouts)


class Searcher:
    """What every searching agent holds: its seeded generator, its budget per decision,
    the most decisions a playout may take (None: to the end), and how many playouts the
    rules failed in. A decision with one option is answered without searching; otherwise
    `choose` (each agent's own) picks."""

    default = SearchBudget()  # without a budget given

    def __init__(self, seed: Any = 0, budget: SearchBudget | None = None, depth: int | None = None):
        self.rng = random.Random(seed)
        self.budget = budget or self.default
        self.depth = depth
        self.dropped = 0

    def __call__(self, state: State, decision: Decision) -> Any:
        if len(decision.options) == 1:
            return decision.options[0]
        return self.choose(state, decision)

    def choose(self, state: State, decision: Decision) -> Any:
        raise NotImplementedError


def agent_error(message: str, option: str = "--agents") -> KnapperError:
    """Agents, budgets or depths given wrongly (K513), at the command-line option that
    gives them."""
    return KnapperError(diag("K513", message, Span(option, 0, 0, 0, 0)))


def rollout(state: State, rng: random.Random, limit: int | None) -> None:
    """Random options until the game ends or `limit` more decisions have been taken."""
    left = limit if limit is not None else -1
    while left != 0 and (decision := state.decision()) is not None:
        state.apply(rng.choice(decision.options))
        left -= 1


def key(option):
    """An option as a dict key (a list option as a tuple, however deep)."""
    return tuple(key(x) for x in option) if option.__class__ is list else option
