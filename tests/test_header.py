"""Reading a ruleset's header without compiling it (dsl/syntax/header.py), and the parse
cache kept on disk (dsl/syntax/cache.py)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from dsl.semantics.resolve import bundled_names, find_ruleset, inherited_header
from dsl.syntax import cache
from dsl.syntax import parse as parse_module
from dsl.syntax.header import Header, read_header
from interpreter.frontends.cli import main


@pytest.mark.parametrize("name", bundled_names())
def test_the_header_says_what_the_compiled_game_says(name: str, games) -> None:
    game = games(name)
    head = inherited_header(find_ruleset(name))
    assert head is not None and head.name == name
    assert (head.title or name, head.players) == (game.title, game.players)


def test_a_header_after_comments_with_its_declarations() -> None:
    text = (
        "# a comment\n\n"
        'variant "v" extends "a", "b" §K\n'
        'replace title "The V"\n'
        "proc p {\n"
        "  players 9\n"  # indented: inside a declaration, not one
        "}\n"
        "replace players 2..4 §K\n"
    )
    assert read_header(text) == Header("variant", "v", ("a", "b"), "The V", (2, 4))


def test_what_does_not_start_with_a_header_has_none() -> None:
    assert read_header("# nothing\nproc p { }\n") is None
    assert read_header("") is None
    assert read_header('scenarios for "pig"\n') is None


def test_a_variant_inherits_and_a_combined_one_brings_its_own(tmp_path: Path) -> None:
    (tmp_path / "a.knap").write_text('ruleset "a"\ntitle "A"\nplayers 2..5\n')
    (tmp_path / "b.knap").write_text('variant "b" extends "a.knap"\nreplace players 3\n')
    (tmp_path / "c.knap").write_text('variant "c" extends "a.knap", "b.knap"\n')
    (tmp_path / "d.knap").write_text('variant "d" extends "missing.knap"\n')
    assert inherited_header(tmp_path / "b.knap").players == (3, 3)
    c = inherited_header(tmp_path / "c.knap")
    assert (c.title, c.players) == ("A", (3, 3))
    assert inherited_header(tmp_path / "d.knap") is None


def test_list_reads_its_rows_from_the_headers() -> None:
    rows = orjson.loads(CliRunner().invoke(main, ["list", "--json"]).output)
    assert [r["name"] for r in rows] == bundled_names()
    pig = next(r for r in rows if r["name"] == "pig")
    assert (pig["title"], pig["players"]) == ("Pig", [2, 8])


# ------------------------------------------------------------------ the parse cache
PIG = Path(find_ruleset("pig"))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KNAPPER_CACHE_DIR", str(tmp_path))
    parse_module._parse.cache_clear()
    yield tmp_path
    parse_module._parse.cache_clear()


def _fresh_parse(text: str, path: str):
    parse_module._parse.cache_clear()  # as a new process would
    return parse_module.parse(text, path)


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.pickle"))


def test_a_parsed_file_is_read_back_from_disk_without_parsing(cache_dir, monkeypatch) -> None:
    text = PIG.read_text()
    first = _fresh_parse(text, str(PIG))
    assert len(_entries(cache_dir)) == 1

    def no_parsing(*args):
        raise AssertionError("parsed again")

    monkeypatch.setattr(parse_module, "_parse_text", no_parsing)
    assert _fresh_parse(text, str(PIG)) == first


def test_a_changed_text_or_path_is_parsed_again(cache_dir) -> None:
    text = PIG.read_text()
    _fresh_parse(text, str(PIG))
    changed = _fresh_parse(text.replace("param target: int = 100", "param target: int = 50"), "x")
    assert len(_entries(cache_dir)) == 2
    assert changed.span.file == "x"


def test_a_damaged_entry_is_a_miss_and_is_mended(cache_dir) -> None:
    text = PIG.read_text()
    good = _fresh_parse(text, str(PIG))
    (entry,) = _entries(cache_dir)
    entry.write_bytes(b"not a pickle")
    assert _fresh_parse(text, str(PIG)) == good
    assert cache.load(text, str(PIG)) == good


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("KNAPPER_CACHE_DIR", "off")
    assert cache.folder() is None
    cache.store("x", "y", object())  # type: ignore[arg-type]  # a no-op when off
    assert cache.load("x", "y") is None


def test_a_cache_that_cannot_be_written_is_skipped(tmp_path, monkeypatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the folder should be
    monkeypatch.setenv("KNAPPER_CACHE_DIR", str(blocked))
    parse_module._parse.cache_clear()
    assert _fresh_parse(PIG.read_text(), str(PIG)).kind == "ruleset"
    parse_module._parse.cache_clear()


def test_an_entry_written_by_another_parser_is_not_read(cache_dir, monkeypatch) -> None:
    text = PIG.read_text()
    _fresh_parse(text, str(PIG))
    assert cache.load(text, str(PIG)) is not None
    monkeypatch.setattr(cache, "_parser_digest", lambda: b"another grammar or builder")
    assert cache.load(text, str(PIG)) is None
