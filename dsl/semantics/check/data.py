"""Checks of the declarative parts: structure, parameters, tables and their rows, keys.

Also evaluates the constants the compiler needs (parameter values, row fields), reporting
any that are not constant.
"""

from __future__ import annotations

from dsl.errors import Diagnostic, Span, diag, did_you_mean
from dsl.semantics.builtins import BUILTINS
from dsl.semantics.symbols import Symbols, face
from dsl.syntax import ast
from dsl.syntax.visitor import Visitor, on

BASIC_TYPES = {"int", "bool", "text", "player", *ast.TAGGED_KINDS}


class _NotConstant(Exception):
    def __init__(self, span: Span):
        self.span = span


def _constant(expr, symbols: Symbols):
    """Evaluate a constant expression (literals, enum values, rows, nodes, parameters, lists,
    effects with constant arguments)."""
    return _Constant(symbols).visit(expr)


class _Constant(Visitor):
    """The value of a constant expression; `_NotConstant` for anything else."""

    domain = ast.EXPRESSIONS

    def __init__(self, symbols: Symbols):
        self.sym = symbols

    @on(ast.IntLit, ast.StrLit, ast.BoolLit)
    def literal(self, e: ast.IntLit | ast.StrLit | ast.BoolLit):
        return e.value

    @on(ast.NoneLit)
    def none(self, e: ast.NoneLit):
        return None

    @on(ast.NameRef)
    def name(self, e: ast.NameRef):
        symbols = self.sym
        if not symbols.is_constant(e.name):
            raise _NotConstant(e.span)
        if symbols.kind[e.name] == "param" and e.name not in symbols.params:
            raise _NotConstant(e.span)
        return symbols.constant(e.name)

    @on(ast.ListLit)
    def list_(self, e: ast.ListLit):
        return [self.visit(i) for i in e.items]

    @on(ast.UnaryOp)
    def unary(self, e: ast.UnaryOp):
        if e.op == "-":
            value = self.visit(e.operand)
            try:
                return -value
            except TypeError:
                pass  # the type checker names the mistake; here it is just not a constant
        raise _NotConstant(e.span)

    @on(ast.BinOp)
    def binop(self, e: ast.BinOp):
        if e.op in _ARITHMETIC:
            a, b = self.visit(e.left), self.visit(e.right)
            try:
                return _ARITHMETIC[e.op](a, b)
            except (TypeError, ZeroDivisionError):
                pass  # as above
        raise _NotConstant(e.span)

    @on(ast.CallExpr)
    def call(self, e: ast.CallExpr):
        """An effect or a condition with constant arguments is a constant: its tag, then its
        arguments."""
        kind = self.sym.kind.get(e.name)
        if kind is None and not e.base and e.name not in BUILTINS:
            return None  # the type checker names the unknown effect (K201)
        if e.base or kind not in (*ast.TAGGED_KINDS, "enum value"):
            raise _NotConstant(e.span)
        return [e.name] + [self.visit(a) for a in e.args if not isinstance(a, ast.KwArg)]

    @on(
        ast.Comprehension,
        ast.IfExpr,
        ast.FieldGet,
        ast.IndexGet,
        ast.RollDice,
        ast.RollTable,
    )
    def computed(self, e):
        """Not constants: they are computed while the game runs."""
        raise _NotConstant(e.span)


_ARITHMETIC = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
}


def evaluate_constants(program, symbols: Symbols) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for param in program.get(ast.Param):
        try:
            symbols.params[param.name] = _constant(param.value, symbols)
        except _NotConstant as err:
            out.append(
                diag(
                    "K223",
                    f"the value of parameter {param.name!r} must be a constant",
                    err.span,
                    hint="use literals, enum values, rows, effects or other parameters",
                )
            )
            symbols.params[param.name] = None

    def evaluate(expr):
        try:
            return _constant(expr, symbols)
        except _NotConstant as err:
            out.append(diag("K223", "a table cell must be a constant", err.span))
            return None

    symbols.fill_rows(evaluate)
    return out


def known_type(name: str, symbols: Symbols) -> bool:
    return name in BASIC_TYPES or symbols.kind.get(name) in ("enum", "record", "table", "map")


