"""The web app of `knapper serve` (Starlette): the protocol over HTTP, and a page per seat.

    POST /api/games                       {"ruleset": NAME | "source": TEXT, "players": n}
    GET  /api/games/{id}/view?token=T&since=N   the seat's view (no token: a spectator's)
    POST /api/games/{id}/move?token=T     {"version": v, "option": value}
    GET  /api/games/{id}/schema           what each variable of a view is
    GET  /                                the page that creates games
    GET  /g/{id}?token=T                  a seat's page (no token: the spectators' page)

Every answer is a protocol message (docs/protocol.md); a refused request is an error
message with its K-code and an HTTP status that says the same (400, 403, 404, 409). A seat
is known only by its secret token, made when the game is created. Every move is committed
to the store before it is answered, so a server killed at any moment resumes every game.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from importlib.resources import files
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from dsl.errors import KnapperError, Span, diag
from dsl.pipeline import compile_text
from dsl.resources import rulesets_root
from dsl.semantics.resolve import bundled_names
from interpreter.api import load
from interpreter.core.game import Game
from interpreter.frontends.web.store import Store
from interpreter.protocol import PROTOCOL, ProtocolError, Session

STATUS = {"K506": 409, "K507": 403, "K508": 403, "K510": 403, "K511": 404}
MAX_UPLOAD = 1 << 20  # bytes of an uploaded ruleset


def json(message: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(message), status_code=status, media_type="application/json")


def refusal(err: KnapperError, field: str = "move") -> Response:
    """A refused request as the protocol's error message (every diagnostic, the first one
    in `error`), with the HTTP status its code means."""
    first = err.diagnostics[0]
    body = {
        "protocol": PROTOCOL,
        "error": {**first.to_json(), "field": getattr(err, "field", field)},
    }
    if len(err.diagnostics) > 1:
        body["diagnostics"] = [d.to_json() for d in err.diagnostics]
    return json(body, STATUS.get(first.code, 400))


def _no_game(game: str) -> ProtocolError:
    return ProtocolError(
        diag("K511", f"there is no game {game!r}", Span("request", 0, 0, 0, 0)), field="game"
    )


class Tables:
    """The server's games: sessions in memory, each with its lock, over the store."""

    def __init__(self, store: Store):
        self.store = store
        self._lock = threading.Lock()
        self._games: dict[str, Game] = {}  # compiled rulesets by name or upload digest
        self._tables: dict[str, tuple[Session, threading.Lock]] = {}

    def ruleset(self, name: str | None, source: str | None) -> tuple[str, Game]:
        """A bundled ruleset by name, or an uploaded one (compiled once per text)."""
        if source is not None:
            key = "upload-" + hashlib.sha256(source.encode()).hexdigest()[:16]
        else:
            key = str(name)
        with self._lock:
            game = self._games.get(key)
            if game is None:
                # an upload has no folder: it may name the bundled rulesets only, never
                # a file of the server's working directory
                game = (
                    compile_text(source, f"{key}.knap", tree=rulesets_root())
                    if source is not None
                    else load(key)
                )
                self._games[key] = game
        return key, game

    def create(self, name: str | None, source: str | None, players: int | None) -> dict:
        key, game = self.ruleset(name, source)
        seed = secrets.randbelow(1 << 62)
        session = Session(game, players, seed)
        gid, tokens = self.store.create(key, source, session.players, seed, session.save())
        with self._lock:
            self._tables[gid] = (session, threading.Lock())
        return {
            "protocol": PROTOCOL,
            "game": gid,
            "ruleset": game.name,
            "title": game.title,
            "players": session.players,
            "seats": [
                {"seat": i + 1, "token": t, "page": f"/g/{gid}?token={t}"}
                for i, t in enumerate(tokens)
            ],
            "watch": f"/g/{gid}",
        }

    def table(self, gid: str) -> tuple[Session, threading.Lock]:
        """A game's session, played again from the store if this server has not got it."""
        with self._lock:
            found = self._tables.get(gid)
        if found is not None:
            return found
        row = self.store.game(gid)
        if row is None:
            raise _no_game(gid)
        _key, game = self.ruleset(
            None if row["source"] is not None else row["ruleset"], row["source"]
        )
        session = Session.load(row["save"], game)
        with self._lock:
            found = self._tables.setdefault(gid, (session, threading.Lock()))
        return found

    def seat(self, gid: str, token: str | None) -> int | None:
        """The seat a token stands for; no token is a spectator; a wrong one is refused."""
        if token is None:
            return None
        seat = self.store.seat_of(gid, token)
        if seat is None:
            raise ProtocolError(
                diag("K508", "this token is no seat of the game", Span("request", 0, 0, 0, 0)),
                field="seat",
            )
        return seat


