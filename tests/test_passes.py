"""Passes that fail loudly: every AST node class declares its children, blocks and (for a
statement) whether it suspends, and has a handler in every pass and a strategy in the
round-trip tests. The set of classes is read from `dsl/syntax/ast.py` itself, so a new construct
fails here until each pass has been taught it."""

from __future__ import annotations

import importlib
import pkgutil
import typing
from pathlib import Path

import attrs
import pytest

import dsl
import interpreter
from dsl.semantics.check.data import _Constant
from dsl.semantics.check.flow import _Loops
from dsl.semantics.check.types import TypeChecker
from dsl.semantics.resolve import _MarkBaseCalls, _Overlay
from dsl.semantics.symbols import _Binder
from dsl.syntax import ast, fmt
from dsl.syntax.parse import parse
from dsl.syntax.visitor import Transformer, Unhandled, Visitor, elsewhere, on
from dsl.tools.diff import _Changed
from dsl.tools.lint import _Setters
from test_roundtrip import STRATEGIES


def _classes_in_ast_module() -> set[type]:
    """Every attrs class defined in dsl/syntax/ast.py, found by reading the module."""
    return {
        value
        for value in vars(ast).values()
        if isinstance(value, type) and attrs.has(value) and value.__module__ == ast.__name__
    }


ROOT = Path(__file__).resolve().parent.parent
ALL = frozenset(_classes_in_ast_module())
CATEGORIES = {
    "types": ast.TYPES,
    "keys": ast.KEYS,
    "expressions": ast.EXPRESSIONS,
    "statements": ast.STATEMENTS,
    "declarations": ast.DECLARATIONS,
    "overlays": ast.OVERLAYS,
    "scenario steps": ast.SCENARIO_STEPS,
    "parts": ast.PARTS,
}

# every pass over the AST, with the classes it must handle
PASSES: dict[str, tuple[type[Visitor], ...]] = {
    "types (check/types.py)": (TypeChecker,),
    "flow (check/flow.py)": (_Loops,),
    "fmt": tuple(type(p) for p in fmt.PRINTERS),
    "constants (check/data.py)": (_Constant,),
    "bindings (symbols.py)": (_Binder,),
    "overlays (resolve.py)": (_Overlay,),
    "diff": (_Changed,),
    "what an item sets (lint.py)": (_Setters,),
}
# these passes are given every kind of node: each class needs a handler in them
WHOLE_TREE = ("types (check/types.py)", "flow (check/flow.py)", "fmt")


def _names(classes) -> list[str]:
    return sorted(c.__name__ for c in classes)


# ------------------------------------------------------------------ the node classes
def test_every_class_of_dsl_ast_is_a_node_and_in_node_classes():
    assert ALL == set(ast.NODE_CLASSES)
    assert all(issubclass(c, ast.Node) for c in ALL)
    assert len(ast.NODE_CLASSES) == len(ALL)


def test_every_class_is_in_exactly_one_category():
    seen: dict[type, list[str]] = {}
    for name, classes in CATEGORIES.items():
        for c in classes:
            seen.setdefault(c, []).append(name)
    assert {c.__name__: v for c, v in seen.items() if len(v) > 1} == {}
    assert _names(ALL - set(seen)) == []


def test_statements_are_the_statement_classes():
    assert set(ast.STATEMENTS) == {c for c in ALL if issubclass(c, ast.Statement)}


def _node_classes_in(hint) -> set[type]:
    """The node classes a field's type mentions (inside unions, tuples, lists)."""
    if isinstance(hint, type) and issubclass(hint, ast.Node):
        return {hint}
    return {c for arg in typing.get_args(hint) for c in _node_classes_in(arg)}


@pytest.mark.parametrize("cls", ast.NODE_CLASSES, ids=lambda c: c.__name__)
def test_children_and_blocks_match_the_fields_types(cls):
    hints = typing.get_type_hints(cls, vars(ast))
    fields = [f.name for f in attrs.fields(cls) if f.name != "span"]
    holding_nodes = [f for f in fields if _node_classes_in(hints[f])]
    holding_blocks = [f for f in fields if ast.Block in _node_classes_in(hints[f])]
    assert cls.children == tuple(holding_nodes), "declare `children` in field order"
    assert cls.blocks == tuple(holding_blocks), "declare `blocks` in field order"


@pytest.mark.parametrize("cls", ast.STATEMENTS, ids=lambda c: c.__name__)
def test_every_statement_declares_whether_it_suspends(cls):
    assert "suspends" in vars(cls), f"{cls.__name__} must say whether it suspends"
    assert isinstance(cls.suspends, bool)


def test_decisions_and_calls_suspend():
    assert ast.Choose.suspends and ast.CallStmt.suspends
    assert not ast.If.suspends and not ast.For.suspends  # their contents may


def test_can_suspend_looks_inside_blocks():
    tree = parse(
        'library "x"\n'
        "proc p() {\n"
        "  if a { pass } else { for i in b { let c = choose player(1) from [1, 2] } }\n"
        '  while a max 3 { log "x" }\n'
        "}\n"
    )
    first, second = tree.items[0].body.stmts
    assert ast.can_suspend(first)
    assert not ast.can_suspend(second)
    assert [type(b.stmts[0]) for b in ast.blocks_of(first)] == [ast.Pass, ast.For]


