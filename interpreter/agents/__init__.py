"""Agents: who picks an option when a player must decide.

An agent is any callable `(state, decision) -> option`, and only ever returns one of the
decision's options. Bundled, each seeded: `random`; and the searching agents, which read
nothing a seat may not see (each searches copies of the game as that seat may believe it,
interpreter/agents/sample.py): `greedy` (interpreter/agents/greedy.py), `flatmc`
(flatmc.py) and `ismcts` (ismcts.py). `Seating` names one per seat.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

import attrs

from interpreter.core.state import Decision, State


class Agent(Protocol):
    def __call__(self, state: State, decision: Decision) -> Any: ...


class RandomAgent:
    def __init__(self, seed: Any = 0):
        self.rng = random.Random(seed)

    def __call__(self, state: State, decision: Decision) -> Any:
        return self.rng.choice(decision.options)


AGENTS = ("random", "greedy", "flatmc", "ismcts")


@attrs.frozen
class Seating:
    """Which agent sits at each seat: their names (one name: every seat), the search budget
    of each (`SearchBudget` text: `200` playouts, `0.5s`; one for all, or one per seat;
    default 200 playouts, which `greedy` reads as copies per option, default 1) and the
    most decisions a playout may take (`depth`; default: to the end of the game).
    `knapper simulate --agents --budget --depth` and `knapper play --opponents` make one."""

    names: tuple[str, ...] = ("random",)
    budgets: tuple[str, ...] = ()
    depth: int | None = None

    @property
    def is_random(self) -> bool:
        return all(name == "random" for name in self.names)

    def describe(self, players: int) -> tuple[str, ...]:
        """Each seat's agent, as `name` or `name:budget`."""
        names, budgets = self._spread(players)
        return tuple(
            n if n == "random" or b is None else f"{n}:{b}" for n, b in zip(names, budgets)
        )

    def _spread(self, players: int):
        from interpreter.agents.search import SearchBudget, agent_error

        names = [n.strip() for n in self.names]
        if len(names) == 1:
            names = names * players
        if len(names) != players:
            raise agent_error(
                f"{len(names)} agents named for {players} players: name one, or one per seat"
            )
        for name in names:
            if name not in AGENTS:
                raise agent_error(f"no agent named {name!r}; the agents are {', '.join(AGENTS)}")
        budgets: list[SearchBudget | None] = [SearchBudget.parse(b) for b in self.budgets]
        if len(budgets) == 1:
            budgets = budgets * players
        if not budgets:
            budgets = [None] * players
        if len(budgets) != players:
            raise agent_error(
                f"{len(budgets)} budgets given for {players} players: give one, or one per seat"
            )
        if self.depth is not None and self.depth < 1:
            raise agent_error(
                f"a playout's depth is a number of decisions, at least 1, not {self.depth}",
                "--depth",
            )
        return names, budgets

    def turned(self, k: int, players: int) -> Seating:
        """The same agents moved `k` seats on (seat p gets what seat p - k had), to take the
        seat's advantage out of the agents' comparison (`knapper balance --rotate`)."""
        names = [n.strip() for n in self.names]
        names = names * players if len(names) == 1 else names
        budgets = list(self.budgets) * players if len(self.budgets) == 1 else list(self.budgets)
        self._spread(players)  # the same errors as the seating itself
        if len(set(zip(names, budgets or names))) == 1:
            return self

        def turn(xs: list[str]) -> tuple[str, ...]:
            return tuple(xs[(p - k) % players] for p in range(players))

        return attrs.evolve(self, names=turn(names), budgets=turn(budgets) if budgets else ())

    def options(self) -> str:
        """The command-line options that seat these agents (none for all random)."""
        if self.is_random:
            return ""
        out = f" --agents {','.join(self.names)}"
        if self.budgets:
            out += f" --budget {','.join(self.budgets)}"
        if self.depth is not None:
            out += f" --depth {self.depth}"
        return out

    def agents(self, players: int, seed: int) -> list[Agent] | Agent:
        """The agents of the game of `seed`. Every seat `random`: one random agent seeded
        with `seed`, the one `knapper simulate` has always used, so those games stay the
        same seed for seed. Otherwise each seat's agent is seeded from the seed and the
        seat."""
        from interpreter.agents.flatmc import FlatMonteCarloAgent
        from interpreter.agents.greedy import GreedyAgent
        from interpreter.agents.ismcts import ISMCTSAgent

        searchers = {"greedy": GreedyAgent, "flatmc": FlatMonteCarloAgent, "ismcts": ISMCTSAgent}
        names, budgets = self._spread(players)
        if self.is_random:
            return RandomAgent(seed)
        out: list[Agent] = []
        for p, (name, budget) in enumerate(zip(names, budgets)):
            own = f"{seed}:{p}"
            if name == "random":
                out.append(RandomAgent(own))
            else:
                out.append(searchers[name](own, budget, self.depth))
        return out


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
