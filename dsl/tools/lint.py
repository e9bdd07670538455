"""Static findings about a ruleset and its rulebook text (`knapper lint`).

Takes a resolved `Program` (and the checker's diagnostics) plus the rulebook text it cites,
read by `dsl.tools.sources`; returns `Diagnostic`s with K8xx codes, each with the place in the
ruleset and the rulebook section (`cite`). Severity `error` for what is certainly wrong in
the ruleset, `warning` for what a rules editor should look at, `note` for listings (every
deviation and interpretation). Nothing here knows any game.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import attrs

from dsl.errors import Diagnostic, Note, Span, diag
from dsl.semantics.resolve import Program
from dsl.syntax import ast
from dsl.syntax.parse import parse
from dsl.syntax.visitor import Visitor, on
from dsl.tools.lint_costs import cost_findings
from dsl.tools.sources import CrossRef, SourceText, normalise, split_cite
from dsl.tools.text_checks import text_findings

ROOTS = (ast.Setup, ast.Round, ast.Outcome, ast.Invariant)
# checker warnings that lint lists under its own codes
RELISTED = {"K240": "K807", "K241": "K808", "K242": "K805"}


@attrs.frozen
class Reconstructed:
    """A table that carries the `reconstructed` marker or some of whose rows do."""

    table: str
    rows: int  # rows in the table
    marked: tuple[str, ...]  # the rows marked, in table order
    cite: str | None
    reason: str | None = None  # the table's own reason, when it is marked

    def to_json(self) -> dict:
        return {
            "table": self.table,
            "rows": self.rows,
            "marked": list(self.marked),
            "reason": self.reason,
        }


@attrs.frozen
class ReconstructedMap:
    """A map that carries the `reconstructed` marker: all its places and connections."""

    map: str
    places: int
    connections: int  # pairs of neighbouring places
    reason: str | None
    cite: str | None

    def to_json(self) -> dict:
        return {
            "map": self.map,
            "places": self.places,
            "connections": self.connections,
            "reason": self.reason,
        }


@attrs.frozen
class LintResult:
    diagnostics: list[Diagnostic]
    notices: list[str]  # what could not be checked, one line each
    sources: dict[str, str]
    # per table or map, in the order declared
    reconstructed: tuple[Reconstructed | ReconstructedMap, ...] = ()
    text: SourceText | None = None  # the book as read, for the errata view's quotes


def lint(
    program: Program, checked: list[Diagnostic], text: SourceText | None, notices: list[str]
) -> LintResult:
    out: list[Diagnostic] = []
    out += _checker(program, checked)
    if text is not None:
        out += _citations(program, text)
        out += _dangling(program, text)
        out += _mismatched(program, text)
        out += text_findings(program, text)
    out += _chain_conflicts(program)
    out += _unreachable(program)
    out += _unused(program)
    out += _notes(program, text)
    out += _reconstructed(program)
    out += cost_findings(program)
    out = _quoted_contradictions(out, program, text)
    unique = {(d.code, d.span, d.message): d for d in out}
    return LintResult(
        sorted(unique.values(), key=_order),
        notices,
        program.sources,
        reconstructed_tables(program),
        text,
    )


def _order(d: Diagnostic) -> tuple:
    return (d.cite or "~", *d.sort_key())


# ------------------------------------------------------------------ walking the tree
def cites(program: Program) -> Iterator[tuple[str, Span]]:
    """Every citation in the program with the place that makes it."""
    if program.cite and program.header is not None:
        yield program.cite, program.header
    for decl in program.decls.values():
        for node in ast.walk(decl):
            cite = getattr(node, "cite", None)
            if isinstance(cite, str):
                yield cite, node.span
            for also in getattr(node, "also", ()) if isinstance(node, ast.Note) else ():
                yield also, node.span


# ------------------------------------------------------------------ the checker's findings
def _checker(program: Program, checked: list[Diagnostic]) -> list[Diagnostic]:
    out = []
    for d in checked:
        code = RELISTED.get(d.code)
        if code is None:
            out.append(d)  # errors (used but never declared, ...) and other warnings as they are
            continue
        cite = _cite_at(program, d.span)
        out.append(attrs.evolve(d, code=code, cite=d.cite or cite))
    out += _explained_gaps(program)
    return out


def _cite_at(program: Program, span: Span) -> str | None:
    for decl in program.decls.values():
        if getattr(decl, "span", None) == span:
            return getattr(decl, "cite", None)
    return None


def _explained_gaps(program: Program) -> list[Diagnostic]:
    """Dice-table gaps the checker accepts because an interpretation explains them: still
    a finding about the book, listed with the note that settles it."""
    from dsl.semantics.check.data import _gaps  # the checker's own gap finder

    out = []
    notes = [n for n in program.get(ast.Note) if n.cite is not None]
    for table in program.get(ast.Table):
        if not table.dice or table.cite is None:
            continue
        settled = [n for n in notes if n.cite == table.cite]
        if not settled:
            continue
        count, sides = (int(x) for x in table.dice.split("d"))
        for found in _gaps(table, count, sides):
            names = ", ".join(f"{n.kind} {n.name}" for n in settled)
            out.append(
                attrs.evolve(
                    found,
                    code=RELISTED[found.code],
                    message=f"{found.message} (the ruleset settles it: {names})",
                    cite=table.cite,
                    notes=tuple(Note(n.span, f"{n.kind} {n.name}") for n in settled),
                    hint="the book's table has a hole here; check the printed table",
                )
            )
    return out


# ------------------------------------------------------------------ citations
def _citations(program: Program, text: SourceText) -> list[Diagnostic]:
    out = []
    for cite, span in cites(program):
        missing = [p for p in split_cite(cite) if text.find(p) is None]
        if missing:
            close = _closest(text, missing[0])
            out.append(
                diag(
                    "K802",
                    f"§{cite} names no section of {text.name}",
                    span,
                    cite=cite,
                    hint=f"did you mean §{close}?" if close else f"see the sections of {text.name}",
                )
            )
    return out


def _closest(text: SourceText, cite: str) -> str | None:
    import difflib

    keys = {normalise(k): k for k in text.sections}
    close = difflib.get_close_matches(normalise(cite), list(keys), n=1, cutoff=0.6)
    return keys[close[0]] if close else None


def _dangling(program: Program, text: SourceText) -> list[Diagnostic]:
    out = []
    seen: dict[str, list[CrossRef]] = {}
    for ref in text.refs:
        if text.find(ref.target) is None:
            seen.setdefault(ref.target, []).append(ref)
    for target, refs in seen.items():
        lines = [ref.line for ref in refs]
        at = ", ".join(map(str, lines))
        places = tuple(
            Note(text.span_at(ref.offset), f"refers to {target} here") for ref in refs[1:]
        )
        readings = readings_of(program, target)
        close = _closest(text, target)
        guess = f"did you mean §{close}? (a heading renamed, or a name spelled two ways)"
        out.append(
            diag(
                "K803",
                f"{text.name} refers to section {target}, which it does not contain "
                f"(line{'s' if len(lines) > 1 else ''} {at})",
                text.span_at(refs[0].offset),
                severity="warning",
                cite=target,
                notes=places + tuple(Note(n.span, _reading(n)) for n in readings),
                hint=_fix_hint(readings)
                or (guess if close else None)
                or "a section missing from this edition, or a misprinted reference",
            )
        )
    return out


def readings_of(program: Program, target: str, words: list[str] | None = None) -> list[ast.Note]:
    """The notes that speak of the reference `target`: an erratum whose corrected words
    (`printed`) hold it, or a note whose text names it and, when `words` are given, one of
    them (the words before the reference)."""
    named = re.compile(rf"(?<![\w.]){re.escape(target)}(?!\w|\.\d)")
    out = []
    for note in program.get(ast.Note):
        if note.printed is not None and named.search(note.printed):
            out.append(note)
        elif named.search(note.text) and (
            words is None or {_stem(w) for w in words} & {_stem(w) for w in _words(note.text)}
        ):
            out.append(note)
    return out


def _reading(note: ast.Note) -> str:
    fix = f"; the book should say {note.fix!r}" if note.fix is not None else ""
    return f"the ruleset's {note.kind} {note.name}{fix}"


def _fix_hint(readings: list[ast.Note]) -> str | None:
    """The fix a hint suggests: an erratum's, or the reading the ruleset plays."""
    for note in readings:
        if note.fix is not None:
            printed = f"{note.printed!r} " if note.printed is not None else ""
            return f"read {printed}as {note.fix!r} (erratum {note.name})"
    if readings:
        return f"the ruleset reads it so: {readings[0].kind} {readings[0].name}"
    return None


