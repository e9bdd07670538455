"""mkdocs hook: numbers in the docs computed from the rulesets, not written by hand.

A page may say `{{ aurignac: len(rows(foundation_tiles)) }}`: the placeholder becomes the
value of that Knapper expression in the bundled ruleset named before the colon, evaluated
once the ruleset's setup has run (the fewest players, seed 0), so it sees the tables,
parameters and functions the rules see. `{{ aurignac: notes(interpretation) }}` counts the
ruleset's notes of one kind (`interpretation`, `deviation`, `contradiction`). A list prints
as its items joined by commas. A placeholder that does not evaluate stops the build; one in
`code` or a fenced block is shown as written.

Registered in mkdocs.yml under `hooks:`; tests/test_docs_examples.py evaluates every
placeholder of docs/*.md the same way.
"""

from __future__ import annotations

import functools
import re

PLACEHOLDER = re.compile(r"\{\{\s*([a-z0-9][a-z0-9_\-]*)\s*:\s*(.+?)\s*\}\}")
_CODE = re.compile(r"^```.*?^```|`[^`\n]*`", re.MULTILINE | re.DOTALL)
_NOTES = re.compile(r"notes\((interpretation|deviation|contradiction)\)\Z")


@functools.cache
def _values(ruleset: str, exprs: tuple[str, ...]) -> tuple[str, ...]:
    from dsl.errors import read_source
    from dsl.pipeline import compile_text, load_program
    from dsl.semantics.resolve import find_ruleset
    from dsl.syntax import ast
    from interpreter.api import new_game

    path = find_ruleset(ruleset)
    if path is None:
        raise ValueError(f"no bundled ruleset {ruleset!r}")
    program, diagnostics, _ = load_program(read_source(path), str(path))
    if program is None:
        raise ValueError(f"{ruleset} does not load: {diagnostics}")
    kinds = [note.kind for note in program.get(ast.Note)]
    # each expression becomes a function of a variant of the ruleset, called once set up
    fns = [f"add fn docs_value_{i}() = {e}" for i, e in enumerate(exprs) if not _NOTES.match(e)]
    state = None
    if fns:
        text = "\n".join([f'variant "docs-values" extends "{ruleset}"', *fns, ""])
        state = new_game(compile_text(text, "docs-values.knap"), seed=0)
    out = []
    for i, expr in enumerate(exprs):
        counted = _NOTES.match(expr)
        if counted:
            out.append(str(kinds.count(counted.group(1))))
        else:
            assert state is not None
            out.append(_shown(state.call(f"docs_value_{i}")))
    return tuple(out)


def _shown(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_shown(v) for v in value)
    return str(value)


def _prose(markdown: str) -> list[tuple[int, int]]:
    """The stretches of a page outside code, as (start, end)."""
    spans, at = [], 0
    for code in _CODE.finditer(markdown):
        spans.append((at, code.start()))
        at = code.end()
    return spans + [(at, len(markdown))]


def placeholders(markdown: str) -> list[tuple[str, str]]:
    """(ruleset, expression) of every placeholder outside code, in page order."""
    return [p for a, b in _prose(markdown) for p in PLACEHOLDER.findall(markdown[a:b])]


def render(markdown: str) -> str:
    """The page with every placeholder outside code replaced by its value."""
    found = placeholders(markdown)
    by_ruleset: dict[str, list[str]] = {}
    for ruleset, expr in found:
        by_ruleset.setdefault(ruleset, []).append(expr)
    values = {}
    for ruleset, exprs in by_ruleset.items():
        unique = tuple(dict.fromkeys(exprs))
        values.update(zip(((ruleset, e) for e in unique), _values(ruleset, unique)))
    out, at = [], 0
    for a, b in _prose(markdown):
        out.append(markdown[at:a])  # the code before this stretch of prose, as written
        out.append(PLACEHOLDER.sub(lambda m: values[(m[1], m[2])], markdown[a:b]))
        at = b
    return "".join(out)


def on_page_markdown(markdown: str, page, config, files) -> str:
    return render(markdown)
