"""Files named inside a file stay inside the ruleset's tree (or the bundled rulesets): a
variant's base, the variants it combines, a scenario file's ruleset, a save's ruleset and the
rulebook text of `source` are refused with K102 elsewhere, at the place that names them, and
nothing of the outside file is read or shown. Names printed through rich print literally."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from dsl.errors import KnapperError
from dsl.pipeline import compile_path
from interpreter.api import load, new_game
from interpreter.frontends.cli import main
from interpreter.frontends.shown import literal, plain
from interpreter.save import dump_state, load_state
from interpreter.scenario import run_file

SECRET = "Zanzibar-7f3e"  # a word that only the outside files contain


def _game(header: str, title: str = "outside") -> str:
    return (
        f"{header}\ntitle {title!r}\nplayers 2\nvar total: int = 0\n"
        "round max 3 {\n  total += roll 1d6\n  if round_number == 3 { end game winners [] }\n}\n"
    ).replace("'", '"')


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the ruleset's tree, with a ruleset whose title is a secret."""
    where = tmp_path / "outside"
    where.mkdir()
    (where / "secret.knap").write_text(_game('ruleset "secret"', SECRET))
    (where / "secret-variant.knap").write_text(
        f'variant "secret-variant" extends "pig"\nreplace title "{SECRET}"\n'
    )
    (where / "book.txt").write_text(f"A1 {SECRET}\nThe hidden words of {SECRET}.\n")
    return where


@pytest.fixture
def project(tmp_path: Path) -> Path:
    where = tmp_path / "project"
    where.mkdir()
    return where


def _k102(err: pytest.ExceptionInfo, file: Path) -> None:
    codes = [d.code for d in err.value.diagnostics]
    assert "K102" in codes, codes
    found = next(d for d in err.value.diagnostics if d.code == "K102")
    assert found.span.file == str(file) and found.span.line == 1
    assert SECRET not in err.value.render()


@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_extends_outside_the_tree_is_k102(outside, project, how):
    base = outside / "secret.knap"
    named = str(base) if how == "absolute" else "../outside/secret.knap"
    variant = project / "v.knap"
    variant.write_text(f'variant "v" extends "{named}"\n')
    with pytest.raises(KnapperError) as err:
        compile_path(variant)
    _k102(err, variant)


def test_doc_does_not_print_an_outside_base(outside, project):
    variant = project / "v.knap"
    variant.write_text(f'variant "v" extends "{outside / "secret.knap"}"\n')
    out = CliRunner().invoke(main, ["doc", str(variant)])
    assert out.exit_code != 0
    assert "K102" in out.output and SECRET not in out.output
    assert "Traceback" not in out.output


def test_combined_variant_outside_the_tree_is_k102(outside, project):
    variant = project / "v.knap"
    variant.write_text(f'variant "v" extends "pig", "{outside / "secret-variant.knap"}"\n')
    with pytest.raises(KnapperError) as err:
        compile_path(variant)
    _k102(err, variant)


def test_scenarios_for_an_outside_ruleset_is_k102(outside, project):
    scenarios = project / "s.knap"
    scenarios.write_text(
        f'scenarios for "{outside / "secret.knap"}"\n\nscenario "one" {{\n  expect total == 0\n}}\n'
    )
    with pytest.raises(KnapperError) as err:
        run_file(scenarios)
    _k102(err, scenarios)


def test_a_save_naming_an_outside_ruleset_is_k102(tmp_path, outside, project):
    # a ruleset whose name is its own path: a save of it names the file to load
    base = outside / "named.knap"
    base.write_text(_game(f'ruleset "{base}"'))
    data = dump_state(new_game(load(str(base)), seed=1))
    save = project / "game.json"
    save.write_bytes(data)
    with pytest.raises(KnapperError) as err:
        load_state(data, None, str(save))
    assert [d.code for d in err.value.diagnostics] == ["K102"]
    assert err.value.diagnostics[0].span.file == str(save)