# ------------------------------------------------------------------ every pass handles them
@pytest.mark.parametrize("name", PASSES)
def test_every_pass_handles_its_whole_domain(name):
    visitors = PASSES[name]
    handled = frozenset().union(*(v.handled() for v in visitors))
    domain = frozenset().union(*(v.domain for v in visitors))
    if name in WHOLE_TREE:
        assert _names(ALL - domain) == [], f"{name} must be given every node class"
    assert _names(domain - handled) == [], f"{name} has no handler for these"


@pytest.mark.parametrize("name", WHOLE_TREE)
def test_the_whole_tree_passes_handle_every_class(name):
    handled = frozenset().union(*(v.handled() for v in PASSES[name]))
    assert _names(ALL - handled) == []


def test_the_round_trip_strategies_cover_every_class():
    assert _names(ALL - set(STRATEGIES)) == []


def _every_visitor() -> list[type[Visitor]]:
    """Every Visitor class of dsl/ and interpreter/ (all their modules imported)."""
    for package in (dsl, interpreter):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    found, todo = [], [Visitor]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith(("dsl.", "interpreter.")):
                found.append(sub)
    return found


def test_every_visitor_in_the_code_handles_its_whole_domain():
    visitors = _every_visitor()
    assert set(v for vs in PASSES.values() for v in vs) <= set(visitors)
    missing = {
        f"{v.__module__}.{v.__qualname__}": _names(set(v.domain) - v.handled())
        for v in visitors
        if not issubclass(v, Transformer)  # a Transformer rebuilds what it does not handle
    }
    assert {name: classes for name, classes in missing.items() if classes} == {}


# ------------------------------------------------------------------ the architecture page
def test_the_module_map_names_every_module():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    modules = sorted(
        path.relative_to(ROOT).as_posix()
        for package in ("dsl", "interpreter")
        for path in (ROOT / package).rglob("*.py")
    )
    assert [m for m in modules if m not in page] == []


def test_every_package_is_installed():
    """A package missing from pyproject.toml's list imports from a checkout (the tests run
    there) but not from an installed Knapper."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for package in ("dsl", "interpreter")
        for path in (ROOT / package).rglob("__init__.py")
    }
    assert sorted(found - listed) == []


# ------------------------------------------------------------------ failing loudly
@attrs.frozen
class Mystery(ast.Statement):
    """A construct no pass has been taught."""

    suspends = False
    span: ast.Span = attrs.field(default=ast.NO_SPAN, eq=False, kw_only=True)


def test_a_statement_no_pass_knows_is_refused_not_skipped():
    from dsl.semantics.check import check_program
    from dsl.semantics.resolve import resolve_text

    program, diagnostics, _ = resolve_text('ruleset "x"\nplayers 2\nsetup { pass }\n', "x.knap")
    assert program is not None and not diagnostics
    setup = program.decls["setup"]
    strange = attrs.evolve(
        program, decls={"setup": attrs.evolve(setup, body=ast.Block((Mystery(),)))}
    )
    with pytest.raises(Unhandled, match="no handler for Mystery"):
        check_program(strange)
    with pytest.raises(Unhandled, match="no handler for Mystery"):
        _Loops().visit(ast.Block((Mystery(),)), 0)
    with pytest.raises(Unhandled, match="no handler for Mystery"):
        fmt.stmt(Mystery(), 0)


def test_elsewhere_says_why():
    with pytest.raises(Unhandled, match="resolve merges imported libraries"):
        _Binder(None).visit(ast.Import("lib.knap"))


def test_a_class_handled_twice_in_one_visitor_is_refused():
    with pytest.raises(TypeError, match="IntLit is handled by both"):

        class Twice(Visitor):
            @on(ast.IntLit)
            def one(self, node):
                pass

            @on(ast.IntLit, ast.StrLit)
            def two(self, node):
                pass


def test_a_subclass_inherits_and_may_override_handlers():
    class Base(Visitor):
        @on(ast.IntLit, ast.StrLit)
        def literal(self, node):
            return "base"

        nothing = elsewhere(ast.Pass, why="never")

    class Child(Base):
        @on(ast.StrLit)
        def text(self, node):
            return "child"

    assert Child().visit(ast.IntLit(1)) == "base"
    assert Child().visit(ast.StrLit("a")) == "child"
    assert Child.handled() == {ast.IntLit, ast.StrLit, ast.Pass}


def test_a_transformer_rebuilds_only_what_changes():
    tree = parse('library "x"\nproc p() {\n  if base(1) > 2 { base(base(3)) }\n  let a = 1\n}\n')
    marked = _MarkBaseCalls().visit(tree)
    calls = [n.base for n in ast.walk(marked) if isinstance(n, (ast.CallStmt, ast.CallExpr))]
    assert calls == [True, True, True]
    old_let, new_let = tree.items[0].body.stmts[1], marked.items[0].body.stmts[1]
    assert new_let is old_let  # nothing inside it changed: the very node
    other = parse('library "x"\nproc p() {\n  if other(1) > 2 { other(3) }\n}\n')
    assert _MarkBaseCalls().visit(other) is other
    assert isinstance(_MarkBaseCalls(), Transformer)


def test_walk_goes_depth_first_in_source_order():
    tree = parse('library "x"\nfn f(n: int) = if n > 1 then [n, 2] else g(n)\n')
    kinds = [type(n).__name__ for n in ast.walk(tree.items[0])]
    assert kinds == [
        "Fn", "ParamDecl", "TypeName", "IfExpr", "BinOp", "NameRef", "IntLit",
        "ListLit", "NameRef", "IntLit", "CallExpr", "NameRef",
    ]  # fmt: skip
