"""The data sections of the generated rulebook (dsl/tools/rulebook.py): parameters, derived
values, components (enumerations, records, tables, maps), the state and who sees it,
invariants, and the notes where the executable rules depart from or read the book.

Each function takes the resolved `Program` and a `Page` and writes its section; none of
them knows any game: every word comes from the ruleset's names, values and comments.
"""

from __future__ import annotations

from dsl.semantics.resolve import Program
from dsl.syntax import ast
from dsl.syntax.fmt import expr, params, type_text
from dsl.tools.comments import comment_of, trailing_comment
from dsl.tools.rulebook_md import Page, code, link, plain, section, sections, table
from interpreter.core.game import phrase_text

VISIBLE = {
    "public": "everyone",
    "owner": "its owner",
    "hidden": "nobody",
    "top": "everyone: its top and its size",
    "backs": "everyone: where its entries lie, face down; what they are, those shown them",
    "scratch": "nobody: bookkeeping of the rules",
}
PROVENANCE = "Printed or reconstructed"  # the column of a table's rows when proofreading
NOTE_KINDS = (
    ("deviation", "Deviations", "where the executable rules knowingly depart from the book"),
    ("contradiction", "Contradictions", "where the book disagrees with itself"),
    ("erratum", "Errata", "where the book is wrong, and what it should say"),
    ("interpretation", "Interpretations", "how the rules read what the book leaves open"),
)
_SHORT = 90  # a formula longer than this is left to the ruleset itself


def effect_text(e, program: Program) -> str | None:
    """What a cell of effects or conditions says, in their texts ("gain 2 food; draw 1
    card(s)"); None when `e` is neither."""
    if isinstance(e, ast.ListLit) and e.items:
        texts = [effect_text(item, program) for item in e.items]
        return None if None in texts else "; ".join(t for t in texts if t is not None)
    if not isinstance(e, ast.CallExpr):
        return None
    decl = program.decls.get(e.name)
    if not (isinstance(decl, (ast.Proc, ast.Fn)) and decl.kind in ast.TAGGED_KINDS):
        return None
    args = [a for a in e.args if not isinstance(a, ast.KwArg)]
    shown = {p.name: effect_text(a, program) or expr(a) for p, a in zip(decl.params, args)}
    return phrase_text(e.name, decl.template, shown)


def cell(e, program: Program) -> str:
    """A table cell as the rulebook shows it: effects as their texts, other values as code."""
    text = effect_text(e, program)
    return plain(text) if text is not None else value(e)


def about(decl, program: Program) -> str:
    text = comment_of(decl, program)
    return plain(text) if text else ""


def value(e) -> str:
    text = expr(e)
    return "—" if text == "none" else code(text)


# ------------------------------------------------------------------ parameters
def parameters(page: Page, program: Program) -> None:
    found = program.get(ast.Param)
    if not found:
        return
    page.heading(2, "Parameters")
    rows = [
        [code(p.name), value(p.value), section(p.cite), about(p, program)]
        for p in sorted(found, key=lambda p: p.name)
    ]
    page.add(*table(["Parameter", "Value", "Section", "Meaning"], rows), "")


# ------------------------------------------------------------------ derived values
def derived_values(page: Page, program: Program) -> None:
    found = program.get(ast.Fn)
    if not found:
        return
    page.heading(2, "Derived values")
    page.add("Values the rules compute from the state; they change nothing.", "")
    for fn in sorted(found, key=lambda f: f.name):
        result = f": {type_text(fn.result)}" if fn.result is not None else ""
        kind = f"{fn.kind} " if fn.kind != "fn" else ""
        head = code(f"{kind}{fn.name}({params(fn.params)}){result}")
        if fn.template is not None:
            head += f" “{plain(fn.template)}”"
        where = f" ({section(fn.cite)})" if fn.cite else ""
        text = about(fn, program)
        if not text:
            body = expr(fn.body)
            text = f"= {code(body)}" if len(body) <= _SHORT and "\n" not in body else ""
        replaced = _replaced(fn)
        if replaced and text.endswith("."):
            text += f" {replaced[0].upper()}{replaced[1:]}."
        elif replaced:
            text = f"{text}; {replaced}" if text else replaced
        page.add(f"- {head}{where}" + (f": {text}" if text else ""))
    page.add("")