def test_a_save_of_a_bundled_ruleset_still_loads(project):
    state = new_game(load("pig"), seed=3)
    save = project / "game.json"
    back = load_state(dump_state(state), None, str(save))
    assert back.game.name == "pig" and back.decisions == state.decisions


def test_a_source_outside_the_sources_folder_is_k102(outside, project):
    texts = project / "texts"
    texts.mkdir()
    ruleset = project / "r.knap"
    ruleset.write_text(_game(f'ruleset "r"\nsource "{outside / "book.txt"}"'))
    out = CliRunner().invoke(main, ["lint", str(ruleset), "--sources", str(texts)])
    assert "K102" in out.output and f"{ruleset}:2:1" in out.output
    assert SECRET not in out.output and "Traceback" not in out.output


def test_a_source_inside_the_sources_folder_is_read(project):
    texts = project / "texts"
    texts.mkdir()
    (texts / "book.txt").write_text("A1 Start\nThe game.\n")
    ruleset = project / "r.knap"
    ruleset.write_text(_game('ruleset "r"\nsource "book.txt"'))
    out = CliRunner().invoke(main, ["lint", str(ruleset), "--sources", str(texts), "--json"])
    assert "K102" not in out.output and "not found" not in out.output


def test_names_through_rich_print_literally(project):
    ruleset = project / "r.knap"
    ruleset.write_text(_game('ruleset "[bold]x[/bold]\x1b[31m\x07E"'))
    out = CliRunner().invoke(main, ["simulate", str(ruleset), "--games", "1"])
    assert out.exit_code == 0, out.output
    summary = [line for line in out.output.splitlines() if ": 1 games" in line]
    assert summary == ["[bold]x[/bold]E: 1 games, 2 players"], out.output


def test_plain_and_literal_strip_controls_and_escape_markup():
    assert plain("a\x1b[2J\rb\x1b]0;title\x07c\u202ed\x00") == "abcd"
    assert literal("[link=file:///etc]x[/link]") == "\\[link=file:///etc]x\\[/link]"
    assert orjson.loads(orjson.dumps(plain("é ✓"))) == "é ✓"


def test_play_prints_a_rulesets_words_without_controls(project):
    ruleset = project / "r.knap"
    ruleset.write_text(
        'ruleset "r"\ntitle "T\x1b[2Jitle"\nplayers 2\nvar total: int = 0\nround max 1 {\n'
        '  log "seen\x1b]0;owned\x07 here"\n'
        '  let c = choose player(1) from ["a\x1b[31mb", "c"] as "pick\\r one"\n'
        "  end game winners []\n}\n"
    )
    out = CliRunner().invoke(main, ["play", str(ruleset), "--seed", "1"], input="1\n")
    assert out.exit_code == 0, out.output
    assert "\x1b" not in out.output and "\x07" not in out.output and "\r" not in out.output
    assert "Title, seed 1" in out.output and "seen here" in out.output
    assert "1. ab" in out.output


def test_an_upload_to_the_server_names_no_file_of_its_folder(outside, monkeypatch):
    from interpreter.frontends.web.app import Tables
    from interpreter.frontends.web.store import Store

    (outside / "secret-lib.knap").write_text(f'library "lib"\nparam word: int = 1\n# {SECRET}\n')
    monkeypatch.chdir(outside)  # the server runs where the outside files are
    tables = Tables(Store(outside / "games.db"))
    with pytest.raises(KnapperError) as err:
        tables.ruleset(None, _game('ruleset "up"\nimport "secret-lib.knap"'))
    codes = [d.code for d in err.value.diagnostics]
    assert "K102" in codes and SECRET not in err.value.render(), codes
    _key, game = tables.ruleset(None, 'variant "up" extends "pig"\nreplace title "Up"\n')
    assert game.title == "Up"  # the bundled rulesets stay open to an upload
