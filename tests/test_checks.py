"""Checker behaviour beyond single diagnostics: warnings, and what a declared reading quiets."""

from __future__ import annotations

from dsl.pipeline import load_program

GAP = """
ruleset "gap"
players 1
record outcome {{ gain: int }}
table events: outcome roll 1d6 §EVENTS {{
  1-2 poor (0)
  4-6 good (2)
}}
{note}
round max 1 {{ end game winners [] }}
"""


def codes(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.severity) for d in load_program(text, "gap.knap")[1]]


def test_an_uncovered_roll_is_a_warning():
    assert codes(GAP.format(note="")) == [("K240", "warning")]


def test_an_interpretation_of_the_tables_section_explains_the_gap():
    note = 'interpretation roll_of_three §EVENTS "a 3 is rolled again"'
    assert codes(GAP.format(note=note)) == []


def test_an_interpretation_of_another_section_does_not():
    note = 'interpretation elsewhere §SETUP "unrelated"'
    assert codes(GAP.format(note=note)) == [("K240", "warning")]


def test_overlapping_rows_are_a_warning():
    text = GAP.format(note="").replace("4-6 good", "2-6 good")
    assert ("K241", "warning") in codes(text)


def test_a_library_checks_on_its_own():
    text = 'library "lib"\nenum colour { red, blue }\nfn first_colour(): colour = red\n'
    assert codes(text) == []
