"""Agents: who picks an option when a player must decide.

An agent is any callable `(state, decision) -> option`. The random agent is seeded and only
ever returns one of the legal options.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from interpreter.core.state import Decision, State


class Agent(Protocol):
    def __call__(self, state: State, decision: Decision) -> Any: ...


class RandomAgent:
    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def __call__(self, state: State, decision: Decision) -> Any:
        return self.rng.choice(decision.options)


def play_out(state: State, agents: list[Agent] | Agent, check_invariants: bool = False) -> State:
    """Let the agents decide until the game ends; returns the same (now finished) state.
    With `check_invariants`, the invariants are checked at the first decision too."""
    if check_invariants:
        _check(state)
    while (decision := state.decision()) is not None:
        agent = agents[decision.player] if isinstance(agents, list) else agents
        state.apply(agent(state, decision))
        if check_invariants:
            _check(state)
    return state


def _check(state: State) -> None:
    broken = state.check_invariants()
    if broken:
        from dsl.errors import RulesetRuntimeError

        raise RulesetRuntimeError(broken)
