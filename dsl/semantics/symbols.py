"""The global names of a resolved program: what each name is, and the data behind it.

Built once from a `Program` (after resolve) and shared by the checker and the compiler:
enum values, table rows and map nodes are constants (their names); parameters are evaluated
constants; variables, zones and pools get state slots; key domains get index maps.
"""

from __future__ import annotations

from typing import Any

from dsl.errors import Diagnostic, Note, diag, did_you_mean
from dsl.syntax import ast
from dsl.syntax.visitor import Visitor, elsewhere, on

KNOWN = "$known"  # the engine's zone of what each player was shown (`reveal`)
FLIPPED = "$flipped"  # the engine's zone of the two-sided cards turned over (`flip`)


class Symbols:
    def __init__(self, program, max_players: int):
        self.program = program
        self.max_players = max_players
        self.decls: dict[str, Any] = {}
        self.kind: dict[
            str, str
        ] = {}  # name -> enum|enumval|record|table|row|map|node|param|var|fn|proc
        self.owner: dict[str, str] = {}  # enum value -> enum, row -> table, node -> map
        self.spans: dict[str, Any] = {}
        self.params: dict[str, Any] = {}
        self.rows: dict[str, dict[str, Any]] = {}
        self.table_rows: dict[str, list[str]] = {}
        self.adjacency: dict[str, list[str]] = {}
        self.map_nodes: dict[str, list[str]] = {}
        self.state_decls: list = []
        self._slots: dict[str, int] = {}
        self.diagnostics: list[Diagnostic] = []
        self._collect()

    # ------------------------------------------------------------------ building
    def _bind(self, name: str, kind: str, decl, span) -> None:
        if name in self.kind:
            self.diagnostics.append(
                diag(
                    "K210",
                    f"the name {name!r} is used twice (as {_a(self.kind[name])} and as {_a(kind)})",
                    span,
                    hint="enum values, row ids, map nodes and declarations share one namespace",
                    notes=(Note(self.spans[name], "first used here"),),
                )
            )
            return
        self.kind[name] = kind
        self.decls[name] = decl
        self.spans[name] = span

    def _collect(self) -> None:
        binder = _Binder(self)
        for decl in self.program.decls.values():
            binder.visit(decl)
        # zones of the engine's own (their names are no names of the language): what each
        # player was shown of face-down entries, seen by its owner only; the two-sided
        # cards turned over (their second face up), in public
        if self._knows():
            self._engine_zone(KNOWN, (ast.KeyName("player"),), "owner")
        if any(r.sides for r in self.program.get(ast.Record)):
            self._engine_zone(FLIPPED, (), "public")

    def _engine_zone(self, name: str, keys: tuple, visibility: str) -> None:
        zone = ast.Zone(name, keys, "list", None, None, visibility, None)
        self._slots[name] = len(self.state_decls)
        self.decls[name] = zone
        self.state_decls.append(zone)

    def _knows(self) -> bool:
        """Does the program show face-down entries to some players (`reveal`, `visible backs`)?"""
        decls = list(self.program.decls.values())
        return any(isinstance(d, ast.Zone) and d.visibility == "backs" for d in decls) or any(
            isinstance(n, ast.Reveal) for d in decls for n in ast.walk(d)
        )

    def fill_rows(self, evaluate) -> None:
        """Evaluate every row's fields (constants) with `evaluate(expr) -> value`."""
        for table in self.program.get(ast.Table):
            record = self.program.decls.get(table.record)
            fields = [f.name for f in record.fields] if isinstance(record, ast.Record) else []
            defaults = {
                f.name: f.default
                for f in (record.fields if isinstance(record, ast.Record) else ())
                if f.default is not None
            }
            for row in table.rows:
                data: dict[str, Any] = {name: None for name in fields}
                cells = ast.row_cells(row, fields)
                given = {name for name, _ in cells}
                for name, default in defaults.items():
                    if name not in given:
                        data[name] = evaluate(default)
                for name, value in cells:
                    data[name] = evaluate(value)
                data.update(id=row.name, title=row.title or row.name, table=table.name)
                self.rows[row.name] = data

    # ------------------------------------------------------------------ queries
    @staticmethod
    def keys_of(decl) -> tuple:
        """The keys of a state declaration; a pool is also keyed by the enum it counts."""
        if isinstance(decl, ast.Pool):
            return tuple(decl.keys) + (ast.KeyName(decl.enum, span=decl.span),)
        return tuple(getattr(decl, "keys", ()))

    def slot_of(self, name: str) -> int | None:
        return self._slots.get(name)

    def is_constant(self, name: str) -> bool:
        return self.kind.get(name) in ("enum value", "row", "node", "param")

    def constant(self, name: str):
        kind = self.kind.get(name)
        if kind == "param":
            return self.params[name]
        if kind in ("enum value", "row", "node"):
            return name
        raise KeyError(name)

    def domain(self, key) -> tuple:
        if isinstance(key, ast.KeyRange):
            return tuple(range(key.lo, key.hi + 1))
        name = key.name
        if name == "player":
            return tuple(range(self.max_players))
        kind = self.kind.get(name)
        if kind == "enum":
            return tuple(self.decls[name].values)
        if kind == "map":
            return tuple(self.map_nodes[name])
        if kind == "table":
            return tuple(dict.fromkeys(self.table_rows[name]))
        raise KeyError(name)

    def named_values(self) -> dict[str, frozenset[str]]:
        """The values of each named type, by its name: an enum's values, a record's rows
        (over all its tables) and a map's nodes."""
        out: dict[str, set[str]] = {}
        for name, kind in self.kind.items():
            if kind == "enum":
                out[name] = set(self.decls[name].values)
            elif kind == "map":
                out[name] = set(self.map_nodes[name])
            elif kind == "record":
                out.setdefault(name, set())
            elif kind == "table":
                out.setdefault(self.decls[name].record, set()).update(self.table_rows[name])
        return {name: frozenset(values) for name, values in out.items()}

    def domain_index(self, key) -> dict:
        return {value: i for i, value in enumerate(self.domain(key))}

    def roll_table(self, name: str):
        table = self.decls[name]
        count, sides = (int(x) for x in table.dice.split("d"))
        lookup: list[Any] = [None] * (count * sides + 1)
        for row in table.rows:
            if row.lo is None:
                continue
            lo, hi = face(row.lo, sides), face(row.hi, sides)
            for value in range(lo, hi + 1):
                if 0 <= value < len(lookup):
                    lookup[value] = row.name
        return count, sides, lookup


