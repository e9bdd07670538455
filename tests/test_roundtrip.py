"""The formatter's output parses back to the same AST: on generated ASTs and on every
bundled ruleset. Also the grammar itself builds in Lark's strict mode."""

from __future__ import annotations

import re

import attrs
import lark
from hypothesis import given, settings
from hypothesis import strategies as st

from dsl import ast
from dsl.fmt import format_file, format_text
from dsl.parse import parse
from dsl.resources import grammar_text, rulesets_root

NAMES = st.sampled_from(
    ["a", "b", "cards", "foo", "bar2", "n_1", "deck", "p", "score", "map", "title"]
)
TEXT = st.text(alphabet="abc XYZ-_.,:!?09", max_size=12)
CITES = st.none() | st.sampled_from(["D4", "6.3", "A1.6", "EVENT PHASE", "rules"])
INTS = st.integers(0, 999)

leaves = st.one_of(
    INTS.map(ast.IntLit),
    TEXT.map(ast.StrLit),
    st.booleans().map(ast.BoolLit),
    st.just(ast.NoneLit()),
    NAMES.map(ast.NameRef),
    st.builds(ast.RollDice, st.integers(1, 9), st.integers(1, 100)),
    NAMES.map(ast.RollTable),
)


def _compound(inner):
    ops = st.sampled_from(
        ["+", "-", "*", "//", "%", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "and", "or"]
    )
    return st.one_of(
        st.builds(ast.BinOp, ops, inner, inner),
        st.builds(ast.UnaryOp, st.sampled_from(["not", "-"]), inner),
        st.builds(ast.IfExpr, inner, inner, inner),
        st.builds(ast.ListLit, st.lists(inner, max_size=3).map(tuple)),
        st.builds(
            ast.Comprehension,
            inner,
            st.lists(st.builds(ast.CompFor, NAMES, inner), min_size=1, max_size=2).map(tuple),
            st.none() | inner,
        ),
        st.builds(ast.FieldGet, inner, NAMES),
        st.builds(ast.IndexGet, inner, st.lists(inner, min_size=1, max_size=2).map(tuple)),
        st.builds(
            ast.CallExpr,
            NAMES,
            st.lists(inner | st.builds(ast.KwArg, NAMES, inner), max_size=3).map(tuple),
        ),
    )


exprs = st.recursive(leaves, _compound, max_leaves=8)
types = st.recursive(NAMES.map(ast.TypeName), lambda t: t.map(ast.TypeList), max_leaves=3)
targets = st.builds(ast.Target, NAMES, st.lists(exprs, max_size=2).map(tuple))


def _statements(inner_block):
    return st.one_of(
        st.builds(ast.Let, NAMES, exprs),
        st.builds(ast.Assign, targets, st.sampled_from(["=", "+=", "-="]), exprs),
        st.builds(
            ast.If,
            st.lists(st.tuples(exprs, inner_block), min_size=1, max_size=2).map(tuple),
            st.none() | inner_block,
        ),
        st.builds(ast.For, NAMES, exprs, inner_block),
        st.builds(ast.Repeat, exprs, inner_block),
        st.builds(ast.While, exprs, st.none() | INTS, inner_block),
        st.builds(ast.Choose, NAMES, exprs, exprs, st.none() | TEXT, CITES, always=st.booleans()),
        st.builds(ast.CallStmt, NAMES, st.lists(exprs, max_size=2).map(tuple), CITES),
        st.builds(ast.AddTo, exprs, targets),
        st.builds(ast.RemoveFrom, exprs, targets),
        st.builds(ast.Move, exprs, targets, targets),
        st.builds(ast.Shuffle, targets),
        st.builds(ast.Draw, exprs, targets, targets),
        st.builds(ast.EndGame, exprs, CITES),
        st.builds(ast.Log, TEXT, st.lists(exprs, max_size=2).map(tuple)),
        st.just(ast.Break()),
        st.just(ast.Pass()),
    )


blocks = st.recursive(
    st.just(ast.Block(())),
    lambda inner: st.lists(_statements(inner), max_size=3).map(lambda s: ast.Block(tuple(s))),
    max_leaves=6,
)
keys = st.lists(NAMES.map(ast.KeyName) | st.builds(ast.KeyRange, INTS, INTS), max_size=2).map(tuple)
visibility = st.sampled_from(["public", "owner", "hidden"])
params = st.lists(st.builds(ast.ParamDecl, NAMES, types), max_size=2).map(tuple)


def _with_reason(node):
    """A row or map that carries the marker `reconstructed`, with or without a reason."""
    if not node.reconstructed:
        return st.just(node)
    return st.builds(attrs.evolve, st.just(node), reason=st.none() | TEXT)


rows = st.builds(
    ast.Row,
    st.none(),
    st.none(),
    NAMES,
    st.none() | TEXT,
    st.lists(exprs | st.builds(ast.KwArg, NAMES, exprs), max_size=3).map(tuple),
    st.none() | st.integers(1, 9),
    CITES,
    # the marker `reconstructed`, with or without a reason
    reconstructed=st.booleans(),
).flatmap(_with_reason)
ranged_rows = st.builds(
    lambda lo, width, row: attrs.evolve(row, lo=lo, hi=lo + width),
    st.integers(1, 50),
    st.integers(0, 49),
    rows,
)

