"""Compiled games as bytes and on disk (dsl/codegen/cache.py): a game read back plays as the
game compiled, seed for seed; a change to the ruleset, to a file it extends or to the
compiler is a miss; a damaged entry is a miss and is mended; writers at once leave a whole
entry."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from dsl.codegen import cache
from dsl.codegen.compile import Compiler
from dsl.pipeline import compile_path
from interpreter.api import new_game
from tests.conftest import RULESETS, player_counts

PIG = Path(__file__).resolve().parent.parent / "rulesets" / "classics" / "pig.knap"


def _moves(game, players: int, seed: int) -> tuple[list[str], dict | None]:
    state = new_game(game, players=players, seed=seed)
    rng = random.Random(seed)
    taken = []
    while state.pending is not None:
        option = rng.choice(state.pending[1])
        taken.append(repr(option))
        state.apply(option)
    return taken, state.outcome()


@pytest.mark.parametrize("name", RULESETS)
def test_an_unpacked_game_plays_as_the_game_compiled(games, name) -> None:
    game = games(name)
    again = cache.unpack(cache.pack(game))
    assert again is not game and again.fingerprint == game.fingerprint
    for players in player_counts(game)[:2]:
        for seed in range(2):
            assert _moves(again, players, seed) == _moves(game, players, seed)


def test_a_game_packs_while_a_built_in_is_replaced(monkeypatch) -> None:
    """A test, a debugger or a cluster's client may replace `print` for a while: a game just
    compiled still packs (it names Python's built-ins as the module, not item by item)."""
    import builtins

    from dsl.pipeline import compile_text

    game = compile_text(PIG.read_text(encoding="utf-8"), str(PIG))
    monkeypatch.setattr(builtins, "print", lambda *args, **kwargs: None)
    assert _moves(cache.unpack(cache.pack(game)), 2, 0) == _moves(game, 2, 0)


def test_unpacking_what_is_no_game_is_refused_with_k472(games, monkeypatch) -> None:
    import pickle

    from dsl.errors import KnapperError

    packed = cache.pack(games("pig"))
    header = len(cache._header())  # the mark and the packer's digest
    for data, why in [
        (pickle.dumps([1, 2]), "not a packed game"),
        (packed[:header] + pickle.dumps([1, 2]), "not a packed game"),
        (packed[: header + 40], "cannot be read"),
    ]:
        with pytest.raises(KnapperError, match=why) as err:
            cache.unpack(data)
        assert err.value.code == "K472"
    monkeypatch.setattr(cache, "compiler_digest", lambda: b"another Knapper or Python" * 2)
    with pytest.raises(KnapperError, match="another version") as err:
        cache.unpack(packed)
    assert err.value.code == "K472"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("KNAPPER_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def variant(tmp_path) -> Path:
    """A variant of Pig in a folder of its own, extending a copy of Pig."""
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "base.knap").write_text(PIG.read_text(encoding="utf-8"), encoding="utf-8")
    short = folder / "short.knap"
    short.write_text(
        'variant "pig-short" extends "base.knap" §classic\nset target = 50 §classic\n',
        encoding="utf-8",
    )
    return short


def _entries(folder: Path) -> list[Path]:
    return sorted((folder / "compiled").rglob("*.pickle"))


@pytest.fixture
def compiles(monkeypatch) -> list[str]:
    """The rulesets compiled from now on (a game read from the cache is not compiled)."""
    seen: list[str] = []
    compile_game = Compiler.compile

    def counted(self):
        seen.append(self.program.name)
        return compile_game(self)

    monkeypatch.setattr(Compiler, "compile", counted)
    return seen


def test_a_compiled_ruleset_is_read_back_without_compiling(cache_dir, variant, compiles) -> None:
    first = compile_path(variant)
    assert compiles == ["pig-short"] and len(_entries(cache_dir)) == 1
    again = compile_path(variant)
    assert compiles == ["pig-short"], "read from the cache"
    assert again.params == {"target": 50}
    assert _moves(again, 3, 7) == _moves(first, 3, 7)


def test_a_change_to_a_file_the_ruleset_extends_is_a_miss(cache_dir, variant, compiles) -> None:
    compile_path(variant)
    base = variant.parent / "base.knap"
    base.write_text(
        base.read_text(encoding="utf-8").replace('title "Pig"', 'title "Pig again"'),
        encoding="utf-8",
    )
    assert compile_path(variant).title == "Pig again"
    assert compiles == ["pig-short", "pig-short"]


def test_a_change_to_the_ruleset_is_a_miss(cache_dir, variant, compiles) -> None:
    compile_path(variant)
    variant.write_text(variant.read_text(encoding="utf-8").replace("50", "60"), encoding="utf-8")
    assert compile_path(variant).params == {"target": 60}
    assert len(compiles) == 2 and len(_entries(cache_dir)) == 2


def test_an_entry_of_another_compiler_is_not_read(cache_dir, variant, monkeypatch) -> None:
    text = variant.read_text(encoding="utf-8")
    compile_path(variant)
    assert cache.load(str(variant), text) is not None
    monkeypatch.setattr(cache, "compiler_digest", lambda: b"another compiler")
    assert cache.load(str(variant), text) is None


def test_a_damaged_entry_is_a_miss_and_is_mended(cache_dir, variant, compiles) -> None:
    compile_path(variant)
    (entry,) = _entries(cache_dir)
    entry.write_bytes(b"not a pickle")
    assert compile_path(variant).params == {"target": 50}
    assert len(compiles) == 2
    assert cache.load(str(variant), variant.read_text(encoding="utf-8")) is not None


def test_the_cache_can_be_turned_off(monkeypatch, variant, compiles) -> None:
    monkeypatch.setenv("KNAPPER_CACHE_DIR", "off")
    compile_path(variant)
    compile_path(variant)
    assert len(compiles) == 2


def test_writers_at_once_leave_a_whole_entry(cache_dir, variant) -> None:
    """Four processes compile the same ruleset into an empty cache at once: one entry,
    which reads back as the game."""
    script = "import sys; from dsl.pipeline import compile_path; compile_path(sys.argv[1])"
    root = Path(__file__).resolve().parent.parent
    env = {"KNAPPER_CACHE_DIR": str(cache_dir), "PATH": "/usr/bin:/bin"}
    writers = [
        subprocess.Popen([sys.executable, "-c", script, str(variant)], cwd=root, env=env)
        for _ in range(4)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0, 0]
    (entry,) = _entries(cache_dir)
    assert not list(entry.parent.glob("*.tmp"))
    game = cache.load(str(variant), variant.read_text(encoding="utf-8"))
    assert game is not None and game.params == {"target": 50}


def test_a_game_read_from_disk_is_sent_as_the_bytes_kept(cache_dir, variant, monkeypatch) -> None:
    """`pack_ruleset` gives the entry's own bytes for the game it holds, without packing
    again; for a game of other sources (another fingerprint) it packs that game."""
    import attrs

    from dsl.pipeline import pack_ruleset

    game = compile_path(variant)
    text = variant.read_text(encoding="utf-8")
    kept = cache.packed(str(variant), text, game.fingerprint)
    assert kept is not None and cache.unpack(kept).fingerprint == game.fingerprint
    assert cache.packed(str(variant), text, "another game") is None
    packs: list[str] = []
    pack = cache.pack
    monkeypatch.setattr(cache, "pack", lambda g: packs.append(g.fingerprint) or pack(g))
    assert pack_ruleset(variant, game) == kept and packs == []
    other = attrs.evolve(game, fingerprint="other")
    assert cache.unpack(pack_ruleset(variant, other)).fingerprint == "other"
    assert packs == ["other"]


def test_a_worker_plays_the_game_it_is_sent_without_its_files(variant) -> None:
    """A simulation's batch plays from the packed game alone: the ruleset's folder may be
    gone (a cluster's worker need not have it), and the games are those of one process."""
    from interpreter.simulate import RANDOM, _batch, simulate

    _, alone = simulate(str(variant), games=6, seed=3, players=2)
    packed = cache.pack(compile_path(variant))
    for file in variant.parent.iterdir():
        file.unlink()
    sent = _batch(str(variant), packed, 2, range(3, 9), False, None, False, None, RANDOM)
    assert [(r.seed, r.winners, r.decisions) for r in sent] == [
        (r.seed, r.winners, r.decisions) for r in alone
    ]


def _texts(value, found: list[str]) -> list[str]:
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _texts(key, found)
            _texts(item, found)
    elif isinstance(value, (list, tuple, frozenset)):
        for item in value:
            _texts(item, found)
    return found


def test_the_texts_of_generated_code_s_constants_are_interned_unpacked_too(games) -> None:
    """Rows, positions and constants: each text is Python's interned one, in the game
    compiled and in the game unpacked, so a name from a table is the same object as the
    same name written in the code."""
    import sys

    compiled = games("cro-magnon")
    for game in (compiled, cache.unpack(cache.pack(compiled))):
        namespace = game.code[0][0].__globals__
        texts = [
            text
            for name, value in namespace.items()
            if name.startswith("_") and not callable(value)
            for text in _texts(value, [])
        ]
        assert len(texts) > 100
        assert all(sys.intern(text) is text for text in texts)