def _replaced(fn: ast.Fn) -> str:
    """A derived value that calls the one it replaced with `base(...)` says so, and where
    that one (and the one it replaced, and so on) is cited."""
    if fn.base is None:
        return ""
    where = f" ({section(fn.base.cite)})" if fn.base.cite else ""
    deeper = _replaced(fn.base)
    return f"calls the rule it replaces{where}" + (f", which {deeper}" if deeper else "")


# ------------------------------------------------------------------ components
def components(page: Page, program: Program) -> None:
    enums, records = program.get(ast.Enum), program.get(ast.Record)
    tables, maps = program.get(ast.Table), program.get(ast.Map)
    if not (enums or records or tables or maps):
        return
    page.heading(2, "Components")
    if enums:
        page.heading(3, "Enumerations")
        for e in enums:
            where = f" ({section(e.cite)})" if e.cite else ""
            text = about(e, program)
            titles, carried = dict(e.titles), dict(e.payloads)
            shown = [
                code(v + (f"({params(carried[v])})" if v in carried else ""))
                + (f" ({plain(titles[v])})" if v in titles else "")
                for v in e.values
            ]
            page.add(f"- {code(e.name)}{where}: " + ", ".join(shown))
            if text:
                page.add(f"  — {text}")
        page.add("")
    if records:
        page.heading(3, "Records")
        for r in records:
            where = f" ({section(r.cite)})" if r.cite else ""
            fields = ", ".join(code(f"{f.name}: {type_text(f.type)}") for f in r.fields)
            text = about(r, program)
            page.add(f"- {r.keyword} {code(r.name)}{where}: {fields or 'no fields'}")
            if text:
                page.add(f"  — {text}")
        page.add("")
    for t in tables:
        component_table(page, t, program)
    for m in maps:
        component_map(page, m, program)


def _faces(t: ast.Table) -> int | None:
    return int(t.dice.split("d")[1]) if t.dice else None


def _face(v: int, sides: int | None) -> str:
    """A face as the book prints it: two digits on a d100, whose face 100 is 00."""
    return f"{v % 100:02d}" if sides == 100 else str(v)


def component_table(page: Page, t: ast.Table, program: Program, provenance: bool = False) -> None:
    """A table of rows under its own heading; with `provenance`, every row says whether the
    book prints it or the ruleset reconstructed it (for proofreading against the book)."""
    page.heading(3, t.name, key=t.name)
    record = program.decls.get(t.record)
    fields = [f.name for f in record.fields] if isinstance(record, ast.Record) else []
    lead = f"Table of {code(t.record)}" + (f", rolled on {t.dice}" if t.dice else "")
    lead += f" ({section(t.cite)})" if t.cite else ""
    text = about(t, program)
    marked = ast.reconstructed_rows(t)
    authored = {r.name for r in marked}
    column = PROVENANCE if provenance else "Reconstructed"
    if marked:
        text += (" " if text else "") + _reconstructed(len(marked), len(t.rows), t.reason, column)
    page.add(lead + "." + (f" {text}" if text else ""), "")
    sides = _faces(t)
    extra = max((len(_positional(r)) for r in t.rows), default=0) - len(fields)
    fields += [f"value {i + 1}" for i in range(len(fields), len(fields) + max(0, extra))]
    # what a row does, needs or counts is one column of words, as a card prints its text
    said = _said_fields(record) if isinstance(record, ast.Record) else {}
    written = [f for f in fields if f not in said]
    titled = any(r.title is not None for r in t.rows)
    copies = any(r.copies is not None for r in t.rows)
    cited = any(r.cite for r in t.rows)
    remarks = {r.name: trailing_comment(r, program) for r in t.rows}
    remarked = any(remarks.values())
    header = (["Roll"] if t.dice else []) + ["Row"] + (["Title"] if titled else [])
    header += ["Text"] if said else []
    header += written
    header += (["Copies"] if copies else []) + (["Section"] if cited else [])
    header += [column] if marked or provenance else []
    header += ["Remark"] if remarked else []
    rows = []
    for r in t.rows:
        cells = []
        if t.dice:
            lo, hi = r.lo, r.hi
            shown = "" if lo is None or hi is None else _face(lo, sides)
            if lo is not None and hi is not None and lo != hi:
                shown += "–" + _face(hi, sides)
            cells.append(shown)
        cells.append(code(r.name))
        if titled:
            cells.append(plain(r.title or ""))
        given = dict(ast.row_cells(r, fields))
        if said:
            cells.append(_row_text(given, said, program))
        values = {name: cell(value, program) for name, value in given.items()}
        cells += [values.get(f, "") for f in written]
        if copies:
            cells.append(str(r.copies) if r.copies is not None else "1")
        if cited:
            cells.append(section(r.cite))
        if provenance:
            cells.append(_provenance(r, r.name in authored))
        elif marked:
            cells.append(plain(r.reason or "yes") if r.name in authored else "")
        if remarked:
            cells.append(plain(remarks[r.name] or ""))
        rows.append(cells)
    page.add(*table(header, rows), "")
    missing = _gaps(t)
    if missing:
        page.add(
            f"No row covers the roll{'s' if len(missing) > 1 else ''} {', '.join(missing)}.", ""
        )


