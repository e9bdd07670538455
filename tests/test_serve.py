"""`knapper serve` over HTTP: games created, played and refused as the protocol says, an
upload checked with its errors' positions, and games that survive the server being killed
(SIGKILL) and started again."""

from __future__ import annotations

import random

import httpx
import orjson
import pytest
from live_server import Server, serving


def _create(url: str, **asked) -> dict:
    answer = httpx.post(url + "/api/games", content=orjson.dumps(asked))
    assert answer.status_code == 201, answer.text
    return answer.json()


def _play(url: str, created: dict, rnd: random.Random, moves: int) -> int:
    """Random moves, each by the seat to move through its own token; how many were made."""
    gid = created["game"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    made = 0
    for _ in range(moves):
        view = httpx.get(f"{url}/api/games/{gid}/view", params={"token": tokens[1]}).json()
        if view["over"]:
            break
        seat = view["to_move"]
        mine = httpx.get(f"{url}/api/games/{gid}/view", params={"token": tokens[seat]}).json()
        option = rnd.choice(mine["decision"]["options"])["value"]
        body = orjson.dumps({"version": mine["version"], "option": option})
        answer = httpx.post(
            f"{url}/api/games/{gid}/move", params={"token": tokens[seat]}, content=body
        )
        assert answer.status_code == 200, answer.text
        made += 1
    return made


def test_a_whole_game_over_http_and_each_refusal_with_its_status(tmp_path):
    with serving(tmp_path / "games.db") as server:
        url = server.url
        created = _create(url, ruleset="pig", players=2)
        gid, tokens = created["game"], [s["token"] for s in created["seats"]]
        view = httpx.get(f"{url}/api/games/{gid}/view", params={"token": tokens[0]}).json()
        move = orjson.dumps({"version": 0, "option": view["decision"]["options"][0]["value"]})
        cases = [
            (tokens[1], move, 403, "K507"),  # not P2's turn
            ("forged", move, 403, "K508"),
            (tokens[0], orjson.dumps({"version": 7, "option": "roll"}), 409, "K506"),
            (tokens[0], orjson.dumps({"version": 0, "option": "fly"}), 400, "K502"),
            (tokens[0], b"{not json", 400, "K509"),
        ]
        for token, body, status, code in cases:
            answer = httpx.post(
                f"{url}/api/games/{gid}/move", params={"token": token}, content=body
            )
            assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
        missing = httpx.get(f"{url}/api/games/nothing/view")
        assert (missing.status_code, missing.json()["error"]["code"]) == (404, "K511")
        assert _play(url, created, random.Random(1), 2000) > 0
        spectator = httpx.get(f"{url}/api/games/{gid}/view").json()
        assert spectator["over"] and spectator["seat"] is None and "decision" not in spectator


def test_an_upload_is_checked_and_its_errors_have_positions(tmp_path):
    broken = 'ruleset "mine"\nplayers 2\nround max 3 {\n  let y = nope + 1\n}\n'
    good = 'ruleset "mine"\nplayers 2\nround max 3 {\n  end game winners [player(1)]\n}\n'
    with serving(tmp_path / "games.db") as server:
        answer = httpx.post(server.url + "/api/games", content=orjson.dumps({"source": broken}))
        error = answer.json()["error"]
        assert answer.status_code == 400
        assert (error["code"], error["line"], error["col"]) == ("K201", 4, 11)
        created = _create(server.url, source=good)
        view = httpx.get(f"{server.url}/api/games/{created['game']}/view").json()
        assert view["over"] and view["outcome"]["winners"] == [1]


@pytest.mark.parametrize("ruleset", ["pig", "neanderthal"])
def test_games_survive_the_server_being_killed(tmp_path, ruleset):
    db = tmp_path / "games.db"
    first = Server(db).start()
    try:
        created = _create(first.url, ruleset=ruleset, players=2 if ruleset == "pig" else 3)
        made = _play(first.url, created, random.Random(2), 25)
        gid, token = created["game"], created["seats"][0]["token"]
        before = httpx.get(f"{first.url}/api/games/{gid}/view", params={"token": token}).json()
    finally:
        first.kill()
    with serving(db) as second:
        after = httpx.get(f"{second.url}/api/games/{gid}/view", params={"token": token}).json()
        assert after["version"] == made == before["version"]
        assert after["observation"] == before["observation"]
        assert after.get("decision") == before.get("decision")
        _play(second.url, created, random.Random(3), 5)
