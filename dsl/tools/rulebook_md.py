"""Markdown building blocks of the generated rulebook (dsl/tools/rulebook.py).

A `Page` collects the rulebook's lines; its headings get the anchors the docs site gives
them (Python-Markdown's `toc` slugs, made unique in page order), so a link to a rule
written before the rule's own heading still lands on it. `comment_of` (dsl/tools/comments.py)
finds the words a ruleset's author wrote about a declaration.
"""

from __future__ import annotations

import re
import unicodedata

_LINK = re.compile("\x00([^\x00]*)\x00")
# markup characters; `_` only where it could open or close emphasis (not inside a name)
_MARKUP = re.compile(r"([\\*\[\]<>`]|(?<!\w)_|_(?!\w))")


class Page:
    """Lines of Markdown with headings whose anchors are known before they are written."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._ids: set[str] = set()
        self._anchor: dict[str, str] = {}

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def heading(self, level: int, text: str, key: str | None = None) -> None:
        """A heading; `key` names it for `link` (a declaration's name)."""
        anchor = _unique(_slugify(text), self._ids)
        if key is not None:
            self._anchor.setdefault(key, anchor)
        if self.lines and self.lines[-1] != "":
            self.lines.append("")
        self.lines += ["#" * level + " " + plain(text), ""]

    def has(self, key: str) -> bool:
        return key in self._anchor

    def text(self) -> str:
        body = "\n".join(self.lines).rstrip("\n") + "\n"
        body = re.sub(r"\n{3,}", "\n\n", body)
        return _LINK.sub(lambda m: self._anchor.get(m.group(1), ""), body)


def link(key: str, label: str | None = None) -> str:
    """A link to the heading `key` will have (resolved when the page is finished)."""
    return f"[{plain(label or key)}](#\x00{key}\x00)"


def _slugify(value: str) -> str:
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def _unique(anchor: str, ids: set[str]) -> str:
    base, count = anchor, 0
    while anchor in ids or not anchor:
        count += 1
        anchor = f"{base}_{count}"
    ids.add(anchor)
    return anchor


# ------------------------------------------------------------------ text
def plain(text: str) -> str:
    """Text shown as written: Markdown's markup characters are escaped, except inside
    `code spans`, which a comment uses to name things of the ruleset."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: nothing is code
        return _MARKUP.sub(r"\\\1", text)
    return "`".join(p if i % 2 else _MARKUP.sub(r"\\\1", p) for i, p in enumerate(parts))


def code(text: str) -> str:
    """An inline code span that survives backticks and pipes inside `text`."""
    text = " ".join(text.split())
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def section(cite: str | None) -> str:
    return f"§{cite}" if cite else ""


def sections(*cites: str | None) -> str:
    return ", ".join(section(c) for c in cites if c)


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table; cells are already Markdown and may not hold a newline."""

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("\n", " ").replace("|", "\\|") for c in cells) + " |"

    out = [line(header), "|" + "|".join("---" for _ in header) + "|"]
    return out + [line(r) for r in rows]


def words(name: str) -> str:
    """An identifier as words: `growth_phase` -> "growth phase"."""
    return name.strip("_").replace("_", " ") or name
