"""Verified save files: a game as the record that re-derives it, replayed when loaded.

    {"schema_version": 3, "ruleset": "pig", "fingerprint": "...", "players": 2,
     "seed": "0000000000000007", "dice": [], "options": ["roll", "hold", ...]}

A save is host-side data. Its record (the ruleset's fingerprint, the players, the seed's 64
bits, the dice scripted at the start and every option taken) is enough to play the game
again, and `load_state` does exactly that from a fresh game: every option must be legal
where it is taken, the pending decision is the one the replay reaches, and the declared
invariants must hold at the end. Nothing of the position is read from the file, so an
edited save is either refused or describes a game that legal play reaches.

A host that gives a key (`dump_state(state, key=...)`) also gets a signed snapshot of the
position (interpreter/snapshot.py: `layout` and `state`) and an HMAC-SHA256 of every field
(`signature`); loading with the same key checks every field's signature, naming the first
that does not verify, and then takes the snapshot as it is, without replaying. A signed save
can also hold a state the record cannot re-derive (a scenario's position, a state changed
through `State.set`). Every problem is a `SaveFileError` with a code and the field at fault.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path
from typing import Any

import orjson

from dsl.errors import KnapperError, SaveFileError, Span, diag
from interpreter.core.budget import Budget
from interpreter.core.game import Game
from interpreter.core.state import State
from interpreter.snapshot import decode, encode, fail, from_data, layout, to_data

__all__ = ["SCHEMA_VERSION", "dump_state", "host_key", "layout", "load_state", "sign", "to_data"]

SCHEMA_VERSION = 3
# The fields of a save, in the order they are checked and signed.
RECORD = ("ruleset", "fingerprint", "players", "seed", "dice", "options")
SNAPSHOT = ("layout", "state")


def host_key() -> bytes | None:
    """The command line's key: KNAPPER_SAVE_KEY as bytes, or None when unset or empty. With
    it, `knapper play` and `simulate --save-final` write signed saves, and every command
    that reads a save checks the signature."""
    value = os.environ.get("KNAPPER_SAVE_KEY", "")
    return value.encode() if value else None


def record(state: State) -> dict[str, Any]:
    """The fields that re-derive `state`; K710 if it was not started from a seed."""
    if state.seed is None:
        raise SaveFileError(
            diag(
                "K710",
                "this state cannot be saved as a replay: it was not started from a seed, or "
                "it was changed through State.set",
                Span(state.game.name, 0, 0, 0, 0),
                hint="save it with a key (dump_state(state, key=...)) to keep a signed snapshot",
            )
        )
    game = state.game
    return {
        "schema_version": SCHEMA_VERSION,
        "ruleset": game.name,
        "fingerprint": game.fingerprint,
        "players": state.n,
        "seed": f"{state.seed:016x}",
        "dice": list(state.dealt),
        "options": encode(state.taken),
    }


def dump_state(state: State, key: bytes | None = None) -> bytes:
    """The save of `state` as JSON bytes; with `key`, also its signed snapshot."""
    if key is None:
        return orjson.dumps(record(state))
    if state.seed is None:  # a position only: the record holds no seed and no moves
        game = state.game
        data: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "ruleset": game.name,
            "fingerprint": game.fingerprint,
            "players": state.n,
            "seed": None,
            "dice": [],
            "options": [],
        }
    else:
        data = record(state)
    data["layout"] = layout(state.game)
    data["state"] = to_data(state)
    return orjson.dumps(sign(data, key))


def sign(data: dict[str, Any], key: bytes) -> dict[str, Any]:
    """`data` with a `signature`: one HMAC-SHA256 per field and one over all of them."""
    fields = {name: _mac(key, name, data.get(name)) for name in RECORD + SNAPSHOT}
    whole = _mac(key, "all", [fields[name] for name in RECORD + SNAPSHOT])
    return {**data, "signature": {"fields": fields, "all": whole}}


def _mac(key: bytes, name: str, value: Any) -> str:
    body = name.encode() + b"\0" + orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    return hmac.new(key, b"knapper save\0" + body, hashlib.sha256).hexdigest()


def _saved_ruleset(name: str, path: str) -> Game:
    """The ruleset a save names: bundled, or a file beside the save (K102 elsewhere)."""
    from dsl.semantics.resolve import find_ruleset
    from interpreter.api import load

    here, at = Path(path).parent, Span(path, 0, 0, 0, 0)
    found = find_ruleset(name, here, tree=here, span=at, what="the save's ruleset")
    if found is None:
        raise fail(f"no ruleset named or found at {name!r}", "ruleset", path)
    return load(str(found))


def load_state(
    data: bytes | str,
    game: Game | None = None,
    path: str = "<save>",
    key: bytes | None = None,
    budget: Budget | None = None,
) -> State:
    """The game a save describes. Without `key` it is replayed from its record; with `key`
    the signature must verify, and the signed snapshot is taken as it is. `budget`: the
    work budget the game is played (and replayed) with, the default's if None."""
    raw = _read(data, path)
    if game is None:
        game = _saved_ruleset(raw["ruleset"], path)
    if raw["ruleset"] != game.name:
        raise fail(
            f"the game was saved from {raw['ruleset']!r}, not {game.name!r}", "ruleset", path
        )
    if key is not None:
        _verify(raw, key, path)
    if raw["fingerprint"] != game.fingerprint:
        raise fail(
            "the ruleset has changed since this game was saved",
            "fingerprint",
            path,
            hint="load it with the ruleset version it was saved with",
        )
    if key is not None and "state" in raw:
        if raw["layout"] != layout(game):
            raise SaveFileError(
                diag(
                    "K702",
                    "this game was saved by a Knapper that compiled the ruleset differently, "
                    "so its position (procedure, instruction) cannot be resumed here (at layout)",
                    Span(path, 0, 0, 0, 0),
                    hint="continue it with the Knapper version that saved it",
                )
            )
        state = from_data(raw["state"], game, path)
        state.budget = budget or state.budget
        if raw["seed"] is not None:
            state.seed = int(raw["seed"], 16)
            state.dealt = tuple(raw["dice"])
            state.taken = decode(raw["options"], path, "options")
    else:
        state = replay(game, raw, path, budget)
    _check_invariants(state, path)
    return state


