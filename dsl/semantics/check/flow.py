"""Control flow: no recursion (procedures and derived values form no call cycle), every
`while` has a bound, `break` only inside a loop.

Together with finite `for` and `repeat` and the `round max N` bound, this is what makes every
ruleset terminate. Effects are the one exception the checker cannot settle alone: an effect
whose body names another effect (`may(draw(1))` built inside `draw`) is an edge of the call
graph like a call, but what a `perform` of a row's cell or a parameter runs is known only
while the game runs, so the engine bounds how deep performed effects nest (K416).
"""

from __future__ import annotations

from typing import Any

from dsl.errors import Diagnostic, Note, diag
from dsl.semantics.symbols import Symbols
from dsl.syntax import ast
from dsl.syntax.visitor import Visitor, elsewhere, on

CALLABLE = ("fn", "proc", "phase", "step", *ast.TAGGED_KINDS)


def _calls(decl, depth: int) -> list[tuple[str, Any]]:
    return [
        (ast.rule_label(decl.name, depth + 1) if n.base else n.name, n)
        for n in ast.walk(decl.body)
        if isinstance(n, (ast.CallExpr, ast.CallStmt))
    ]


def check_flow(program, symbols: Symbols) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    graph: dict[str, list[tuple[str, Any]]] = {}
    spans = dict(symbols.spans)
    for decl, depth in ast.rules(program.decls.values()):
        if isinstance(decl, (ast.Fn, ast.Proc)):
            key = ast.rule_label(decl.name, depth)
            spans[key] = decl.span
            graph[key] = [
                (n, c) for n, c in _calls(decl, depth) if c.base or symbols.kind.get(n) in CALLABLE
            ]
    out += _cycles(graph, spans)
    loops = _Loops()
    for decl, _depth in ast.rules(program.decls.values()):
        loops.visit(decl, 0)
    return out + loops.out


def _cycles(graph, spans: dict) -> list[Diagnostic]:
    out = []
    state: dict[str, int] = {}
    reported: set[frozenset] = set()

    def visit(name: str, path: list[tuple[str, object]]):
        state[name] = 1
        for callee, call in graph.get(name, []):
            if state.get(callee) == 1:
                names = [n for n, _ in path] + [name]
                cycle = names[names.index(callee) :] + [callee]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    out.append(
                        diag(
                            "K207",
                            "recursion is not allowed: " + " -> ".join(cycle),
                            call.span,
                            notes=(Note(spans[callee], f"{callee!r} is defined here"),),
                            hint="rewrite the repetition as a bounded loop",
                        )
                    )
            elif state.get(callee) is None:
                visit(callee, path + [(name, call)])
        state[name] = 2

    for name in graph:
        if state.get(name) is None:
            visit(name, [])
    return out


class _Loops(Visitor):
    """Every `while` has a bound, every `break` is inside a loop: the statements of every
    block, with the number of loops around them (`depth`)."""

    not_given = elsewhere(
        ast.File,
        ast.Import,
        *ast.OVERLAYS,
        ast.Scenario,
        *ast.SCENARIO_STEPS,
        why="resolve applies overlays, and a scenario's position and run become declarations, "
        "before checking",
    )

    def __init__(self) -> None:
        self.out: list[Diagnostic] = []

    @on(
        ast.Proc,
        ast.Setup,
        ast.Round,
        ast.Block,
        ast.If,
        ast.Match,
        ast.MatchArm,
        ast.Simultaneously,
    )
    def inside(self, node, depth: int) -> None:
        """Declarations and statements with blocks (or statements) inside, and no loop."""
        self.visit_children(node, depth)

    @on(ast.For, ast.Repeat, ast.Outcry)
    def loop(self, s: ast.For | ast.Repeat | ast.While | ast.Outcry, depth: int) -> None:
        for block in ast.blocks_of(s):
            self.visit(block, depth + 1)

    @on(ast.While)
    def s_While(self, s: ast.While, depth: int) -> None:
        if s.max is None:
            self.out.append(
                diag(
                    "K206",
                    "this loop has no bound",
                    s.span,
                    hint="write `while condition max N { ... }`; the game stops with an "
                    "error if it runs more than N times",
                )
            )
        self.loop(s, depth)

    @on(ast.Break)
    def s_Break(self, s: ast.Break, depth: int) -> None:
        if depth == 0:
            self.out.append(diag("K213", "`break` outside a loop", s.span))

    @on(
        ast.Let,
        ast.Assign,
        ast.Choose,
        ast.Agree,
        ast.Negotiate,
        ast.CallStmt,
        ast.AddTo,
        ast.RemoveFrom,
        ast.Spend,
        ast.Move,
        ast.Shuffle,
        ast.Reveal,
        ast.Flip,
        ast.Draw,
        ast.EndGame,
        ast.Log,
        ast.Perform,
        ast.Trigger,
        ast.Pass,
        ast.Quiet,
    )
    def plain(self, s, depth: int) -> None:
        """Statements with no block inside."""

    @on(
        *ast.EXPRESSIONS,
        *ast.TYPES,
        *ast.KEYS,
        ast.CompFor,
        ast.KwArg,
        ast.Target,
        ast.Title,
        ast.Source,
        ast.Players,
        ast.Bound,
        ast.View,
        ast.ViewGroup,
        ast.Param,
        ast.Enum,
        ast.Record,
        ast.Field,
        ast.Table,
        ast.Row,
        ast.Map,
        ast.MapNode,
        ast.MapEdge,
        ast.Var,
        ast.Zone,
        ast.Pool,
        ast.ParamDecl,
        ast.Fn,
        ast.Outcome,
        ast.Invariant,
        ast.Note,
        ast.Moment,
    )
    def no_statements(self, node, depth: int) -> None:
        """Nothing here holds a statement (an expression never does)."""
        assert not node.blocks, node
