"""`knapper diff`: what each bundled variant changes in its base, as expect-tests.

The expected outputs are tests/diffs/<variant>.txt; `python tests/diffs/regen.py` rewrites
them. Review the diff of those files: a change there is a change in what a variant does.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from click.testing import CliRunner

from dsl.pipeline import load_program
from dsl.semantics.resolve import bundled_names, find_ruleset
from interpreter.frontends.cli import main

EXPECTED = Path(__file__).resolve().parent / "diffs"


@functools.cache
def variants() -> list[tuple[str, str]]:
    """Every bundled variant, with the ruleset it extends directly."""
    pairs = []
    for name in bundled_names():
        path = find_ruleset(name)
        assert path is not None
        program, _, _ = load_program(path.read_text(encoding="utf-8"), str(path))
        if program is not None and program.kind == "variant":
            pairs.append((program.extends[0], name))
    return pairs


@functools.cache
def diff_output(base: str, variant: str) -> str:
    result = CliRunner().invoke(main, ["diff", base, variant])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(("base", "variant"), variants(), ids=[v for _, v in variants()])
def test_diff_matches_expected(base, variant):
    path = EXPECTED / f"{variant}.txt"
    assert path.exists(), f"no expected diff for {variant}: run python tests/diffs/regen.py"
    assert diff_output(base, variant) == path.read_text(encoding="utf-8")


def test_every_change_cites_a_section():
    for base, variant in variants():
        for line in diff_output(base, variant).splitlines()[1:-1]:
            assert line.strip().startswith("§"), f"{variant}: {line}"


def test_neanderthal_2p_in_rulebook_terms():
    out = diff_output("neanderthal", "neanderthal-2p")
    assert "§C1      portals_for_tribalism: 6 instead of 5" in out
    assert "§C1      players: 2 instead of 3" in out


def test_diff_of_an_unknown_ruleset_is_a_clear_error():
    result = CliRunner().invoke(main, ["diff", "neanderthal", "neanderthel-2p"])
    assert result.exit_code == 1
    assert "K100" in result.output and "neanderthal-2p" in result.output


def _pair(tmp_path, replacing: str) -> str:
    (tmp_path / "base.knap").write_text(
        'ruleset "base"\nplayers 2\n\nvar total: int = 0\n\n'
        "# Adds one point each round.\nproc gain() §G1 {\n  total += 1\n}\n\n"
        "round max 3 §G1 {\n  gain()\n  end game winners []\n}\n",
        encoding="utf-8",
    )
    variant = tmp_path / "variant.knap"
    variant.write_text(f'variant "variant" extends "base.knap"\n\n{replacing}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["diff", str(tmp_path / "base.knap"), str(variant)])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_replacing_rule_without_a_comment_does_not_borrow_the_base_comment(tmp_path):
    out = _pair(tmp_path, "replace proc gain() §G2 {\n  total += 2\n}")
    assert "replaces proc gain (was §G1)" in out
    assert "Adds one point" not in out


def test_a_replacing_rule_shows_its_own_comment(tmp_path):
    out = _pair(
        tmp_path, "# Adds two points each round.\nreplace proc gain() §G2 {\n  total += 2\n}"
    )
    assert "replaces proc gain (was §G1): Adds two points each round." in out
    assert "Adds one point" not in out


MARKED_BASE = """ruleset "base"
players 2

record face { points: int }

table faces: face §F1 {
  low (1)
  high (2) reconstructed
  top (3) reconstructed "ours"
}

map land §M1 {
  node a
  node b
  a -- b
}

var total: int = 0
var at: land = a

round max 3 §G1 {
  total += sum([f.points for f in rows(faces)])
  at = b
  end game winners []
}
"""


def _marked_pair(tmp_path, overlays: str) -> str:
    (tmp_path / "base.knap").write_text(MARKED_BASE, encoding="utf-8")
    variant = tmp_path / "variant.knap"
    variant.write_text(f'variant "variant" extends "base.knap"\n\n{overlays}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["diff", str(tmp_path / "base.knap"), str(variant)])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_row_whose_only_change_is_the_reconstructed_marker_shows_it(tmp_path):
    out = _marked_pair(
        tmp_path,
        'replace table faces: face §F1 {\n  low (1) reconstructed "the book prints no faces"\n'
        '  high (2)\n  top (3) reconstructed "ours, from §F2"\n}\n'
        "add row faces extra (4) reconstructed",
    )
    assert 'table faces: row low becomes low (1) reconstructed "the book prints no faces"' in out
    assert "table faces: row high becomes high (2), no longer marked reconstructed" in out
    assert 'table faces: row top becomes top (3) reconstructed "ours, from §F2"' in out
    assert "table faces: adds row extra (4) reconstructed" in out


def test_a_map_whose_marker_changes_says_so(tmp_path):
    marked = _marked_pair(
        tmp_path,
        'replace map land §M1 reconstructed "the board is ours" {\n  node a\n  node b\n  a -- b\n}',
    )
    assert 'replaces map land reconstructed "the board is ours"' in marked
    (tmp_path / "base.knap").write_text(
        MARKED_BASE.replace("map land §M1 {", 'map land §M1 reconstructed "ours" {'),
        encoding="utf-8",
    )
    variant = tmp_path / "variant.knap"
    variant.write_text(
        'variant "variant" extends "base.knap"\n\n'
        "replace map land §M1 {\n  node a\n  node b\n  a -- b\n}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["diff", str(tmp_path / "base.knap"), str(variant)])
    assert result.exit_code == 0, result.output
    assert "replaces map land, no longer marked reconstructed" in result.output
