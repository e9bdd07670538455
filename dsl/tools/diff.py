"""What a variant changes: two resolved programs -> one line per changed rule.

`knapper diff BASE VARIANT` prints these lines. Each names the rule in the words of the
ruleset (its name, and the comment written above or beside it), the section it cites, and
the old and new values where a value changed. Nothing is written by hand: the lines come
from comparing the two programs declaration by declaration, so they always match what the
variant really does.
"""

from __future__ import annotations

import attrs

from dsl.semantics.resolve import Program
from dsl.syntax import ast
from dsl.syntax.fmt import args, expr
from dsl.syntax.visitor import Visitor, elsewhere, on
from dsl.tools.comments import comment_of
from dsl.tools.rulebook_parts import effect_text


@attrs.frozen
class Change:
    """One changed rule: what kind of change, which declaration, a sentence, a section."""

    kind: str  # changed | added | removed
    key: str
    text: str
    cite: str | None
    line: int  # where the change is written, to keep the variant's own order

    def render(self) -> str:
        where = f"§{self.cite}" if self.cite else ""
        return f"  {where:<8} {self.text}"

    def as_json(self) -> dict:
        return {"kind": self.kind, "name": self.key, "text": self.text, "cite": self.cite}


def diff_programs(base: Program, variant: Program) -> list[Change]:
    changes: list[Change] = []
    for key, new in variant.decls.items():
        old = base.decls.get(key)
        if old == new:
            continue
        where = variant.origin.get(key)
        line = where.line if where is not None else 0
        if old is None:
            changes.append(Change("added", key, _added(new, variant), _cite(new), line))
        else:
            changes += _changed(key, old, new, base, variant, line)
    for key, old in base.decls.items():
        if key not in variant.decls:
            where = variant.origin.get(key)
            line = where.line if where is not None else 0
            text = f"removes {_what(old)}"
            changes.append(Change("removed", key, text, _cite(old), line))
    # a change that cites nothing is cited by the variant's own header
    changes = [c if c.cite else attrs.evolve(c, cite=variant.cite) for c in changes]
    return sorted(changes, key=lambda c: (c.line, c.key))


def _changed(key, old, new, base: Program, variant: Program, line: int) -> list[Change]:
    return _Changed(key, old, base, variant, line).visit(new)


class _Changed(Visitor):
    """The lines for a declaration that a variant changed: the new one is visited, and its
    handler compares it with the old one."""

    domain = ast.DECLARATIONS

    not_given = elsewhere(ast.Import, why="resolve merges imported libraries")

    def __init__(self, key: str, old, base: Program, variant: Program, line: int):
        self.key, self.old, self.base, self.variant, self.line = key, old, base, variant, line

    def change(self, new, text: str) -> list[Change]:
        return [Change("changed", self.key, text, _cite(new) or _cite(self.old), self.line)]

    @on(ast.Param)
    def param(self, new: ast.Param) -> list[Change]:
        old, label = self.old, _label(self.key, self.old, self.base)
        if expr(new.value) == expr(old.value):
            cite = _cite(new) or _cite(old)
            return self.change(new, f"{label}: {expr(new.value)}, as before, now citing §{cite}")
        return self.change(new, f"{label}: {expr(new.value)} instead of {expr(old.value)}")

    @on(ast.Players)
    def players(self, new: ast.Players) -> list[Change]:
        if _players(new) == _players(self.old):
            return self.change(new, f"players: {_players(new)}, as before, now citing §{new.cite}")
        return self.change(new, f"players: {_players(new)} instead of {_players(self.old)}")

    @on(ast.Title)
    def title(self, new: ast.Title) -> list[Change]:
        return self.change(new, f'title: "{new.text}" instead of "{self.old.text}"')

    @on(ast.Round)
    def round(self, new: ast.Round) -> list[Change]:
        text = f"replaces the round (at most {new.max} rounds; was {self.old.max})"
        return self.change(new, text)

    @on(ast.Table)
    def table(self, new: ast.Table) -> list[Change]:
        cite = _cite(new) or _cite(self.old)
        return _table_changes(self.key, self.old, new, cite, self.line, self.variant)

    @on(ast.Note)
    def note(self, new: ast.Note) -> list[Change]:
        return self.change(new, f"replaces {new.kind} {new.name}: {_sentence(new.text)}")

    @on(
        ast.Source,
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
        ast.Outcome,
        ast.Invariant,
        ast.Moment,
    )
    def replaced(self, new) -> list[Change]:
        old, cite = self.old, _cite(new) or _cite(self.old)
        # the replacing rule's own words: the base's comment describes the old rule
        about = comment_of(new, self.variant)
        text = f"replaces {_what(new)}"
        if isinstance(new, ast.Map) and isinstance(old, ast.Map):
            text += _unmarked(old, new)
        if isinstance(new, (ast.Proc, ast.Fn)) and new.base is not None:
            text += ", calling the rule it replaces"
        if _cite(old) and _cite(old) != cite:
            text += f" (was §{_cite(old)})"
        text += f": {about}" if about else ""
        return self.change(new, text)


