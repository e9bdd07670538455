"""Versioned JSON save files for states, through cattrs and orjson.

    {"schema_version": 2, "ruleset": "pig", "fingerprint": "...", "layout": "...",
     "state": {...}}

The engine's position (procedure, instruction, locals) is only meaningful for the exact code
it was compiled to. The fingerprint ties a save to the ruleset text it was made with, and the
layout to how that text was compiled (`layout`: the code version, every procedure's
instructions and their spans, its locals and the `choose` sites), so a newer compiler never
resumes an old save at the wrong place. Every problem with a file is a `SaveFileError` with a
code and the place in the file, never a traceback.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import attrs
import cattrs
import orjson

from dsl.errors import SaveFileError, Span, diag
from interpreter.core.game import Game
from interpreter.core.state import CODE_VERSION, LOCALS, OPTIONS, PC, PROC, SITE, SLOT, WHO, State

SCHEMA_VERSION = 2


@attrs.frozen
class SavedState:
    players: int
    vars: dict[str, Any]
    stack: list[list[Any]]
    rng: str  # hexadecimal: the generator's 64 bits, safe for any JSON reader
    script: list[int]
    pending: list[Any] | None
    winners: list[int] | None
    decisions: int
    rounds: int


@attrs.frozen
class Envelope:
    schema_version: int
    ruleset: str
    fingerprint: str
    layout: str
    state: SavedState


_converter = cattrs.Converter(forbid_extra_keys=True)


def _strict(kind: type):
    """Take a value of exactly this JSON type: a save file is never silently converted."""

    def structure(value, _type):
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return structure


for _kind in (int, str, bool):
    _converter.register_structure_hook(_kind, _strict(_kind))


def layout(game: Game) -> str:
    """A hash of what a saved position refers to in `game`'s compiled code: the code version,
    and per procedure its name, kind, locals and instructions (how many, their spans and the
    statements each runs), and every `choose` site's procedure and span. File names are left
    out: the fingerprint covers the text."""
    parts: list[Any] = [CODE_VERSION]
    for info, code in zip(game.procs, game.code):
        parts.append((info.name, info.kind, info.nlocals, info.local_names, len(code)))
        parts.append([_where(span) for span in info.spans])
        parts.append([(b.first, b.count) for b in info.blocks])
    parts.append([(site.proc, _where(site.span)) for site in game.sites])
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def _where(span: Span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)


def to_data(state: State) -> dict:
    pending = state.pending
    saved = SavedState(
        players=state.n,
        vars={spec.name: state.g[spec.slot] for spec in state.game.vars},
        stack=[[frame[PROC], frame[PC], frame[LOCALS]] for frame in state.stack],
        rng=f"{state.rng:016x}",
        script=list(state.script),
        pending=(
            None
            if pending is None
            else [pending[WHO], pending[OPTIONS], pending[SITE], pending[SLOT]]
        ),
        winners=state.winners,
        decisions=state.decisions,
        rounds=state.rounds,
    )
    game = state.game
    envelope = Envelope(SCHEMA_VERSION, game.name, game.fingerprint, layout(game), saved)
    return _converter.unstructure(envelope)


def dump_state(state: State) -> bytes:
    return orjson.dumps(to_data(state))


def _fail(message: str, where: str, path: str, hint: str | None = None) -> SaveFileError:
    return SaveFileError(diag("K701", f"{message} (at {where})", Span(path, 0, 0, 0, 0), hint=hint))


def _saved_ruleset(name: str, path: str) -> Game:
    """The ruleset a save names: bundled, or a file beside the save (K102 elsewhere)."""
    from dsl.semantics.resolve import find_ruleset
    from interpreter.api import load

    here, at = Path(path).parent, Span(path, 0, 0, 0, 0)
    found = find_ruleset(name, here, tree=here, span=at, what="the save's ruleset")
    if found is None:
        raise _fail(f"no ruleset named or found at {name!r}", "ruleset", path)
    return load(str(found))


def load_state(data: bytes | str, game: Game | None = None, path: str = "<save>") -> State:
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise SaveFileError(
            diag("K700", f"not a JSON file: {err}", Span(path, 0, 0, 0, 0))
        ) from None
    if not isinstance(raw, dict):
        raise _fail("a save file is a JSON object", "the top level", path)
    version = raw.get("schema_version")
    if version != SCHEMA_VERSION:
        raise _fail(
            f"unsupported schema_version {version!r}; this Knapper reads {SCHEMA_VERSION}",
            "schema_version",
            path,
        )
    try:
        env = _converter.structure(raw, Envelope)
    except cattrs.BaseValidationError as err:
        where = "; ".join(_messages(err))
        raise _fail("the file does not have the shape of a saved game", where, path) from None
    if game is None:
        game = _saved_ruleset(env.ruleset, path)
    if env.ruleset != game.name:
        raise _fail(f"the game was saved from {env.ruleset!r}, not {game.name!r}", "ruleset", path)
    if env.fingerprint != game.fingerprint:
        raise _fail(
            "the ruleset has changed since this game was saved",
            "fingerprint",
            path,
            hint="load it with the ruleset version it was saved with",
        )
    if env.layout != layout(game):
        raise SaveFileError(
            diag(
                "K702",
                "this game was saved by a Knapper that compiled the ruleset differently, so "
                "its position (procedure, instruction) cannot be resumed here (at layout)",
                Span(path, 0, 0, 0, 0),
                hint="continue it with the Knapper version that saved it",
            )
        )
    return _rebuild(env.state, game, path)


def _messages(err) -> list[str]:
    """cattrs's message for each field that does not fit, with its place in the file."""
    return [message.strip() for message in cattrs.transform_error(err)]


