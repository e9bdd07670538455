"""Control flow: no recursion (procedures and derived values form no call cycle), every
`while` has a bound, `break` only inside a loop.

Together with finite `for` and `repeat` and the `round max N` bound, this is what makes every
ruleset terminate.
"""

from __future__ import annotations

from dsl import ast
from dsl.errors import Diagnostic, Note, diag
from dsl.symbols import Symbols

CALLABLE = ("fn", "proc", "phase", "step")


def _calls(decl) -> list[tuple[str, object]]:
    body = decl.body
    return [(n.name, n) for n in ast.walk(body) if isinstance(n, (ast.CallExpr, ast.CallStmt))]


def check_flow(program, symbols: Symbols) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    graph: dict[str, list[tuple[str, object]]] = {}
    for decl in program.decls.values():
        if isinstance(decl, (ast.Fn, ast.Proc)):
            graph[decl.name] = [(n, c) for n, c in _calls(decl) if symbols.kind.get(n) in CALLABLE]
    out += _cycles(graph, symbols)
    for decl in program.decls.values():
        body = getattr(decl, "body", None)
        if isinstance(body, ast.Block):
            out += _loops(body, depth=0)
    return out


def _cycles(graph, symbols: Symbols) -> list[Diagnostic]:
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
                            notes=(Note(symbols.spans[callee], f"{callee!r} is defined here"),),
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


def _loops(block: ast.Block, depth: int) -> list[Diagnostic]:
    out = []
    for stmt in block.stmts:
        if isinstance(stmt, ast.While):
            if stmt.max is None:
                out.append(
                    diag(
                        "K206",
                        "this loop has no bound",
                        stmt.span,
                        hint="write `while condition max N { ... }`; the game stops with an "
                        "error if it runs more than N times",
                    )
                )
            out += _loops(stmt.body, depth + 1)
        elif isinstance(stmt, (ast.For, ast.Repeat)):
            out += _loops(stmt.body, depth + 1)
        elif isinstance(stmt, ast.If):
            for _, body in stmt.branches:
                out += _loops(body, depth)
            if stmt.otherwise is not None:
                out += _loops(stmt.otherwise, depth)
        elif isinstance(stmt, ast.Break) and depth == 0:
            out.append(diag("K213", "`break` outside a loop", stmt.span))
    return out