def _row(r: ast.Row) -> str:
    title = f' "{r.title}"' if r.title is not None else ""
    copies = f" x {r.copies}" if r.copies is not None else ""
    return f"{r.name}{title} ({args(r.args)}){copies}{_marker(r)}"


def _marker(decl: ast.Row | ast.Map | ast.Table) -> str:
    """The marker `reconstructed ["reason"]` as written, or nothing."""
    if not decl.reconstructed:
        return ""
    return " reconstructed" + (f' "{decl.reason}"' if decl.reason is not None else "")


def _unmarked(old: ast.Row | ast.Map, new: ast.Row | ast.Map) -> str:
    """Says so when a change drops the marker (the new text alone would not show it)."""
    return ", no longer marked reconstructed" if old.reconstructed and not new.reconstructed else ""


def _words(table: ast.Table, r: ast.Row, program: Program) -> str:
    """What a row's cells of effects and conditions say, in their words ("when committed
    ...: draw 1 card(s)"), after an em dash; nothing for a row without such cells."""
    record = program.decls.get(table.record)
    fields = [f.name for f in record.fields] if isinstance(record, ast.Record) else []
    moments = {m.name: m.template for m in program.get(ast.Moment) if m.template}
    said = []
    for name, value in ast.row_cells(r, fields):
        text = effect_text(value, program)
        if text:
            said.append(f"{moments.get(name, name)}: {text}")
    return " — " + "; ".join(said) if said else ""


def _table_changes(
    key, old: ast.Table, new: ast.Table, cite, line, program: Program
) -> list[Change]:
    before = {r.name: r for r in old.rows}
    after = {r.name: r for r in new.rows}
    out = []
    if (old.reconstructed, old.reason) != (new.reconstructed, new.reason):
        if new.reconstructed:
            text = f"table {key}: now marked{_marker(new)}"
        else:
            text = f"table {key}: no longer marked reconstructed"
        out.append(Change("changed", key, text, cite, line))
    for name, r in after.items():
        if name not in before:
            text = f"table {key}: adds row {_row(r)}{_words(new, r, program)}"
            out.append(Change("added", f"{key}.{name}", text, r.cite or cite, line))
        elif before[name] != r:
            text = f"table {key}: row {name} becomes {_row(r)}{_words(new, r, program)}"
            text += _unmarked(before[name], r)
            out.append(Change("changed", f"{key}.{name}", text, r.cite or cite, line))
    for name, r in before.items():
        if name not in after:
            text = f"table {key}: removes row {_row(r)}"
            out.append(Change("removed", f"{key}.{name}", text, cite, line))
    return out


def _added(new, program: Program) -> str:
    if isinstance(new, ast.Note):
        return f"adds {new.kind} {new.name}: {_sentence(new.text)}"
    about = comment_of(new, program)
    return f"adds {_what(new)}" + (f": {about}" if about else "")


def _sentence(text: str, limit: int = 160) -> str:
    """The first sentence of a note (the whole note is in the ruleset)."""
    end = text.find(". ")
    first = text if end < 0 else text[: end + 1]
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def _what(decl) -> str:
    if isinstance(decl, (ast.Proc, ast.Note)):
        return f"{decl.kind} {decl.name}"
    kind = type(decl).__name__.lower()
    name = ast.decl_name(decl)
    marker = _marker(decl) if isinstance(decl, ast.Map) else ""
    return (f"{kind} {name}" if name else kind) + marker


def _label(key: str, decl, program: Program) -> str:
    about = comment_of(decl, program)
    return f"{key} ({about})" if about else key


def _players(p: ast.Players) -> str:
    return str(p.lo) if p.lo == p.hi else f"{p.lo}..{p.hi}"


def _cite(decl) -> str | None:
    return getattr(decl, "cite", None)