declarations = st.one_of(
    st.builds(ast.Title, TEXT),
    st.builds(ast.Source, TEXT),
    st.builds(
        lambda lo, extra, c: ast.Players(lo, lo + extra, c),
        st.integers(1, 8),
        st.integers(0, 4),
        CITES,
    ),
    st.builds(ast.Bound, INTS, CITES),
    st.builds(ast.Param, NAMES, types, exprs, CITES),
    st.builds(ast.Enum, NAMES, st.lists(NAMES, min_size=1, max_size=4).map(tuple), CITES),
    st.builds(
        ast.Record,
        st.sampled_from(["record", "card", "tile"]),
        NAMES,
        st.lists(st.builds(ast.Field, NAMES, types), min_size=1, max_size=3).map(tuple),
        CITES,
    ),
    st.builds(ast.Table, NAMES, NAMES, st.none(), st.lists(rows, max_size=3).map(tuple), CITES),
    st.builds(
        ast.Table,
        NAMES,
        NAMES,
        st.just("1d100"),
        st.lists(ranged_rows, max_size=3).map(tuple),
        CITES,
    ),
    st.builds(
        ast.Map,
        NAMES,
        st.lists(
            st.builds(ast.MapNode, NAMES, st.none() | TEXT, CITES)
            | st.builds(
                ast.MapEdge, NAMES, st.lists(NAMES, min_size=1, max_size=3).map(tuple), CITES
            ),
            max_size=4,
        ).map(tuple),
        CITES,
        reconstructed=st.booleans(),
    ).flatmap(_with_reason),
    st.builds(ast.Var, NAMES, keys, types, exprs, visibility, CITES),
    st.builds(
        lambda n, k, kind, size, e, v, c: ast.Zone(
            n, k, kind, size if kind == "row" else None, e, v, c
        ),
        NAMES,
        keys,
        st.sampled_from(["deck", "pile", "hand", "list", "row"]),
        st.integers(1, 9),
        st.none() | types,
        visibility,
        CITES,
    ),
    st.builds(ast.Pool, NAMES, keys, NAMES, st.none() | exprs, visibility, CITES),
    st.builds(ast.Fn, NAMES, params, st.none() | types, exprs, CITES),
    st.builds(ast.Proc, st.sampled_from(["proc", "phase", "step"]), NAMES, params, blocks, CITES),
    st.builds(ast.Setup, blocks, CITES),
    st.builds(ast.Round, INTS, blocks, CITES),
    st.builds(ast.Score, NAMES, exprs, CITES),
    st.builds(ast.Invariant, NAMES, exprs, CITES),
    st.builds(
        ast.Note,
        st.sampled_from(["interpretation", "deviation", "contradiction"]),
        NAMES,
        TEXT,
        CITES,
        also=st.lists(CITES.filter(lambda c: c is not None), max_size=2).map(tuple),
    ).filter(lambda n: n.cite is not None or not n.also),
)

overlays = st.one_of(
    st.builds(ast.SetParam, NAMES, exprs, CITES),
    st.builds(ast.Replace, declarations),
    st.builds(ast.AddDecl, declarations),
    st.builds(ast.AddRow, NAMES, rows),
    st.builds(ast.RemoveDecl, NAMES),
    st.builds(ast.RemoveRow, NAMES, NAMES),
)


@settings(max_examples=300, deadline=None)
@given(name=TEXT, cite=CITES, items=st.lists(declarations, max_size=4))
def test_ruleset_round_trip(name, cite, items):
    tree = ast.File("ruleset", name, None, cite, tuple(items))
    assert parse(format_file(tree)) == tree


@settings(max_examples=200, deadline=None)
@given(name=TEXT, base=TEXT, items=st.lists(overlays | declarations, max_size=4))
def test_variant_round_trip(name, base, items):
    tree = ast.File("variant", name, base, None, tuple(items))
    assert parse(format_file(tree)) == tree


scenarios = st.builds(
    ast.Scenario,
    TEXT,
    CITES,
    st.none() | st.integers(1, 8),
    st.none() | INTS,
    st.none() | blocks,
    st.none() | st.builds(ast.CallStmt, NAMES, st.lists(exprs, max_size=2).map(tuple), st.none()),
    st.lists(st.integers(1, 20), max_size=4).map(tuple),
    st.lists(
        st.builds(ast.ScenarioChoices, st.lists(exprs, min_size=1, max_size=3).map(tuple))
        | st.builds(ast.ScenarioExpect, st.sampled_from(ast.EXPECT_KINDS), exprs, st.none() | TEXT),
        max_size=4,
    ).map(tuple),
    st.sets(st.sampled_from(ast.STRICT_PARTS)).map(
        lambda parts: tuple(p for p in ast.STRICT_PARTS if p in parts)
    ),
)