def _read(data: bytes | str, path: str) -> dict[str, Any]:
    """The save's JSON, its version and the types of its fields checked."""
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise SaveFileError(
            diag("K700", f"not a JSON file: {err}", Span(path, 0, 0, 0, 0))
        ) from None
    if not isinstance(raw, dict):
        raise fail("a save file is a JSON object", "the top level", path)
    version = raw.get("schema_version")
    if version in (1, 2):
        raise fail(
            f"this save has schema_version {version}: it holds a position without the moves "
            "that lead to it, which cannot be checked",
            "schema_version",
            path,
            hint="finish that game with the Knapper that saved it, or start it again; saves "
            f"of schema_version {SCHEMA_VERSION} are replayed when loaded",
            code="K703",
        )
    if version != SCHEMA_VERSION:
        raise fail(
            f"unsupported schema_version {version!r}; this Knapper reads {SCHEMA_VERSION}",
            "schema_version",
            path,
        )
    kinds = {"ruleset": str, "fingerprint": str, "players": int, "dice": list, "options": list}
    known = {"schema_version", *RECORD, *SNAPSHOT, "signature"}
    extra = sorted(set(raw) - known)
    if extra:
        raise fail(f"unknown fields {extra}", extra[0], path)
    for name, kind in kinds.items():
        if type(raw.get(name)) is not kind:
            raise fail(
                f"the file does not have the shape of a saved game: {name} is not "
                f"{'an' if kind is int else 'a'} {kind.__name__}",
                name,
                path,
            )
    seed = raw.get("seed")
    if not (seed is None and "state" in raw) and not _hex64(seed):
        raise fail("the seed is 16 hexadecimal digits", "seed", path)
    if any(type(d) is not int for d in raw["dice"]):
        raise fail("the dice are integers", "dice", path)
    if ("state" in raw or "layout" in raw) and "signature" not in raw:
        raise fail(
            "the save holds a snapshot without a signature",
            "signature",
            path,
            hint="only a save signed with the host's key may hold a snapshot",
            code="K707",
        )
    return raw


