"""Variants as overlays: set, replace, add, remove, row edits, and errors for unknown names."""

from __future__ import annotations

import pytest

from dsl.errors import CheckProblem
from dsl.pipeline import compile_text, load_program
from interpreter.api import new_game

BASE = "tic-tac-toe"


def codes(text: str) -> list[str]:
    _, diagnostics, _ = load_program(text, "variant.knap")
    return [d.code for d in diagnostics]


def test_set_a_parameter():
    game = compile_text(
        f'''
variant "misere" extends "{BASE}" §rules
set marks = [o, x]
''',
        "misere.knap",
    )
    state = new_game(game, players=2, seed=0)
    state.apply(4)
    assert state.get("cell", 4) == "o"


def test_replace_and_add():
    game = compile_text(
        f'''
variant "first-move-wins" extends "{BASE}"
add var moves: int = 0
replace round max 5 {{
  for p in players {{
    let i = choose p from [c for c in range(0, 9) if cell[c] == empty]
    cell[i] = marks[p]
    moves += 1
    end game winners [p]
  }}
}}
''',
        "v.knap",
    )
    state = new_game(game, players=2, seed=0)
    state.apply(0)
    assert state.outcome()["winners"] == [0] and state.get("moves") == 1


def test_variant_of_a_variant_and_row_edits(tmp_path):
    base = tmp_path / "base.knap"
    base.write_text("""
ruleset "cards"
players 1
record card { value: int }
table deck_cards: card { a (1)  b (2) }
var total: int = 0
round max 1 {
  total = sum([item.value for item in rows(deck_cards)])
  end game winners [player(1)]
}
""")
    (tmp_path / "v1.knap").write_text(
        'variant "v1" extends "base.knap"\nadd row deck_cards c (4)\n'
    )
    (tmp_path / "v2.knap").write_text('variant "v2" extends "v1.knap"\nremove row deck_cards a\n')
    text = (tmp_path / "v2.knap").read_text()
    game = compile_text(text, str(tmp_path / "v2.knap"))
    assert new_game(game, seed=0).get("total") == 6


@pytest.mark.parametrize(
    "overlay, code",
    [
        ("set nothing = 1", "K105"),
        ("replace fn nope(): int = 1", "K106"),
        ("add enum mark { a }", "K107"),
        ("remove nothing", "K108"),
        ("replace param cell: int = 1", "K110"),
        ("add row nothing a (1)", "K111"),
    ],
)
def test_touching_unknown_names_is_an_error(overlay, code):
    assert code in codes(f'variant "v" extends "{BASE}"\n{overlay}\n')


def test_unknown_base_suggests_a_name():
    _, diagnostics, _ = load_program('variant "v" extends "tic-tac-tow"\n', "v.knap")
    assert diagnostics[0].code == "K104"
    assert "did you mean 'tic-tac-toe'" in diagnostics[0].hint


def test_overlay_in_a_plain_ruleset_is_refused():
    assert "K112" in codes('ruleset "r"\nplayers 1\nset x = 1\n')


def test_a_broken_variant_does_not_compile():
    with pytest.raises(CheckProblem):
        compile_text(f'variant "v" extends "{BASE}"\nset marks = 3\n', "v.knap")


def test_a_definition_changed_twice_in_one_variant_is_reported():
    diagnostics = load_program(
        f'variant "v" extends "{BASE}"\nset marks = [o, x]\nset marks = [x, o]\n', "v.knap"
    )[1]
    assert [d.code for d in diagnostics] == ["K114"]
    assert diagnostics[0].notes[0].span.line == 2


def test_interpretations_can_be_removed_and_replaced(tmp_path):
    base = tmp_path / "base.knap"
    base.write_text(
        'ruleset "b"\nplayers 1\ninterpretation reading §X "one way"\n'
        "round max 1 { end game winners [] }\n"
    )
    text = 'variant "v" extends "base.knap"\nremove interpretation reading\n'
    program, diagnostics, _ = load_program(text, str(tmp_path / "v.knap"))
    assert not diagnostics and "interpretation:reading" not in program.decls
    text = 'variant "v" extends "base.knap"\nreplace interpretation reading §Y "another way"\n'
    program, diagnostics, _ = load_program(text, str(tmp_path / "v.knap"))
    assert not diagnostics and program.decls["interpretation:reading"].text == "another way"


def test_a_library_imported_twice_is_merged_once(tmp_path):
    (tmp_path / "colours.knap").write_text('library "colours"\nenum colour { red, blue }\n')
    (tmp_path / "a.knap").write_text(
        'library "a"\nimport "colours.knap"\nparam first: colour = red\n'
    )
    (tmp_path / "b.knap").write_text(
        'library "b"\nimport "colours.knap"\nparam last: colour = blue\n'
    )
    text = (
        'ruleset "both"\nimport "a.knap"\nimport "b.knap"\nplayers 1\n'
        "round max 1 { end game winners [] }\n"
    )
    program, diagnostics, _ = load_program(text, str(tmp_path / "both.knap"))
    assert not diagnostics and {"colour", "first", "last"} <= set(program.decls)


