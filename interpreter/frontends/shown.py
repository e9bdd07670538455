"""Front-ends: text a ruleset wrote (its name, its title, a row's name), made safe to print.

A ruleset from a stranger may put terminal control sequences (ANSI escapes, a carriage
return that overwrites the line) or rich markup (`[bold]`, `[link=...]`) in its names. At a
terminal such text is shown as written: `plain` drops every control character and escape
sequence, and `literal` also escapes rich markup, for text handed to rich.
"""

from __future__ import annotations

import re

# CSI (`ESC [ ... final`), OSC (`ESC ] ... BEL` or `ESC ] ... ESC \`) and two-byte escapes
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")
# C0 and C1 controls, DEL, and the bidirectional overrides that reorder what is shown
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def plain(text: object) -> str:
    """`text` without control characters or escape sequences."""
    return _CONTROLS.sub("", _ESCAPES.sub("", str(text)))


def literal(text: object) -> str:
    """`text` for rich: without controls, and with its markup escaped, so `[bold]` prints
    as those seven characters."""
    from rich.markup import escape

    return escape(plain(text))
