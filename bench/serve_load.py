"""Benchmark: `knapper serve` under load on loopback.

Starts a server process over a fresh SQLite file, creates N games of Pig (two seats each)
and plays them all at once from asyncio HTTP clients (httpx), every seat through its own
token, each move a random option of the view it answers. It then checks that nothing was
lost or made twice: every game's version on the server equals the moves its clients made,
and so does the save kept in the database. Prints the move latency (median, p95, p99, as
the clients measured it, wall-clock) and the moves per second; the whole run is bounded
(a game stops after 1,000 moves, the run after 10 minutes).

    python bench/serve_load.py                 # 200 games
    python bench/serve_load.py --games 50 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import orjson

MOVES_PER_GAME = 1000
DEADLINE_S = 600


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _game(
    client: httpx.AsyncClient, rnd: random.Random, latencies: list, retries: list
) -> tuple:
    answer = await client.post("/api/games", content=orjson.dumps({"ruleset": "pig"}))
    created = answer.json()
    gid = created["game"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    view = (await client.get(f"/api/games/{gid}/view", params={"token": tokens[1]})).json()
    made = 0
    while not view["over"] and made < MOVES_PER_GAME:
        seat = view["to_move"]
        if view["seat"] != seat:
            view = (
                await client.get(f"/api/games/{gid}/view", params={"token": tokens[seat]})
            ).json()
        option = rnd.choice(view["decision"]["options"])["value"]
        body = orjson.dumps({"version": view["version"], "option": option})
        start = time.perf_counter()
        try:
            answer = await client.post(
                f"/api/games/{gid}/move",
                params={"token": tokens[seat], "since": view["last_event"]},
                content=body,
            )
        except httpx.TransportError:
            # the answer was lost: whether the move landed, the version says (a move
            # sent again would be refused as stale, never made twice)
            retries.append(gid)
            after = await client.get(f"/api/games/{gid}/view", params={"token": tokens[seat]})
            view = after.json()
            made = view["version"]
            continue
        latencies.append(time.perf_counter() - start)
        if answer.status_code != 200:
            raise RuntimeError(f"game {gid}: move {made + 1} refused: {answer.text}")
        made += 1
        view = answer.json()
    return gid, made


async def _run(url: str, games: int, seed: int) -> tuple[list, list, list, float]:
    latencies: list[float] = []
    retries: list[str] = []
    limits = httpx.Limits(max_connections=games, max_keepalive_connections=games)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        start = time.perf_counter()
        results = await asyncio.wait_for(
            asyncio.gather(
                *[_game(client, random.Random(seed + i), latencies, retries) for i in range(games)]
            ),
            DEADLINE_S,
        )
        seconds = time.perf_counter() - start
        # nothing lost, nothing twice: the server's version is the moves made
        for gid, made in results:
            view = (await client.get(f"/api/games/{gid}/view")).json()
            if view["version"] != made:
                raise RuntimeError(f"game {gid}: {made} moves made, version {view['version']}")
    return results, latencies, retries, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.db"
        port = _port()
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "interpreter.frontends.cli",
                "serve",
                "--port",
                str(port),
                "--db",
                str(db),
            ],
            stdout=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    httpx.get(url + "/", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            results, latencies, retries, seconds = asyncio.run(_run(url, args.games, args.seed))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        kept = dict(
            (gid, len(orjson.loads(save)["moves"]))
            for gid, save in sqlite3.connect(db).execute("select id, save from games")
        )
    for gid, made in results:
        if kept.get(gid) != made:
            raise SystemExit(f"game {gid}: {made} moves made, {kept.get(gid)} kept in the database")
    moves = sum(made for _gid, made in results)
    qs = statistics.quantiles(latencies, n=100)
    report = {
        "games": args.games,
        "moves": moves,
        "seconds": round(seconds, 2),
        "moves_per_second": round(moves / seconds, 1),
        "latency_ms": {
            "median": round(statistics.median(latencies) * 1000, 2),
            "p95": round(qs[94] * 1000, 2),
            "p99": round(qs[98] * 1000, 2),
        },
        "lost_or_duplicated": 0,
        "answers_lost_and_read_again": len(retries),
    }
    if args.json:
        print(json.dumps(report))
        return
    lead = f"{args.games} concurrent games of Pig over HTTP on loopback"
    print(f"{lead}: {moves} moves in {seconds:.1f} s")
    print(
        f"  {report['moves_per_second']} moves/s; move latency (wall-clock) median "
        f"{report['latency_ms']['median']} ms, p95 {report['latency_ms']['p95']} ms, "
        f"p99 {report['latency_ms']['p99']} ms"
    )
    print(
        "  every game's version and saved moves equal the moves its clients made "
        f"({len(retries)} answers lost on the way and read again)"
    )


if __name__ == "__main__":
    main()