# the words that say nothing about what a section is about
_STOP = set(
    "with that this from have your their they them then when where which while will would "
    "into onto each other only also just more most less than does done make made take takes "
    "like such same some many much very been were what whose there these those about after "
    "before being both either every shall should could must may might above below back down "
    "upon including regardless whether game games phase phases performed standard rule rules "
    "turn turns player players section part chapter page".split()
)


def _words(text: str) -> list[str]:
    found = re.findall(r"[A-Za-z\u00c0-\u024f]+(?:-[A-Za-z\u00c0-\u024f]+)*", text)
    return [w.lower().replace("-", "") for w in found]


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:5]


def context_words(context: str) -> list[str]:
    return [w for w in _words(context) if len(w) >= 4 and w not in _STOP][-4:]


def _mismatched(program: Program, text: SourceText) -> list[Diagnostic]:
    """References whose clause shares no word with the section they cite: a heuristic.
    (A reference by a heading's name says what it is about in its own words: not checked.)"""
    if text.style == "upper":
        return []
    out = []
    for ref in text.refs:
        section = text.find(ref.target)
        words = context_words(ref.context)
        if section is None or not words:
            continue
        body = {_stem(w) for w in _words(section.title + " " + text.body(section.id))}
        if any(_stem(w) in body for w in words):
            continue
        readings = readings_of(program, ref.target, words)
        out.append(
            diag(
                "K804",
                f"{text.name} line {ref.line}: {' '.join(words)!r} ({ref.target}) — "
                f"section {ref.target} ({section.title[:40]}) never mentions it",
                text.span_at(ref.offset),
                severity="warning",
                cite=ref.target,
                notes=tuple(Note(n.span, _reading(n)) for n in readings),
                hint=_fix_hint(readings)
                or "a reference to the wrong section, perhaps; look the words up in the book",
            )
        )
    return out


