"""The formatter's output parses back to the same AST: on generated ASTs (a strategy for
every node class, checked complete by tests/test_passes.py) and on every bundled ruleset.
Also the grammar itself builds in Lark's strict mode."""

from __future__ import annotations

import re

import attrs
import lark
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsl.resources import grammar_text, rulesets_root
from dsl.syntax import ast
from dsl.syntax.fmt import format_file, format_text
from dsl.syntax.parse import parse

NAMES = st.sampled_from(
    ["a", "b", "cards", "foo", "bar2", "n_1", "deck", "p", "score", "map", "title"]
)
TEXT = st.text(alphabet="abc XYZ-_.,:!?09", max_size=12)
CITES = st.none() | st.sampled_from(["D4", "6.3", "A1.6", "EVENT PHASE", "rules"])
INTS = st.integers(0, 999)

# ------------------------------------------------------------------ strategies, by node class
# Every node class of dsl.syntax.ast has its strategy in one of the tables below, by category, and
# the strategies of whole files are built from the tables: tests/test_passes.py checks that
# every class has an entry (STRATEGIES), and test_each_class_round_trips formats and parses
# each class's own examples, so a new construct is round-tripped once its entry exists.
# A table of a recursive category maps a class to a function of the strategy for the
# smaller parts of its kind (inner expressions, inner blocks, inner types).

TYPE_STRATEGIES = {
    ast.TypeName: lambda inner: NAMES.map(ast.TypeName),
    ast.TypeList: lambda inner: inner.map(ast.TypeList),
}
types = st.recursive(
    TYPE_STRATEGIES[ast.TypeName](None), TYPE_STRATEGIES[ast.TypeList], max_leaves=3
)

KEY_STRATEGIES = {
    ast.KeyName: NAMES.map(ast.KeyName),
    ast.KeyRange: st.builds(ast.KeyRange, INTS, INTS),
}

_OPS = st.sampled_from(
    ["+", "-", "*", "//", "%", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "and", "or"]
)
# the parts of expressions that are no expressions themselves
EXPRESSION_PART_STRATEGIES = {
    ast.CompFor: lambda inner: st.builds(ast.CompFor, NAMES, inner),
    ast.KwArg: lambda inner: st.builds(ast.KwArg, NAMES, inner),
}
LEAF_EXPRESSIONS = (
    ast.IntLit,
    ast.StrLit,
    ast.BoolLit,
    ast.NoneLit,
    ast.NameRef,
    ast.RollDice,
    ast.RollTable,
)
EXPRESSION_STRATEGIES = {
    ast.IntLit: lambda inner: INTS.map(ast.IntLit),
    ast.StrLit: lambda inner: TEXT.map(ast.StrLit),
    ast.BoolLit: lambda inner: st.booleans().map(ast.BoolLit),
    ast.NoneLit: lambda inner: st.just(ast.NoneLit()),
    ast.NameRef: lambda inner: NAMES.map(ast.NameRef),
    ast.RollDice: lambda inner: st.builds(ast.RollDice, st.integers(1, 9), st.integers(1, 100)),
    ast.RollTable: lambda inner: NAMES.map(ast.RollTable),
    ast.BinOp: lambda inner: st.builds(ast.BinOp, _OPS, inner, inner),
    ast.UnaryOp: lambda inner: st.builds(ast.UnaryOp, st.sampled_from(["not", "-"]), inner),
    ast.IfExpr: lambda inner: st.builds(ast.IfExpr, inner, inner, inner),
    ast.ListLit: lambda inner: st.builds(ast.ListLit, st.lists(inner, max_size=3).map(tuple)),
    ast.Comprehension: lambda inner: st.builds(
        ast.Comprehension,
        inner,
        st.lists(EXPRESSION_PART_STRATEGIES[ast.CompFor](inner), min_size=1, max_size=2).map(tuple),
        st.none() | inner,
    ),
    ast.FieldGet: lambda inner: st.builds(ast.FieldGet, inner, NAMES),
    ast.IndexGet: lambda inner: st.builds(
        ast.IndexGet, inner, st.lists(inner, min_size=1, max_size=2).map(tuple)
    ),
    ast.CallExpr: lambda inner: st.builds(
        ast.CallExpr,
        NAMES,
        st.lists(inner | EXPRESSION_PART_STRATEGIES[ast.KwArg](inner), max_size=3).map(tuple),
    ),
}
leaves = st.one_of(*(EXPRESSION_STRATEGIES[c](None) for c in LEAF_EXPRESSIONS))
exprs = st.recursive(
    leaves,
    lambda inner: st.one_of(
        *(make(inner) for c, make in EXPRESSION_STRATEGIES.items() if c not in LEAF_EXPRESSIONS)
    ),
    max_leaves=8,
)
targets = st.builds(ast.Target, NAMES, st.lists(exprs, max_size=2).map(tuple))

