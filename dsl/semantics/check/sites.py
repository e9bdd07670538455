"""Decisions' names: an `id` that a front-end reads a decision by names one decision only.

A decision without an `id` is named after its rule (interpreter/core/game.py, `ChooseSite.id`),
so only declared ones can clash; a clash is K245. A rule a variant replaced and calls with
`base(...)` keeps its decisions under the base's name, so only the rules in force count.
"""

from __future__ import annotations

from dsl.errors import Diagnostic, Note, diag
from dsl.syntax import ast

DECIDING = (ast.Choose, ast.Agree, ast.Negotiate)


def check_sites(program) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    first: dict[str, ast.Node] = {}
    bodies = [decl for decl in program.decls.values() if isinstance(decl, ast.Proc)]
    bodies += [b for b in (program.one(ast.Setup), program.one(ast.Round)) if b is not None]
    for body in bodies:
        for node in ast.walk(body):
            if not isinstance(node, DECIDING) or node.id is None:
                continue
            earlier = first.setdefault(node.id, node)
            if earlier is not node:
                out.append(
                    diag(
                        "K245",
                        f"two decisions are named {node.id!r}",
                        node.span,
                        hint="give each `id` a name of its own",
                        notes=[Note(earlier.span, "the other one is here")],
                    )
                )
    return out