def make_app(store: Store) -> Starlette:
    tables = Tables(store)

    def create(request: Request, body: bytes) -> Response:
        try:
            asked = orjson.loads(body)
        except orjson.JSONDecodeError:
            return _bad_request("the request is not JSON")
        if not isinstance(asked, dict):
            return _bad_request("the request should be a JSON object")
        name, source, players = asked.get("ruleset"), asked.get("source"), asked.get("players")
        if (name is None) == (source is None) or not isinstance(name or source, str):
            return _bad_request("give a bundled `ruleset` name or a ruleset's `source` text")
        if players is not None and type(players) is not int:
            return _bad_request("`players` should be a number")
        if source is not None and len(source.encode()) > MAX_UPLOAD:
            return _bad_request(f"an uploaded ruleset may hold at most {MAX_UPLOAD} bytes")
        try:
            return json(tables.create(name, source, players), 201)
        except KnapperError as err:
            return refusal(err, "ruleset")

    async def create_route(request: Request) -> Response:
        body = await request.body()
        return await _threaded(create, request, body)

    def view(request: Request) -> Response:
        gid = request.path_params["game"]
        try:
            session, lock = tables.table(gid)
            seat = tables.seat(gid, request.query_params.get("token"))
            since = _int(request.query_params.get("since", "0"))
            with lock:
                return json(session.view(seat, since))
        except KnapperError as err:
            return refusal(err)

    def schema(request: Request) -> Response:
        try:
            session, lock = tables.table(request.path_params["game"])
            with lock:
                return json(session.schema())
        except KnapperError as err:
            return refusal(err)

    def move(request: Request, body: bytes) -> Response:
        gid = request.path_params["game"]
        try:
            session, lock = tables.table(gid)
            seat = tables.seat(gid, request.query_params.get("token"))
            if seat is None:
                raise ProtocolError(
                    diag("K508", "a spectator cannot move", Span("request", 0, 0, 0, 0)),
                    field="seat",
                )
            try:
                asked = orjson.loads(body)
            except orjson.JSONDecodeError:
                return _bad_request("the move is not JSON")
            if not isinstance(asked, dict) or set(asked) != {"version", "option"}:
                return _bad_request('a move is {"version": v, "option": value}')
            since = _int(request.query_params.get("since", "0"))
            with lock:
                answer = session.move(seat, asked["option"], asked["version"], since)
                store.record(gid, session.save())
            return json(answer)
        except KnapperError as err:
            return refusal(err)

    async def move_route(request: Request) -> Response:
        body = await request.body()
        return await _threaded(move, request, body)

    def page(name: str):
        text = files("interpreter.frontends.web").joinpath("static", name).read_text()

        async def serve_page(request: Request) -> Response:
            if name == "index.html":
                options = "".join(f'<option value="{n}">{n}</option>' for n in bundled_names())
                return HTMLResponse(text.replace("<!--rulesets-->", options))
            return HTMLResponse(text)

        return serve_page

    async def script(request: Request) -> Response:
        text = files("interpreter.frontends.web").joinpath("static", "table.js").read_text()
        return Response(text, media_type="text/javascript")

    return Starlette(
        routes=[
            Route("/", page("index.html")),
            Route("/g/{game}", page("table.html")),
            Route("/table.js", script),
            Route("/api/games", create_route, methods=["POST"]),
            Route("/api/games/{game}/view", view),
            Route("/api/games/{game}/schema", schema),
            Route("/api/games/{game}/move", move_route, methods=["POST"]),
        ]
    )


async def _threaded(fn, *args) -> Response:
    """Run a blocking handler (the engine, SQLite) on a worker thread."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(fn, *args)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ProtocolError(
            diag("K509", f"`since` should be a number, not {text!r}", Span("request", 0, 0, 0, 0)),
            field="move",
        ) from None


def _bad_request(message: str) -> Response:
    body = {
        "protocol": PROTOCOL,
        "error": {"code": "K509", "message": message, "hint": None, "field": "move"},
    }
    return json(body, 400)
