"""Stage 3: a resolved program -> diagnostics (all of them, sorted).

`check_program` builds the symbol table, evaluates constants (parameters, table rows), then
runs the checks: data (tables, maps, keys), types and names, and control flow (recursion,
unbounded loops, misplaced `break`).
"""

from __future__ import annotations

from dsl.errors import Diagnostic
from dsl.semantics.check.data import check_data, evaluate_constants
from dsl.semantics.check.flow import check_flow
from dsl.semantics.check.types import check_types
from dsl.semantics.resolve import Program
from dsl.semantics.symbols import Symbols
from dsl.syntax import ast


def check_program(program: Program) -> tuple[Symbols, list[Diagnostic]]:
    players = program.one(ast.Players)
    symbols = Symbols(program, max_players=players.hi if players else 1)
    diagnostics = list(symbols.diagnostics)
    diagnostics += evaluate_constants(program, symbols)
    diagnostics += check_data(program, symbols)
    diagnostics += check_types(program, symbols)
    diagnostics += check_flow(program, symbols)
    unique = {(d.code, d.span, d.message): d for d in diagnostics}
    return symbols, sorted(unique.values(), key=Diagnostic.sort_key)
