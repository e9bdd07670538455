"""Static findings about costs, for `knapper lint`: a row's cost its pool can never hold.

In: a resolved `Program`. Out: `Diagnostic`s K821 and K822 (warnings). A cost is a column of
a table, a list of a pool's kinds, that the rules spend from a pool (`spend x.f from
pool[...]`) or test against one (`affordable(x.f, pool[...])`). A pool's count of a kind
can grow only where a statement adds to it (`pool[..., k] += n`, `pool[..., k] = n`, or
`spend ... to pool`); where nothing can add kind k, the pool never holds more of k than it
starts with, so a cost that needs more can never be paid. Where a statement adds a kind
that only play decides (`pool[p, i] += 1` for a local `i`), nothing is proved and nothing is
said: the dynamic check (K857, `knapper lint --simulate`) covers the rest.
"""

from __future__ import annotations

from collections import Counter

from dsl.errors import Diagnostic, diag
from dsl.semantics.resolve import Program
from dsl.syntax import ast

ANY_KIND = "*"


def cost_findings(program: Program) -> list[Diagnostic]:
    pools = {d.name: d for d in program.get(ast.Pool)}
    paid: set[tuple[str, str]] = set()  # (pool, field) a cost column is paid from
    grows: dict[str, set[str]] = {name: set() for name in pools}
    for decl in program.decls.values():
        for node in ast.walk(decl):
            if isinstance(node, ast.Spend):
                _note_cost(paid, node.source.name, node.bag)
                if node.sink is not None and node.sink.name in grows:
                    grows[node.sink.name].add(ANY_KIND)
            elif isinstance(node, ast.CallExpr) and node.name == "affordable":
                args = [a for a in node.args if not isinstance(a, ast.KwArg)]
                pool = args[1] if len(args) == 2 else None
                if isinstance(pool, ast.IndexGet) and isinstance(pool.obj, ast.NameRef):
                    _note_cost(paid, pool.obj.name, args[0])
                elif isinstance(pool, ast.NameRef):
                    _note_cost(paid, pool.name, args[0])
            elif isinstance(node, ast.Assign) and node.target.name in pools and node.op != "-=":
                pool = pools[node.target.name]
                grows[pool.name].add(_kind(pool, node.target, _values(program, pool.enum)))
    out: list[Diagnostic] = []
    for pool_name, field in sorted(paid):
        pool = pools.get(pool_name)
        start = _start(pool) if pool is not None else None
        if pool is None or start is None or ANY_KIND in grows[pool_name]:
            continue
        for table, row, cost in _cost_cells(program, pool.enum, field):
            for kind, needed in cost.items():
                if kind in grows[pool_name] or needed <= start:
                    continue
                out.append(_finding(pool, table, row, field, kind, needed, start))
    return out


def _note_cost(paid: set[tuple[str, str]], pool: str, bag: ast.Expr) -> None:
    """A cost read from a row's field (`c.cost`) is a column paid from this pool."""
    if isinstance(bag, ast.FieldGet):
        paid.add((pool, bag.name))


def _kind(pool: ast.Pool, target: ast.Target, kinds: tuple[str, ...]) -> str:
    """The kind an assignment to a pool's cell may add to: the one it names, or any (a
    local or an expression decides it during play)."""
    if len(target.indices) == len(pool.keys) + 1:
        index = target.indices[-1]
        if isinstance(index, ast.NameRef) and index.name in kinds:
            return index.name
    return ANY_KIND


def _values(program: Program, enum: str) -> tuple[str, ...]:
    decl = program.decls.get(enum)
    return decl.values if isinstance(decl, ast.Enum) else ()


def _start(pool: ast.Pool) -> int | None:
    """What each cell of the pool starts with, when the declaration says it as a number."""
    if pool.value is None:
        return 0
    return pool.value.value if isinstance(pool.value, ast.IntLit) else None


def _cost_cells(program: Program, enum: str, field: str):
    """Every row's cost in `field` of a record whose `field` is a list of `enum`: (table,
    row, the count of each kind it names)."""
    for record in program.get(ast.Record):
        fields = {f.name: f for f in record.fields}
        f = fields.get(field)
        if not (
            f is not None
            and isinstance(f.type, ast.TypeList)
            and isinstance(f.type.elem, ast.TypeName)
            and f.type.elem.name == enum
        ):
            continue
        for table in program.get(ast.Table):
            if table.record != record.name:
                continue
            for row in table.rows:
                value = dict(ast.row_cells(row, list(fields))).get(field, f.default)
                if isinstance(value, ast.ListLit):
                    names = [i.name for i in value.items if isinstance(i, ast.NameRef)]
                    yield table, row, Counter(names)


def _finding(pool, table, row, field, kind, needed, start) -> Diagnostic:
    where = f"row {row.name!r} of {table.name!r}"
    if start == 0:
        return diag(
            "K821",
            f"{where} costs {kind} ({field}), which {pool.name!r} never holds: it starts "
            f"with none and no rule adds any",
            row.span,
            severity="warning",
            hint=f"a rule should add {kind} to {pool.name!r}, or the cost is misprinted",
            cite=row.cite or table.cite,
        )
    return diag(
        "K822",
        f"{where} costs {needed} {kind} ({field}), but {pool.name!r} never holds more than "
        f"{start}: it starts with {start} and no rule adds any",
        row.span,
        severity="warning",
        hint="the cost can never be paid; check it against the book",
        cite=row.cite or table.cite,
    )
