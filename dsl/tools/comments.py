"""What a ruleset's author wrote about a declaration, in the comments beside or above it.

Comments are not part of the AST; they are read back from the program's source texts by
position. `knapper diff` and `knapper doc` both describe rules this way.
"""

from __future__ import annotations

import re

from dsl.semantics.resolve import Program

_SEPARATOR = re.compile(r"^[=\-_*~#]{4,}")  # a comment line that rules off a part of a file


def comment_of(decl, program: Program, above: bool = True) -> str | None:
    """What the ruleset says about a declaration in its own words: the comment at the end of
    its first line, or else (when `above`) the comment lines just above it, up to a blank
    line or a line that rules off a part of the file."""
    span = getattr(decl, "span", None)
    if span is None or span.line <= 0:
        return None
    lines = program.sources.get(span.file, "").split("\n")
    if span.line > len(lines):
        return None
    code_part, comment = split_comment(lines[span.line - 1])
    if comment and code_part.strip():
        return comment
    if not above:
        return None
    found: list[str] = []
    i = span.line - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        text = lines[i].strip().lstrip("#").strip()
        if _SEPARATOR.match(text):
            break
        found.insert(0, text)
        i -= 1
    return _join(found) or None


def trailing_comment(decl, program: Program) -> str | None:
    """The comments at the ends of the lines a declaration is written on (a table row written
    over several lines may carry its remark on any of them), joined."""
    span = getattr(decl, "span", None)
    if span is None or span.line <= 0:
        return None
    lines = program.sources.get(span.file, "").split("\n")
    found = []
    for line in lines[span.line - 1 : max(span.line, span.end_line)]:
        code_part, comment = split_comment(line)
        if comment and code_part.strip():
            found.append(comment)
    return _join(found) or None


def _join(lines: list[str]) -> str:
    """Comment lines as one paragraph; a line starting a list item starts a new sentence."""
    out = ""
    for line in lines:
        if not line:
            continue
        if out and line.startswith("- "):
            out += "; " + line[2:]
        else:
            out += (" " if out else "") + line
    return out


def split_comment(line: str) -> tuple[str, str]:
    """A line's code and its comment (a `#` outside a string starts the comment)."""
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_string = not in_string
        elif ch == "#" and not in_string:
            return line[:i], line[i + 1 :].strip()
    return line, ""
