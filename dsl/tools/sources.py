"""Rulebook texts: the sections a source text contains and the references it makes.

Reads a plain-text rulebook (the file a ruleset names with `source "x.txt"`) and returns a
`SourceText`: its sections by id and its own cross-references. Three ways of naming sections
are recognised, whichever a text uses:

- lettered headings on a line of their own (`A.`, `A1.`, `D4.`), with lettered subsections
  inside a numbered one (`a. ...` under `L3.` is `L3a`);
- numbered chapters (`6.`, `6.3.`), accepted only in sequence so that numbered lists inside
  a chapter are not taken for chapters, and the named sub-headings the table of contents
  lists (a body line equal to a contents entry);
- upper-case headings (`EVENT PHASE`) when the text has neither of the others.

Used by `dsl.tools.lint`; nothing here knows any game.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import attrs

from dsl.errors import Span
from dsl.semantics.paths import confine


@attrs.frozen
class Section:
    id: str
    title: str
    start: int  # offsets in the text: the heading, and where the next heading starts
    end: int
    line: int
    parent: str | None = None


@attrs.frozen
class CrossRef:
    target: str  # the section id as written
    line: int
    col: int
    offset: int
    context: str  # the words just before the reference, in its clause


@attrs.define
class SourceText:
    name: str
    path: Path
    text: str
    sections: dict[str, Section]
    refs: list[CrossRef]
    style: str  # lettered | numbered | upper

    def find(self, cite: str) -> Section | None:
        """The section a citation names (`A1`, `6.3.`, `EVENT PHASE`), or None."""
        key = normalise(cite)
        if key in self._keys:
            return self.sections[self._keys[key]]
        return None

    def contains(self, cite: str) -> bool:
        """Whether every section a citation names exists (`D1-D3` names two)."""
        return all(self.find(part) is not None for part in split_cite(cite))

    def body(self, section_id: str) -> str:
        """The text of a section with its subsections, without its heading line."""
        sec = self.sections[section_id]
        end = sec.end
        for other in self.sections.values():
            if other.start > sec.start and _within(other, sec, self.sections):
                end = max(end, other.end)
        return self.text[sec.start : end]

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def span_at(self, offset: int) -> Span:
        """The place of `offset` in the text, for a note that points into the book."""
        line = self.line_of(offset)
        col = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return Span(self.name, line, col, line, col + 1)

    def passage(self, line: int, col: int, width: int = 200) -> str:
        """The sentence of the text at `line` and `col` (the line itself when it is short),
        at most `width` characters: what a finding quotes."""
        start = 0
        for _ in range(line - 1):
            start = self.text.find("\n", start) + 1
        at = start + col - 1
        end = self.text.find("\n", at)
        end = len(self.text) if end < 0 else end
        if end - start > width:  # a long line: the sentence around the place
            before = max(self.text.rfind(". ", start, at) + 2, start)
            start = before if before > start + 1 else start
            stop = self.text.find(". ", at)
            end = min(end, stop + 1) if stop >= 0 else end
        lead = ""
        if end - start > width and at - start > width // 2:  # a long sentence: around the place
            start, lead = self.text.rfind(" ", start, at - width // 3) + 1, "…"
        text = lead + " ".join(self.text[start:end].split())
        return text if len(text) <= width else text[: width - 1] + "…"

    def find_offset(self, cite: str, words: str, printed: str | None = None) -> int | None:
        """Where in the section `cite` names a note is about: the first place that holds
        `printed` (the words as printed), else the start of the sentence sharing the most
        words with `words` (the note's text), else the heading; None when there is no such
        section."""
        section = self.find(split_cite(cite)[0])
        if section is None:
            return None
        end = max(
            [section.end]
            + [o.end for o in self.sections.values() if _within(o, section, self.sections)]
        )
        if printed:
            at = self.text.casefold().find(printed.casefold(), section.start, end)
            if at >= 0:
                return at
        wanted = {_stem(w) for w in _content_words(words)}
        best, score = section.start, 0
        for m in _SENTENCE.finditer(self.text, section.start, end):
            found = len(wanted & {_stem(w) for w in _content_words(m.group(0))})
            if found > score:  # the sentence's first word, not the space before it
                best, score = m.start() + len(m.group(0)) - len(m.group(0).lstrip()), found
        return best

    @property
    def _keys(self) -> dict[str, str]:
        return {normalise(k): k for k in self.sections}


def _within(child: Section, parent: Section, sections: dict[str, Section]) -> bool:
    at: Section | None = child
    while at is not None and at.parent is not None:
        if at.parent == parent.id:
            return True
        at = sections.get(at.parent)
    return False


_SENTENCE = re.compile(r"[^\n.!?]+[.!?]?")


def _content_words(text: str) -> list[str]:
    """The words of at least five letters: the ones that say what a line is about."""
    return [w.casefold() for w in re.findall(r"[^\W\d_]{5,}", text)]


def _stem(word: str) -> str:
    return word[:6]


def normalise(cite: str) -> str:
    """`§"Event Phase"`, `EVENT  PHASE`, `6.3.` -> one comparable key."""
    text = cite.strip().lstrip("§").strip('"').strip()
    text = re.sub(r"\s+", " ", text).rstrip(".:-,; ")
    return text.casefold()


def split_cite(cite: str) -> list[str]:
    """A range citation (`D1-D3`, `3-6`) names both ends; anything else names itself."""
    text = cite.strip().rstrip(".-")
    parts = text.split("-")
    if len(parts) == 2 and all(re.fullmatch(r"[A-Z]?\d+(\.\d+)*[a-z]?", p) for p in parts):
        return parts
    return [text]


# ------------------------------------------------------------------ finding the texts
def sources_dir(explicit: str | Path | None = None) -> Path | None:
    """Where rulebook texts are: `--sources DIR`, else KNAPPER_SOURCES, else
    ../shared/rulebooks from the working directory; None when none of them exists."""
    for cand in (explicit, os.environ.get("KNAPPER_SOURCES"), Path("..") / "shared" / "rulebooks"):
        if cand and Path(cand).is_dir():
            return Path(cand)
    return None


def locate(name: str, directory: Path | None, span: Span | None = None) -> Path | None:
    """The rulebook text a ruleset's `source` names, inside `directory` (K102 at `span` when
    the name leads out of it); None when there is no such file."""
    if directory is None:
        return None
    at = span if span is not None else Span(name, 0, 0, 0, 0)
    hint = "a source names a file inside the rulebook folder (--sources, KNAPPER_SOURCES)"
    path = confine(name, directory, directory, at, "source", hint=hint, bundled=False)
    return path if path.is_file() else None


def read_source_text(path: Path, name: str | None = None) -> SourceText:
    text = path.read_text(encoding="utf-8")
    return parse_source_text(text, name or path.name, path)


def parse_source_text(text: str, name: str, path: Path | None = None) -> SourceText:
    lettered, numbered = _lettered(text), _numbered(text)
    heads, style = (
        (lettered, "lettered") if len(lettered) >= len(numbered) else (numbered, "numbered")
    )
    if not heads:
        heads, style = _upper(text), "upper"
    sections = _close(text, heads)
    src = SourceText(name, path or Path(name), text, sections, [], style)
    src.refs = _references(text, style)
    return src


# ------------------------------------------------------------------ headings
# (id, title, start offset, parent id)
_Head = tuple[str, str, int, "str | None"]

_LETTERED = re.compile(r"^([A-Z])(\d+)?\.[ \t]+(\S[^\n]{0,90})$", re.M)
_SUBLETTER = re.compile(r"(?:^|(?<=[.;:!?)\"] ))([a-z])\. (?=[A-Z\"(])", re.M)
_NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)\.[ \t]+(\S[^\n]{0,90})$", re.M)
_NAMED_ITEM = re.compile(r"^\d+\. ([A-Z][A-Z' ]+[A-Z])\.", re.M)
_UPPER = re.compile(r"(?<![\w&,])[A-Z]{2,}(?:(?:,? | & )[A-Z]{2,})*(?![\w])")
# what comes before a heading's name where the running text refers to it
_UPPER_LEAD = re.compile(r"\b(?:[Ss]ee|[Cc]onsult|[Rr]efer to|[Uu]se|on)\s+(?:the\s+)?$")
# a reference in a book of upper-case headings: a heading's name after such words, either
# in capitals (`see HAZARD TABLE`) or as words ending in a kind of part (`the Event Table`)
_UPPER_REF = re.compile(
    r"\b(?:[Ss]ee|[Cc]onsult|[Rr]efer to|[Uu]se|on)\s+(?:the\s+)?"
    r"([A-Z]{2,}(?: [A-Z&]{2,})*(?![\w])|(?:[A-Z][\w&'-]*\s+){1,3}(?:[Tt]able|[Cc]hart|[Pp]hase))"
)


def _lettered(text: str) -> list[_Head]:
    heads: list[_Head] = []
    for m in _LETTERED.finditer(text):
        letter, number, title = m.group(1), m.group(2), m.group(3)
        sid = letter + (number or "")
        heads.append((sid, title.strip(), m.start(), letter if number else None))
    if len({h[0][0] for h in heads}) < 2:
        return []  # one stray "A. ..." line does not make a lettered book
    heads = _dedupe(heads)
    heads += _named(text, heads)
    subs: list[_Head] = []
    ordered = sorted(heads, key=lambda h: h[2])
    for i, (sid, _title, start, _parent) in enumerate(ordered):
        if not re.fullmatch(r"[A-Z]\d+", sid):
            continue
        end = ordered[i + 1][2] if i + 1 < len(ordered) else len(text)
        body_at = text.find("\n", start, end)
        if body_at < 0:
            continue
        expected = "a"
        for m in _SUBLETTER.finditer(text, body_at, end):
            if m.group(1) != expected:
                continue
            line_end = text.find("\n", m.end())
            title = text[m.end() : line_end if line_end >= 0 else len(text)].split(".")[0]
            subs.append((sid + expected, title.strip()[:60], m.start(1), sid))
            expected = chr(ord(expected) + 1)
    return heads + subs


def _numbered(text: str) -> list[_Head]:
    heads: list[_Head] = []
    top, sub = 0, 0
    _entries, body_from = contents(text)  # the contents' own lines are no headings
    for m in _NUMBERED.finditer(text, body_from):
        parts = [int(p) for p in m.group(1).split(".")]
        if len(parts) == 1 and parts[0] == top + 1:
            top, sub = parts[0], 0
            heads.append((str(top), m.group(2).strip(), m.start(), None))
        elif len(parts) == 2 and parts[0] == top and parts[1] == sub + 1:
            sub = parts[1]
            heads.append((f"{top}.{sub}", m.group(2).strip(), m.start(), str(top)))
    if len(heads) < 2:
        return []
    return heads + _named(text, heads)


def _named(text: str, heads: list[_Head]) -> list[_Head]:
    """Named sub-headings: body lines equal to an entry of the table of contents, and
    numbered list items whose title is in capitals (`3. MAKING.`)."""
    entries, body_from = _contents(text)
    out: list[_Head] = []
    seen: set[str] = set()

    def parent_at(offset: int) -> str | None:
        before = [h for h in heads if h[2] <= offset]
        return max(before, key=lambda h: h[2])[0] if before else None

    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if offset >= body_from and stripped in entries and stripped not in seen:
            seen.add(stripped)
            out.append((stripped, stripped, offset, parent_at(offset)))
        offset += len(line)
    for m in _NAMED_ITEM.finditer(text, body_from):
        title = m.group(1).strip()
        if title not in seen and len(title) >= 4:
            seen.add(title)
            out.append((title, title, m.start(), parent_at(m.start())))
    return out


@attrs.frozen
class ContentsEntry:
    """A line of a table of contents: the section id it gives (None for a named entry),
    its title, and where it stands."""

    id: str | None
    title: str
    line: int
    offset: int


_ENTRY_ID = re.compile(r"(\d+(?:\.\d+)*|[A-Z]\d*)\.\s+(.*)")


def contents(text: str) -> tuple[list[ContentsEntry], int]:
    """The entries of the text's table of contents, in order, and the offset where the
    contents end (the body begins); no entries and 0 when it has none."""
    entries: list[ContentsEntry] = []
    offset, started, inside = 0, False, False
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        at, offset = offset, offset + len(line)
        item = line.strip().lstrip("•-* ").strip()
        if item.casefold() == "table of contents":
            inside = True
            continue
        if not inside:
            continue
        if not item:
            if started:
                return entries, offset
            continue
        started = True
        m = _ENTRY_ID.fullmatch(item)
        where = at + line.index(item[0])
        if m:
            entries.append(ContentsEntry(m.group(1), m.group(2).strip(), number, where))
        else:
            entries.append(ContentsEntry(None, item, number, where))
    return entries, offset if inside else 0


def _contents(text: str) -> tuple[set[str], int]:
    """The entries of a table of contents that are not numbered sections themselves, and
    the offset where the contents end (the body begins)."""
    entries, body_from = contents(text)
    return {e.title for e in entries if e.id is None}, body_from


def _upper(text: str) -> list[_Head]:
    heads: list[_Head] = []
    for m in _UPPER.finditer(text):
        title = m.group(0)
        if _UPPER_LEAD.search(text, max(0, m.start() - 20), m.start()):
            continue  # "see EVENT TABLE" names a heading; it is not one
        if len(title) >= 4 and title not in {h[0] for h in heads}:
            heads.append((title, title, m.start(), None))
    return heads


def _dedupe(heads: list[_Head]) -> list[_Head]:
    """A heading listed twice (in a table of contents, then in the body) is the later one."""
    last = {h[0]: h for h in sorted(heads, key=lambda h: h[2])}
    return sorted(last.values(), key=lambda h: h[2])


def _close(text: str, heads: list[_Head]) -> dict[str, Section]:
    ordered = sorted(heads, key=lambda h: h[2])
    out: dict[str, Section] = {}
    for i, (sid, title, start, parent) in enumerate(ordered):
        end = ordered[i + 1][2] if i + 1 < len(ordered) else len(text)
        out[sid] = Section(sid, title, start, end, text.count("\n", 0, start) + 1, parent)
    return out


# ------------------------------------------------------------------ cross-references
_ID = {
    "lettered": r"[A-Z]\d*(?:\.\d+)?[a-z]?",
    "numbered": r"\d+(?:\.\d+)*",
    "upper": r"(?!x)x",  # upper-case books name sections in running text: not tracked
}
_PAREN = re.compile(r"\(((?:see |per |Part |chapter )?[^()\n]{1,30})\)")
_LEAD = re.compile(r"\b(?:per|see|Per|See|chapter|Chapter)\s+\(?")
_CLAUSE_END = re.compile(r"[.;:!?()\u2014\n,]|\s-\s")


def _references(text: str, style: str) -> list[CrossRef]:
    ident = re.compile(rf"^{_ID[style]}$")
    found: dict[int, CrossRef] = {}

    def add(target: str, offset: int, context_end: int | None) -> None:
        if offset in found:
            return
        line = text.count("\n", 0, offset) + 1
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        context = "" if context_end is None else _context(text, context_end)
        found[offset] = CrossRef(target, line, col, offset, context)

    for m in _PAREN.finditer(text):
        inner = re.sub(r"^(see|per|Part|chapter) ", "", m.group(1))
        items = [i.strip() for i in re.split(r",|\band\b", inner)]
        if not items or not ident.match(items[0]):
            continue
        targets = [items[0]]
        for item in items[1:]:
            if ident.match(item):
                targets.append(item)
            elif re.fullmatch(r"[a-z]", item) and targets[0][-1].islower():
                targets.append(targets[0][:-1] + item)  # (L6c,d,e)
            else:
                targets = []
                break
        for n, target in enumerate(targets):  # one context for the list, on its first item
            add(target, m.start(1) + n, m.start() if n == 0 else None)
    lead_id = re.compile(rf"({_ID[style]})(?![\w.]*\w)")
    for m in _LEAD.finditer(text):
        after = lead_id.match(text, m.end())
        if after:
            add(after.group(1), after.start(1), m.start())
    if style == "upper":
        for m in _UPPER_REF.finditer(text):
            add(" ".join(m.group(1).split()), m.start(1), m.start())
    if style == "lettered":  # a dotted id is a reference wherever it stands
        for m in re.finditer(r"\b[A-Z]\d+\.\d+\b", text):
            add(m.group(0), m.start(), m.start())
    return [found[k] for k in sorted(found)]


def _context(text: str, end: int) -> str:
    """The words of the clause that ends where a reference begins (and of the clause before
    it, when this one has fewer than two long words: "Alpha (...) — anywhere (E5)")."""
    start = _clause_start(text, end)
    for _ in range(3):
        if len([w for w in re.findall(r"\w+", text[start:end]) if len(w) >= 4]) >= 2:
            break
        if start == 0 or text[start - 1] == "\n":
            break
        start = _clause_start(text, start - 1)
    return text[start:end].strip()


def _clause_start(text: str, end: int) -> int:
    start = end
    while start > 0 and end - start < 120:
        if _CLAUSE_END.match(text, start - 1) or text[start - 2 : start + 1] == " - ":
            break
        start -= 1
    return start