def _said_fields(record: ast.Record) -> dict[str, ast.Field]:
    """The fields of a record that hold effects, conditions or measures, by name."""
    kinds = ast.TAGGED_KINDS
    return {
        f.name: f
        for f in record.fields
        if (isinstance(f.type, ast.TypeName) and f.type.name in kinds)
        or (isinstance(f.type, ast.TypeList) and getattr(f.type.elem, "name", None) in kinds)
    }


def _row_text(given: dict, said: dict[str, ast.Field], program: Program) -> str:
    """A row's text: each of its effect, condition and measure fields in words, after the
    field's name or, for a field named for a moment, the moment's words ("when committed
    to a hunt: +1 strength; draw 1 card(s)"). A field the row leaves out says its default."""
    moments = {m.name: m.template for m in program.get(ast.Moment) if m.template}
    parts = []
    for name, field in said.items():
        value = given.get(name, field.default)
        words = effect_text(value, program) if value is not None else None
        if words:
            parts.append(f"{moments.get(name, name)}: {words}")
    return plain(" · ".join(parts))


def _provenance(r: ast.Row, authored: bool) -> str:
    if not authored:
        return "printed"
    return "**reconstructed**" + (f": {plain(r.reason)}" if r.reason else "")


def _reconstructed(marked: int, rows: int, reason: str | None, column: str) -> str:
    if marked == rows:
        count = "The row is" if rows == 1 else f"All {rows} rows are"
    else:
        count = f"{marked} of {rows} rows {'is' if marked == 1 else 'are'}"
    text = (
        f"{count} reconstructed (column {column}, with the ruleset's reason where it gives "
        "one): the book does not print (all of) their values, so they were authored to fit "
        "what it does say."
    )
    return text + _reason(reason)


def _reconstructed_map(reason: str | None) -> str:
    text = (
        "The map is reconstructed: the book does not print its board, so its places and their "
        "connections were authored to fit what it does say."
    )
    return text + _reason(reason)


def _reason(reason: str | None) -> str:
    """The ruleset's reason for a reconstructed table or map, as a sentence, or nothing."""
    if not reason:
        return ""
    return f" The ruleset's reason: {plain(reason)}" + ("" if reason.endswith(".") else ".")


def _positional(r: ast.Row) -> list:
    return [a for a in r.args if not isinstance(a, ast.KwArg)]


def _gaps(t: ast.Table) -> list[str]:
    """The faces of a rolled table's die that no row covers, as ranges."""
    sides = _faces(t)
    if sides is None or t.dice is None or not t.dice.startswith("1d"):
        return []
    covered: set[int] = set()
    for r in t.rows:
        if r.lo is None or r.hi is None:
            continue
        lo, hi = r.lo or sides, r.hi or sides
        covered.update(range(lo, hi + 1))
    holes = [f for f in range(1, sides + 1) if f not in covered]
    runs: list[list[int]] = []
    for f in holes:
        if runs and runs[-1][-1] == f - 1:
            runs[-1].append(f)
        else:
            runs.append([f])
    return [_face(r[0], sides) + ("" if len(r) == 1 else "–" + _face(r[-1], sides)) for r in runs]


