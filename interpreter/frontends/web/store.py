"""Where `knapper serve` keeps its games: one SQLite file, written after every move.

A game is its ruleset (a bundled name, or the text of an uploaded one), its players, its
seed, a secret token per seat and its moves: what `Session.save` holds, so a server killed
at any moment and started again plays each game on from its last committed move
(`Session.load`). WAL journaling with full sync makes every committed move survive a kill.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
import time
from pathlib import Path

import orjson

SCHEMA = """
create table if not exists games (
  id text primary key,
  ruleset text not null,      -- a bundled name, or the name of an uploaded ruleset
  source text,                -- an uploaded ruleset's text (null for a bundled one)
  players integer not null,
  seed integer not null,
  save blob not null,         -- Session.save(): the moves so far
  created real not null
);
create table if not exists seats (
  game text not null references games(id),
  seat integer not null,
  token text not null unique,
  primary key (game, seat)
);
"""


class Store:
    """The games of one server. Every method is safe to call from several threads."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("pragma journal_mode=wal")
        self._db.execute("pragma synchronous=full")
        self._db.executescript(SCHEMA)

    def create(
        self, ruleset: str, source: str | None, players: int, seed: int, save: bytes
    ) -> tuple[str, list[str]]:
        """A new game: its id and each seat's token, in seat order."""
        game = secrets.token_urlsafe(9)
        tokens = [secrets.token_urlsafe(16) for _ in range(players)]
        with self._lock:
            self._db.execute("begin immediate")
            self._db.execute(
                "insert into games values (?, ?, ?, ?, ?, ?, ?)",
                (game, ruleset, source, players, seed, save, time.time()),
            )
            self._db.executemany(
                "insert into seats values (?, ?, ?)",
                [(game, i + 1, t) for i, t in enumerate(tokens)],
            )
            self._db.execute("commit")
        return game, tokens

    def record(self, game: str, save: bytes) -> None:
        """The game's moves after a move, committed before the move is answered."""
        with self._lock:
            self._db.execute("update games set save = ? where id = ?", (save, game))

    def game(self, game: str) -> dict | None:
        with self._lock:
            row = self._db.execute(
                "select ruleset, source, players, seed, save from games where id = ?", (game,)
            ).fetchone()
        if row is None:
            return None
        ruleset, source, players, seed, save = row
        return {
            "ruleset": ruleset,
            "source": source,
            "players": players,
            "seed": seed,
            "save": save,
        }

    def seat_of(self, game: str, token: str) -> int | None:
        with self._lock:
            row = self._db.execute(
                "select seat from seats where game = ? and token = ?", (game, token)
            ).fetchone()
        return None if row is None else row[0]

    def moves(self, game: str) -> list:
        found = self.game(game)
        return [] if found is None else orjson.loads(found["save"])["moves"]

    def close(self) -> None:
        with self._lock:
            self._db.close()