def test_an_import_cycle_is_reported(tmp_path):
    (tmp_path / "a.knap").write_text('library "a"\nimport "b.knap"\n')
    (tmp_path / "b.knap").write_text('library "b"\nimport "a.knap"\n')
    text = 'ruleset "c"\nimport "a.knap"\nplayers 1\nround max 1 { end game winners [] }\n'
    assert "K103" in [d.code for d in load_program(text, str(tmp_path / "c.knap"))[1]]


def test_two_variants_of_one_base_combine(tmp_path):
    (tmp_path / "race.knap").write_text(
        'ruleset "race"\nplayers 2\nparam target: int = 10\nparam bonus: int = 0\n'
        "var total: int = 0\nround max 1 { total = target + bonus  end game winners [] }\n"
    )
    (tmp_path / "long.knap").write_text('variant "long" extends "race.knap"\nset target = 20\n')
    (tmp_path / "bonus.knap").write_text('variant "bonus" extends "race.knap"\nset bonus = 5\n')
    both = tmp_path / "both.knap"
    both.write_text('variant "both" extends "long.knap", "bonus.knap"\n')
    state = new_game(compile_text(both.read_text(), str(both)), players=2, seed=0)
    assert state.get("total") == 25  # the target of `long` and the bonus of `bonus`
    (tmp_path / "longer.knap").write_text('variant "longer" extends "race.knap"\nset target = 40\n')
    clash = tmp_path / "clash.knap"
    clash.write_text('variant "clash" extends "long.knap", "longer.knap"\n')
    with pytest.raises(CheckProblem) as err:
        compile_text(clash.read_text(), str(clash))
    assert [d.code for d in err.value.diagnostics] == ["K115"]
    # the same change made by both is no conflict
    same = tmp_path / "same.knap"
    same.write_text('variant "same" extends "long.knap", "long.knap"\n')
    assert new_game(compile_text(same.read_text(), str(same)), players=2, seed=0).get("total") == 20
    # the combining variant settles the conflict by changing the definition itself
    settled = tmp_path / "settled.knap"
    settled.write_text('variant "settled" extends "long.knap", "longer.knap"\nset target = 30\n')
    state = new_game(compile_text(settled.read_text(), str(settled)), players=2, seed=0)
    assert state.get("total") == 30


def test_a_scenario_of_n_combines_with_the_two_player_game(tmp_path):
    # §N's scenarios may be played on the two-player game of §C1. Both variants set the
    # portals to 6 (the same change, no conflict) and their own titles (settled here).
    combined = tmp_path / "hominids-2p.knap"
    combined.write_text(
        'variant "hominids-2p" extends "neanderthal-hominids", "neanderthal-2p" §N\n'
        'replace title "The Hominids, for two players"\n'
    )
    game = compile_text(combined.read_text(), str(combined))
    assert game.players == (2, 2) and game.title == "The Hominids, for two players"
    from interpreter.agents import RandomAgent, play_out

    for seed in range(3):
        state = new_game(game, players=2, seed=seed)
        play_out(state, RandomAgent(seed), check_invariants=True)
        assert state.is_over() and state.get("conversion_portals") == 6


def test_a_replacing_rule_calls_the_rule_it_replaces_with_base(tmp_path):
    (tmp_path / "b.knap").write_text(
        'ruleset "b"\nplayers 2\nvar n: int = 0\nvar doubled: int = 0\n'
        "proc gain(k: int) { n += k }\nfn double(x: int): int = 2 * x\n"
        "round max 1 { gain(3) doubled = double(5) end game winners [] }\n"
    )
    (tmp_path / "v.knap").write_text(
        'variant "v" extends "b.knap"\n'
        "replace proc gain(k: int) { base(k) n += 1 }\n"
        "replace fn double(x: int): int = base(x) + 1\n"
    )
    (tmp_path / "w.knap").write_text(
        'variant "w" extends "v.knap"\nreplace proc gain(k: int) { base(k) n += 100 }\n'
    )
    v = new_game(
        compile_text((tmp_path / "v.knap").read_text(), str(tmp_path / "v.knap")), 2, seed=0
    )
    assert v.get("n") == 4 and v.get("doubled") == 11
    # replaced again: each `base` is the rule just before
    w = new_game(
        compile_text((tmp_path / "w.knap").read_text(), str(tmp_path / "w.knap")), 2, seed=0
    )
    assert w.get("n") == 104
