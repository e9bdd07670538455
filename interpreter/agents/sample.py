"""A game as one seat may believe it: a copy whose hidden parts are dealt again.

`sample(state, seat, rng)` returns a clone of `state` in which every entry of a declared
variable that `seat` does not see (by the variable's `visible` clause, exactly as
`State.observation` masks it) is drawn again: the unseen entries of one type are pooled,
put in a canonical order, shuffled with `rng` and dealt back over the unseen places of that
type. Every size and every entry the seat sees stays as it is. The clone's own generator is
seeded from `rng`, so dice and shuffles still to come are unknown to the seat too, and it
keeps no trace and no way back to the original's seed.

What the copy depends on is therefore only what the seat observes, the pool of what it does
not (the game's components minus what it sees), and `rng`: two states that differ only in
what is hidden from the seat give equal samples. Not re-dealt: scratch variables (the
rules' bookkeeping, in no observation) and the locals of the rules running at the decision.
What a seat could infer from earlier play (the card it put into its own deck) is not kept
either: the sample is as likely as any other deal that looks the same.
"""

from __future__ import annotations

import random

from interpreter.core import rng as generator
from interpreter.core.state import State


def sample(state: State, seat: int, rng: random.Random) -> State:
    copy = state.clone(history=False)
    copy.script = []
    copy.rng = generator.seed_state(rng.getrandbits(64))
    copy.seed = None  # it is not the game that seed tells
    places: dict[str, list[tuple[list, int]]] = {}
    known = copy.game.known_slot
    seen = copy.g[known][seat] if known is not None else []
    for spec in copy.game.vars:
        if spec.visibility in ("public", "scratch"):
            continue
        value = copy.g[spec.slot]
        # the cells: (the list holding it, its index), one per key, or the variable itself
        if spec.domains:
            holder, indices, owners = value, list(range(len(value))), _owners(spec, value)
        else:
            # a list held by one variable `visible owner` is seen entry by entry, the i-th
            # entry by seat i, as `State.observation` shows it
            holder, indices, owners = copy.g, [spec.slot], [None]
        item_type = repr(getattr(spec.type, "elem", spec.type))
        for i, owner in zip(indices, owners):
            if spec.by_player and owner is not None and owner >= copy.n:
                continue  # a seat this game does not have (in no observation)
            for where, j in _unseen(spec.visibility, holder, i, owner, seat, seen):
                places.setdefault(item_type, []).append((where, j))
    for kind in sorted(places):
        spots = places[kind]
        pool = sorted((where[j] for where, j in spots), key=repr)
        rng.shuffle(pool)
        for (where, j), entry in zip(spots, pool):
            where[j] = entry
    return copy


def _owners(spec, value: list) -> list[int | None]:
    """The seat each cell of a keyed variable belongs to, by its first key's position (the
    one `visible owner` shows to)."""
    per_seat = len(value) // len(spec.domains[0])
    return [i // per_seat for i in range(len(value))]


def _unseen(visibility: str, holder: list, i: int, owner, seat: int, seen: list):
    """The places (a list and an index in it) of the cell `holder[i]` that `seat` does not
    see."""
    cell = holder[i]
    if visibility == "owner":
        if owner is None and isinstance(cell, list):  # an unkeyed list, seen entry by entry
            return [(cell, j) for j in range(len(cell)) if j != seat]
        if owner == seat:
            return []
        visibility = "hidden"
    if visibility == "hidden":
        if isinstance(cell, list):
            return [(cell, j) for j in range(len(cell))]
        return [(holder, i)]
    if visibility == "top":
        return [(cell, j) for j in range(len(cell) - 1)]
    # "backs": an empty place, or a face the seat was shown, is seen
    return [(cell, j) for j, x in enumerate(cell) if x is not None and x not in seen]
