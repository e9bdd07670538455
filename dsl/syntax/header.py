"""What a ruleset says of itself at the top level, read without parsing the whole file: its
kind and name, the rulesets it extends, its title and its player counts.

`knapper list` and the index of bundled rulesets need only these, and reading them is a
scan of the file's lines: the header is the first line that is not a comment or blank, and
`title`, `players`, `replace title` and `replace players` are declarations that start a line
(tests/test_header.py holds the scan to the compiled game for every bundled ruleset).
"""

from __future__ import annotations

import re

import attrs

_HEADER = re.compile(r'\s*(ruleset|variant|library)\s+"([^"\n]*)"(.*)')
_EXTENDS = re.compile(r'\s*extends\s+((?:"[^"]*"\s*,?\s*)+)')
_TITLE = re.compile(r'(?:replace\s+)?title\s+"([^"\n]*)"')  # a string has no escapes
_PLAYERS = re.compile(r"(?:replace\s+)?players\s+(\d+)(?:\s*\.\.\s*(\d+))?(?![\w.])")


@attrs.frozen
class Header:
    kind: str  # ruleset, variant or library
    name: str
    extends: tuple[str, ...] = ()  # the rulesets a variant extends, first the base
    title: str | None = None  # its own `title` (or `replace title`), if it declares one
    players: tuple[int, int] | None = None  # likewise for `players`


def read_header(text: str) -> Header | None:
    """The header of a ruleset or library, or None when the text does not start with one."""
    lines = iter(text.splitlines())
    found = None
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        found = _HEADER.match(line)
        break
    if found is None:
        return None
    kind, name, rest = found.groups()
    extends = _EXTENDS.match(rest)
    bases = tuple(re.findall(r'"([^"]*)"', extends.group(1))) if extends else ()
    title, players = None, None
    for line in lines:
        if line[:1].isspace():  # a declaration starts a line; anything indented is inside one
            continue
        if title is None and (m := _TITLE.match(line)):
            title = m.group(1)
        elif players is None and (m := _PLAYERS.match(line)):
            lo = int(m.group(1))
            players = (lo, int(m.group(2)) if m.group(2) else lo)
    return Header(kind, name, bases, title, players)
