"""Findings about a rulebook's text that compare it with itself or with the ruleset's data.

- **The table of contents against the headings** (K842): an entry for a section the text
  does not contain, an entry whose title differs from its heading's, and a heading missing
  where the contents list its neighbours (the contents list 6.1-6.3, the text has 6.4).
- **Printed tables against the ruleset's tables** (K840): where a dice table's section of
  the text prints a row's title after a number, that number must be one the ruleset's row
  covers.
- **One name spelled two ways** (K843): a word the text uses as a name (capitalised in the
  middle of sentences) and a rare word one letter away from it, also written as a name (a
  letter left out, added, changed or two swapped: `Diaster` beside `Disaster`). Words the
  ruleset itself writes (its titles, names and strings) are names of their own, and so are
  inflections (`Advance`, `Advances`).

Used by `dsl.tools.lint`; nothing here knows any game, and no book text is kept.
"""

from __future__ import annotations

import re
from collections import defaultdict

import attrs

from dsl.errors import Diagnostic, Note, diag
from dsl.semantics.resolve import Program
from dsl.semantics.symbols import face
from dsl.syntax import ast
from dsl.tools.sources import ContentsEntry, SourceText, contents, normalise


def text_findings(program: Program, text: SourceText) -> list[Diagnostic]:
    return _contents_findings(text) + _printed_tables(program, text) + _spellings(program, text)


# ------------------------------------------------------------------ table of contents
def _contents_findings(text: SourceText) -> list[Diagnostic]:
    entries, _ = contents(text.text)
    listed: dict[str, ContentsEntry] = {e.id: e for e in entries if e.id is not None}
    if not listed:
        return []
    out = []
    for sid, entry in listed.items():
        heading = text.sections.get(sid)
        at = text.span_at(entry.offset)
        if heading is None:
            out.append(
                _toc(
                    f"the contents list {entry.id} ({entry.title!r}), which the "
                    "text does not contain",
                    at,
                    sid,
                )
            )
        elif _same_title(entry.title, heading.title) is False:
            out.append(
                _toc(
                    f"the contents call {entry.id} {entry.title!r}, its heading {heading.title!r}",
                    at,
                    sid,
                    notes=(Note(text.span_at(heading.start), "the heading"),),
                )
            )
    # a heading the contents leave out, among siblings they list
    listed_parents = {_parent(i) for i in listed}
    for sid, heading in text.sections.items():
        if sid in listed or not _is_id(sid) or _parent(sid) not in listed_parents:
            continue
        out.append(
            _toc(
                f"section {sid} ({heading.title!r}) is missing from the table of contents",
                text.span_at(heading.start),
                sid,
            )
        )
    return out


def _toc(message: str, span, cite: str, notes: tuple = ()) -> Diagnostic:
    return diag(
        "K842",
        message,
        span,
        severity="warning",
        cite=cite,
        notes=notes,
        hint="make the table of contents and the headings agree",
    )


def _is_id(sid: str) -> bool:
    return re.fullmatch(r"\d+(?:\.\d+)*|[A-Z]\d*", sid) is not None


def _parent(sid: str) -> str:
    """`6.4` -> `6`; `6` -> ``; `C1` -> `C`; `C` -> ``."""
    if "." in sid:
        return sid.rsplit(".", 1)[0]
    m = re.fullmatch(r"([A-Z])\d+", sid)
    return m.group(1) if m else ""


def _same_title(a: str, b: str) -> bool:
    """Do two titles say the same, whatever the case, punctuation and spacing?"""

    def key(t: str) -> str:
        return re.sub(r"[^\w]+", " ", normalise(t)).strip()

    return key(a) == key(b) or key(a).startswith(key(b)) or key(b).startswith(key(a))


# ------------------------------------------------------------------ printed tables
def _printed_tables(program: Program, text: SourceText) -> list[Diagnostic]:
    out = []
    for table in program.get(ast.Table):
        if not table.dice or table.cite is None:
            continue
        section = text.find(table.cite)
        if section is None:
            continue
        body = text.text[section.start : _end(text, section)]
        sides = int(table.dice.split("d")[1])
        for row in table.rows:
            if row.title is None or row.lo is None:
                continue
            lo, hi = face(row.lo, sides), face(row.hi if row.hi is not None else row.lo, sides)
            # every place the section prints the title after a number or a range: the row is
            # misnumbered when none of them is its own (several rows may share a title)
            printed = [
                (m, face(int(m.group(1)), sides), face(int(m.group(2) or m.group(1)), sides))
                for m in re.finditer(
                    rf"(?<![\w.])(\d+)(?:\s*-\s*(\d+))?\s+{re.escape(row.title)}(?![\w])", body
                )
            ]
            if not printed or any((a, b) == (lo, hi) for _m, a, b in printed):
                continue
            m, a, b = printed[0]
            shown = f"{m.group(1)}" if m.group(2) is None else f"{m.group(1)}-{m.group(2)}"
            covers = f"{lo}" if lo == hi else f"{lo}-{hi}"
            out.append(
                diag(
                    "K840",
                    f"the printed table numbers {row.title!r} {shown}; the ruleset's table "
                    f"{table.name!r} gives it {covers}",
                    text.span_at(section.start + m.start(1)),
                    severity="warning",
                    cite=table.cite,
                    notes=(Note(row.span, f"row {row.name} of table {table.name!r}"),),
                    hint="a misnumbered row in the book, or in the ruleset's table",
                )
            )
    return out


