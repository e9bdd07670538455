"""Words for values, as a front-end shows them: players as seats P1..Pn, rows by title,
enum values and effects by their words, and every option of a decision with a label of its
own.

The engine numbers players from 0; a value whose type the checker knows to be `player`
(an option, a variable's entry, an argument of a `log` line) is shown as its seat, 1-based.
Where the type is unknown a number stays a number.
"""

from __future__ import annotations

import re
from typing import Any

from dsl.semantics.types import PLAYER, ListOf, Type
from interpreter.core.game import ChooseSite, Game, fill, plain_text


def seat(player: int) -> str:
    """How a player is named to people: P1 for the engine's player 0."""
    return f"P{player + 1}"


def label(game: Game, value: Any, t: Type | None = None) -> str:
    """A short label for `value` of type `t` (the checker's; None when unknown)."""
    if t == PLAYER and isinstance(value, int) and not isinstance(value, bool):
        return seat(value)
    if isinstance(value, list) and isinstance(t, ListOf):
        return "(" + ", ".join(label(game, v, t.elem) for v in value) + ")"
    if value is None:
        return "nobody" if t == PLAYER else "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str) and _WORD.match(value):
        title = game.rows[value].get("title") if value in game.rows else None
        if not title or title == value:  # an enum value, a row without a title, a word
            return value.replace("_", " ")
    return game.describe(value)


_WORD = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")


def option_label(game: Game, site: ChooseSite, option: Any) -> str:
    """An option's label. The answers of a joint decision (`agree`, `negotiate`) are pairs
    of a word and what it answers (`["accept", x]`, `["offer", bundle]`): the word, then it."""
    t = site.item_type
    if (
        isinstance(option, list)
        and len(option) == 2
        and isinstance(option[0], str)
        and option[0] not in game.rows
        and option[0] not in game.phrases
    ):
        what = option[1]
        inner = ListOf(t) if isinstance(what, list) and t is not None else t
        return f"{option[0]} {label(game, what, inner)}"
    return label(game, option, t)


def text(game: Game, value: Any, label_: str) -> str:
    """An option's longer words: a row's label followed by what its row prints (its fields
    that hold something), anything else its label."""
    if not (isinstance(value, str) and value in game.rows):
        return label_
    row = game.rows[value]
    shown = [
        f"{name.replace('_', ' ')} {_field(game, v)}"
        for name, v in row.items()
        if name not in ("id", "title", "table") and v not in (None, [], False, "")
    ]
    return f"{label_}: {', '.join(shown)}" if shown else label_


def _field(game: Game, value: Any) -> str:
    if value is True:
        return "yes"
    if isinstance(value, list):
        return ", ".join(_field(game, v) for v in value)
    return label(game, value)


def option_labels(game: Game, site: ChooseSite, options: list) -> list[str]:
    """The options' labels, each one different: where two read alike, each says which value
    it is (`Famine (famine)`, `Famine (blue_famine)`), or failing that its place."""
    labels = [option_label(game, site, o) for o in options]
    if len(set(labels)) == len(labels):
        return labels
    counts = {x: labels.count(x) for x in labels}
    out = [f"{x} ({_plain(o)})" if counts[x] > 1 else x for x, o in zip(labels, options)]
    if len(set(out)) == len(out):
        return out
    return [f"{x} #{i + 1}" if out.count(x) > 1 else x for i, x in enumerate(out)]


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value)
    return plain_text(value)


def prompt(state, site: ChooseSite) -> str:
    """The pending decision's prompt with each `{name}` place filled from the waiting frame."""
    if not site.places or not state.stack:
        return site.prompt
    frame = state.stack[-1][2]
    return filled(state.game, site, tuple(frame[slot] for _name, slot, _t in site.places))


def filled(game: Game, site: ChooseSite, values: tuple) -> str:
    """A decision's prompt with its places filled by `values` (in the order of
    `site.places`): each `{local}` with its label, each `{local.field}` with the label of
    what the row that local holds prints in that field."""
    if not site.places:
        return site.prompt
    shown = {}
    for (name, _slot, t), value in zip(site.places, values):
        field = name.partition(".")[2]
        if field:
            value = game.rows[value].get(field) if value in game.rows else None
        shown[name] = label(game, value, t)
    return fill(site.prompt, shown)
