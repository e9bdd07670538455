"""Reconstructed data: table rows whose values the book does not print, and maps whose
board it does not print, carry the marker `reconstructed ["reason"]`, and `knapper lint` and
`knapper doc` show them.

What is checked on the bundled rulesets, the criterion:
- the comment convention is gone: no table row has a comment (at the end of one of its
  lines, or in the comment lines just above or just below it) that calls it reconstructed
  without the row carrying the marker, and no map has such a comment (in its body, at the
  end of one of its lines, or in the comment lines just above it) without the map carrying
  the marker;
- every table that a ruleset declares to be authored data (in a note, or in the comment
  above the table) has all of its rows marked, every map it declares authored is marked,
  and the declaration is still there.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from dsl.errors import read_source
from dsl.pipeline import load_program
from dsl.resources import rulesets_root
from dsl.semantics.resolve import find_ruleset
from dsl.syntax import ast
from dsl.syntax.fmt import format_text
from dsl.syntax.parse import parse
from dsl.tools.comments import split_comment
from dsl.tools.lint import Reconstructed, ReconstructedMap
from dsl.tools.rulebook import base_program, render_rulebook
from interpreter.frontends.cli import main
from interpreter.frontends.cli_lint import lint_ruleset

FILES = sorted(rulesets_root().rglob("*.knap"))
WORD = re.compile(r"\breconstructed\b", re.IGNORECASE)

# Tables whose every row the rulesets declare authored, with where they say so: a note's
# name, TABLE when the table's own `reconstructed "why"` says it, or `None` when the
# comment above the table says it.
TABLE = "the table's marker"
AUTHORED = {
    "aurignac": {
        "action_cards": TABLE,  # the symbols of all thirty cards
        "s_tracks": TABLE,  # the works board is not printed
        "foundation_tiles": None,  # "The book prints no Foundation tile."
        "animals": None,  # species, strengths, yields and counts are not printed
    },
    "neanderthal": {
        "biomes": None,  # the book prints no card list (biomes.knap's head comment)
        "ideas": None,
        "daughters": None,  # no card list either (daughters.knap's head comment)
        "sexuality_cards": "sexuality_card_pairing",
    },
}
# Maps whose board the rulesets declare authored: a note's name, or `None` when the comment
# at the head of the map's file says it.
AUTHORED_MAPS = {
    "aurignac": {"board": None},  # "The book does not print it" (board.knap's head comment)
    "cro-magnon": {"europe": "reconstructed_map"},
}
# Improvement cards: no cost is printed (the table's marker says so), starting cards are
IMPROVEMENT_GROUPS = {"pink_card", "blue_card", "beige_card"}


def _rows(tree: ast.File):
    for item in tree.items:
        decl = getattr(item, "decl", item)
        if isinstance(decl, ast.Table):
            yield from ((decl.name, r) for r in decl.rows)
        elif isinstance(item, ast.AddRow):
            yield item.table, item.row


def _remarks(lines: list[str], row: ast.Row) -> list[str]:
    """The comments that belong to a row: at the end of its lines, in the comment lines
    just below it (indented deeper than the row) and just above it."""
    first, last = row.span.line, max(row.span.line, row.span.end_line)
    found = []
    for line in lines[first - 1 : last]:
        code, comment = split_comment(line)
        if comment and code.strip():
            found.append(comment)
    indent = len(lines[first - 1]) - len(lines[first - 1].lstrip())
    i = last
    while i < len(lines) and lines[i].strip().startswith("#"):
        if len(lines[i]) - len(lines[i].lstrip()) <= indent:
            break
        found.append(lines[i].strip())
        i += 1
    i = first - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        found.append(lines[i].strip())
        i -= 1
    return found


def _maps(tree: ast.File):
    for item in tree.items:
        decl = getattr(item, "decl", item)
        if isinstance(decl, ast.Map):
            yield decl


def _map_remarks(lines: list[str], m: ast.Map) -> list[str]:
    """The comments that belong to a map: anywhere from its head to its closing brace (at
    the end of a node or edge line, or on lines of their own), and just above its head."""
    first, last = m.span.line, max(m.span.line, m.span.end_line)
    found = []
    for line in lines[first - 1 : last]:
        comment = split_comment(line)[1]
        if comment:
            found.append(comment)
    i = first - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        found.append(lines[i].strip())
        i -= 1
    return found


def _unmarked(text: str, path: str) -> list[str]:
    """Rows and maps that a comment calls reconstructed but that do not carry the marker."""
    lines = text.split("\n")
    tree = parse(text, path)
    rows = [
        f"{Path(path).name}:{row.span.line} {table}.{row.name}"
        for table, row in _rows(tree)
        if not row.reconstructed and any(WORD.search(c) for c in _remarks(lines, row))
    ]
    maps = [
        f"{Path(path).name}:{m.span.line} map {m.name}"
        for m in _maps(tree)
        if not m.reconstructed and any(WORD.search(c) for c in _map_remarks(lines, m))
    ]
    return rows + maps


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(rulesets_root())))
def test_no_row_or_map_is_called_reconstructed_only_in_a_comment(path: Path) -> None:
    unmarked = _unmarked(path.read_text(encoding="utf-8"), str(path))
    assert not unmarked, "mark these `reconstructed` instead of saying so in a comment"


def test_the_criterion_finds_each_old_style_comment() -> None:
    text = (
        'library "x"\n'
        "record r { a: int, b: int }\n"
        "table t: r {\n"
        "  one (1, 2)  # reconstructed\n"
        "  # values reconstructed\n"
        "  two (1, 2)\n"
        "  three (1,\n"
        "    2)  # the cost is reconstructed\n"
        "  four (1, 2)\n"
        "    # reconstructed\n"
        "  five (1, 2) reconstructed  # reconstructed from the example\n"
        "  six (1, 2)  # printed\n"
        "}\n"
    )
    found = [u.split()[1] for u in _unmarked(text, "x.knap")]
    assert found == ["t.one", "t.two", "t.three", "t.four"]


def test_the_criterion_finds_each_old_style_comment_in_a_map() -> None:
    text = (
        'library "x"\n'
        "map one {\n  node a  # reconstructed position\n  node b\n  a -- b\n}\n"
        "map two {\n  node a2\n  # the grid (reconstructed)\n  node b2\n  a2 -- b2\n}\n"
        "# This board is reconstructed.\nmap three { node a3 }\n"
        "map four reconstructed {\n  node a4  # reconstructed position\n}\n"
        "map five {\n  node a5  # printed\n}\n"
    )
    found = [u.split(maxsplit=1)[1] for u in _unmarked(text, "x.knap")]
    assert found == ["map one", "map two", "map three"]


def _program(name: str):
    path = find_ruleset(name)
    assert path is not None
    program, diagnostics, _ = load_program(read_source(path), str(path))
    assert program is not None, diagnostics
    return program


@pytest.mark.parametrize("game", sorted(AUTHORED))
def test_tables_declared_authored_have_every_row_marked(game: str) -> None:
    program = _program(game)
    tables = {t.name: t for t in program.get(ast.Table)}
    notes = {n.name for n in program.get(ast.Note)}
    for name, note in AUTHORED[game].items():
        if note == TABLE:
            assert tables[name].reconstructed and tables[name].reason, f"{game}: {name} unmarked"
        else:
            assert note is None or note in notes, f"{game}: the note {note} is gone"
        unmarked = [r.name for r in tables[name].rows if not r.reconstructed]
        assert not unmarked, f"{game}: rows of {name} not marked reconstructed: {unmarked}"


@pytest.mark.parametrize("game", sorted(AUTHORED_MAPS))
def test_maps_declared_authored_are_marked(game: str) -> None:
    program = _program(game)
    maps = {m.name: m for m in program.get(ast.Map)}
    notes = {n.name for n in program.get(ast.Note)}
    for name, note in AUTHORED_MAPS[game].items():
        assert note is None or note in notes, f"{game}: the note {note} is gone"
        assert maps[name].reconstructed and maps[name].reason, f"{game}: map {name} unmarked"


def test_improvement_cards_are_marked_and_starting_cards_are_not() -> None:
    program = _program("aurignac")
    (cards,) = [t for t in program.get(ast.Table) if t.name == "sapiens_cards"]
    assert cards.reconstructed and cards.reason and "33" in cards.reason
    for row in cards.rows:
        group = row.args[0]
        assert isinstance(group, ast.NameRef)
        assert row.reconstructed == (group.name in IMPROVEMENT_GROUPS), row.name


# ------------------------------------------------------------ lint and doc, on a small ruleset
SMALL = """ruleset "small"
players 2
record face { points: int }
# the book prints the low face only
table faces: face {
  low (1)
  high (2) reconstructed "the book shows only the low face"
  top (3)
    reconstructed
}
map camp reconstructed "the book shows no camp" {
  node north
  node south
  node east
  north -- south, east
  south -- north
}
var points[player]: int = 0
var at[player]: camp = north
round max 5 {
  for p in players {
    points[p] += sum([f.points for f in rows(faces)])
    let to = choose p from adjacent(at[p]) as "walk"
    at[p] = to
    if points[p] >= 12 { end game winners [p] }
  }
}
score(p) = points[p]
"""
VARIANT = """variant "small-more" extends "small.knap"
add row faces extra (4) reconstructed "a fourth face, ours"
"""


@pytest.fixture
def small(tmp_path: Path) -> Path:
    (tmp_path / "small.knap").write_text(SMALL, encoding="utf-8")
    (tmp_path / "small-more.knap").write_text(VARIANT, encoding="utf-8")
    return tmp_path


def test_the_marker_parses_with_and_without_a_reason(small: Path) -> None:
    faces = {r.name: r for t, r in _rows(parse(SMALL, "small.knap")) if t == "faces"}
    assert not faces["low"].reconstructed
    assert faces["high"].reason == "the book shows only the low face"
    assert faces["top"].reconstructed and faces["top"].reason is None
    (camp,) = _maps(parse(SMALL, "small.knap"))
    assert camp.reconstructed and camp.reason == "the book shows no camp"
    # the marker is no reserved word elsewhere
    assert parse('library "x"\nparam reconstructed: int = 1\n', "x.knap").items


def test_lint_counts_the_marked_rows_per_table(small: Path) -> None:
    result = lint_ruleset(str(small / "small.knap"), small)
    rows, board = [d for d in result.diagnostics if d.code == "K832"]
    assert rows.severity == board.severity == "note"
    assert rows.message == "reconstructed data: table faces, 2 of 3 rows (high, top)"
    # a map: its places, and its connections counted once each
    assert board.message == "reconstructed data: map camp, 3 places and 2 connections"
    tables = [r for r in result.reconstructed if isinstance(r, Reconstructed)]
    assert [(r.table, r.rows, r.marked) for r in tables] == [("faces", 3, ("high", "top"))]
    maps = [r for r in result.reconstructed if isinstance(r, ReconstructedMap)]
    assert [(m.map, m.places, m.connections, m.reason) for m in maps] == [
        ("camp", 3, 2, "the book shows no camp")
    ]
    variant = lint_ruleset(str(small / "small-more.knap"), small)
    tables = [r for r in variant.reconstructed if isinstance(r, Reconstructed)]
    assert [r.marked for r in tables] == [("high", "top", "extra")]


def test_lint_json_lists_the_marked_rows(small: Path) -> None:
    result = CliRunner().invoke(main, ["lint", str(small / "small.knap"), "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert report["reconstructed"] == [
        {"table": "faces", "rows": 3, "marked": ["high", "top"], "reason": None},
        {"map": "camp", "places": 3, "connections": 2, "reason": "the book shows no camp"},
    ]
    assert [f["code"] for f in report["findings"]].count("K832") == 2


def test_doc_marks_every_reconstructed_row_with_its_reason(small: Path) -> None:
    path = small / "small-more.knap"
    program, diagnostics, _ = load_program(read_source(path), str(path))
    assert program is not None, diagnostics
    page = render_rulebook(program, base_program(program))
    assert "3 of 4 rows are reconstructed" in page
    assert "| Row | points | Reconstructed |" in page
    assert "| `low` | `1` |  |" in page
    assert "| `high` | `2` | the book shows only the low face |" in page
    assert "| `top` | `3` | yes |" in page
    assert "| `extra` | `4` | a fourth face, ours |" in page
    assert "A map of 3 places. The map is reconstructed: the book does not print its board" in page
    assert "The ruleset's reason: the book shows no camp." in page


TABLE_MARKED = (
    'ruleset "t"\nplayers 2\nrecord face { points: int }\n'
    "table faces: face §2\n"
    '    reconstructed "the book shows no faces; " "these three follow the §2 totals" {\n'
    '  low (1)\n  high (5)\n  top (6) reconstructed "a guess"\n}\n'
)


def test_a_table_marker_carries_a_reason_in_several_strings() -> None:
    (table,) = [i for i in parse(TABLE_MARKED, "t.knap").items if isinstance(i, ast.Table)]
    assert table.reconstructed
    assert table.reason == "the book shows no faces; these three follow the §2 totals"
    assert [r.reconstructed for r in table.rows] == [False, False, True]
    again = parse(format_text(TABLE_MARKED, "t.knap"), "t.knap")
    assert [i for i in again.items if isinstance(i, ast.Table)] == [table]


def test_lint_and_doc_say_a_marked_tables_reason(tmp_path: Path) -> None:
    path = tmp_path / "t.knap"
    # no row marked: every row counts as authored
    path.write_text(TABLE_MARKED.replace(' reconstructed "a guess"', ""))
    result = lint_ruleset(str(path), tmp_path)
    (found,) = result.reconstructed
    assert isinstance(found, Reconstructed)
    assert (found.marked, found.reason) == (
        ("low", "high", "top"),
        "the book shows no faces; these three follow the §2 totals",
    )
    (note,) = [d for d in result.diagnostics if d.code == "K832"]
    assert note.message == "reconstructed data: table faces, 3 of 3 rows"
    assert note.hint is not None and note.hint.startswith("the book shows no faces;")
    program, diagnostics, _ = load_program(read_source(path), str(path))
    assert program is not None, diagnostics
    page = render_rulebook(program, base_program(program))
    assert "All 3 rows are reconstructed" in page
    assert "| `low` | `1` | yes |" in page  # every row of the table counts as authored
    assert "The ruleset's reason: the book shows no faces; these three follow" in page
