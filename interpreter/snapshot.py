"""A state's exact position as JSON data, the optional cache of a signed save.

    {"players": 2, "vars": {...}, "stack": [[proc, pc, locals], ...], "rng": "...",
     "script": [...], "pending": [...], "winners": null, "decisions": 5, "rounds": 1}

interpreter/save.py writes this beside a save's re-derivable record only when the host signs
the save with its own key, and reads it back only when that signature verifies. A position
is only meaningful for the exact code it was compiled to, so `layout` hashes how the text
was compiled (the code version, every procedure's instructions and their spans, its locals
and the `choose` sites). Integers beyond 64 bits and values nested too deep are handled by
`encode` and `decode`, which the save's options use too. Every problem is a `SaveFileError`
with a code and the place in the file, never a traceback.
"""

from __future__ import annotations

import hashlib
from typing import Any, assert_never

import attrs
import cattrs

from dsl.errors import SaveFileError, Span, diag
from dsl.semantics.types import ANY, INT, Basic, ListOf, Named, Nothing, Tagged, Type, Unknown, show
from interpreter.core.game import Game, plain_text
from interpreter.core.state import CODE_VERSION, LOCALS, OPTIONS, PC, PROC, SITE, SLOT, WHO, State

# Deeper lists than this are refused: no game builds them, and Python's own recursion (in
# observations, clones, comparisons) would fail on them.
MAX_DEPTH = 100
# Integers a JSON reader takes exactly (orjson: 64 bits); others are written {"int": "hex"}.
_LOW, _HIGH = -(1 << 63), (1 << 63) - 1


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
    """The state's position as JSON data (integers beyond 64 bits encoded)."""
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
    return encode(_converter.unstructure(saved))


def from_data(data: Any, game: Game, path: str) -> State:
    """The state a snapshot describes, every field checked against `game` (K701)."""
    if not isinstance(data, dict):
        raise fail("the snapshot is a JSON object", "state", path)
    try:
        saved = _converter.structure(decode(data, path, "state", exact=False), SavedState)
    except cattrs.BaseValidationError as err:
        where = "; ".join(m.replace("$", "$.state", 1) for m in _messages(err))
        raise fail("the file does not have the shape of a saved game", where, path) from None
    return _rebuild(saved, game, path)


def fail(message: str, where: str, path: str, hint: str | None = None, code: str = "K701"):
    """A refusal of a save file at `where` (a field of the file)."""
    return SaveFileError(diag(code, f"{message} (at {where})", Span(path, 0, 0, 0, 0), hint=hint))


def _messages(err) -> list[str]:
    """cattrs's message for each field that does not fit, with its place in the file."""
    return [message.strip() for message in cattrs.transform_error(err)]


def _rebuild(saved: SavedState, game: Game, path: str) -> State:
    lo, hi = game.players
    if not lo <= saved.players <= hi:
        raise fail(f"{saved.players} players is not allowed", "state.players", path)
    try:
        generator = int(saved.rng, 16)
    except ValueError:
        raise fail("the generator state is 16 hexadecimal digits", "state.rng", path) from None
    state = State(game, saved.players, generator)
    names = [spec.name for spec in game.vars]
    if sorted(saved.vars) != sorted(names):
        missing = sorted(set(names) - set(saved.vars))
        extra = sorted(set(saved.vars) - set(names))
        raise fail(
            f"variables do not match the ruleset (missing {missing}, unknown {extra})",
            "state.vars",
            path,
        )
    for spec in game.vars:
        value = saved.vars[spec.name]
        where = f"state.vars.{spec.name}"
        entry = _entry_type(spec.kind, spec.type)
        if spec.domains:
            size = 1
            for domain in spec.domains:
                size *= len(domain)
            if not isinstance(value, list) or len(value) != size:
                raise fail(f"{spec.name} should have {size} entries", where, path)
            for i, item in enumerate(value):
                if (problem := misfit(item, entry, game, saved.players)) is not None:
                    raise fail(problem, f"{where}[{i}]", path)
        elif (problem := misfit(value, entry, game, saved.players)) is not None:
            raise fail(problem, where, path)
        state.g.append(value)
    for i, frame in enumerate(saved.stack):
        where = f"state.stack[{i}]"
        if (
            len(frame) != 3
            or not isinstance(frame[0], int)
            or not isinstance(frame[1], int)
            or not isinstance(frame[2], list)
        ):
            raise fail("a frame is [procedure, position, locals]", where, path)
        proc, pc, local = frame
        # a waiting frame resumes after the call or `choose` that stopped it
        if (
            type(proc) is not int
            or not 0 <= proc < len(game.procs)
            or type(pc) is not int
            or not 0 < pc < len(game.code[proc])
            or len(local) != game.procs[proc].nlocals
        ):
            raise fail("the frame does not fit the ruleset's code", where, path)
    state.stack = [[f[PROC], f[PC], f[LOCALS]] for f in saved.stack]
    state.script = list(saved.script)
    if saved.pending is not None:
        if len(saved.pending) != 4 or not state.stack:
            raise fail("a pending decision is [player, options, site, slot]", "state.pending", path)
        problem = _pending_problem(saved.pending, saved.players, game, state.stack[-1])
        if problem is not None:
            raise fail(
                f"the pending decision does not fit the ruleset: {problem}", "state.pending", path
            )
        who, options, site, slot = saved.pending
        state.pending = (who, options, site, slot)
    state.winners = saved.winners
    state.decisions = saved.decisions
    state.rounds = saved.rounds
    if state.pending is None and state.winners is None:
        raise fail("the game is neither waiting for a decision nor over", "state", path)
    return state