# ------------------------------------------------------------------ overlays in a chain
def _chain_conflicts(program: Program) -> list[Diagnostic]:
    """A parameter or a table row that two files of a variant chain set differently: the
    nearer file silently wins."""
    setters: dict[str, list[tuple[object, Span, str | None, str]]] = {}
    for path in reversed(program.lineage):
        file_text = program.sources.get(path) or _read(path)
        if file_text is None:
            continue
        try:
            file = parse(file_text, _shown(path, program))
        except Exception:  # noqa: BLE001 - a file that does not parse was reported already
            continue
        for item in file.items:
            for key, value, span, cite in _sets(item):
                setters.setdefault(key, []).append((value, span, cite, file.name))
    out = []
    for key, found in setters.items():
        overlays = found[1:] if len(found) > 2 else found
        values = {repr(v) for v, *_ in overlays}
        if len(overlays) < 2 or len(values) < 2:
            continue
        (_v0, span0, _c0, name0), (_v1, span1, cite1, name1) = overlays[-2], overlays[-1]
        out.append(
            diag(
                "K806",
                f"{key!r} is set differently by {name0!r} and {name1!r}; {name1!r} wins",
                span1,
                severity="warning",
                cite=cite1,
                notes=(Note(span0, f"set here, in {name0!r}"),),
                hint="if both readings are in the book, say so with a contradiction note",
            )
        )
    return out


