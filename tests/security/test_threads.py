"""Work shared between threads: formatting in threads gives what formatting one file at a
time gives, and many threads loading one ruleset at once compile it once and share the Game."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from dsl.resources import rulesets_root
from dsl.syntax.fmt import format_text
from interpreter import api


@pytest.fixture
def fine_switching():
    """Switch threads as often as the interpreter allows, so that a race shows."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def test_formatting_in_eight_threads_matches_formatting_in_one(fine_switching):
    # the ten smallest bundled files with comments: different comments, quickly formatted
    files = [p for p in rulesets_root().rglob("*.knap") if "#" in p.read_text(encoding="utf-8")]
    files = sorted(files, key=lambda p: (p.stat().st_size, p))[:10]
    texts = [(str(p), p.read_text(encoding="utf-8")) for p in files]
    texts = (texts * (80 // len(texts) + 1))[:80]
    expected = {path: format_text(text, path) for path, text in dict(texts).items()}
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda pair: format_text(pair[1], pair[0]), texts))
    wrong = [path for (path, _), out in zip(texts, got) if out != expected[path]]
    assert wrong == []


def test_fifty_threads_loading_one_ruleset_compile_it_once(monkeypatch):
    compiled: list[str] = []
    real = api.compile_path

    def slow_compile(name):
        compiled.append(str(name))
        time.sleep(0.05)  # long enough that every thread arrives while the first compiles
        return real(name)

    monkeypatch.setattr(api, "compile_path", slow_compile)
    monkeypatch.setattr(api, "_cache", {})
    start = threading.Barrier(50)
    games: list = []

    def work():
        start.wait()
        games.append(api.load("pig"))

    threads = [threading.Thread(target=work) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(compiled) == 1
    assert len(games) == 50 and len({id(g) for g in games}) == 1


def test_loads_of_two_rulesets_do_not_wait_for_each_other(monkeypatch):
    """The lock is per ruleset: while one compiles, another ruleset's load goes ahead."""
    real = api.compile_path
    entered = threading.Event()
    release = threading.Event()

    def held_compile(name):
        if "pig" in str(name):
            entered.set()
            release.wait(5)
        return real(name)

    monkeypatch.setattr(api, "compile_path", held_compile)
    monkeypatch.setattr(api, "_cache", {})
    slow = threading.Thread(target=api.load, args=("pig",))
    slow.start()
    assert entered.wait(5)
    try:
        assert api.load("tic-tac-toe").name == "tic-tac-toe"
    finally:
        release.set()
        slow.join()
