"""Stage 3, first of the checks: the sizes a game may declare.

In: a resolved program (and, for the second pass, its symbols). Out: diagnostics K254-K259.
The first pass runs before the symbol table is built, because building it would make the
very lists these limits refuse (a range key of a billion values, a row repeated a billion
times); when it finds anything, the checker stops there. The second pass measures keyed
variables, whose size is the product of their keys' sizes. Every limit is documented in
docs/language.md ("Limits").
"""

from __future__ import annotations

from dsl.errors import Diagnostic, diag
from dsl.syntax import ast

MAX_PLAYERS = 64
MAX_KEY_RANGE = 10_000  # values of one range key, `var x[1..N]`
MAX_ROW_SLOTS = 10_000  # slots of one `row N` zone
MAX_COPIES = 10_000  # `x N` of one table row
MAX_TABLE_ROWS = 100_000  # rows of one table, copies counted
MAX_DICE = 1_000  # dice of one literal roll, `roll NdS`
MAX_TABLE_FACES = 10_000  # results a rolled table can look up (dice times sides)
MAX_CELLS = 1_000_000  # cells of one keyed variable, zone or pool (a row zone's slots counted)


def check_sizes(program) -> list[Diagnostic]:
    """The limits that must hold before the symbol table can be built."""
    out: list[Diagnostic] = []
    players = program.one(ast.Players)
    if players is not None and players.hi > MAX_PLAYERS:
        out.append(
            diag(
                "K254",
                f"a game of {players.hi} players is more than the limit of {MAX_PLAYERS}",
                players.span,
            )
        )
    for decl in program.decls.values():
        if isinstance(decl, (ast.Var, ast.Zone, ast.Pool)):
            for key in decl.keys:
                if isinstance(key, ast.KeyRange) and key.hi - key.lo + 1 > MAX_KEY_RANGE:
                    out.append(
                        diag(
                            "K255",
                            f"the key range {key.lo}..{key.hi} has {key.hi - key.lo + 1} "
                            f"values, more than the limit of {MAX_KEY_RANGE}",
                            key.span,
                        )
                    )
        if isinstance(decl, ast.Zone) and decl.kind == "row" and (decl.size or 0) > MAX_ROW_SLOTS:
            out.append(
                diag(
                    "K257",
                    f"a row of {decl.size} slots is more than the limit of {MAX_ROW_SLOTS}",
                    decl.span,
                )
            )
        if isinstance(decl, ast.Table):
            out += _table(decl)
        for node in ast.walk(decl):
            if isinstance(node, ast.RollDice) and node.count > MAX_DICE:
                out.append(
                    diag(
                        "K259",
                        f"a roll of {node.count} dice is more than the limit of {MAX_DICE}",
                        node.span,
                        hint="roll a computed number with `dice(n, sides)`, which the work "
                        "budget watches",
                    )
                )
    return out


def _table(table: ast.Table) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    total = 0
    for row in table.rows:
        copies = row.copies or 1
        total += copies
        if copies > MAX_COPIES:
            out.append(
                diag(
                    "K258",
                    f"row {row.name!r} is repeated {copies} times, more than the limit of "
                    f"{MAX_COPIES}",
                    row.span,
                )
            )
    if total > MAX_TABLE_ROWS and not out:
        out.append(
            diag(
                "K258",
                f"table {table.name!r} has {total} rows (copies counted), more than the limit "
                f"of {MAX_TABLE_ROWS}",
                table.span,
            )
        )
    if table.dice:
        count, sides = (int(x) for x in table.dice.split("d"))
        if count * sides > MAX_TABLE_FACES:
            out.append(
                diag(
                    "K259",
                    f"a table rolled with {table.dice} looks up {count * sides} results, more "
                    f"than the limit of {MAX_TABLE_FACES}",
                    table.span,
                )
            )
    return out


def check_cells(program, symbols) -> list[Diagnostic]:
    """Keyed variables, zones and pools no larger than `MAX_CELLS` cells (K256)."""
    out: list[Diagnostic] = []
    for decl in program.decls.values():
        if not isinstance(decl, (ast.Var, ast.Zone, ast.Pool)) or not decl.keys:
            continue
        cells = 1
        for key in decl.keys:
            try:
                cells *= len(symbols.domain(key))
            except KeyError:  # an unknown key: reported by the data checks (K202)
                break
        if isinstance(decl, ast.Zone) and decl.kind == "row":
            cells *= decl.size or 1
        if cells > MAX_CELLS:
            out.append(
                diag(
                    "K256",
                    f"{decl.name!r} would hold {cells} cells, more than the limit of {MAX_CELLS}",
                    decl.span,
                    hint="fewer keys, or smaller ones",
                )
            )
    return out