def _shown(path: str, program: Program) -> str:
    for name in program.sources:
        if Path(name).resolve() == Path(path):
            return name
    return path


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return None


def _sets(item) -> Iterator[tuple[str, object, Span, str | None]]:
    """The parameters and table rows an item of a file sets: (key, value, span, cite)."""
    return _Setters().visit(item)


class _Setters(Visitor):
    domain = ast.DECLARATIONS + ast.OVERLAYS

    @on(ast.Param, ast.SetParam)
    def param(self, item: ast.Param | ast.SetParam):
        yield item.name, item.value, item.span, item.cite

    @on(ast.Replace, ast.AddDecl)
    def declaration(self, item: ast.Replace | ast.AddDecl):
        yield from self.visit(item.decl)

    @on(ast.Table)
    def table(self, item: ast.Table):
        for row in item.rows:
            yield f"{item.name}.{row.name}", (row.lo, row.hi, row.args), row.span, row.cite

    @on(ast.AddRow)
    def add_row(self, item: ast.AddRow):
        row = item.row
        yield f"{item.table}.{row.name}", (row.lo, row.hi, row.args), item.span, row.cite

    @on(
        ast.Import,
        ast.Title,
        ast.Source,
        ast.Players,
        ast.Bound,
        ast.View,
        ast.Enum,
        ast.Record,
        ast.Map,
        ast.Var,
        ast.Zone,
        ast.Pool,
        ast.Fn,
        ast.Proc,
        ast.Setup,
        ast.Round,
        ast.Outcome,
        ast.Invariant,
        ast.Note,
        ast.Moment,
        ast.RemoveDecl,
        ast.RemoveRow,
    )
    def nothing(self, item):
        """Sets no parameter and no row."""
        return iter(())


# ------------------------------------------------------------------ what never runs
def _calls(node) -> set[str]:
    names = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.CallStmt, ast.CallExpr)):
            names.add(n.name)
        elif isinstance(n, ast.NameRef):
            names.add(n.name)
    return names


def reachable(program: Program) -> set[str]:
    """The procedures and functions that setup, the round, the score, an invariant, a
    standing rule (which runs by itself), a standing option (which the engine offers) or a
    window (which its moment opens) can reach, directly or through one another (and through
    table cells and parameters); and those the base's rules an overlay replaced reached."""
    callable_ = {d.name: d for d in program.decls.values() if isinstance(d, (ast.Proc, ast.Fn))}
    todo = set()
    for decl in program.replaced.values():  # what the base used is left behind, not unused
        todo |= _calls(decl)
    for decl in program.decls.values():
        if isinstance(decl, (*ROOTS, ast.Table, ast.Param, ast.Var, ast.Pool)):
            todo |= _calls(decl)
        elif isinstance(decl, ast.Proc) and decl.kind in ("whenever", "option", "window"):
            todo.add(decl.name)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in callable_:
            continue
        seen.add(name)
        todo |= _calls(callable_[name]) - seen
    return seen


def _unreachable(program: Program) -> list[Diagnostic]:
    reached = reachable(program)
    out = []
    for decl in program.decls.values():
        if isinstance(decl, (ast.Proc, ast.Fn)) and decl.name not in reached:
            what = decl.kind if isinstance(decl, ast.Proc) else "fn"
            out.append(
                diag(
                    "K810" if isinstance(decl, ast.Proc) else "K811",
                    f"{what} {decl.name!r} can never run: nothing reachable from setup, the "
                    "round, the score or an invariant calls it",
                    decl.span,
                    severity="warning",
                    cite=decl.cite,
                    hint="call it where the book says it happens, or remove it",
                )
            )
    return out