STATEMENT_STRATEGIES = {
    ast.Let: lambda inner: st.builds(ast.Let, NAMES, exprs),
    ast.Assign: lambda inner: st.builds(
        ast.Assign, targets, st.sampled_from(["=", "+=", "-="]), exprs
    ),
    ast.If: lambda inner: st.builds(
        ast.If,
        st.lists(st.tuples(exprs, inner), min_size=1, max_size=2).map(tuple),
        st.none() | inner,
    ),
    ast.For: lambda inner: st.builds(ast.For, NAMES, exprs, inner),
    ast.Repeat: lambda inner: st.builds(ast.Repeat, exprs, inner),
    ast.While: lambda inner: st.builds(ast.While, exprs, st.none() | INTS, inner),
    ast.Outcry: lambda inner: st.builds(ast.Outcry, NAMES, exprs, exprs, INTS, inner),
    ast.Simultaneously: lambda inner: st.builds(ast.Simultaneously, inner),
    ast.Choose: lambda inner: st.builds(
        ast.Choose,
        NAMES,
        exprs,
        exprs,
        st.none() | TEXT,
        CITES,
        always=st.booleans(),
        secret=st.booleans(),
    ),
    ast.Agree: lambda inner: st.builds(
        ast.Agree, NAMES, exprs, exprs, INTS, st.none() | TEXT, CITES
    ),
    ast.Negotiate: lambda inner: st.builds(
        ast.Negotiate, NAMES, exprs, st.none() | exprs, exprs, INTS, st.none() | TEXT, CITES
    ),
    ast.Reveal: lambda inner: st.builds(ast.Reveal, exprs, exprs),
    ast.Flip: lambda inner: st.builds(ast.Flip, exprs),
    ast.CallStmt: lambda inner: st.builds(
        ast.CallStmt, NAMES, st.lists(exprs, max_size=2).map(tuple), CITES
    ),
    ast.AddTo: lambda inner: st.builds(ast.AddTo, exprs, targets),
    ast.RemoveFrom: lambda inner: st.builds(ast.RemoveFrom, exprs, targets),
    ast.Move: lambda inner: st.builds(ast.Move, exprs, targets, targets),
    ast.Shuffle: lambda inner: st.builds(ast.Shuffle, targets),
    ast.Draw: lambda inner: st.builds(ast.Draw, exprs, targets, targets),
    ast.EndGame: lambda inner: st.builds(ast.EndGame, exprs, CITES),
    ast.Log: lambda inner: st.lists(exprs, max_size=2).flatmap(
        lambda args: st.builds(
            ast.Log,
            TEXT,
            st.just(tuple(args)),
            # the values' names: none at all, or one (or none) for each value
            names=st.just(())
            | st.lists(st.none() | NAMES, min_size=len(args), max_size=len(args))
            .filter(lambda names: any(n is not None for n in names))
            .map(tuple),
        )
    ),
    ast.Perform: lambda inner: st.builds(ast.Perform, exprs, exprs, st.none() | exprs, CITES),
    ast.Trigger: lambda inner: st.builds(
        ast.Trigger,
        NAMES,
        exprs,
        exprs,
        CITES,
        args=st.lists(exprs, max_size=2).map(tuple),
        order=st.none() | exprs,
    ),
    ast.Spend: lambda inner: st.builds(ast.Spend, exprs, targets, st.none() | targets, CITES),
    ast.Match: lambda inner: st.builds(
        ast.Match,
        exprs,
        st.lists(
            st.builds(ast.MatchArm, NAMES, st.lists(NAMES, max_size=2).map(tuple), inner),
            min_size=1,
            max_size=2,
        ).map(tuple),
        st.none() | inner,
    ),
    ast.Break: lambda inner: st.just(ast.Break()),
    ast.Pass: lambda inner: st.just(ast.Pass()),
    ast.Quiet: lambda inner: st.builds(ast.Quiet, st.none() | exprs, CITES),
}


def _statements(inner_block):
    return st.one_of(*(make(inner_block) for make in STATEMENT_STRATEGIES.values()))


