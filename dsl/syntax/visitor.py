"""The one way the passes dispatch on AST node classes (shared by every stage after parsing).

A pass subclasses `Visitor` and marks its handlers with `@on(ast.X, ...)`; `self.visit(node,
*args)` calls the handler registered for the node's class (one dictionary lookup) and
returns what it returns. A node of a class with no handler raises `Unhandled`: a construct a
pass has not been taught is a bug to report, never something to skip quietly.

So a pass names every class it may be given (`domain`, all node classes unless it says
otherwise), including the ones it has nothing to do for: a handler that returns nothing
says so, and `elsewhere(...)` marks classes that never reach the pass (resolve applies the
overlays before checking) or that their parent handles (a table handles its rows), raising
with that reason if one arrives all the same. tests/test_passes.py checks that every pass
handles its whole domain, so a new class in `dsl.syntax.ast` fails there until each pass has
decided what to do with it.

`Transformer` returns nodes: a class with no handler is rebuilt from its transformed
`children`, so a handler is written only for what a transformation changes.

Finding every node of some class inside a tree is not dispatch: use `dsl.syntax.ast.walk` and
`isinstance` for that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import attrs

from dsl.syntax import ast

F = TypeVar("F", bound=Callable[..., Any])
_MARK = "_visits"  # on a handler: the node classes it is registered for


class Unhandled(Exception):
    """A pass was given a node of a class it has no handler for (a bug in Knapper; not a
    TypeError, so no handler of Python's own errors can take it for a ruleset's mistake)."""


def on(*classes: type[ast.Node]) -> Callable[[F], F]:
    """Register the decorated method as its visitor's handler for these node classes."""

    def mark(handler: F) -> F:
        setattr(handler, _MARK, getattr(handler, _MARK, ()) + classes)
        return handler

    return mark


def elsewhere(*classes: type[ast.Node], why: str) -> Callable[..., Any]:
    """A handler for classes a pass is never given on their own, saying why (it is a bug if
    one arrives): `not_here = elsewhere(ast.Row, why="checked with its table")`."""

    def handler(self, node, *args, **kwargs):
        raise Unhandled(f"{type(self).__name__} is not given {type(node).__name__}: {why}")

    return on(*classes)(handler)


class Visitor:
    """Dispatch by node class to the methods marked `@on(...)`; see the module docstring."""

    # the node classes this pass may be given; each needs a handler
    domain: ClassVar[tuple[type[ast.Node], ...]] = ast.NODE_CLASSES
    # node class -> handler, built from the `@on` marks of the class and its bases
    _handlers: ClassVar[dict[type, Callable[..., Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        table = dict(cls._handlers)
        own: dict[type, str] = {}
        for name, value in vars(cls).items():
            for node_class in getattr(value, _MARK, ()):
                if node_class in own:
                    raise TypeError(
                        f"{cls.__name__}: {node_class.__name__} is handled by both "
                        f"{own[node_class]} and {name}"
                    )
                own[node_class] = name
                table[node_class] = value
        cls._handlers = table

    @classmethod
    def handled(cls) -> frozenset[type]:
        """The node classes this pass has a handler for (`elsewhere` ones included)."""
        return frozenset(cls._handlers)

    def visit(self, node: ast.Node, *args: Any) -> Any:
        handler = self._handlers.get(type(node))
        if handler is None:
            raise Unhandled(f"{type(self).__name__} has no handler for {type(node).__name__}")
        return handler(self, node, *args)

    def visit_children(self, node: ast.Node, *args: Any) -> None:
        """Visit every node directly inside `node`, with the same arguments."""
        for child in ast.children_of(node):
            self.visit(child, *args)


class Transformer(Visitor):
    """A pass that returns a new tree. A class with no handler is rebuilt with its children
    transformed (the very node when none changed); a handler may call `rebuild` itself."""

    def visit(self, node: ast.Node, *args: Any) -> Any:
        handler = self._handlers.get(type(node))
        if handler is None:
            return self.rebuild(node, *args)
        return handler(self, node, *args)

    def rebuild(self, node: ast.Node, *args: Any) -> Any:
        changes = {}
        for name in node.children:
            old = getattr(node, name)
            new = self._value(old, args)
            if new is not old:
                changes[name] = new
        return attrs.evolve(node, **changes) if changes else node  # type: ignore[misc]

    def _value(self, value: Any, args: tuple) -> Any:
        if isinstance(value, ast.Node):
            return self.visit(value, *args)
        if isinstance(value, tuple):
            items = tuple(self._value(item, args) for item in value)
            return value if all(a is b for a, b in zip(items, value)) else items
        return value