def check_data(program, symbols: Symbols) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    out.extend(_contradictions(program))
    out.extend(_corrections(program))
    if program.kind == "library":
        pass  # a library lends declarations to rulesets; it need not be playable alone
    elif program.one(ast.Players) is None:
        out.append(
            diag(
                "K215",
                "the ruleset does not say how many players it takes",
                _header(program),
                hint="add `players 2` or `players 2..4`",
            )
        )
    runs = program.one(ast.Round) is not None or program.one(ast.Setup) is not None
    if program.kind != "library" and not runs:
        out.append(
            diag(
                "K215",
                "the ruleset has neither `setup` nor `round`: nothing would run",
                _header(program),
                hint="add `round max N { ... }`",
            )
        )
    players = program.one(ast.Players)
    if players is not None and not 1 <= players.lo <= players.hi:
        out.append(
            diag("K224", f"the player count {players.lo}..{players.hi} is empty", players.span)
        )
    for table in program.get(ast.Table):
        out += _check_table(table, program, symbols)
    for decl in program.decls.values():
        for key in (
            getattr(decl, "keys", ()) if isinstance(decl, (ast.Var, ast.Zone, ast.Pool)) else ()
        ):
            if isinstance(key, ast.KeyRange):
                if key.lo > key.hi:
                    out.append(diag("K225", f"the key range {key.lo}..{key.hi} is empty", key.span))
            elif _carries(symbols, key.name):
                out.append(_carrying_key(key.name, key.span))
            elif key.name != "player" and symbols.kind.get(key.name) not in (
                "enum",
                "map",
                "table",
            ):
                out.append(
                    diag(
                        "K202",
                        f"{key.name!r} cannot be a key: a key is `player`, an enum, "
                        "a map, a table or a range like 0..2",
                        key.span,
                        hint=did_you_mean(
                            key.name,
                            [n for n, k in symbols.kind.items() if k in ("enum", "map", "table")],
                        ),
                    )
                )
        if isinstance(decl, (ast.Var, ast.Zone, ast.Pool)) and decl.visibility == "owner":
            first = decl.keys[0] if decl.keys else None
            if not (isinstance(first, ast.KeyName) and first.name == "player"):
                out.append(
                    diag(
                        "K216",
                        f"{decl.name!r} is visible to its owner, so its first key must be `player`",
                        decl.span,
                        hint=f"for example `{decl.name}[player"
                        + "".join(
                            ", " + _key_text(k)
                            for k in decl.keys
                            if not (isinstance(k, ast.KeyName) and k.name == "player")
                        )
                        + "]`",
                    )
                )
        if isinstance(decl, (ast.Var, ast.Pool)) and decl.visibility in ("top", "backs"):
            shown = "a top to show" if decl.visibility == "top" else "entries lying face down"
            out.append(
                diag(
                    "K216",
                    f"{decl.name!r}: only a zone has {shown} (`visible {decl.visibility}`)",
                    decl.span,
                    hint="make it a zone (a pile or a deck), or choose public, owner or hidden",
                )
            )
        if isinstance(decl, ast.Zone) and decl.kind == "row" and not decl.size:
            out.append(diag("K226", "a row zone needs a size: `row 6 of ...`", decl.span))
        if isinstance(decl, ast.Pool) and _carries(symbols, decl.enum):
            out.append(_carrying_key(decl.enum, decl.span))
        if isinstance(decl, ast.Pool) and symbols.kind.get(decl.enum) != "enum":
            out.append(
                diag(
                    "K202",
                    f"a pool counts the values of an enum; {decl.enum!r} is not one",
                    decl.span,
                )
            )
    return out


def _check_table(table: ast.Table, program, symbols: Symbols) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    record = program.decls.get(table.record)
    if not isinstance(record, ast.Record):
        out.append(
            diag(
                "K202",
                f"unknown record type {table.record!r} for table {table.name!r}",
                table.span,
                hint=did_you_mean(table.record, [d.name for d in program.get(ast.Record)]),
            )
        )
        return out
    fields = {f.name: f for f in record.fields}
    count, sides = (int(x) for x in table.dice.split("d")) if table.dice else (0, 0)
    for row in table.rows:
        positional = [a for a in row.args if not isinstance(a, ast.KwArg)]
        if len(positional) > len(fields):
            out.append(
                diag(
                    "K227",
                    f"row {row.name!r} has {len(positional)} values but "
                    f"{record.name!r} has {len(fields)} fields",
                    row.span,
                )
            )
        for arg in row.args:
            if isinstance(arg, ast.KwArg) and arg.name not in fields:
                out.append(
                    diag(
                        "K205",
                        f"{record.name!r} has no field {arg.name!r}",
                        arg.span,
                        hint=did_you_mean(arg.name, fields),
                    )
                )
        if not table.dice and row.lo is not None:
            out.append(
                diag(
                    "K211",
                    f"row {row.name!r} has a roll range but table {table.name!r} is not rolled",
                    row.span,
                    hint="add `roll 1d100` after the record name",
                )
            )
        if table.dice:
            if row.lo is None or row.hi is None:
                out.append(
                    diag(
                        "K211",
                        f"row {row.name!r} of rolled table {table.name!r} needs a roll range",
                        row.span,
                        hint=f"a {table.dice} gives {count} to {count * sides}: write for "
                        f"example `{count}-{count + 1}` before the row's name",
                    )
                )
            else:
                lo, hi = face(row.lo, sides), face(row.hi, sides)
                if not count <= lo <= hi <= count * sides:
                    out.append(
                        diag(
                            "K211",
                            f"the range {row.lo}-{row.hi} of row {row.name!r} "
                            f"does not fit a {table.dice} roll",
                            row.span,
                            hint=f"a {table.dice} gives {count} to {count * sides}",
                        )
                    )
    explained = any(n.cite == table.cite for n in program.get(ast.Note)) and table.cite
    if sides and not out and not explained:
        # a gap the ruleset explains with an interpretation of the table's section is known
        out += _gaps(table, count, sides)
    return out