class _Binder(Visitor):
    """Binds the names each declaration defines in its `Symbols`."""

    domain = ast.DECLARATIONS

    not_given = elsewhere(ast.Import, why="resolve merges imported libraries")

    def __init__(self, symbols: Symbols):
        self.sym = symbols

    @on(ast.Enum)
    def enum(self, decl: ast.Enum) -> None:
        sym = self.sym
        sym._bind(decl.name, "enum", decl, decl.span)
        for value in decl.values:
            sym._bind(value, "enum value", decl, decl.span)
            sym.owner[value] = decl.name
            title = dict(decl.titles).get(value, value)  # the words or glyph it carries
            sym.rows[value] = {"id": value, "title": title, "table": decl.name}

    @on(ast.Record)
    def record(self, decl: ast.Record) -> None:
        self.sym._bind(decl.name, "record", decl, decl.span)

    @on(ast.Table)
    def table(self, decl: ast.Table) -> None:
        sym = self.sym
        sym._bind(decl.name, "table", decl, decl.span)
        ids = []
        for row in decl.rows:
            sym._bind(row.name, "row", row, row.span)
            sym.owner[row.name] = decl.name
            ids += [row.name] * (row.copies or 1)
        sym.table_rows[decl.name] = ids

    @on(ast.Map)
    def map(self, decl: ast.Map) -> None:
        sym = self.sym
        sym._bind(decl.name, "map", decl, decl.span)
        nodes = []
        for item in decl.items:
            if isinstance(item, ast.MapNode):
                sym._bind(item.name, "node", item, item.span)
                sym.owner[item.name] = decl.name
                sym.rows[item.name] = {
                    "id": item.name,
                    "title": item.title or item.name,
                    "table": decl.name,
                }
                nodes.append(item.name)
                sym.adjacency[item.name] = []
        sym.map_nodes[decl.name] = nodes
        for item in decl.items:
            if isinstance(item, ast.MapEdge):
                for other in item.others:
                    for a, b in ((item.a, other), (other, item.a)):
                        if a not in sym.adjacency:
                            sym.diagnostics.append(
                                diag(
                                    "K212",
                                    f"{a!r} is not a node of map {decl.name!r}",
                                    item.span,
                                    hint=did_you_mean(a, nodes),
                                )
                            )
                            break
                        if b in sym.adjacency and b not in sym.adjacency[a]:
                            sym.adjacency[a].append(b)

    @on(ast.Param)
    def param(self, decl: ast.Param) -> None:
        self.sym._bind(decl.name, "param", decl, decl.span)

    @on(ast.Var, ast.Zone, ast.Pool)
    def state(self, decl: ast.Var | ast.Zone | ast.Pool) -> None:
        sym = self.sym
        sym._bind(decl.name, decl.__class__.__name__.lower(), decl, decl.span)
        sym._slots[decl.name] = len(sym.state_decls)
        sym.state_decls.append(decl)

    @on(ast.Fn)
    def fn(self, decl: ast.Fn) -> None:
        self.sym._bind(decl.name, decl.kind, decl, decl.span)

    @on(ast.Proc)
    def proc(self, decl: ast.Proc) -> None:
        self.sym._bind(decl.name, decl.kind, decl, decl.span)

    @on(ast.Moment)
    def moment(self, decl: ast.Moment) -> None:
        self.sym._bind(decl.name, "moment", decl, decl.span)

    @on(
        ast.Title,
        ast.Source,
        ast.Players,
        ast.Bound,
        ast.View,
        ast.Setup,
        ast.Round,
        ast.Outcome,
        ast.Invariant,
        ast.Note,
    )
    def unnamed(self, decl) -> None:
        """These bind no name of the ruleset's namespace."""


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def face(value: int, sides: int) -> int:
    """A table's `0`/`00` stands for the die's highest face (d10 `0` = 10, d100 `00` = 100)."""
    return sides if value == 0 and sides in (10, 100) else value
