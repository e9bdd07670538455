"""A seat's observation as a fixed-length vector of numbers, for learning agents.

In: a `Game`, a player count, then a `State` and a seat (None, or a negative number: a
spectator). Out: a float32 numpy array whose length depends only on the ruleset and the
player count. Every value comes from `State.observation(seat)`, so nothing the seat may not
see reaches it. The layout follows the observation's schema (interpreter/protocol/observe.py):
each variable in order, each entry in key order, and per entry

- `int`: the number; `bool`: 0 or 1; `text`: 1 when not empty;
- `player`: one-hot over the seats, then one slot for none;
- an enum's, a table's or a map's value: one-hot over its values (sorted), then one for
  none or a value outside them;
- a list: its length, then how many times each value occurs (for a list of seats or of
  named values) or the sum (for a list of numbers), counting only entries the seat sees;
- anything else (`any`, effect values): a number as itself, a list as its length.

A masked entry (`{"hidden": ...}`) shows only what the mark says: a list's length, else 0.
After the variables: the seat itself (one-hot), who is to decide (one-hot, then none), the
decision's prompt (one-hot over the ruleset's prompts, then none), whether the seat decides,
how many options it has, and the round. Numbers are clipped to +-`LIMIT`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dsl.semantics.types import BOOL, INT, PLAYER, TEXT, ListOf, Named, Type
from interpreter.core.game import Game, VarSpec
from interpreter.core.state import State

LIMIT = 1e9

# writes one entry at an offset of the vector; an entry's width is fixed by its type
Writer = Callable[[Any, np.ndarray, int], None]


class Encoder:
    """The vector layout of one ruleset at one player count."""

    def __init__(self, game: Game, players: int):
        self.game = game
        self.players = players
        self.prompts = sorted({site.prompt for site in game.sites})
        self._vars: list[tuple[VarSpec, int, Writer]] = []
        self.fields: list[tuple[str, int, int]] = []  # (name, offset, width) of each part
        offset = 0
        for spec in game.shown_vars:
            width, write = self._entry(spec.type, spec.visibility)
            count = _entries(spec, players)
            self._vars.append((spec, width, write))
            self.fields.append((spec.name, offset, width * count))
            offset += width * count
        for name, width in (
            ("$seat", players),
            ("$to_move", players + 1),
            ("$prompt", len(self.prompts) + 1),
            ("$deciding", 1),
            ("$options", 1),
            ("$round", 1),
        ):
            self.fields.append((name, offset, width))
            offset += width
        self.size = offset

    def encode(self, state: State, seat: int | None) -> np.ndarray:
        """The vector of what `seat` sees of `state` (None or negative: a spectator)."""
        if seat is not None and seat < 0:
            seat = None
        out = np.zeros(self.size, dtype=np.float32)
        seen = state.observation(seat)
        offset = 0
        for spec, width, write in self._vars:
            value = seen["vars"][spec.name]
            entries = value if spec.domains else [value]
            for entry in entries:
                write(entry, out, offset)
                offset += width
        n = self.players
        if seat is not None:
            out[offset + seat] = 1
        offset += n
        decision = seen["decision"]
        out[offset + (decision["player"] if decision else n)] = 1
        offset += n + 1
        prompt = decision["prompt"] if decision else None
        where = self.prompts.index(prompt) if prompt in self.prompts else len(self.prompts)
        out[offset + where] = 1
        offset += len(self.prompts) + 1
        options = decision["options"] if decision else None
        out[offset] = 1 if options is not None else 0
        out[offset + 1] = len(options) if options is not None else 0
        out[offset + 2] = seen["rounds"]
        np.clip(out, -LIMIT, LIMIT, out=out)
        return out

    # ------------------------------------------------------------------ entry writers
    def _entry(self, t: Type | None, visibility: str) -> tuple[int, Writer]:
        """The width of one entry of type `t`, and its writer."""
        if isinstance(t, ListOf):
            return self._list(t.elem, visibility)
        if t == INT or t == BOOL:
            return 1, _write_number
        if t == TEXT:
            return 1, _write_text
        values = self._values(t)
        if values is not None:
            return len(values) + 1, _one_hot(values)
        return 1, _write_loose

    def _list(self, elem: Type, visibility: str) -> tuple[int, Writer]:
        values = self._values(elem)
        if values is not None:
            slot = {v: i for i, v in enumerate(values)}

            def count(value: Any, out: np.ndarray, at: int) -> None:
                entries = _visible_entries(value, out, at)
                for item in entries:
                    i = slot.get(item) if isinstance(item, str | int) else None
                    if i is not None:
                        out[at + 1 + i] += 1

            return len(values) + 1, count
        if elem == INT or elem == BOOL:

            def total(value: Any, out: np.ndarray, at: int) -> None:
                entries = _visible_entries(value, out, at)
                out[at + 1] = sum(float(v) for v in entries if _is_number(v))

            return 2, total
        return 1, _write_length

    def _values(self, t: Type | None) -> tuple[Any, ...] | None:
        """The values of a type with finitely many, in a fixed order; None otherwise."""
        if t == PLAYER:
            return tuple(range(self.players))
        if isinstance(t, Named) and t.name in self.game.named:
            return tuple(sorted(self.game.named[t.name]))
        return None


def _entries(spec: VarSpec, players: int) -> int:
    """How many entries a variable has in an observation of a game of `players`."""
    count = 1
    for i, domain in enumerate(spec.domains):
        count *= players if spec.by_player and i == 0 else len(domain)
    return count


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float)


def _write_number(value: Any, out: np.ndarray, at: int) -> None:
    if _is_number(value):
        out[at] = max(-LIMIT, min(LIMIT, float(value)))


def _write_text(value: Any, out: np.ndarray, at: int) -> None:
    out[at] = 1 if isinstance(value, str) and value else 0


def _write_loose(value: Any, out: np.ndarray, at: int) -> None:
    """A value of no fixed shape: a number as itself, a list (or a masked one) as its length."""
    if _is_number(value):
        _write_number(value, out, at)
    else:
        _visible_entries(value, out, at)


def _write_length(value: Any, out: np.ndarray, at: int) -> None:
    _visible_entries(value, out, at)


def _visible_entries(value: Any, out: np.ndarray, at: int) -> list:
    """Write a list's length at `at` and return the entries the seat sees: none of a masked
    list, the top of a zone seen from above, the face-up entries of one seen from its backs."""
    if isinstance(value, list):
        out[at] = len(value)
        return [v for v in value if not (isinstance(v, dict) and "hidden" in v)]
    if isinstance(value, dict):
        if "top" in value:
            out[at] = value["size"]
            return [] if value["top"] is None or isinstance(value["top"], dict) else [value["top"]]
        hidden = value.get("hidden")
        if isinstance(hidden, int) and not isinstance(hidden, bool):
            out[at] = hidden
    return []


def _one_hot(values: tuple[Any, ...]) -> Writer:
    slot = {v: i for i, v in enumerate(values)}
    none = len(values)

    def write(value: Any, out: np.ndarray, at: int) -> None:
        if isinstance(value, dict):  # masked: nothing is known of it
            return
        i = slot.get(value, none) if isinstance(value, str | int) else none
        if isinstance(value, bool):
            i = none
        out[at + i] = 1

    return write
