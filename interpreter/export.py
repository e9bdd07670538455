"""A finished game as plain JSON that another game can start from.

`export_final(state)` turns the end state of a game (typically one written by
`knapper simulate --save-final DIR` and read back with `load_state`) into one JSON object,
documented in docs/cli.md ("knapper export-final"):

    {"format": "knapper-final/1", "ruleset": ..., "title": ..., "fingerprint": ...,
     "players": N, "winners": [seats], "scores": [per seat] | null,
     "seats": [{"seat": 1, "score": ..., "won": true, "state": {VAR: value, ...}}, ...],
     "common": {VAR: value, ...}}

Every variable, zone and pool whose first key is `player` is split by seat into "seats";
all the others go to "common". A keyed value is an object from its remaining keys (joined
with "," when there are several, written as the ruleset names them; a `player` key is a
seat index from 0) to the value; cards are written by row id. Nothing is
hidden: the game is over and this is a record of it.
"""

from __future__ import annotations

from typing import Any

from dsl.errors import IllegalMove, Span, diag
from interpreter.core.state import State

FORMAT = "knapper-final/1"


def export_final(state: State) -> dict[str, Any]:
    if not state.is_over():
        raise IllegalMove(
            diag(
                "K505",
                "the game is not over: only a finished game can be exported",
                Span(f"<{state.game.name}>", 0, 0, 0, 0),
                hint="play it to the end first (`knapper play --load FILE`)",
            )
        )
    outcome = state.outcome()
    assert outcome is not None
    seats: list[dict[str, Any]] = [
        {
            "seat": p + 1,
            "score": outcome["scores"][p] if outcome["scores"] is not None else None,
            "won": p in outcome["winners"],
            "state": {},
        }
        for p in range(state.n)
    ]
    common: dict[str, Any] = {}
    for spec in state.game.vars:
        value = state.g[spec.slot]
        if not spec.domains:
            common[spec.name] = _plain(value)
            continue
        if spec.by_player:
            rest = spec.domains[1:]
            width = len(value) // len(spec.domains[0])
            for p in range(state.n):
                part = value[p * width : (p + 1) * width]
                seats[p]["state"][spec.name] = _plain(part[0]) if not rest else _keyed(rest, part)
        else:
            common[spec.name] = _keyed(spec.domains, value)
    return {
        "format": FORMAT,
        "ruleset": state.game.name,
        "title": state.game.title,
        "fingerprint": state.game.fingerprint,
        "players": state.n,
        "winners": [p + 1 for p in outcome["winners"]],
        "scores": list(outcome["scores"]) if outcome["scores"] is not None else None,
        "seats": seats,
        "common": common,
    }


def _keyed(domains, flat: list) -> dict[str, Any]:
    out = {}
    for i, value in enumerate(flat):
        keys = []
        for domain in reversed(domains):
            i, k = divmod(i, len(domain))
            keys.append(domain[k])
        out[",".join(_key(k) for k in reversed(keys))] = _plain(value)
    return out


def _key(k) -> str:
    return str(k)


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