def _end(text: SourceText, section) -> int:
    """Where a section ends in the text, its subsections included."""
    ends = [section.end]
    for other in text.sections.values():
        if other.parent == section.id:
            ends.append(other.end)
    return max(ends)


# ------------------------------------------------------------------ names spelled two ways
_WORD = re.compile(r"[^\W\d_]+")
# what may stand before the first word of a sentence (or of a list item, or a quote)
_OPENS = re.compile(r"(?:^|[.!?:;\u2022*\"'(\[-])\s*$")


def _spellings(program: Program, text: SourceText) -> list[Diagnostic]:
    uses: dict[str, list[re.Match]] = defaultdict(list)  # lower-case word -> its places
    named: dict[str, list[bool]] = defaultdict(list)  # ... capitalised, in mid-sentence?
    for m in _WORD.finditer(text.text):
        word = m.group(0)
        if len(word) > 1 and word.isupper():
            continue  # a heading in capitals says nothing about how a name is written
        uses[word.lower()].append(m)
        if _OPENS.search(text.text, max(0, m.start() - 3), m.start()) is None:
            named[word.lower()].append(word[0].isupper())

    def is_name(w: str) -> bool:
        caps = named[w]
        return bool(caps) and sum(caps) >= 0.8 * len(caps)

    own = _ruleset_words(program)
    errata = [n for n in program.get(ast.Note) if n.kind == "erratum" and n.printed]
    out = []
    for rare, places in uses.items():
        n = len(places)
        if n > 2 or len(rare) < 4 or rare in own or not is_name(rare):
            continue
        for word, others in uses.items():
            if (
                len(others) >= max(3, 3 * n)
                and word[0] == rare[0]
                and is_name(word)
                and _one_letter_apart(rare, word)
                and not _inflected(rare, word)
            ):
                out.append(_spelled(text, places, others, errata))
                break
    return out


def _spelled(text: SourceText, places: list, others: list, errata: list) -> Diagnostic:
    rare, usual = places[0].group(0), others[0].group(0)  # as first written
    at = places[0].start()
    section = _section_at(text, at)
    times = "once" if len(places) == 1 else f"{len(places)} times"
    known = [n for n in errata if re.search(rf"\b{re.escape(rare)}\b", n.printed)]
    notes = tuple(Note(text.span_at(m.start()), f"{rare!r} here too") for m in places[1:])
    notes += tuple(Note(n.span, f"the ruleset's erratum {n.name}") for n in known)
    hint = (
        f"read {known[0].printed!r} as {known[0].fix!r} (erratum {known[0].name})"
        if known
        else f"a misprint of {usual!r}, or two names that look alike"
    )
    return diag(
        "K843",
        f"the text writes {rare!r} {times} and {usual!r} {len(others)} times",
        text.span_at(at),
        severity="warning",
        cite=section,
        notes=notes,
        hint=hint,
    )


def _ruleset_words(program: Program) -> set[str]:
    """Every word of the ruleset's names and strings, but for what its notes say of the book
    (an erratum quotes the misprint it corrects)."""
    found: set[str] = set()

    def visit(value) -> None:
        if isinstance(value, str):
            found.update(w.lower() for w in _WORD.findall(value.replace("_", " ")))
        elif isinstance(value, (tuple, list)):
            for item in value:
                visit(item)
        elif attrs.has(type(value)) and not isinstance(value, ast.Note):
            for field in attrs.fields(type(value)):
                visit(getattr(value, field.name))

    for decl in program.decls.values():
        visit(decl)
    return found


def _one_letter_apart(a: str, b: str) -> bool:
    """One letter left out, added or changed, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _inflected(a: str, b: str) -> bool:
    """`advance`/`advances`, `move`/`moved`, `tribe`/`tribes`: one word, two forms."""
    short, long = sorted((a, b), key=len)
    return long[: len(short)] == short and long[len(short) :] in ("s", "d", "r", "e")


def _section_at(text: SourceText, offset: int) -> str | None:
    inside = [s for s in text.sections.values() if s.start <= offset < s.end]
    return max(inside, key=lambda s: s.start).id if inside else None
