"""Screenshots of `knapper serve` for the docs: one Neanderthal and one Aurignac seat page,
a few random moves into a game, written to docs/images/. Run by hand after the page or the
protocol changes (needs Chromium): python tests/screenshots.py"""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
from pathlib import Path

import httpx
import orjson
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_server import serving  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "docs" / "images"


def _advance(url: str, created: dict, moves: int, seat: int) -> None:
    """Random moves at every seat, stopping at a decision of `seat` once `moves` are made."""
    rnd = random.Random(4)
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    gid = created["game"]
    made = 0
    while True:
        view = httpx.get(f"{url}/api/games/{gid}/view", params={"token": tokens[1]}).json()
        who = view["to_move"]
        if who is None or (made >= moves and who == seat):
            return
        mine = httpx.get(f"{url}/api/games/{gid}/view", params={"token": tokens[who]}).json()
        body = orjson.dumps(
            {"version": mine["version"], "option": rnd.choice(mine["decision"]["options"])["value"]}
        )
        httpx.post(f"{url}/api/games/{gid}/move", params={"token": tokens[who]}, content=body)
        made += 1


def main() -> None:
    OUT.mkdir(exist_ok=True)
    chromium = shutil.which("chromium")
    with tempfile.TemporaryDirectory() as tmp, serving(Path(tmp) / "games.db") as server:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            for ruleset, players, moves, seat in (
                ("neanderthal", 3, 40, 1),
                ("aurignac", 3, 30, 2),
            ):
                asked = orjson.dumps({"ruleset": ruleset, "players": players})
                created = httpx.post(server.url + "/api/games", content=asked).json()
                _advance(server.url, created, moves, seat)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(server.url + created["seats"][seat - 1]["page"])
                page.wait_for_selector("button.option")
                page.screenshot(path=str(OUT / f"serve-{ruleset}.png"))
                print(f"wrote docs/images/serve-{ruleset}.png")
            browser.close()


if __name__ == "__main__":
    main()
