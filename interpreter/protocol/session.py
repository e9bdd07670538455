"""A game as a front-end plays it: the protocol's views, moves, events, saves and undo.

    session = Session(load("pig"), players=2, seed=7)
    view = session.view(1)                     # what seat 1 sees (seats count from 1)
    session.move(1, view["decision"]["options"][0]["value"], view["version"])
    session.events(2, since=0)                 # what seat 2 may learn of it

Every message is a JSON value (docs/protocol.md; the schemas are in
`interpreter/protocol/schemas/`). A session is saved as its ruleset, players, seed and moves,
and loaded by playing the moves again, so a save can only ever hold legal play. It is
meant for one thread at a time; a server keeps one lock per session.
"""

from __future__ import annotations

import secrets
from typing import Any

import orjson

from dsl.errors import KnapperError, SaveFileError, Span, diag
from interpreter.api import new_game
from interpreter.core.game import Game
from interpreter.core.state import run
from interpreter.protocol.events import EVERYONE, changes, from_trace
from interpreter.protocol.labels import option_labels, prompt, text
from interpreter.protocol.moves import moves
from interpreter.protocol.observe import observe, schema, wire
from interpreter.snapshot import encode

SPECTATOR = "spectator"  # an event's `to` for what the spectators' view shows
PROTOCOL = 1  # the version of every message's shape; docs/protocol.md says what changes it


class ProtocolError(KnapperError):
    """A move or request the session refuses; nothing changed. `field` names the part of
    the request at fault (`seat`, `version`, `option`, `save`)."""

    kind = "protocol"

    def __init__(self, diagnostic, sources=None, field: str = "option"):
        super().__init__(diagnostic, sources)
        self.field = field

    def to_json(self) -> dict[str, Any]:
        return {
            "protocol": PROTOCOL,
            "error": {**self.diagnostics[0].to_json(), "field": self.field},
        }


