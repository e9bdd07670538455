"""A seat's observation as the protocol sends it, and the schema that labels it.

`State.observation` gives each variable as one flat list; here every keyed variable becomes
nested objects keyed by its keys' names (players as seats "1".."n", numbers as digits, rows,
enum values and map nodes by their ids), and every value the checker knows to be a player
is a seat number from 1. Hidden entries keep the engine's marks: `{"hidden": n}` for a list
of n entries hidden, `{"hidden": true}` for one value or one face-down entry, and a zone
seen from above is `{"top": entry, "size": n}`.
"""

from __future__ import annotations

from typing import Any

from dsl.semantics.types import PLAYER, ListOf, Type, show
from interpreter.core.game import Game, VarSpec
from interpreter.core.state import State
from interpreter.protocol.labels import label, seat


def wire(value: Any, t: Type | None) -> Any:
    """A value as the protocol writes it: a player (by the checker's type) as his seat."""
    if isinstance(value, dict):  # a hidden mark or a zone seen from above
        if "top" in value:
            return {"top": wire(value["top"], elem_of(t)), "size": value["size"]}
        return value
    if t == PLAYER and isinstance(value, int) and not isinstance(value, bool):
        return value + 1
    if isinstance(value, list) and isinstance(t, ListOf):
        return [wire(v, t.elem) for v in value]
    return value


def elem_of(t: Type | None) -> Type | None:
    return t.elem if isinstance(t, ListOf) else None


def key_name(kind: str, key: Any) -> str:
    """How a key is written: a player's seat, a number, or the id of a row or value."""
    return str(key + 1) if kind == "player" else str(key)


def observe(state: State, player: int | None) -> dict[str, Any]:
    """Every variable `player` (None: a spectator) may see, keyed by its keys' names."""
    flat = state.observation(player)["vars"]
    out = {}
    for spec in state.game.shown_vars:
        value = flat[spec.name]
        if _has_player(spec.type):
            value = [wire(v, spec.type) for v in value] if spec.domains else wire(value, spec.type)
        out[spec.name] = _nest(value, _names(spec, state.n)) if spec.domains else value
    return out


def _nest(values: list, names: tuple[tuple[str, ...], ...]) -> Any:
    """A flat list of entries as objects, one level per key (`names`: each key's names)."""
    if len(names) == 1:
        return dict(zip(names[0], values))
    step = len(values) // len(names[0])
    return {
        key: _nest(values[i * step : (i + 1) * step], names[1:]) for i, key in enumerate(names[0])
    }


def _names(spec: VarSpec, players: int) -> tuple[tuple[str, ...], ...]:
    """The names of each key's values; a first key of players has this game's seats only."""
    return tuple(
        tuple(
            key_name(kind, v) for v in (domain[:players] if spec.by_player and i == 0 else domain)
        )
        for i, (kind, domain) in enumerate(zip(spec.key_kinds, spec.domains))
    )


def _has_player(t: Type | None) -> bool:
    return t == PLAYER or (isinstance(t, ListOf) and _has_player(t.elem))


def schema(game: Game, players: int) -> dict[str, Any]:
    """What an observation of `game` holds, for a front-end to label it with: under `vars`
    each variable's kind, who sees it, its keys (each with the names and labels of its
    values), its type and its citation; under `labels` the words for every row's id."""
    return {
        "vars": _vars(game, players),
        "labels": {name: label(game, name) for name in game.rows},
        "groups": groups(game),
    }


def groups(game: Game) -> list[dict[str, Any]]:
    """The view's groups in order (`view`), then one of the variables no group names; without
    a `view`, one group of every variable. Each says whose entries it shows (`of`): `all`,
    the viewing seat's `own`, or the `others'` (variables keyed by player first)."""
    named = [{"title": t, "vars": list(names), "of": whose} for t, names, whose in game.views]
    listed = {n for _title, names, _whose in game.views for n in names}
    rest = [s.name for s in game.shown_vars if s.name not in listed and not s.name.startswith("$")]
    if rest:
        named.append({"title": "Other" if named else "Everything", "vars": rest, "of": "all"})
    return named


def shows(whose: str, seat: int | None, player: int) -> bool:
    """Whether a group showing `whose` entries shows `player`'s to `seat` (None: a spectator,
    who has no `own`)."""
    if whose == "own":
        return player == seat
    return whose == "all" or player != seat


def _vars(game: Game, players: int) -> dict[str, Any]:
    out = {}
    for spec in game.shown_vars:
        keys = []
        for kind, domain in zip(spec.key_kinds, spec.domains):
            values = domain[:players] if kind == "player" else domain
            keys.append(
                {
                    "over": kind,
                    "values": [
                        {
                            "key": key_name(kind, v),
                            "label": seat(v) if kind == "player" else label(game, v),
                        }
                        for v in values
                    ],
                }
            )
        out[spec.name] = {
            "kind": spec.kind,
            "visibility": spec.visibility,
            "keys": keys,
            "type": show(spec.type) if spec.type is not None else "any",
            "cite": spec.cite,
        }
    return out
