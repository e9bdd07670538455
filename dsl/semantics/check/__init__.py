"""Stage 3: a resolved program -> diagnostics (all of them, sorted).

`check_program` first measures the sizes the program declares (a refused size stops it
there), then builds the symbol table, evaluates constants (parameters, table rows), then
runs the checks: data (tables, maps, keys), types and names, control flow (recursion,
unbounded loops, misplaced `break`), standing rules that could set each other off, and
decisions' names. What
they find is handed on as one `Checked` record, so the compiler never checks again: the
symbols (with the constants' values) and the type of every expression.
"""

from __future__ import annotations

import attrs

from dsl.errors import Diagnostic
from dsl.semantics.check.data import check_data, evaluate_constants
from dsl.semantics.check.flow import check_flow
from dsl.semantics.check.limits import check_cells, check_sizes
from dsl.semantics.check.sites import check_sites
from dsl.semantics.check.standing import check_standing
from dsl.semantics.check.types import check_types
from dsl.semantics.resolve import Program
from dsl.semantics.symbols import Symbols
from dsl.semantics.types import Typing
from dsl.syntax import ast


@attrs.frozen
class Checked:
    """A resolved program and what checking it found: its symbols (constants evaluated),
    the type of each expression, and every diagnostic, sorted. Only a program whose
    `errors` are empty may be compiled."""

    program: Program
    symbols: Symbols
    typing: Typing
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def check_program(program: Program) -> Checked:
    oversized = check_sizes(program)
    if oversized:  # the symbol table would be as large as what is refused: stop here
        empty = Symbols(attrs.evolve(program, decls={}), max_players=1)
        return Checked(program, empty, Typing(), tuple(sorted(oversized, key=Diagnostic.sort_key)))
    players = program.one(ast.Players)
    symbols = Symbols(program, max_players=players.hi if players else 1)
    diagnostics = list(symbols.diagnostics)
    diagnostics += check_cells(program, symbols)
    diagnostics += evaluate_constants(program, symbols)
    diagnostics += check_data(program, symbols)
    typing, found = check_types(program, symbols)
    diagnostics += found
    diagnostics += check_flow(program, symbols)
    diagnostics += check_standing(program, symbols)
    diagnostics += check_sites(program)
    unique = {(d.code, d.span, d.message): d for d in diagnostics}
    return Checked(
        program, symbols, typing, tuple(sorted(unique.values(), key=Diagnostic.sort_key))
    )
