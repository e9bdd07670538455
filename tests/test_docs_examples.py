"""Every ```knap block in docs/*.md is a complete ruleset that parses.

Documentation examples are the language reference's evidence, so each one is
parsed exactly as written. For now the parser is Lark on the grammar file; when
``dsl.parse`` exists, ``_parse`` switches to it and nothing else here changes.
"""

import re
from functools import cache
from pathlib import Path

import lark
import pytest

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = ROOT / "grammar" / "knapper.lark"
DOCS = ROOT / "docs"

# A fence opens with ```knap alone on its line and closes with ``` alone on its line.
_BLOCK = re.compile(r"^```knap[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def _examples() -> list[tuple[str, int, str]]:
    """(file name, line of the opening fence, block text) for every knap block."""
    found = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((path.name, line, match.group(1)))
    return found


@cache
def _parser() -> lark.Lark:
    return lark.Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", strict=True)


def _parse(text: str) -> None:
    _parser().parse(text)


EXAMPLES = _examples()


def test_docs_have_examples() -> None:
    assert EXAMPLES, f"no ```knap blocks found under {DOCS}"


@pytest.mark.parametrize(
    ("name", "line", "text"),
    EXAMPLES,
    ids=[f"{name}:{line}" for name, line, _ in EXAMPLES],
)
def test_example_parses(name: str, line: int, text: str) -> None:
    assert text.lstrip().startswith("ruleset "), (
        f'{name}:{line}: an example must be a whole ruleset file starting with `ruleset "..."`'
    )
    try:
        _parse(text)
    except lark.exceptions.LarkError as error:
        pytest.fail(f"{name}:{line}: example does not parse:\n{error}")
