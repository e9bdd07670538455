"""The errata view of `knapper lint`: the findings a rules editor acts on, in book order.

`dsl.tools.lint` finds everything; this module sorts it for the reader who proofreads the
book rather than the ruleset:

1. **errors** in the ruleset, always (a ruleset that does not hold cannot judge a book);
2. **the book**: what is wrong in the text (a reference to no section, or to a section that
   never speaks of it, a passage that contradicts another, a dice table with holes, an
   erratum the ruleset records), sorted by the line of the book, each quoting that line of
   the user's own text, with the fix where the ruleset knows one;
3. **readings**: the places the book leaves open and the ruleset settles (interpretations),
   in book order;
4. **clean-up** of the ruleset and 5. **coverage** of simulated games, when asked for.

Findings that repeat one message at several places are shown once, with the places. Nothing
here knows any game; the book text is read at run time, never shipped.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from dsl.errors import Diagnostic
from dsl.tools.sources import SourceText

# what each group holds, by code (any error is an error first)
BOOK = frozenset({"K803", "K804", "K805", "K807", "K808", "K809", "K840", "K842", "K843", "K844"})
READINGS = frozenset({"K831"})
GROUPS = ("errors", "book", "readings", "cleanup", "coverage")
TITLES = {
    "errors": "Errors in the ruleset",
    "book": "The book",
    "readings": "Readings the ruleset settles",
    "cleanup": "Clean-up of the ruleset",
    "coverage": "Coverage of the simulated games",
}


def group_of(d: Diagnostic) -> str:
    """The group of the errata view a finding belongs to."""
    if d.severity == "error":
        return "errors"
    if d.code in BOOK:
        return "book"
    if d.code in READINGS:
        return "readings"
    if d.code.startswith("K85"):
        return "coverage"
    return "cleanup"


@attrs.frozen
class Entry:
    """One finding of the view, or one repeated at several places."""

    diagnostic: Diagnostic
    group: str
    line: int | None  # the first line of the book it is about, if the book is at hand
    quotes: tuple[tuple[int, str], ...]  # (line, passage) of each place of the book it cites
    repeats: int = 1  # how many findings with this message it stands for
    place: tuple[int, int] | None = None  # (line, column) of the first place, for sorting

    def to_json(self) -> dict:
        return self.diagnostic.to_json() | {
            "group": self.group,
            "book_line": self.line,
            "quotes": [{"line": n, "text": t} for n, t in self.quotes],
            "repeats": self.repeats,
        }


def book_places(d: Diagnostic, text: SourceText | None) -> list[tuple[int, int]]:
    """The places (line, column) of the book a finding and its notes point at."""
    if text is None:
        return []
    spans = [d.span, *(n.span for n in d.notes)]
    return [(s.line, s.col) for s in spans if s.file == text.name and s.line > 0]


def entries(found: Iterable[Diagnostic], text: SourceText | None) -> list[Entry]:
    """The findings as entries of the view, repeats collapsed, each group in its order:
    the book and the readings by the book's line, the rest as lint sorted them."""
    found = list(found)
    # an erratum a reference finding already links is shown with that finding, not twice
    linked = {n.span for d in found if d.code in ("K803", "K804", "K843", "K844") for n in d.notes}
    by_message: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in found:
        if d.code != "K809" or d.span not in linked:
            by_message.setdefault((d.code, d.message), []).append(d)
    out = []
    for same in by_message.values():
        first = same[0]
        places = sorted(set(book_places(first, text)))
        quotes = tuple((n, text.passage(n, c)) for n, c in places) if text is not None else ()
        at = places[0] if places else None
        out.append(Entry(first, group_of(first), at[0] if at else None, quotes, len(same), at))

    def order(e: Entry) -> tuple:
        in_book = e.group in ("book", "readings") and e.place is not None
        return (GROUPS.index(e.group), e.place if in_book else (1 << 30, 0))

    return sorted(out, key=order)  # stable: lint's own order within a line


def render(
    found: list[Diagnostic],
    text: SourceText | None,
    name: str,
    notices: list[str],
    shown: Iterable[str] = ("errors", "book", "readings"),
    explain: dict[str, str] | None = None,
) -> str:
    """The errata view as text: the groups in `shown`, then a count of what was left out."""
    shown = set(shown)
    lines = [f"notice: {n}" for n in notices]
    all_entries = entries(found, text)
    for group in GROUPS:
        these = [e for e in all_entries if e.group == group]
        if group not in shown or not these:
            continue
        lines += ["", f"{TITLES[group]} ({len(these)})"]
        for e in these:
            lines += _entry_lines(e, text, explain or {})
    hidden = {g: sum(e.group == g for e in all_entries) for g in GROUPS if g not in shown}
    counts = {g: sum(e.group == g for e in all_entries) for g in GROUPS}
    lines += [
        "",
        f"{name}: {counts['book']} finding(s) about the book, {counts['readings']} reading(s) "
        f"settled, {counts['errors']} error(s) in the ruleset",
    ]
    left = [f"{n} {g}" for g, n in hidden.items() if n]
    if left:
        flags = {"cleanup": "--cleanup", "coverage": "--simulate N"}
        how = ", ".join(sorted({flags.get(g, "--all") for g, n in hidden.items() if n}))
        lines.append(f"not shown: {', '.join(left)} ({how} shows them)")
    return "\n".join(lines).lstrip("\n")


def _entry_lines(e: Entry, text: SourceText | None, explain: dict[str, str]) -> list[str]:
    d = e.diagnostic
    if e.place is not None:
        where = f"line {e.place[0]}" + (f":{e.place[1]}" if e.place[1] > 1 else "")
    else:
        where = f"§{d.cite}" if d.cite else ""
    repeats = f" (and {e.repeats - 1} more like it)" if e.repeats > 1 else ""
    in_book = text is not None and d.span.file == text.name
    ruleset = "" if in_book else f" ({d.span})"
    if e.group == "readings":  # one line each: the note's text says what it settles
        return [f"  {where}: {d.message}{ruleset}"]
    out = [f"  {where + ': ' if where else ''}{d.severity}[{d.code}] {d.message}{repeats}"]
    if d.code in explain:
        out.append(f"      why: {explain[d.code]}")
    for number, quoted in e.quotes:
        out.append(f"      {number:>5} | {quoted[:200]}")
    if not in_book:
        out.append(f"      ruleset: {d.span}")
    for note in d.notes:
        if text is not None and note.span.file == text.name:
            continue  # quoted above
        out.append(f"      note: {note.span}: {note.message}")
    if d.hint:
        out.append(f"      hint: {d.hint}")
    return out
