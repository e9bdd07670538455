"""Bad input never crashes Knapper: mutated rulesets are checked, compiled and played, and
whatever is wrong comes back as a Knapper error with a code, never as a Python exception."""

from __future__ import annotations

import random

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl.errors import KnapperError
from dsl.pipeline import compile_text, load_program
from dsl.semantics.resolve import find_ruleset
from dsl.syntax import ast
from dsl.syntax.fmt import format_file
from dsl.syntax.parse import parse
from interpreter.core.state import start
from test_roundtrip import NAMES, exprs

EXPR_TYPES = tuple(t for t in ast.Expr.__args__)  # type: ignore[attr-defined]
BASES = ["tic-tac-toe", "pig", "connect-four"]


def _count(node) -> int:
    if isinstance(node, tuple):
        return sum(_count(n) for n in node)
    if not attrs.has(type(node)):
        return 0
    own = 1 if isinstance(node, EXPR_TYPES) else 0
    return own + sum(_count(getattr(node, f.name)) for f in attrs.fields(type(node)))


def _replace(node, n: int, new):
    """The tree with its n-th expression (pre-order) replaced by `new`; returns (tree, n left)."""
    if isinstance(node, tuple):
        out = []
        for item in node:
            item, n = _replace(item, n, new)
            out.append(item)
        return tuple(out), n
    if not attrs.has(type(node)):
        return node, n
    if isinstance(node, EXPR_TYPES):
        if n == 0:
            return new, -1
        n -= 1
    changes = {}
    for f in attrs.fields(type(node)):
        if n < 0:
            break
        value, n = _replace(getattr(node, f.name), n, new)
        if value is not getattr(node, f.name):
            changes[f.name] = value
    return (attrs.evolve(node, **changes) if changes else node), n


def _exercise(text: str) -> None:
    try:
        program, diagnostics, _ = load_program(text, "mutant.knap")
        if program is None or any(d.severity == "error" for d in diagnostics):
            return
        game = compile_text(text, "mutant.knap")
        state = start(game, game.players[0], 1)
        agent = random.Random(1)
        for _ in range(200):
            if state.pending is None:
                break
            state.apply(agent.choice(state.pending[1]))
    except KnapperError as err:
        assert err.diagnostics and all(d.code.startswith("K") for d in err.diagnostics)


SIMPLE = st.sampled_from(
    [
        ast.IntLit(0),
        ast.IntLit(1),
        ast.IntLit(7),
        ast.NoneLit(),
        ast.ListLit(()),
        ast.StrLit("x"),
        ast.BoolLit(True),
        ast.RollDice(1, 6),
        ast.UnaryOp("-", ast.IntLit(1)),
    ]
)


def _names(tree) -> list[str]:

    return sorted({n.name for n in ast.walk(tree) if isinstance(n, ast.NameRef)})


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(base=st.sampled_from(BASES), where=st.floats(0, 1), data=st.data())
def test_a_mutated_expression_is_an_error_or_a_game(base, where, data):
    tree = parse(find_ruleset(base).read_text(encoding="utf-8"), base)
    # the ruleset's own names and small values reach the compiler and the engine;
    # arbitrary expressions mostly exercise the checker
    own = st.sampled_from(_names(tree)).map(ast.NameRef)
    new = data.draw(own | SIMPLE | exprs | NAMES.map(ast.NameRef))
    count = _count(tree.items)
    mutated, _ = _replace(tree.items, int(where * (count - 1)), new)
    _exercise(format_file(attrs.evolve(tree, items=mutated)))


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(base=st.sampled_from(BASES), data=st.data())
def test_a_removed_declaration_is_an_error_or_a_game(base, data):
    tree = parse(find_ruleset(base).read_text(encoding="utf-8"), base)
    drop = data.draw(st.integers(0, len(tree.items) - 1))
    items = tree.items[:drop] + tree.items[drop + 1 :]
    _exercise(format_file(attrs.evolve(tree, items=items)))
