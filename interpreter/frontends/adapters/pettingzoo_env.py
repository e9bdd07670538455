"""Any ruleset as a PettingZoo AEC environment (docs/adapters.md).

In: a ruleset (a bundled name, a path, or a compiled `Game`) and a player count. Out:
`KnapperEnv`, where agent `player_i` is the engine's player `i`. Only the player who decides
(`state.decision().player`) acts; the others wait. An observation is
`{"observation": vector, "action_mask": mask}`: the vector of what that agent's own seat
sees (`encode.Encoder`) and a 0/1 mask over the fixed action space (`actions`), ones only for
the agent that decides. Rewards come at the end: +1 to each winner and -1 to the others,
0 to everyone when nobody wins; a game stopped at its bound (or at `max_decisions`) is
truncated with no reward.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from interpreter.api import load, new_game, seat_count
from interpreter.core.game import Game
from interpreter.core.state import State
from interpreter.frontends.adapters.actions import (
    MARGIN,
    MEASURE_GAMES,
    legal_count,
    option_at,
    rewards_of,
    space_size,
)
from interpreter.frontends.adapters.encode import LIMIT, Encoder


class KnapperEnv(AECEnv):
    """A Knapper ruleset as an AEC environment.

    `max_actions` is the size of every agent's `Discrete` action space; when not given it is
    measured (`actions.space_size`: the most options seen in `measure_games` seeded random
    games, times `margin`)."""

    metadata = {"name": "knapper_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        ruleset: str | Game,
        players: int | None = None,
        max_actions: int | None = None,
        measure_games: int = MEASURE_GAMES,
        margin: float = MARGIN,
        max_decisions: int | None = None,
        render_mode: str | None = None,
    ):
        super().__init__()
        self.game = ruleset if isinstance(ruleset, Game) else load(ruleset)
        self.players = seat_count(self.game, players)
        self.metadata = dict(self.metadata, name=f"knapper_{self.game.name}")
        self.render_mode = render_mode
        self.max_decisions = max_decisions
        self.max_actions = (
            max_actions
            if max_actions is not None
            else space_size(self.game, self.players, measure_games, 0, margin)
        )
        self.encoder = Encoder(self.game, self.players)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        -LIMIT, LIMIT, (self.encoder.size,), dtype=np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, (self.max_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.max_actions) for a in self.possible_agents}
        self.clipped = 0  # decisions met with more options than the action space holds
        self._seeds: random.Random | None = None
        self.state: State | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the AEC contract
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game. A seed fixes it and the games after it; without one, the next game of
        the last seed given (or of a random one)."""
        if seed is not None or self._seeds is None:
            self._seeds = random.Random(seed)
        self.state = new_game(self.game, self.players, self._seeds.getrandbits(63))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[0]
        self._after_move()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._playing()
        option = option_at(state, action, self.max_actions)
        state.apply(option)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._after_move()
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._playing()
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.max_actions, dtype=np.int8)
        decision = state.decision()
        if decision is not None and decision.player == seat:
            mask[: legal_count(state, self.max_actions)] = 1
        return {"observation": self.encoder.encode(state, seat), "action_mask": mask}

    def render(self) -> str:
        """The position in words: who decides, the prompt and the options, or the outcome."""
        state = self._playing()
        decision = state.decision()
        if decision is None:
            return f"{self.game.name}: over, {state.outcome()}"
        shown = ", ".join(
            f"{i}={self.game.describe(o)}"
            for i, o in enumerate(decision.options[: self.max_actions])
        )
        return f"{self.game.name}: player_{decision.player}, {decision.prompt}: {shown}"

    def close(self) -> None:
        self.state = None

    # ------------------------------------------------------------------ bookkeeping
    def _playing(self) -> State:
        if self.state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state

    def _after_move(self) -> None:
        """Select who decides next, or end the game for everyone."""
        state = self._playing()
        if state.is_over():
            for agent, reward in zip(self.possible_agents, rewards_of(state)):
                self.rewards[agent] = reward
                self.terminations[agent] = True
            return
        if state.decisions >= state.bound or (
            self.max_decisions is not None and state.decisions >= self.max_decisions
        ):
            for agent in self.agents:
                self.truncations[agent] = True
            return
        decision = state.decision()
        assert decision is not None  # a game not over waits for a decision
        if len(decision.options) > self.max_actions:
            self.clipped += 1
        self.agent_selection = self.possible_agents[decision.player]


def env(ruleset: str | Game, **kwargs: Any) -> KnapperEnv:
    """A `KnapperEnv` (PettingZoo's usual constructor name)."""
    return KnapperEnv(ruleset, **kwargs)