def _gaps(table: ast.Table, count: int, sides: int) -> list[Diagnostic]:
    """Results of a table's roll that no row covers, or that two rows cover (warnings)."""
    covered: dict[int, list[str]] = {}
    for row in table.rows:
        if row.lo is not None and row.hi is not None:
            for value in range(face(row.lo, sides), face(row.hi, sides) + 1):
                covered.setdefault(value, []).append(row.name)
    out = []
    missing = [v for v in range(count, count * sides + 1) if v not in covered]
    if missing:
        out.append(
            diag(
                "K240",
                f"no row of table {table.name!r} covers the roll(s) {_ranges(missing)}",
                table.span,
                severity="warning",
                hint="rolling it gives none: add the row, or declare what happens then with an "
                "interpretation citing the table's section",
            )
        )
    for value, rows in sorted(covered.items()):
        if len(rows) > 1:
            out.append(
                diag(
                    "K241",
                    f"rows {' and '.join(map(repr, rows))} of table {table.name!r} both cover "
                    f"the roll {value}",
                    table.span,
                    severity="warning",
                )
            )
            break
    return out


def _contradictions(program) -> list[Diagnostic]:
    """Every place where the ruleset says its source contradicts itself (K242)."""
    out = []
    for note in program.get(ast.Note):
        if note.kind != "contradiction":
            continue
        places = [c for c in (note.cite, *note.also) if c is not None]
        where = ", ".join(f"§{c}" for c in places) or "the source"
        out.append(
            diag(
                "K242",
                f"the source contradicts itself ({where}): {note.name}",
                note.span,
                severity="warning",
                hint="the note says which reading the ruleset plays; a variant can pick another",
            )
        )
    return out


def _corrections(program) -> list[Diagnostic]:
    """An erratum says what the book should say (`should`), and only an erratum does (K249)."""
    out = []
    for note in program.get(ast.Note):
        if note.kind == "erratum" and note.fix is None:
            message = f"erratum {note.name} does not say what the book should say"
            hint = 'end it with `should "..."` (and `printed "..."`: the words it corrects)'
        elif note.kind != "erratum" and note.fix is not None:
            message = f"{note.kind} {note.name} corrects the book: only an erratum does"
            hint = f"write `erratum {note.name}` if the book is wrong here"
        else:
            continue
        out.append(diag("K249", message, note.span, hint=hint))
    return out


def _ranges(values: list[int]) -> str:
    """[3, 4, 5, 9] -> "3-5, 9"."""
    parts = []
    start = prev = values[0]
    for value in values[1:] + [-1]:
        if value != prev + 1:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
            start = value
        prev = value
    return ", ".join(parts)


def _header(program) -> Span:
    return program.header if program.header is not None else Span(program.path, 1, 1, 1, 1)


def _key_text(key) -> str:
    return key.name if isinstance(key, ast.KeyName) else f"{key.lo}..{key.hi}"


def _carries(symbols, name: str) -> bool:
    """An enum some of whose values carry values (a sum type)."""
    decl = symbols.decls.get(name)
    return isinstance(decl, ast.Enum) and bool(decl.payloads)


def _carrying_key(name: str, span) -> Diagnostic:
    return diag(
        "K202",
        f"{name!r} cannot be a key or a pool's kinds: some of its values carry values, so "
        "they cannot be listed",
        span,
    )