def _rebuild(saved: SavedState, game: Game, path: str) -> State:
    lo, hi = game.players
    if not lo <= saved.players <= hi:
        raise _fail(f"{saved.players} players is not allowed", "state.players", path)
    try:
        generator = int(saved.rng, 16)
    except ValueError:
        raise _fail("the generator state is 16 hexadecimal digits", "state.rng", path) from None
    state = State(game, saved.players, generator)
    names = [spec.name for spec in game.vars]
    if sorted(saved.vars) != sorted(names):
        missing = sorted(set(names) - set(saved.vars))
        extra = sorted(set(saved.vars) - set(names))
        raise _fail(
            f"variables do not match the ruleset (missing {missing}, unknown {extra})",
            "state.vars",
            path,
        )
    for spec in game.vars:
        value = saved.vars[spec.name]
        if spec.domains:
            size = 1
            for domain in spec.domains:
                size *= len(domain)
            if not isinstance(value, list) or len(value) != size:
                raise _fail(
                    f"{spec.name} should have {size} entries", f"state.vars.{spec.name}", path
                )
        state.g.append(value)
    for i, frame in enumerate(saved.stack):
        where = f"state.stack[{i}]"
        if (
            len(frame) != 3
            or not isinstance(frame[0], int)
            or not isinstance(frame[1], int)
            or not isinstance(frame[2], list)
        ):
            raise _fail("a frame is [procedure, position, locals]", where, path)
        proc, pc, local = frame
        # a waiting frame resumes after the call or `choose` that stopped it
        if (
            type(proc) is not int
            or not 0 <= proc < len(game.procs)
            or type(pc) is not int
            or not 0 < pc < len(game.code[proc])
            or len(local) != game.procs[proc].nlocals
        ):
            raise _fail("the frame does not fit the ruleset's code", where, path)
    state.stack = [[f[PROC], f[PC], f[LOCALS]] for f in saved.stack]
    state.script = list(saved.script)
    if saved.pending is not None:
        if len(saved.pending) != 4 or not state.stack:
            raise _fail(
                "a pending decision is [player, options, site, slot]", "state.pending", path
            )
        problem = _pending_problem(saved.pending, saved.players, game, state.stack[-1])
        if problem is not None:
            raise _fail(
                f"the pending decision does not fit the ruleset: {problem}", "state.pending", path
            )
        who, options, site, slot = saved.pending
        state.pending = (who, options, site, slot)
    state.winners = saved.winners
    state.decisions = saved.decisions
    state.rounds = saved.rounds
    if state.pending is None and state.winners is None:
        raise _fail("the game is neither waiting for a decision nor over", "state", path)
    return state


def _pending_problem(pending: list, players: int, game: Game, top: list) -> str | None:
    """What is wrong with a saved pending decision `[player, options, site, slot]` waiting in
    the frame `top`, or None. (`type(x) is int`: JSON `true` is not a player.)"""
    who, options, site, slot = pending
    if type(who) is not int or not 0 <= who < players:
        return f"the player {who!r} is not one of the {players} players (0 to {players - 1})"
    if not isinstance(options, list) or not options:
        return "the options are not a non-empty list"
    if type(site) is not int or not 0 <= site < len(game.sites):
        return f"{site!r} is not one of the ruleset's {len(game.sites)} `choose` sites"
    if game.sites[site].proc != game.procs[top[PROC]].name:
        return f"`choose` site {site} is not in the procedure of the innermost frame"
    if type(slot) is not int or not 0 <= slot < len(top[LOCALS]):
        return f"{slot!r} is not a local of the waiting frame (0 to {len(top[LOCALS]) - 1})"
    return None