def component_map(page: Page, m: ast.Map, program: Program) -> None:
    page.heading(3, m.name, key=m.name)
    nodes = [i for i in m.items if isinstance(i, ast.MapNode)]
    near: dict[str, list[str]] = {n.name: [] for n in nodes}
    for edge in (i for i in m.items if isinstance(i, ast.MapEdge)):
        for other in edge.others:
            for a, b in ((edge.a, other), (other, edge.a)):
                if b not in near.setdefault(a, []):
                    near[a].append(b)
    text = about(m, program)
    if m.reconstructed:
        text += (" " if text else "") + _reconstructed_map(m.reason)
    lead = f"A map of {len(near)} places" + (f" ({section(m.cite)})" if m.cite else "")
    page.add(lead + "." + (f" {text}" if text else ""), "", "Each place and its neighbours:", "")
    titles = {n.name: n for n in nodes}
    for name, others in near.items():
        node = titles.get(name)
        title = f" {plain(node.title)}" if node is not None and node.title else ""
        remark = comment_of(node, program, above=False) if node is not None else None
        remark_text = f" ({plain(remark)})" if remark else ""
        shown = ", ".join(code(o) for o in others) or "none"
        page.add(f"- {code(name)}{title}{remark_text}: {shown}")
    page.add("")


# ------------------------------------------------------------------ state
def state(page: Page, program: Program) -> None:
    found = [d for d in program.decls.values() if isinstance(d, (ast.Var, ast.Zone, ast.Pool))]
    if not found:
        return
    page.heading(2, "State")
    page.add(
        "What a position holds, and who may see it. A name with keys holds one value per key.",
        "",
    )
    rows = []
    for d in found:
        keys = ", ".join(
            k.name if isinstance(k, ast.KeyName) else f"{k.lo}..{k.hi}" for k in d.keys
        )
        if isinstance(d, ast.Var):
            kind, start = type_text(d.type), value(d.value)
        elif isinstance(d, ast.Zone):
            kind = f"row of {d.size}" if d.kind == "row" else d.kind
            kind += f" of {type_text(d.elem)}" if d.elem is not None else ""
            start = "empty"
        else:
            kind = f"pool of {d.enum}"
            start = value(d.value) if d.value is not None else "empty"
        rows.append(
            [
                code(d.name),
                code(keys) if keys else "",
                plain(kind),
                start,
                VISIBLE.get(d.visibility, d.visibility),
                section(d.cite),
                about(d, program),
            ]
        )
    header = ["Name", "Keyed by", "Kind", "Starts as", "Visible to", "Section", "Meaning"]
    page.add(*table(header, rows), "")


# ------------------------------------------------------------------ invariants
def invariants(page: Page, program: Program) -> None:
    found = program.get(ast.Invariant)
    if not found:
        return
    page.heading(2, "Invariants")
    page.add("What must hold in every position of every game.", "")
    for inv in found:
        where = f" ({section(inv.cite)})" if inv.cite else ""
        text = about(inv, program)
        if not text:
            body = expr(inv.value)
            text = code(body) if len(body) <= _SHORT else "see the ruleset"
        page.add(f"- {code(inv.name)}{where}: {text}")
    page.add("")


# ------------------------------------------------------------------ notes
def note_counts(program: Program) -> str:
    notes = program.get(ast.Note)
    parts = []
    for kind, title, _meaning in NOTE_KINDS:
        n = sum(1 for x in notes if x.kind == kind)
        if n:
            noun = kind if n == 1 else title.lower()  # the title is the plural
            parts.append(f"{n} {noun} ({link(f'notes:{kind}', 'list')})")
    return ", ".join(parts)


def notes(page: Page, program: Program) -> None:
    found = program.get(ast.Note)
    if not found:
        return
    page.heading(2, "Deviations, contradictions, errata and interpretations")
    for kind, title, meaning in NOTE_KINDS:
        mine = [n for n in found if n.kind == kind]
        if not mine:
            continue
        page.heading(3, title, key=f"notes:{kind}")
        page.add(f"{plain(meaning.capitalize())}.", "")
        page.add(*(f"- {note_line(n)}" for n in mine), "")


def note_line(n: ast.Note) -> str:
    """A note as one line: its kind, name, sections, text and, for an erratum, its fix."""
    cites = sections(n.cite, *n.also)
    where = f" ({cites})" if cites else ""
    fix = ""
    if n.fix is not None:
        printed = f" for {code(n.printed)}" if n.printed is not None else ""
        fix = f" The book should say {code(n.fix)}{printed}."
    return f"**{n.kind.upper()}** {code(n.name)}{where}: {plain(n.text)}{fix}"


def notes_on(program: Program, cite: str | None) -> list[ast.Note]:
    """The notes that cite a section (a rule's own, to mark it where it is described)."""
    if not cite:
        return []
    return [n for n in program.get(ast.Note) if cite == n.cite or cite in n.also]