@settings(max_examples=100, deadline=None)
@given(
    name=TEXT,
    items=st.lists(scenarios, min_size=1, max_size=3),
    imports=st.lists(st.builds(ast.Import, TEXT), max_size=2),
)
def test_scenario_file_round_trip(name, items, imports):
    tree = ast.File("scenarios", name, None, None, tuple(imports), tuple(items))
    assert parse(format_file(tree)) == tree


def test_every_bundled_file_round_trips():
    files = sorted(rulesets_root().rglob("*.knap")) + sorted(rulesets_root().rglob("*.scenario"))
    assert files
    for path in files:
        tree = parse(path.read_text(encoding="utf-8"), str(path))
        assert parse(format_file(tree), str(path)) == tree, path


def test_formatting_bundled_files_keeps_comments_and_is_stable():
    files = sorted(rulesets_root().rglob("*.knap")) + sorted(rulesets_root().rglob("*.scenario"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        once = format_text(text, str(path))
        assert format_text(once, str(path)) == once, path
        comments = sorted(c.strip() for c in re.findall(r"#[^\n]*", text))
        assert sorted(c.strip() for c in re.findall(r"#[^\n]*", once)) == comments, path


def test_comments_stay_beside_record_fields_and_long_rows_wrap():
    text = (
        'library "x"\n'
        "card c {\n"
        "  cost: int,  # what it costs\n"
        "  name: int  # what it is called\n"
        "}\n"
        "table t: c {\n"
        '  a_card_with_a_long_id "A card whose title is long as well, and longer still" '
        "(cost=1000000000, name=2000000000) x 2\n"
        "}\n"
    )
    once = format_text(text, "x.knap")
    assert "  cost: int,  # what it costs\n" in once
    assert "  name: int,  # what it is called\n" in once
    assert all(len(line) <= 100 for line in once.splitlines())
    assert parse(once, "x.knap") == parse(text, "x.knap")


def test_the_reconstructed_marker_ends_a_row_or_stands_on_a_line_of_its_own():
    text = (
        'library "x"\n'
        "card c { cost: int }\n"
        "table t: c {\n"
        "  short (1) §A reconstructed  # a remark\n"
        '  why "Why" (2) x 2 reconstructed "spread evenly between the printed extremes"\n'
        '  a_card_with_a_long_id "A card whose title is long as well, and longer" (3) §B '
        'reconstructed "because"\n'
        "}\n"
        'add row t added (4) reconstructed "an overlay\'s row"\n'
    )
    once = format_text(text, "x.knap")
    assert "  short (1) §A reconstructed  # a remark\n" in once
    assert '  why "Why" (2) x 2 reconstructed "spread evenly between the printed extremes"\n' in (
        once
    )
    assert '\n    reconstructed "because"\n' in once
    assert all(len(line) <= 100 for line in once.splitlines())
    rows = {r.name: r for r in parse(once, "x.knap").items[1].rows}
    assert rows["short"].reconstructed and rows["short"].reason is None
    assert rows["why"].reason == "spread evenly between the printed extremes"
    added = parse(once, "x.knap").items[2]
    assert isinstance(added, ast.AddRow) and added.row.reason == "an overlay's row"
    assert format_text(once, "x.knap") == once


def test_the_reconstructed_marker_follows_a_map_head_or_stands_on_a_line_of_its_own():
    reason = "the book prints no board: the places are counted from its numbers, " * 2
    text = (
        'library "x"\n'
        "map small §B reconstructed {  # a remark\n"
        "  node a\n"
        "}\n"
        'map grid §"THE MAP" reconstructed "the grid is ours" { node a2 node b a2 -- b }\n'
        f'map large §B reconstructed "{reason.strip()}" {{\n'
        "  node c\n"
        "}\n"
    )
    once = format_text(text, "x.knap")
    assert "map small §B reconstructed {  # a remark\n" in once
    assert 'map grid §"THE MAP" reconstructed "the grid is ours" {\n  node a2\n' in once
    assert f'map large §B\n    reconstructed "{reason.strip()}" {{\n  node c\n' in once
    maps = parse(once, "x.knap").items
    assert [(m.reconstructed, m.reason) for m in maps] == [
        (True, None),
        (True, "the grid is ours"),
        (True, reason.strip()),
    ]
    assert format_text(once, "x.knap") == once
    # the marker is no reserved word: a map may be called `reconstructed`
    assert parse('library "x"\nmap reconstructed reconstructed { node a }\n', "x.knap").items


def test_grammar_builds_in_strict_lalr_mode():
    parser = lark.Lark(grammar_text(), parser="lalr", strict=True)
    assert parser.parse('ruleset "x" players 2')


@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.text(alphabet="abc,.", min_size=1, max_size=20), max_size=40).map(" ".join))
def test_long_notes_are_written_as_several_strings_and_read_back_whole(text):
    tree = ast.File("ruleset", "n", None, None, (ast.Note("interpretation", "n", text, "X"),))
    formatted = format_file(tree)
    assert parse(formatted) == tree
    assert all(len(line) <= 100 for line in formatted.splitlines())