# ------------------------------------------------------------------ what is never used
def _unused(program: Program) -> list[Diagnostic]:
    reached = reachable(program)
    live: list = list(program.replaced.values())
    for decl in program.decls.values():
        if isinstance(decl, (ast.Proc, ast.Fn)) and decl.name not in reached:
            continue
        live.append(decl)
    named: set[str] = set()  # every name mentioned as a value
    read: set[str] = set()  # state read by some expression
    enumerated: set[str] = set()  # enums, tables and maps used as a whole
    for decl in live:
        for n in ast.walk(decl):
            if isinstance(n, ast.NameRef):
                named.add(n.name)
                read.add(n.name)
            elif isinstance(n, ast.CallExpr):
                named.add(n.name)
                for a in n.args:
                    if isinstance(a, ast.NameRef) and n.name in ("values", "rows", "nodes"):
                        enumerated.add(a.name)
            elif isinstance(n, ast.RollTable):
                enumerated.add(n.table)
            elif isinstance(n, ast.KeyName):
                enumerated.add(n.name)
            elif isinstance(n, ast.Pool):
                enumerated.add(n.enum)
            elif isinstance(n, ast.TypeName):
                named.add(n.name)
            elif isinstance(n, (ast.Move, ast.Draw)):
                read.add(n.source.name)  # taking from a zone looks into it
            elif isinstance(n, ast.Table):
                named.add(n.record)
    out = []

    def unused(code: str, what: str, name: str, span: Span, cite, hint: str) -> None:
        out.append(diag(code, f"{what} {name!r} is {hint}", span, severity="warning", cite=cite))

    for decl in program.decls.values():
        if isinstance(decl, ast.Enum) and decl.name not in enumerated:
            for value in decl.values:
                if value not in named:
                    unused(
                        "K812",
                        f"value of enum {decl.name!r}",
                        value,
                        decl.span,
                        decl.cite,
                        "declared but never named",
                    )
        elif isinstance(decl, ast.Table):
            rows = [r.name for r in decl.rows]
            if decl.name not in enumerated and not any(r in named for r in rows):
                unused(
                    "K813",
                    "table",
                    decl.name,
                    decl.span,
                    decl.cite,
                    "declared but never read (no rows(), roll or row named)",
                )
            elif decl.name not in enumerated and decl.name not in named:
                for row in decl.rows:
                    if row.name not in named:
                        unused(
                            "K814",
                            f"row of table {decl.name!r}",
                            row.name,
                            row.span,
                            row.cite or decl.cite,
                            "declared but never named",
                        )
        elif isinstance(decl, (ast.Var, ast.Zone, ast.Pool)) and decl.name not in read:
            unused(
                "K815",
                type(decl).__name__.lower(),
                decl.name,
                decl.span,
                decl.cite,
                "never read: what is written to it changes nothing",
            )
        elif isinstance(decl, ast.Param) and decl.name not in named:
            unused("K816", "parameter", decl.name, decl.span, decl.cite, "declared but never used")
        elif isinstance(decl, ast.Record) and decl.name not in named:
            unused("K817", decl.keyword, decl.name, decl.span, decl.cite, "declared but never used")
        elif isinstance(decl, ast.Map) and decl.name not in enumerated and decl.name not in named:
            nodes = [i.name for i in decl.items if isinstance(i, ast.MapNode)]
            if not any(n in named for n in nodes):
                unused("K817", "map", decl.name, decl.span, decl.cite, "declared but never used")
    return out


# ------------------------------------------------------------------ authored data
def reconstructed_tables(program: Program) -> tuple[Reconstructed | ReconstructedMap, ...]:
    """The tables with rows marked `reconstructed` and the maps marked so: data the book
    does not print."""
    out: list[Reconstructed | ReconstructedMap] = []
    for decl in program.get((ast.Table, ast.Map)):
        if isinstance(decl, ast.Map):
            if decl.reconstructed:
                places, pairs = _graph(decl)
                out.append(ReconstructedMap(decl.name, places, pairs, decl.reason, decl.cite))
            continue
        marked = tuple(r.name for r in ast.reconstructed_rows(decl))
        if marked:
            out.append(Reconstructed(decl.name, len(decl.rows), marked, decl.cite, decl.reason))
    return tuple(out)