def _entry_type(kind: str, t: Type | None) -> Type:
    """The type of one entry of a variable: a zone's entries are lists (of what the checker
    found, or of anything), a pool's are counts."""
    if kind == "zone":
        return t if isinstance(t, ListOf) else ListOf(ANY)
    if kind == "pool":
        return INT
    return ANY if t is None else t


def misfit(value: Any, t: Type, game: Game, players: int) -> str | None:
    """What is wrong with `value` as a value of the checker's type `t` in a game of `game`
    with this many players, or None when it fits. `none` fits every type, as in the checker
    (an unset player or row); `type(x) is int`, because JSON `true` is not a number."""
    if value is None:
        return None
    match t:
        case Basic("int"):
            fits = type(value) is int
        case Basic("bool"):
            fits = type(value) is bool
        case Basic("text"):
            fits = type(value) is str
        case Basic("player"):
            fits = type(value) is int and 0 <= value < players
        case Basic():
            raise AssertionError(f"no basic type {t.name!r}")
        case Named(_, name):
            fits = type(value) is str and value in game.named.get(name, ())
        case ListOf(item):
            if type(value) is not list:
                return f"{_shown(value)} is not a {show(t)}"
            for i, entry in enumerate(value):
                if (problem := misfit(entry, item, game, players)) is not None:
                    return f"item {i + 1}: {problem}"
            return None
        case Tagged():
            fits = type(value) is list and bool(value) and type(value[0]) is str
        case Unknown() | Nothing():
            return None
        case _:
            assert_never(t)
    return None if fits else f"{_shown(value)} is not a {show(t)}"


def _shown(value: Any) -> str:
    """A value from a file as a message quotes it: short, whatever its size."""
    text = plain_text(value) if type(value) is int else repr(encode(value))
    return text if len(text) <= 40 else text[:37] + "..."


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


def encode(value: Any) -> Any:
    """A game value (or a structure of them) as new JSON data, tuples as lists: integers
    beyond 64 bits become `{"int": "<hexadecimal>"}`, which needs no decimal conversion
    (Python limits those to 4300 digits) and no reader with big integers."""
    if type(value) is int and not _LOW <= value <= _HIGH:
        return {"int": format(value, "x")}  # a sign, then hexadecimal digits
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {key: encode(item) for key, item in value.items()}
    return value


def decode(value: Any, path: str, where: str, exact: bool = True, depth: int = 0) -> Any:
    """`encode` reversed, refusing values nested deeper than MAX_DEPTH (K709) and, when
    `exact`, numbers that are not integers (a JSON reader turns an integer too large for it
    into a float; a snapshot's own checks say which field a float does not fit)."""
    if depth > MAX_DEPTH:
        raise fail(f"a value is nested more than {MAX_DEPTH} deep", where, path, code="K709")
    if isinstance(value, list):
        return [decode(item, path, where, exact, depth + 1) for item in value]
    if isinstance(value, dict):
        if set(value) == {"int"} and isinstance(value["int"], str):
            try:
                return int(value["int"], 16)
            except ValueError:
                raise fail("an `int` is written in hexadecimal", where, path) from None
        return {key: decode(item, path, where, exact, depth + 1) for key, item in value.items()}
    if exact and type(value) is float:
        raise fail("a number that is not an integer", where, path)
    return value