class Session:
    def __init__(self, game: Game, players: int | None = None, seed: int | None = None):
        # without a seed, a random one: a known or guessable seed tells every hidden card
        seed = secrets.randbits(64) if seed is None else seed
        try:  # the setup waits until the trace that makes the first events is kept
            state = new_game(game, players=players, seed=seed, run_now=False)
        except KnapperError as err:  # K503: a number of players the ruleset does not allow
            raise ProtocolError(err.diagnostics[0], err.sources, field="players") from None
        self.game = game
        self.seed = seed
        self.moves: list[Any] = []  # the options taken, as the engine holds them
        self.movers: list[int] = []  # who took each (the engine's player)
        self._events: list[tuple[int, Any, dict, dict | None]] = []  # (seq, to, event, others)
        self._before: list[tuple[int, int]] = []  # per move: (rng, dice left) before it
        self.state = state
        self.state.trace = []
        self._seen = [observe(self.state, p) for p in self._viewers()]
        run(self.state)
        self._record()

    # ------------------------------------------------------------------ reading
    @property
    def players(self) -> int:
        return self.state.n

    @property
    def version(self) -> int:
        """How many moves were made: a move names the version it answers."""
        return len(self.moves)

    def to_move(self) -> int | None:
        """The seat (from 1) whose decision is pending, or None once the game is over."""
        pending = self.state.pending
        return None if pending is None else pending[0] + 1

    def view(self, seat: int | None, since: int = 0) -> dict[str, Any]:
        """What `seat` (None: a spectator) sees now, with the events after `since`."""
        player = self._player(seat)
        state = self.state
        out: dict[str, Any] = {
            "protocol": PROTOCOL,
            "game": self.game.name,
            "title": self.game.title,
            "version": self.version,
            "seat": seat,
            "players": state.n,
            "observation": encode(self._seen[self._viewers().index(player)]),
            "to_move": self.to_move(),
            "events_since": self.events(seat, since),
            "last_event": self._events[-1][0] if self._events else 0,
            "over": state.is_over(),
        }
        decision = self.decision() if player is not None and self.to_move() == seat else None
        if decision is not None:
            out["decision"] = decision
        if state.is_over():
            out["outcome"] = self.outcome()
        return out

    def decision(self) -> dict[str, Any] | None:
        """The pending decision as the protocol writes it (its decider's to see)."""
        pending = self.state.pending
        if pending is None:
            return None
        site = self.game.sites[pending[2]]
        options = list(pending[1])
        labels = option_labels(self.game, site, options)
        return {
            "id": site.id,
            "prompt": prompt(self.state, site),
            "cite": site.cite,
            "secret": site.secret,
            "options": [
                {"value": wire(o, site.item_type), "label": x, "text": text(self.game, o, x)}
                for o, x in zip(options, labels)
            ],
        }

    def outcome(self) -> dict[str, Any] | None:
        out = self.state.outcome()
        if out is None:
            return None
        out = dict(out)
        out["winners"] = [w + 1 for w in out["winners"]]
        if "roles" in out:
            out["roles"] = {
                role: {**entry, "seats": [p + 1 for p in entry["seats"]]}
                for role, entry in out["roles"].items()
            }
        return out

    def events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """The events after number `since` that `seat` (None: a spectator) may read."""
        player = self._player(seat)
        out = []
        for seq, to, event, others in self._events:
            if seq <= since:
                continue
            if to is EVERYONE or to == (SPECTATOR if player is None else player):
                out.append(encode({"seq": seq, **event}))
            elif others is not None:
                out.append(encode({"seq": seq, **others}))
        return out

    def schema(self) -> dict[str, Any]:
        """What each variable of the observation is (`observe.schema`)."""
        return schema(self.game, self.state.n)

    # ------------------------------------------------------------------ moving
    def move(self, seat: int, option: Any, version: int, since: int = 0) -> dict[str, Any]:
        """Take `option` (a decision option's `value`) for `seat`, if `version` is the
        session's: the new view of that seat, with the events after `since`. Anything
        else raises `ProtocolError` (K501 over, K506 stale version, K507 not this seat's
        turn, K508 no such seat, K502 not an option, K410 past the bound, and the code of
        a rule that fails on the move, such as K401 or a work budget's K421-K424) and changes
        nothing."""
        player = self._player(seat)
        if player is None:
            raise self._error("K508", "a spectator cannot move", "seat")
        if type(version) is not int or version != self.version:
            raise self._error(
                "K506",
                f"the move answers version {version!r}, but the game is at version {self.version}",
                "version",
                hint="read the view again and answer its decision",
            )
        pending = self.state.pending
        if pending is None:
            raise self._error("K501", "the game is over; no decision is pending", "option")
        if pending[0] != player:
            raise self._error("K507", f"it is P{pending[0] + 1}'s turn, not P{seat}'s", "seat")
        site = self.game.sites[pending[2]]
        matches = [o for o in pending[1] if wire(o, site.item_type) == option]
        if not matches:
            labels = ", ".join(option_labels(self.game, site, list(pending[1]))[:10])
            raise self._error(
                "K502",
                f"{option!r} is not one of the options of {site.id!r}",
                "option",
                hint=f"the options are: {labels}",
            )
        self._before.append((self.state.rng, len(self.state.script)))
        try:
            self.state.apply(matches[0])
        except KnapperError as err:  # past the bound, or a rule failed: nothing changed
            self._before.pop()
            self.state.trace = []  # what the failed move traced is not an event
            raise ProtocolError(err.diagnostics[0], err.sources, "option") from None
        self.moves.append(matches[0])
        self.movers.append(player)
        self._record()
        return self.view(seat, since)

    def _record(self) -> None:
        """Turn what the engine traced since the last call into events, with each viewer's
        own event of what changed in his view."""
        entries = list(self.state.trace or ())
        self.state.trace = []
        found = [(to, event, others) for to, event, others in from_trace(self.game, entries)]
        seen = [observe(self.state, p) for p in self._viewers()]
        for p, (old, new) in zip(self._viewers(), zip(self._seen, seen)):
            changed = changes(old, new)
            if changed:
                to = SPECTATOR if p is None else p
                found += [(to, move, None) for move in moves(self.game, old, new)]
                found.append((to, {"kind": "view", "changed": changed}, None))
        self._seen = seen
        seq = self._events[-1][0] if self._events else 0
        for to, event, others in found:
            seq += 1
            self._events.append((seq, to, event, others))

    def _viewers(self) -> list[int | None]:
        """Every player, and the spectator (None)."""
        return [*range(self.state.n), None]

    # ------------------------------------------------------------------ undo
    def can_undo(self, seat: int) -> bool:
        """May `seat` take back the last move? Only his own, and only when nothing came of it
        that he could not have known: no die rolled, no card shuffled or drawn by chance, and
        nothing hidden from him before it is shown to him now."""
        player = self._player(seat)
        if not self.moves or player is None:
            return False
        if self.movers[-1] != player:
            return False
        before = self._before[-1]
        if (self.state.rng, len(self.state.script)) != before:
            return False
        replay = self._replayed(self.moves[:-1])
        return not _revealed(observe(replay.state, player), observe(self.state, player))

    def undo(self, seat: int) -> dict[str, Any]:
        """Take back `seat`'s last move (`can_undo`), by playing the game again without it."""
        if not self.can_undo(seat):
            raise self._error(
                "K510",
                f"P{seat} cannot take back the last move",
                "seat",
                hint="only one's own last move, and only when it rolled, drew and showed nothing",
            )
        replay = self._replayed(self.moves[:-1])
        events, seen = self._events, self._seen
        self.__dict__.update(replay.__dict__)
        # the history stays: an event says the move was taken back, then each viewer's
        # view goes back to what it was
        self._events, self._seen = events, seen
        self._events.append(
            (
                events[-1][0] + 1,
                EVERYONE,
                {"kind": "undo", "seat": seat, "version": self.version},
                None,
            )
        )
        self._record()
        return self.view(seat)

    def _replayed(self, moves: list) -> Session:
        again = Session(self.game, self.state.n, self.seed)
        for option in moves:
            seat = again.to_move()
            assert seat is not None, "the moves were made in this game, before its end"
            again.move(seat, wire_of(again, option), again.version)
        return again

    # ------------------------------------------------------------------ saving
    def save(self) -> bytes:
        """The session as JSON: its ruleset, players, seed and moves (server-side only: the
        seed tells every hidden card)."""
        return orjson.dumps(
            {
                "protocol": PROTOCOL,
                "ruleset": self.game.name,
                "fingerprint": self.game.fingerprint,
                "players": self.state.n,
                "seed": self.seed,
                "moves": self.moves,
            }
        )

    @classmethod
    def load(cls, data: bytes | str, game: Game) -> Session:
        """A saved session of `game`, played again move by move: a save that does not fit
        the ruleset, or holds a move that is not legal where it is made, is refused (K700,
        K701) and nothing is made of it."""
        try:
            saved = orjson.loads(data)
        except orjson.JSONDecodeError as err:
            raise SaveFileError(
                diag("K700", f"the save is not JSON: {err}", Span("save", 1, 1, 1, 1))
            ) from None
        fields = {
            "protocol": int,
            "ruleset": str,
            "fingerprint": str,
            "players": int,
            "seed": int,
            "moves": list,
        }
        for name, kind in fields.items():
            if type(saved.get(name) if isinstance(saved, dict) else None) is not kind:
                raise _bad_save(f"the save has no {name!r} of type {kind.__name__}")
        if saved["protocol"] != PROTOCOL:
            raise _bad_save(f"the save is of protocol {saved['protocol']}, not {PROTOCOL}")
        if saved["ruleset"] != game.name or saved["fingerprint"] != game.fingerprint:
            raise _bad_save(
                f"the save is of another ruleset, or of {saved['ruleset']} as another text"
            )
        try:
            session = cls(game, saved["players"], saved["seed"])
            for i, option in enumerate(saved["moves"]):
                who = session.to_move()
                if who is None:
                    raise _bad_save(f"move {i + 1} comes after the end of the game")
                session.move(who, wire_of(session, option), session.version)
        except ProtocolError as err:
            raise _bad_save(
                f"a move of the save is refused: {err.diagnostics[0].message}"
            ) from None
        return session

    # ------------------------------------------------------------------ helpers
    def _player(self, seat: int | None) -> int | None:
        """The engine's player for a seat from 1; None for a spectator."""
        if seat is None:
            return None
        if type(seat) is not int or not 1 <= seat <= self.state.n:
            raise self._error(
                "K508", f"there is no seat {seat!r}: the seats are 1 to {self.state.n}", "seat"
            )
        return seat - 1

    def _error(self, code: str, message: str, field: str, hint: str | None = None) -> ProtocolError:
        span = Span(self.game.name, 0, 0, 0, 0)
        return ProtocolError(diag(code, message, span, hint=hint), field=field)


def wire_of(session: Session, option: Any) -> Any:
    """An option the engine holds, as a move writes it at the session's pending decision."""
    pending = session.state.pending
    assert pending is not None, "an option is written only where a decision is pending"
    return wire(option, session.game.sites[pending[2]].item_type)


def _bad_save(message: str) -> SaveFileError:
    return SaveFileError(diag("K701", message, Span("save", 1, 1, 1, 1)))


def _revealed(before: Any, after: Any) -> bool:
    """Does `after` show something that `before` hid (a hidden mark gone)?"""
    if isinstance(before, dict) and "hidden" in before:
        return not (isinstance(after, dict) and "hidden" in after)
    if isinstance(before, dict) and isinstance(after, dict):
        return any(_revealed(v, after.get(k)) for k, v in before.items())
    if isinstance(before, list) and isinstance(after, list):
        return any(_revealed(a, b) for a, b in zip(before, after))
    return False
