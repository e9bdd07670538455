"""Rules read rows; they seldom name them.

What is printed on a component belongs on its row (its effects, conditions, measures,
perks), so a rule that tests `c == some_card` is a card's text written as code. This counts,
over every bundled ruleset, the places where rule code names a table row: declarations of
data (tables, records, maps, zones, variables, parameters) and invariants and notes (which
state facts about named components) are not rule code. Each place is counted once, however
many rulesets share its file.
"""

from __future__ import annotations

from collections import Counter

from dsl.errors import read_source
from dsl.pipeline import check_text
from dsl.semantics.resolve import bundled_names, find_ruleset
from dsl.syntax import ast

NOT_RULES = (
    ast.Table,
    ast.Record,
    ast.Enum,
    ast.Map,
    ast.Zone,
    ast.Var,
    ast.Param,
    ast.Invariant,
    ast.Note,
)
# Each remaining mention is a rule the book states about that named component (the
# rulesets say which in a comment on the line).
LIMIT = 40


def row_mentions() -> dict[tuple[str, int, int], str]:
    found: dict[tuple[str, int, int], str] = {}
    for name in bundled_names():
        path = find_ruleset(name)
        assert path is not None
        checked, _, _ = check_text(read_source(path), str(path))
        assert checked is not None, name
        kind = checked.symbols.kind
        for decl in checked.program.decls.values():
            if isinstance(decl, NOT_RULES):
                continue
            for node in ast.walk(decl):
                if isinstance(node, ast.NameRef) and kind.get(node.name) == "row":
                    found[(node.span.file, node.span.line, node.span.col)] = node.name
    return found


def test_rule_code_names_few_rows():
    found = row_mentions()
    by_file = Counter(file for file, _, _ in found)
    listing = "\n".join(
        f"{file}:{line}:{col}: {name}" for (file, line, col), name in sorted(found.items())
    )
    assert len(found) < LIMIT, f"{len(found)} row mentions ({dict(by_file)}):\n{listing}"


def test_the_count_sees_a_row_named_in_a_rule():
    checked, _, _ = check_text(
        'ruleset "named"\nplayers 2\nrecord r_t { n: int }\ntable rs: r_t { a (1)  b (2) }\n'
        "var x: int = 0\ninvariant about_a: a.n == 1\n"
        "round max 1 {\n  x = if player(1) == player(1) then a.n else b.n\n"
        "  end game winners []\n}\n",
        "named.knap",
    )
    assert checked is not None
    kind = checked.symbols.kind
    named = [
        n.name
        for d in checked.program.decls.values()
        if not isinstance(d, NOT_RULES)
        for n in ast.walk(d)
        if isinstance(n, ast.NameRef) and kind.get(n.name) == "row"
    ]
    assert named == ["a", "b"]
