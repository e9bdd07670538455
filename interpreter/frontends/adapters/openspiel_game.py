"""Any ruleset as an OpenSpiel Python game (docs/adapters.md).

In: a ruleset name or path. Out: a game registered with `pyspiel.register_game` as
`knapper_<name>` (the name's other characters as `_`), with the parameters `players`,
`rng_seed`, `deals` and `max_actions` (0: measured, `actions.space_size`). An action is the
index of an option of the pending decision.

Chance. Knapper rolls dice and shuffles inside `apply`, from the state's own seeded
generator, in the middle of a rule: the engine cannot stop there for a chance node. So the
game has one explicit chance node, its first: the deal, `deals` equally likely outcomes,
outcome `i` starting the Knapper game with seed `rng_seed * deals + i`, which fixes every
die and shuffle to come (`EXPLICIT_STOCHASTIC`; docs/adapters.md, "Chance"). A state is
saved as OpenSpiel saves a Python state, its attributes pickled: here only the deal and the
actions taken, replayed when loaded. Returns: +1 to each winner, -1 to the others, 0 to all
when nobody wins or the game stops at its bound.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pyspiel

from interpreter.api import load, new_game, seat_count
from interpreter.core.game import Game
from interpreter.core.state import State
from interpreter.frontends.adapters.actions import (
    legal_count,
    option_at,
    rewards_of,
    space_size,
)
from interpreter.frontends.adapters.encode import Encoder
from interpreter.protocol.observe import observe

DEALS = 1 << 16  # the deal's outcomes, unless the `deals` parameter says otherwise

# short name -> the ruleset's name or path, for games loaded again by name (deserialising)
_registered: dict[str, str] = {}


def short_name(game: Game) -> str:
    return "knapper_" + re.sub(r"[^A-Za-z0-9]", "_", game.name)


def register(ruleset: str) -> str:
    """Register a ruleset (a bundled name or a path) with OpenSpiel, once; its short name.
    Another text under a name already registered is refused (ValueError)."""
    game = load(ruleset)
    name = short_name(game)
    known = _registered.get(name)
    if known is not None:
        if load(known).fingerprint != game.fingerprint:
            raise ValueError(
                f"{name} is registered already, for {known!r}: {ruleset!r} is another text "
                "of the same name (OpenSpiel cannot register a name twice in one process)"
            )
        return name
    public = all(spec.visibility == "public" for spec in game.shown_vars)
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"Knapper: {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(
            pyspiel.GameType.Information.PERFECT_INFORMATION
            if public
            else pyspiel.GameType.Information.IMPERFECT_INFORMATION
        ),
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.players[1],
        min_num_players=game.players[0],
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": game.players[0],
            "rng_seed": 0,
            "deals": DEALS,
            "max_actions": 0,
        },
    )
    _registered[name] = ruleset
    # OpenSpiel makes games by calling a class with the parameters: one subclass per ruleset
    kind = type(f"KnapperGame_{name}", (KnapperGame,), {"game_type": game_type})
    pyspiel.register_game(game_type, kind)
    return name


def load_game(ruleset: str, **params: int) -> pyspiel.Game:
    """Register `ruleset` if needed and load it with `params` (players, rng_seed, deals,
    max_actions)."""
    return pyspiel.load_game(register(ruleset), params)


class KnapperGame(pyspiel.Game):
    """One ruleset at one player count; `max_actions` distinct actions."""

    game_type: pyspiel.GameType  # set by `register` on each ruleset's subclass

    def __init__(self, params: dict[str, Any] | None = None):
        params = params or {}
        game_type = self.game_type
        ruleset = _registered[game_type.short_name]
        self.knapper = load(ruleset)
        self.ruleset = ruleset
        self.players = seat_count(self.knapper, params.get("players"))
        self.max_actions = int(params.get("max_actions", 0)) or space_size(
            self.knapper, self.players
        )
        self.encoder = Encoder(self.knapper, self.players)
        self.deals = int(params.get("deals", DEALS))
        if self.deals < 1:
            raise ValueError(f"a game needs at least one deal, not {self.deals}")
        self.first_seed = int(params.get("rng_seed", 0)) * self.deals
        bound = self.knapper.bound if self.knapper.bound is not None else 1_000_000
        info = pyspiel.GameInfo(
            num_distinct_actions=self.max_actions,
            max_chance_outcomes=self.deals,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=bound,
        )
        super().__init__(game_type, info, params)

    def new_initial_state(self) -> KnapperSpielState:
        return KnapperSpielState(self, _Run(self))

    def max_chance_nodes_in_history(self) -> int:
        return 1

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict | None = None
    ) -> KnapperObserver:
        if params:
            raise ValueError(f"a Knapper game's observer takes no parameters, not {params}")
        public_only = (
            iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        )
        return KnapperObserver(self.encoder, public_only)


class _Run:
    """A Knapper game as OpenSpiel keeps it: the deal (None until the chance node is taken),
    the actions taken since, and the state they lead to, made when first needed. A deep copy
    clones the state; a pickle holds only the deal and the actions, replayed when loaded."""

    def __init__(self, game: KnapperGame):
        self.ruleset = game.ruleset
        self.players = game.players
        self.max_actions = game.max_actions
        self.deals = game.deals
        self.first_seed = game.first_seed
        self.deal: int | None = None
        self.actions: list[int] = []
        self._state: State | None = None

    @property
    def seed(self) -> int | None:
        return None if self.deal is None else self.first_seed + self.deal

    @property
    def state(self) -> State:
        if self._state is None:
            assert self.seed is not None, "no deal yet: the first node is chance's"
            state = new_game(load(self.ruleset), self.players, self.seed)
            for action in self.actions:
                state.apply(option_at(state, action, self.max_actions))
            self._state = state
        return self._state

    def __deepcopy__(self, memo: dict) -> _Run:
        other = _Run.__new__(_Run)
        other.__dict__.update(self.__dict__)
        other.actions = list(self.actions)
        other._state = self._state.clone() if self._state is not None else None
        return other

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_state"}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.__dict__.update(data)
        self._state = None

    def stopped(self) -> bool:
        """Over, or at its bound with no decision left that may be taken."""
        if self.deal is None:
            return False
        state = self.state
        return state.is_over() or state.decisions >= state.bound


class KnapperSpielState(pyspiel.State):
    """An OpenSpiel state over a Knapper game (its only attribute is the `_Run`)."""

    def __init__(self, game: KnapperGame, run: _Run):
        super().__init__(game)
        self.run = run

    def current_player(self) -> int:
        if self.run.deal is None:
            return pyspiel.PlayerId.CHANCE
        if self.run.stopped():
            return pyspiel.PlayerId.TERMINAL
        decision = self.run.state.decision()
        assert decision is not None
        return decision.player

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.run.deal is not None:
            return []
        chance = 1.0 / self.run.deals
        return [(i, chance) for i in range(self.run.deals)]

    def _legal_actions(self, player: int) -> list[int]:
        if self.run.deal is None or self.run.stopped():
            return []
        return list(range(legal_count(self.run.state, self.run.max_actions)))

    def _apply_action(self, action: int) -> None:
        run = self.run
        if run.deal is None:
            if not 0 <= action < run.deals:
                raise ValueError(f"the deal is one of 0..{run.deals - 1}, not {action}")
            run.deal = int(action)
            return
        state = run.state
        state.apply(option_at(state, action, run.max_actions))
        run.actions.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        run = self.run
        if player == pyspiel.PlayerId.CHANCE or run.deal is None:
            return f"deal {action} (seed {run.first_seed + action})"
        state = run.state
        options = state.legal()
        if 0 <= action < len(options):
            return f"{action}: {state.game.describe(options[action])}"
        return f"{action}: not an option here"

    def is_terminal(self) -> bool:
        return self.run.stopped()

    def returns(self) -> list[float]:
        if self.run.deal is None or not self.run.state.is_over():
            return [0.0] * self.run.players
        return rewards_of(self.run.state)

    def __str__(self) -> str:
        run = self.run
        if run.deal is None:
            return f"{run.ruleset}: no deal yet ({run.deals} deals)"
        state = run.state
        decision = state.decision()
        head = (
            f"over: {state.outcome()}"
            if decision is None
            else f"P{decision.player + 1} to decide: {decision.prompt} ({len(decision.options)})"
        )
        view = json.dumps(observe(state, None), sort_keys=True, default=str)
        return f"{state.game.name} seed={run.seed} decisions={state.decisions}\n{head}\n{view}"


class KnapperObserver:
    """OpenSpiel's observer (the PyObserver interface): the seat's vector as `tensor`, and its
    protocol observation as text. `public_only`: what a spectator sees, for every seat."""

    def __init__(self, encoder: Encoder, public_only: bool):
        self.encoder = encoder
        self.public_only = public_only
        self.tensor = np.zeros(encoder.size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def _seat(self, player: int) -> int | None:
        return None if self.public_only or player < 0 else player

    def set_from(self, state: KnapperSpielState, player: int) -> None:
        """The vector (all zeros before the deal: nothing is set out yet)."""
        if state.run.deal is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = self.encoder.encode(state.run.state, self._seat(player))

    def string_from(self, state: KnapperSpielState, player: int) -> str:
        if state.run.deal is None:
            return "no deal yet"
        return json.dumps(observe(state.run.state, self._seat(player)), sort_keys=True, default=str)