def _graph(m: ast.Map) -> tuple[int, int]:
    """How many places a map has and how many pairs of them are neighbours."""
    places = {i.name for i in m.items if isinstance(i, ast.MapNode)}
    pairs = set()
    for edge in (i for i in m.items if isinstance(i, ast.MapEdge)):
        for other in edge.others:
            places |= {edge.a, other}
            pairs.add(frozenset((edge.a, other)))
    return len(places), len(pairs)


def _reconstructed(program: Program) -> list[Diagnostic]:
    """One note per table with reconstructed rows: how many, and which when they are few;
    one per reconstructed map: how many places and connections."""
    decls = {d.name: d for d in program.get((ast.Table, ast.Map))}
    out = []
    for found in reconstructed_tables(program):
        if isinstance(found, ReconstructedMap):
            name = found.map
            message = (
                f"map {name}, {_count(found.places, 'place')} and "
                f"{_count(found.connections, 'connection')}"
            )
            hint = (
                "the book does not print this board; a holder of the printed board can correct it"
            )
        else:
            name = found.table
            count = len(found.marked)
            which = f" ({', '.join(found.marked)})" if count < found.rows and count <= 5 else ""
            message = f"table {name}, {count} of {_count(found.rows, 'row')}{which}"
            hint = (
                "the book does not print these values; a holder of the printed components "
                "can correct them"
            )
            if found.reason:
                hint = f"{found.reason.rstrip('.')}; {hint}"
        out.append(
            diag(
                "K832",
                f"reconstructed data: {message}",
                decls[name].span,
                severity="note",
                cite=found.cite,
                hint=hint,
            )
        )
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


# ------------------------------------------------------------------ where the rules depart
_NOTE_CODES = {"deviation": "K830", "interpretation": "K831", "erratum": "K809"}


def _notes(program: Program, text: SourceText | None) -> list[Diagnostic]:
    """Every erratum (a finding about the book: K809), deviation and interpretation, each
    with the line of the book it is about when the text is at hand (contradictions are
    K805 findings)."""
    out = []
    for note in program.get(ast.Note):
        if note.kind not in _NOTE_CODES:
            continue
        places = [c for c in (note.cite, *note.also) if c]
        where = ", ".join(f"§{c}" for c in places) or "no section"
        fix = None
        if note.fix is not None:
            printed = f"{note.printed!r}" if note.printed is not None else "it"
            fix = f"the book should say {note.fix!r} where it prints {printed}"
        out.append(
            diag(
                _NOTE_CODES[note.kind],
                f"{note.kind} {note.name} ({where}): {note.text}",
                note.span,
                severity="warning" if note.kind == "erratum" else "note",
                cite=note.cite,
                notes=_book_places(text, [note.cite] if note.cite else [], note),
                hint=fix,
            )
        )
    return out


def _book_places(text: SourceText | None, cites: list[str], note: ast.Note) -> tuple[Note, ...]:
    """The line of each cited section that `note` is about, as notes into the book."""
    if text is None:
        return ()
    out = []
    for cite in cites:
        at = text.find_offset(cite, note.text, note.printed)
        if at is not None:
            out.append(Note(text.span_at(at), f"the passage of §{cite}"))
    return tuple(out)


def _quoted_contradictions(
    found: list[Diagnostic], program: Program, text: SourceText | None
) -> list[Diagnostic]:
    """Each contradiction (K805) with the passage of every section it cites, so that the
    finding says what disagrees without opening the ruleset."""
    notes = {n.span: n for n in program.get(ast.Note) if n.kind == "contradiction"}
    out = []
    for d in found:
        note = notes.get(d.span)
        if d.code == "K805" and note is not None:
            cites = [c for c in (note.cite, *note.also) if c]
            d = attrs.evolve(d, notes=d.notes + _book_places(text, cites, note))
        out.append(d)
    return out
