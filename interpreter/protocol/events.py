"""What happened, as each seat may learn it: the engine's trace turned into protocol events.

The engine writes decisions, forced decisions, `log` lines, dice and the end into
`state.trace` (interpreter/core/state.py). Each becomes an event with a number (`seq`,
rising through the game) and the seats that may read it: everyone, except that a `secret`
choice shows the others only that its decider made a choice. What a move changed in a
seat's view (a card moved, a card revealed) is an event of that seat's own, built from its
observations before and after, so a face-down card stays face down.
"""

from __future__ import annotations

from typing import Any

from interpreter.core.game import Game, fill, has_places
from interpreter.protocol.labels import filled, label, option_label, seat
from interpreter.protocol.observe import wire

EVERYONE = None  # an event's `to`: every seat and every spectator


def from_trace(game: Game, entries: list) -> list[tuple[Any, dict, dict | None]]:
    """Events from trace entries, each as `(to, event, others)`: `to` is EVERYONE or the one
    player who reads `event`; `others` is what everybody else reads instead (or None)."""
    out: list[tuple[Any, dict, dict | None]] = []
    for entry in entries:
        kind = entry[0]
        if kind in ("decision", "forced"):
            who, site, option = entry[1], game.sites[entry[2]], entry[3]
            asked = filled(game, site, entry[4] if len(entry) > 4 else ())
            event = {
                "kind": kind,
                "seat": who + 1,
                "id": site.id,
                "prompt": asked,
                "option": wire(option, site.item_type),
                "label": option_label(game, site, option),
            }
            if site.secret:
                hidden = {"kind": kind, "seat": who + 1, "id": site.id, "prompt": asked}
                out.append((who, event, {**hidden, "secret": True}))
            else:
                out.append((EVERYONE, event, None))
        elif kind == "log":
            _where, _proc, names, types = entry[3]
            values = entry[2]
            fields = {n: wire(v, t) for n, v, t in zip(names, values, types)}
            words = log_line(game, entry[1], names, values, types)
            to = entry[4] if len(entry) > 4 else None  # `log to p`: p alone reads it
            event = {"kind": "log", "text": entry[1], "fields": fields, "line": words}
            out.append((EVERYONE if to is None else to, event, None))
        elif kind == "die":
            out.append((EVERYONE, {"kind": "die", "sides": entry[1], "value": entry[2]}, None))
        elif kind == "end":
            winners = [w + 1 for w in entry[1]]
            line = "winners: " + (", ".join(seat(w - 1) for w in winners) or "nobody")
            out.append((EVERYONE, {"kind": "end", "winners": winners, "line": line}, None))
    return out


def log_line(game: Game, text: str, names, values, types) -> str:
    """A `log` line in words: its text with each `{name}` place filled with that value's
    label; a text without places is followed by all its values."""
    shown = {n: label(game, v, t) for n, v, t in zip(names, values, types)}
    if has_places(text):
        return fill(text, shown)
    return " ".join([text, *shown.values()])


def changes(before: dict, after: dict) -> dict:
    """The variables of an observation whose value changed, with their new values."""
    return {name: value for name, value in after.items() if before.get(name) != value}
