"""Cards moved and revealed, as one seat saw them: `move` events from two observations.

A seat's observation (interpreter/protocol/observe.py) shows each zone's entries as far as
he may see them: a card's id, `{"hidden": true}` for a face-down one, `{"hidden": n}` for a
list he sees only the size of, `{"top": card, "size": n}` for a pile seen from above. Here
each zone's place (the zone and its keys) is read as the cards it shows and how many it
hides, before and after a move, and what left one place is matched with what came to
another: a card that left a place and came to another moved; a card that came to a place
when another hid one fewer was revealed coming from there; a card that left when another
hid one more went face down there; one fewer hidden here and one more there is a card
moved unseen (`card` null), and one hidden more or fewer with nothing to pair it with
came from or went out of his view. Built from one seat's observations only, so a move never shows
him more than his view does.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from interpreter.core.game import Game
from interpreter.protocol.labels import label

Place = tuple[str, tuple[str, ...]]  # a zone and the names of its keys


def moves(game: Game, before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """The `move` events between two observations of one seat, in zone order."""
    zones = [s.name for s in game.shown_vars if s.kind == "zone" and not s.name.startswith("$")]
    old = {p: v for z in zones for p, v in _places(z, before.get(z)).items()}
    new = {p: v for z in zones for p, v in _places(z, after.get(z)).items()}
    gone: list[tuple[Place, Any]] = []
    came: list[tuple[Place, Any]] = []
    hid: list[Place] = []  # a place hiding one more card, once per card
    unhid: list[Place] = []  # a place hiding one fewer
    for place in [*old, *(p for p in new if p not in old)]:
        (was, was_hidden), (now, now_hidden) = old.get(place, _EMPTY), new.get(place, _EMPTY)
        gone += [(place, c) for c in (was - now).elements()]
        came += [(place, c) for c in (now - was).elements()]
        hid += [place] * max(0, now_hidden - was_hidden)
        unhid += [place] * max(0, was_hidden - now_hidden)
    out = []
    for to, card in came:
        source = next((i for i, (_p, c) in enumerate(gone) if c == card), None)
        if source is not None:
            out.append(_event(game, card, gone.pop(source)[0], to))
        elif unhid:
            out.append(_event(game, card, unhid.pop(0), to, revealed=True))
        else:  # from nowhere this seat's view shows
            out.append(_event(game, card, None, to))
    for frm, card in gone:
        out.append(_event(game, card, frm, hid.pop(0) if hid else None))
    for i in range(max(len(unhid), len(hid))):  # unseen cards, paired in order
        out.append(_event(game, None, _nth(unhid, i), _nth(hid, i)))
    return out


_EMPTY: tuple[Counter, int] = (Counter(), 0)


def _places(zone: str, value: Any, keys: tuple[str, ...] = ()) -> dict[Place, tuple[Counter, int]]:
    """Each place of a zone's observed value: the cards it shows and how many it hides."""
    if isinstance(value, dict) and "hidden" not in value and "top" not in value:
        out = {}
        for key, inner in value.items():  # a keyed zone: one level per key
            out.update(_places(zone, inner, (*keys, key)))
        return out
    return {(zone, keys): _contents(value)}


def _contents(value: Any) -> tuple[Counter, int]:
    if isinstance(value, dict) and "top" in value:
        top = value["top"]
        shown = Counter() if top is None else Counter([_hashable(top)])
        return shown, value["size"] - len(shown)
    if isinstance(value, dict):  # {"hidden": n}
        return Counter(), int(value["hidden"])
    if not isinstance(value, list):
        return Counter(), 0
    shown = Counter(_hashable(v) for v in value if v is not None and not isinstance(v, dict))
    return shown, sum(1 for v in value if isinstance(v, dict))


def _nth(places: list[Place], i: int) -> Place | None:
    return places[i] if i < len(places) else None


def _hashable(card: Any) -> Any:
    return tuple(card) if isinstance(card, list) else card


def _event(game: Game, card: Any, frm: Place | None, to: Place | None, revealed=False) -> dict:
    event: dict[str, Any] = {
        "kind": "move",
        "card": list(card) if isinstance(card, tuple) else card,
        "label": "a face-down card" if card is None else label(game, card),
        "from": _where(frm),
        "to": _where(to),
    }
    if revealed:
        event["revealed"] = True
    return event


def _where(place: Place | None) -> dict[str, Any] | None:
    return None if place is None else {"zone": place[0], "keys": list(place[1])}