blocks = st.recursive(
    st.just(ast.Block(())),
    lambda inner: st.lists(_statements(inner), max_size=3).map(lambda s: ast.Block(tuple(s))),
    max_leaves=6,
)
keys = st.lists(st.one_of(*KEY_STRATEGIES.values()), max_size=2).map(tuple)
visibility = st.sampled_from(["public", "owner", "hidden", "top"])
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
fields = st.builds(ast.Field, NAMES, types, default=st.none() | exprs)
map_nodes = st.builds(ast.MapNode, NAMES, st.none() | TEXT, CITES)
map_edges = st.builds(ast.MapEdge, NAMES, st.lists(NAMES, min_size=1, max_size=3).map(tuple), CITES)

view_groups = st.builds(
    ast.ViewGroup,
    TEXT,
    st.lists(NAMES, min_size=1, max_size=3).map(tuple),
    st.sampled_from(["all", "own", "others"]),
)

DECLARATION_STRATEGIES = {
    ast.Import: st.builds(ast.Import, TEXT),
    ast.Title: st.builds(ast.Title, TEXT),
    ast.Source: st.builds(ast.Source, TEXT),
    ast.Players: st.builds(
        lambda lo, extra, c: ast.Players(lo, lo + extra, c),
        st.integers(1, 8),
        st.integers(0, 4),
        CITES,
    ),
    ast.Bound: st.builds(ast.Bound, INTS, CITES),
    ast.View: st.builds(ast.View, st.lists(view_groups, min_size=1, max_size=3).map(tuple)),
    ast.Param: st.builds(ast.Param, NAMES, types, exprs, CITES),
    ast.Enum: st.lists(NAMES, min_size=1, max_size=4, unique=True).flatmap(
        lambda values: st.builds(
            ast.Enum,
            NAMES,
            st.just(tuple(values)),
            CITES,
            # titles in the values' order, as the parser gives them
            titles=st.lists(st.sampled_from(values), unique=True).flatmap(
                lambda named: st.tuples(
                    *[st.tuples(st.just(v), TEXT) for v in values if v in named]
                )
            ),
            # what values carry, in the values' order too
            payloads=st.lists(st.sampled_from(values), unique=True).flatmap(
                lambda carrying: st.tuples(
                    *[st.tuples(st.just(v), params) for v in values if v in carrying]
                )
            ),
        )
    ),
    ast.Record: st.builds(
        ast.Record,
        st.sampled_from(["record", "card", "tile"]),
        NAMES,
        st.lists(fields, min_size=1, max_size=3).map(tuple),
        CITES,
    ),
    ast.Table: st.builds(
        ast.Table, NAMES, NAMES, st.none(), st.lists(rows, max_size=3).map(tuple), CITES
    )
    | st.builds(
        ast.Table,
        NAMES,
        NAMES,
        st.just("1d100"),
        st.lists(ranged_rows, max_size=3).map(tuple),
        CITES,
    ),
    ast.Map: st.builds(
        ast.Map,
        NAMES,
        st.lists(map_nodes | map_edges, max_size=4).map(tuple),
        CITES,
        reconstructed=st.booleans(),
    ).flatmap(_with_reason),
    ast.Var: st.builds(ast.Var, NAMES, keys, types, exprs, visibility, CITES),
    ast.Zone: st.builds(
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
    ast.Pool: st.builds(ast.Pool, NAMES, keys, NAMES, st.none() | exprs, visibility, CITES),
    ast.Fn: st.builds(ast.Fn, NAMES, params, st.none() | types, exprs, CITES)
    | st.builds(
        ast.Fn,
        NAMES,
        params,
        st.none(),
        exprs,
        CITES,
        kind=st.just("condition"),
        template=st.none() | TEXT,
    )
    | st.builds(
        ast.Fn,
        NAMES,
        params,
        st.none(),
        st.just(ast.BoolLit(True)),
        CITES,
        kind=st.just("condition"),
        template=st.none() | TEXT,
        signature_only=st.just(True),
    ),
    ast.Proc: st.builds(
        ast.Proc, st.sampled_from(["proc", "phase", "step"]), NAMES, params, blocks, CITES
    )
    | st.builds(
        ast.Proc,
        st.just("effect"),
        NAMES,
        params,
        blocks,
        CITES,
        template=st.none() | TEXT,
        at=st.none() | NAMES,
    )
    | st.builds(
        ast.Proc,
        st.just("effect"),
        NAMES,
        params,
        st.just(ast.Block(())),
        CITES,
        template=st.none() | TEXT,
        signature_only=st.just(True),
    )
    | st.builds(ast.Proc, st.just("whenever"), NAMES, params, blocks, CITES, when=exprs)
    | st.builds(
        ast.Proc,
        st.just("option"),
        NAMES,
        params,
        blocks,
        CITES,
        template=st.none() | TEXT,
        when=exprs,
        during=st.lists(NAMES, max_size=2).map(tuple),
    )
    | st.builds(
        ast.Proc,
        st.just("window"),
        NAMES,
        params.filter(lambda ps: len(ps) == 1),
        blocks,
        CITES,
        at=NAMES,
        who=exprs,
        side=st.sampled_from(["before", "after"]),
    ),
    ast.Setup: st.builds(ast.Setup, blocks, CITES),
    ast.Round: st.builds(ast.Round, INTS, blocks, CITES),
    ast.Outcome: st.builds(
        ast.Outcome, st.sampled_from(["score", "role", "result"]), NAMES, exprs, CITES
    ),
    ast.Invariant: st.builds(ast.Invariant, NAMES, exprs, CITES),
    ast.Moment: st.builds(ast.Moment, NAMES, st.none() | TEXT, CITES, params=params),
    ast.Note: st.builds(
        ast.Note,
        st.sampled_from(["interpretation", "deviation", "contradiction"]),
        NAMES,
        TEXT,
        CITES,
        also=st.lists(CITES.filter(lambda c: c is not None), max_size=2).map(tuple),
    ).filter(lambda n: n.cite is not None or not n.also),
}
declarations = st.one_of(*DECLARATION_STRATEGIES.values())

OVERLAY_STRATEGIES = {
    ast.SetParam: st.builds(ast.SetParam, NAMES, exprs, CITES),
    ast.Replace: st.builds(ast.Replace, declarations),
    ast.AddDecl: st.builds(ast.AddDecl, declarations),
    ast.AddRow: st.builds(ast.AddRow, NAMES, rows),
    ast.RemoveDecl: st.builds(ast.RemoveDecl, NAMES),
    ast.RemoveRow: st.builds(ast.RemoveRow, NAMES, NAMES),
}
overlays = st.one_of(*OVERLAY_STRATEGIES.values())

SCENARIO_STEP_STRATEGIES = {
    ast.ScenarioChoices: st.builds(
        ast.ScenarioChoices, st.lists(exprs, min_size=1, max_size=3).map(tuple)
    ),
    ast.ScenarioExpect: st.builds(
        ast.ScenarioExpect, st.sampled_from(ast.EXPECT_KINDS), exprs, st.none() | TEXT
    ),
}
scenarios = st.builds(
    ast.Scenario,
    TEXT,
    CITES,
    st.none() | st.integers(1, 8),
    st.none() | INTS,
    st.none() | blocks,
    st.none() | st.builds(ast.CallStmt, NAMES, st.lists(exprs, max_size=2).map(tuple), st.none()),
    st.lists(st.integers(1, 20), max_size=4).map(tuple),
    st.lists(st.one_of(*SCENARIO_STEP_STRATEGIES.values()), max_size=4).map(tuple),
    st.sets(st.sampled_from(ast.STRICT_PARTS)).map(
        lambda parts: tuple(p for p in ast.STRICT_PARTS if p in parts)
    ),
)
ruleset_files = st.builds(
    lambda name, cite, items: ast.File("ruleset", name, None, cite, tuple(items)),
    TEXT,
    CITES,
    st.lists(declarations, max_size=4),
)
variant_files = st.builds(
    lambda name, base, items: ast.File("variant", name, base, None, tuple(items)),
    TEXT,
    TEXT,
    st.lists(overlays | declarations, max_size=4),
)
scenario_files = st.builds(
    lambda name, items, imports: ast.File(
        "scenarios", name, None, None, tuple(imports), tuple(items)
    ),
    TEXT,
    st.lists(scenarios, min_size=1, max_size=3),
    st.lists(DECLARATION_STRATEGIES[ast.Import], max_size=2),
)

# the parts of constructs, and whole scenarios and files
PART_STRATEGIES = {
    ast.CompFor: EXPRESSION_PART_STRATEGIES[ast.CompFor](exprs),
    ast.KwArg: EXPRESSION_PART_STRATEGIES[ast.KwArg](exprs),
    ast.Target: targets,
    ast.Block: blocks,
    ast.Field: fields,
    ast.Row: rows,
    ast.MapNode: map_nodes,
    ast.ViewGroup: view_groups,
    ast.MapEdge: map_edges,
    ast.ParamDecl: st.builds(ast.ParamDecl, NAMES, types),
    ast.MatchArm: st.builds(ast.MatchArm, NAMES, st.lists(NAMES, max_size=2).map(tuple), blocks),
    ast.Scenario: scenarios,
    ast.File: ruleset_files | variant_files | scenario_files,
}

# every node class -> a strategy for it (tests/test_passes.py: none may be missing)
STRATEGIES = {
    **{c: make(types) for c, make in TYPE_STRATEGIES.items()},
    **KEY_STRATEGIES,
    **{c: make(exprs) for c, make in EXPRESSION_STRATEGIES.items()},
    **{c: make(blocks) for c, make in STATEMENT_STRATEGIES.items()},
    **DECLARATION_STRATEGIES,
    **OVERLAY_STRATEGIES,
    **SCENARIO_STEP_STRATEGIES,
    **PART_STRATEGIES,
}


@settings(max_examples=300, deadline=None)
@given(tree=ruleset_files)
def test_ruleset_round_trip(tree):
    assert parse(format_file(tree)) == tree


@settings(max_examples=200, deadline=None)
@given(tree=variant_files)
def test_variant_round_trip(tree):
    assert parse(format_file(tree)) == tree


@settings(max_examples=100, deadline=None)
@given(tree=scenario_files)
def test_scenario_file_round_trip(tree):
    assert parse(format_file(tree)) == tree


# a node -> the smallest node of the kind that holds it, up to a file; the categories of
# dsl.syntax.ast give every class of theirs a place, each part names its own
_AROUND = {
    **{c: lambda n: ast.Param("a", ast.TypeName("int"), n, None) for c in ast.EXPRESSIONS},
    **{c: lambda n: ast.Param("a", n, ast.IntLit(0), None) for c in ast.TYPES},
    **{
        c: lambda n: ast.Var("v", (n,), ast.TypeName("int"), ast.IntLit(0), "public", None)
        for c in ast.KEYS
    },
    **{c: lambda n: ast.Block((n,)) for c in ast.STATEMENTS},
    **{c: lambda n: ast.File("ruleset", "r", None, None, (n,)) for c in ast.DECLARATIONS},
    **{c: lambda n: ast.File("variant", "v", "b", None, (n,)) for c in ast.OVERLAYS},
    **{
        c: lambda n: ast.Scenario("s", None, None, None, None, None, (), (n,))
        for c in ast.SCENARIO_STEPS
    },
    ast.CompFor: lambda n: ast.Comprehension(ast.IntLit(0), (n,), None),
    ast.KwArg: lambda n: ast.CallExpr("f", (n,)),
    ast.Target: ast.Shuffle,
    ast.Block: lambda n: ast.Proc("proc", "p", (), n, None),
    ast.Field: lambda n: ast.Record("record", "r", (n,), None),
    ast.Row: lambda n: ast.Table("t", "r", None, (n,), None),
    ast.MapNode: lambda n: ast.Map("m", (n,), None),
    ast.ViewGroup: lambda n: ast.View((n,)),
    ast.MapEdge: lambda n: ast.Map("m", (n,), None),
    ast.ParamDecl: lambda n: ast.Fn("f", (n,), None, ast.IntLit(0), None),
    ast.MatchArm: lambda n: ast.Match(ast.IntLit(0), (n,), None),
    ast.Scenario: lambda n: ast.File("scenarios", "s", None, None, (), (n,)),
}


def in_a_file(node) -> ast.File:
    """The smallest file that holds `node` where the grammar allows it."""
    while not isinstance(node, ast.File):
        around = _AROUND.get(type(node))
        assert around is not None, f"no place for {type(node).__name__} in _AROUND"
        node = around(node)
    return node


@pytest.mark.parametrize("cls", ast.NODE_CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_each_class_round_trips(cls, data):
    """Each class's own strategy, in the smallest file that can hold its examples."""
    assert cls in STRATEGIES, f"no strategy for {cls.__name__}"
    node = data.draw(STRATEGIES[cls])
    assert type(node) is cls
    tree = in_a_file(node)
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
    # too long for a line: the reason is cut into strings, one per line, that read as one
    assert "map large §B\n    reconstructed\n" in once
    assert '    "the places are counted from its numbers," {\n  node c\n' in once
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
