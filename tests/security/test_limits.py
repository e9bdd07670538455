"""Size limits of `knapper check`: declarations and files too large or too deep to run are
refused with a K25x error at their place, never a MemoryError or a RecursionError."""

from __future__ import annotations

import pytest

from dsl.errors import CheckProblem, KnapperError, SyntaxProblem
from dsl.pipeline import check_text, compile_text
from interpreter.api import new_game

RULES = """ruleset "limits"
players {players}
var x: int = 2
{decls}
round max 1 {{
{body}
  end game winners []
}}
"""


def compile_with(decls: str = "", body: str = "  x = 1", players: str = "2"):
    return compile_text(RULES.format(decls=decls, body=body, players=players), "limits.knap")


CASES = {
    "players": (dict(players="1..1000000000"), "K254", 2),
    "key range": (dict(decls="var k[0..1000000000]: int = 0"), "K255", 4),
    "keyed cells": (dict(decls="var k[player, 0..5000, 0..5000]: int = 0"), "K256", 4),
    "row zone": (dict(decls="zone z: row 1000000000 of int"), "K257", 4),
    "row copies": (
        dict(decls="record r { a: int }\ntable t: r { a (1) x 1000000000 }"),
        "K258",
        5,
    ),
    "literal dice": (dict(body="  x = sum(roll 1000000000d6)"), "K259", 6),
    "table dice": (dict(decls="record r { a: int }\ntable t: r roll 1000d1000 { }"), "K259", 5),
    "integer literal": (dict(body="  x = 10000000000000000000000"), "K252", 6),
    "huge literal": (dict(body="  x = " + "9" * 5000), "K252", 6),
    "nested brackets": (dict(body="  x = " + "(1 + " * 1000 + "1" + ")" * 1000), "K251", 6),
    "nested minus": (dict(body="  x = " + "-" * 1000 + "1"), "K251", 6),
    "long chain": (dict(body="  x = " + " + ".join(["1"] * 1000)), "K251", 6),
    "nested ifs": (dict(body="  " + "if true { " * 1000 + "x = 1" + " }" * 1000), "K251", 6),
    "nested loops": (
        dict(body="  " + "repeat 1 { " * 17 + "x = 1" + " }" * 17),
        "K253",
        6,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_oversized_declarations_are_refused_at_their_place(name):
    kw, code, line = CASES[name]
    with pytest.raises(KnapperError) as caught:
        compile_with(**kw)
    err = caught.value
    assert isinstance(err, (CheckProblem, SyntaxProblem))
    assert err.code == code
    assert err.diagnostics[0].span.file == "limits.knap"
    assert err.diagnostics[0].span.line == line


def test_the_largest_sizes_allowed_compile_and_run():
    game = compile_with(
        decls="var k[0..9999]: int = 0\nzone z: row 10000 of int\n"
        "record r { a: int }\ntable t: r { a (1) x 10000 }",
        body="  " + "repeat 1 { " * 16 + "x = 1" + " }" * 16,
        players="1..64",
    )
    assert new_game(game, players=64, seed=0).is_over()


def test_a_file_past_the_size_limit_is_refused_at_once():
    text = RULES.format(decls="# " + "x" * 300_000, body="  x = 1", players="2")
    checked, diagnostics, _ = check_text(text, "big.knap")
    assert checked is None
    assert [d.code for d in diagnostics] == ["K250"]


def test_a_check_that_runs_out_of_stack_is_a_k260(monkeypatch):
    from dsl.semantics import check

    def too_deep(program):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("dsl.pipeline.check_program", too_deep)
    assert check.check_program is not too_deep
    with pytest.raises(CheckProblem) as caught:
        compile_with()
    assert caught.value.code == "K260"
