"""`knapper serve` in a real browser: headless Chromium (Debian's `chromium`, driven by
Playwright) plays whole games of tic-tac-toe and Pig at two seats and five turns of
Neanderthal at three, each seat in its own browser context through its own link, and no page
ever shows the name of a card hidden from its seat.

Chromium is a system package: CI installs it (`.ci/run`). On a machine without it these
tests say so and are skipped; under CI (`CI=true`) its absence is a failure.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import time

import pytest
from live_server import serving

from interpreter.api import load
from interpreter.protocol import Session

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI needs Chromium for the browser tests: apt-get install chromium")
    pytest.skip(
        "no Chromium on this machine (apt-get install chromium); the browser tests run in CI",
        allow_module_level=True,
    )

from playwright.sync_api import sync_playwright  # noqa: E402 - only with a browser


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


def _create(page, server, ruleset: str, players: int) -> list[str]:
    """Create a game on the front page, as a person would: the seats' links."""
    page.goto(server.url + "/")
    page.select_option("select[name=ruleset]", ruleset)
    page.fill("#create input[name=players]", str(players))
    page.click("#create button")
    page.wait_for_selector("a.seat-link")
    links = page.eval_on_selector_all("a.seat-link", "links => links.map(a => a.href)")
    return links[:players]


def _play(pages, done, budget_s: float, check=None) -> int:
    """Click a (seeded) random option wherever one is offered until `done()`; the clicks
    made."""
    rnd = random.Random(1)
    clicks = 0
    deadline = time.monotonic() + budget_s
    while not done():
        assert time.monotonic() < deadline, "the game did not go on in time"
        for i, page in enumerate(pages):
            buttons = page.query_selector_all("button.option:not([disabled])")
            if buttons:
                rnd.choice(buttons).click()
                clicks += 1
                page.wait_for_timeout(50)
                if check is not None:
                    check(i, page)
        pages[0].wait_for_timeout(100)
    return clicks


def _over(page) -> bool:
    return "the game is over" in page.inner_text("#status")


@pytest.mark.parametrize(("ruleset", "players"), [("tic-tac-toe", 2), ("pig", 2)])
def test_two_browsers_play_a_whole_game(browser, tmp_path, ruleset, players):
    with serving(tmp_path / "games.db") as server:
        front = browser.new_page()
        links = _create(front, server, ruleset, players)
        pages = []
        for link in links:
            page = browser.new_context().new_page()
            page.goto(link)
            pages.append(page)
        clicks = _play(pages, lambda: all(_over(p) for p in pages), 240)
        assert clicks > 0
        winners = {re.search(r"winner\(s\) (.*)", p.inner_text("#status")).group(1) for p in pages}
        assert len(winners) == 1, "the seats disagree about who won"


def _hidden_titles(game, save: bytes, seat: int) -> set[str]:
    """Titles of the cards the engine holds where `seat` may not see them, less any title
    of a card the seat was shown (a value of its view or events: keys such as the names of
    every daughter are the printed game, not a view of it)."""
    session = Session.load(save, game)
    state = session.state
    shown = set(_values([session.view(seat), session.events(seat)]))
    seen = {r.get("title") or i for i, r in game.rows.items() if i in shown}
    own = state.observation(seat - 1)["vars"]
    hidden: set[str] = set()
    for spec in game.shown_vars:  # scratch variables are in no view, hidden or not
        if state.g[spec.slot] == own[spec.name]:
            continue
        for entry in _values(state.g[spec.slot]):
            if isinstance(entry, str) and entry in game.rows and entry not in shown:
                hidden.add(game.rows[entry].get("title") or entry)
    return {t for t in hidden - seen if len(t) >= 4}


def _values(value):
    """Every value inside lists and objects (the objects' values, not their keys)."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _values(v)
    elif isinstance(value, list):
        for v in value:
            yield from _values(v)
    else:
        yield value


def test_three_browsers_play_five_turns_of_neanderthal_and_see_only_their_own(browser, tmp_path):
    game = load("neanderthal")
    db = tmp_path / "games.db"
    with serving(db) as server:
        front = browser.new_page()
        links = _create(front, server, "neanderthal", 3)
        gid = links[0].split("/g/")[1].split("?")[0]
        pages = []
        for link in links:
            page = browser.new_context().new_page()
            page.goto(link)
            pages.append(page)
        watcher = browser.new_context().new_page()
        watcher.goto(f"{server.url}/g/{gid}")
        from interpreter.frontends.web.store import Store

        store = Store(db)
        checked: list[int] = []
        secrets: list[int] = []  # how many hidden titles each check looked for

        def no_leak(i: int, page) -> None:
            if len(checked) % 10:
                checked.append(i)
                return
            checked.append(i)
            # the page first: the save is then as new or newer, and what the page shows
            # is in the history of the seat's views that its events keep
            # what the page says of the game: values, options, the log (keys name the
            # printed game, such as every daughter, and are no view of it)
            parts = page.eval_on_selector_all(
                ".value, #decision, #log", "nodes => nodes.map(n => n.innerText)"
            )
            text = "\n".join(parts)
            save = store.game(gid)["save"]
            hidden = _hidden_titles(game, save, i + 1)
            secrets.append(len(hidden))
            for title in hidden:
                assert not re.search(rf"\b{re.escape(title)}\b", text), (
                    f"P{i + 1}'s page names {title!r}, hidden from P{i + 1}"
                )

        def five_turns() -> bool:
            turn = watcher.inner_text("#view")
            found = re.search(r"^turn\s+(\d+)", turn, re.MULTILINE)
            return found is not None and int(found.group(1)) >= 5

        clicks = _play(pages, five_turns, 600, no_leak)
        store.close()
        assert clicks > 20 and len(checked) == clicks
        assert secrets and min(secrets) > 10, "the check looked for too few hidden cards"