def _hex64(value: Any) -> bool:
    return (
        isinstance(value, str) and len(value) == 16 and all(c in "0123456789abcdef" for c in value)
    )


def _verify(raw: dict[str, Any], key: bytes, path: str) -> None:
    """K708 when the save is not signed, K707 naming the first field whose signature does
    not verify (or `signature` when the fields come from different saves)."""
    signature = raw.get("signature")
    if signature is None:
        raise fail(
            "the save is not signed, but a key was given",
            "signature",
            path,
            hint="a save written without the key is replayed: load it without the key",
            code="K708",
        )
    fields = signature.get("fields") if isinstance(signature, dict) else None
    if not isinstance(fields, dict):
        raise fail("the signature does not have its shape", "signature", path, code="K707")
    for name in RECORD + SNAPSHOT:
        mac = fields.get(name)
        if not isinstance(mac, str) or not hmac.compare_digest(mac, _mac(key, name, raw.get(name))):
            raise fail(
                f"the signature of {name!r} does not verify: the field was changed after "
                "the save was signed, or another key signed it",
                name,
                path,
                code="K707",
            )
    whole = _mac(key, "all", [fields[name] for name in RECORD + SNAPSHOT])
    if not isinstance(signature.get("all"), str) or not hmac.compare_digest(
        signature["all"], whole
    ):
        raise fail(
            "the fields' signatures come from different saves",
            "signature",
            path,
            code="K707",
        )


def replay(game: Game, raw: dict[str, Any], path: str, budget: Budget | None = None) -> State:
    """Play the record again from a fresh game, refusing the first option that is not legal
    where it is taken (K704) and any rule that fails on the way (K705)."""
    from interpreter.api import new_game

    options = decode(raw["options"], path, "options")
    seed = int(raw["seed"], 16)
    try:
        state = new_game(
            game, players=raw["players"], seed=seed, dice=list(raw["dice"]) or None, budget=budget
        )
    except KnapperError as err:
        raise fail(err.diagnostics[0].message, "players", path) from None
    for i, option in enumerate(options):
        where = f"options[{i}]"
        pending = state.pending
        if pending is None:
            raise fail(f"option {i + 1} comes after the end of the game", where, path, code="K704")
        if not _legal(option, pending[1]):
            raise fail(
                f"option {i + 1}, {game.describe(option)!r}, is not one of the options there",
                where,
                path,
                hint="the save was edited, or made with other dice",
                code="K704",
            )
        try:
            state.apply(option)
        except KnapperError as err:
            first = err.diagnostics[0]
            raise fail(
                f"replaying option {i + 1} failed: {first.code} {first.message}",
                where,
                path,
                code="K705",
            ) from None
    return state


def _legal(option: Any, options: list) -> bool:
    """Is `option` one of `options`, of the same JSON types (`true` is not the option `1`)?"""
    return any(_same(option, o) for o in options)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _check_invariants(state: State, path: str) -> None:
    try:
        broken = state.check_invariants()
    except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError) as err:
        # a signed snapshot's value of a kind its variable never holds: the rules that test
        # the invariants fail on it
        raise fail(
            f"a value of the snapshot does not fit the rules ({type(err).__name__}: {err})",
            "state",
            path,
            code="K706",
        ) from None
    if broken:
        raise fail(f"the loaded game breaks {broken[0].message}", "state", path, code="K706")
