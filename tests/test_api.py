"""The interpreter's contract: decisions, atomic apply with typed errors, outcome, scripted dice."""

from __future__ import annotations

import attrs
import pytest

from dsl.errors import IllegalMove, KnapperError, RulesetRuntimeError
from dsl.pipeline import compile_text
from interpreter.api import load, new_game
from interpreter.save import dump_state


def test_illegal_option_is_refused_and_state_is_unchanged():
    state = new_game(load("tic-tac-toe"), players=2, seed=3)
    before = dump_state(state)
    with pytest.raises(IllegalMove) as err:
        state.apply(42)
    assert err.value.code == "K502"
    assert "not one of the options" in err.value.render()
    assert dump_state(state) == before


def test_apply_after_the_end_is_refused():
    state = new_game(load("tic-tac-toe"), players=2, seed=3)
    while not state.is_over():
        state.apply(state.decision().options[0])
    with pytest.raises(IllegalMove) as err:
        state.apply(0)
    assert err.value.code == "K501"


def test_decision_names_player_prompt_and_citation():
    state = new_game(load("tic-tac-toe"), players=2, seed=0)
    decision = state.decision()
    assert decision.player == 0
    assert decision.prompt == "place your mark"
    assert decision.cite == "rules"
    assert list(decision.options) == list(range(9))


def test_wrong_player_count_is_a_clear_error():
    with pytest.raises(KnapperError) as err:
        new_game(load("tic-tac-toe"), players=3, seed=0)
    assert err.value.code == "K503"


def test_unknown_ruleset_suggests_a_name():
    with pytest.raises(KnapperError) as err:
        load("tic-tac-tow")
    assert "did you mean 'tic-tac-toe'" in err.value.render()


DICE_GAME = """
ruleset "dice"
players 1
var total: int = 0
round max 1 {
  total = sum(roll 3d6)
  end game winners [player(1)]
}
"""


def test_scripted_dice_come_first_then_the_seeded_rng():
    game = compile_text(DICE_GAME, "dice.knap")
    assert new_game(game, seed=1, dice=[6, 6, 6]).get("total") == 18
    a, b = new_game(game, seed=7), new_game(game, seed=7)
    assert a.get("total") == b.get("total")
    totals = {new_game(game, seed=s).get("total") for s in range(50)}
    assert len(totals) > 5 and all(3 <= t <= 18 for t in totals)


def test_scripted_die_out_of_range_is_a_runtime_error_with_a_place():
    game = compile_text(DICE_GAME, "dice.knap")
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(game, dice=[7], seed=0)
    assert err.value.code == "K406"
    assert "dice.knap:6:" in err.value.render()


def test_a_loop_past_its_bound_stops_with_an_error():
    game = compile_text(
        """
ruleset "loop"
players 1
var n: int = 0
round max 1 {
  while true max 5 { n += 1 }
}
""",
        "loop.knap",
    )
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(game, seed=0)
    assert err.value.code == "K405"


def test_a_decision_without_options_is_a_runtime_error():
    game = compile_text(
        """
ruleset "empty"
players 2
round max 1 {
  let x = choose player(1) from [] as "nothing to choose"
}
""",
        "empty.knap",
    )
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(game, players=2, seed=0)
    assert err.value.code == "K402"


def test_a_single_option_is_applied_without_asking():
    game = compile_text(
        """
ruleset "one"
players 2
var picked: int = 0
round max 1 {
  let x = choose player(1) from [7] as "only one"
  picked = x
  end game winners []
}
""",
        "one.knap",
    )
    state = new_game(game, players=2, seed=0)
    assert state.is_over() and state.get("picked") == 7 and state.decisions == 0


def test_ask_puts_a_single_option_to_the_player():
    game = compile_text(
        """
ruleset "one"
players 2
var picked: int = 0
round max 1 {
  let x = ask player(2) from [7] as "asked anyway"
  picked = x
  end game winners []
}
""",
        "one.knap",
    )
    state = new_game(game, players=2, seed=0)
    decision = state.decision()
    assert decision.player == 1 and decision.options == (7,) and decision.prompt == "asked anyway"
    state.apply(7)
    assert state.is_over() and state.get("picked") == 7 and state.decisions == 1


def test_outcome_reports_winners_and_scores():
    state = new_game(load("pig"), players=3, seed=2)
    while not state.is_over():
        state.apply(state.decision().options[0] if state.decisions % 3 else "hold")
    outcome = state.outcome()
    assert set(outcome) >= {"winners", "scores", "decisions", "rounds"}
    assert len(outcome["scores"]) == 3


def test_load_recompiles_when_the_file_changes(tmp_path):
    import os

    path = tmp_path / "game.knap"
    path.write_text('ruleset "g"\ntitle "First"\nplayers 1\nround max 1 { end game winners [] }\n')
    first = load(str(path))
    assert load(str(path)) is first
    path.write_text(path.read_text().replace("First", "Second"))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert load(str(path)).title == "Second"


def test_a_broken_invariant_is_reported_with_its_name_and_place():
    game = compile_text(
        """
ruleset "leaky"
players 2
var tokens: int = 3
invariant conserved §X: tokens == 3
round max 1 {
  let n = choose player(1) from [0, 1] as "how many to lose"
  tokens -= n
  end game winners []
}
""",
        "leaky.knap",
    )
    state = new_game(game, players=2, seed=0)
    assert state.check_invariants() == []
    state.apply(1)
    (broken,) = state.check_invariants()
    assert broken.code == "K601" and "conserved" in broken.message
    assert broken.span.line == 5 and broken.cite == "X"


def test_derived_values_can_be_evaluated_by_front_ends():
    state = new_game(load("tic-tac-toe"), players=2, seed=0)
    assert state.call("wins", "x") is False
    for cell in (0, 3, 1, 4):
        state.apply(cell)
    state.apply(2)  # x completes the top row
    assert state.call("wins", "x") is True
    with pytest.raises(KnapperError) as err:
        state.call("win")
    assert err.value.code == "K504" and "did you mean 'wins'" in err.value.render()


def test_a_setup_without_dice_is_played_once_and_copied_for_each_game():
    game = compile_text(
        'ruleset "prep"\nplayers 2\nvar n: int = 0\n'
        "round max 3 { n += 1\n let x = choose player(1) from [1, 2]\n n += x }\n"
    )
    first = new_game(game, players=2, seed=1)
    assert set(game.prepared) == {2}
    second = new_game(game, players=2, seed=2)
    assert dump_state(second) == dump_state(new_game(game, players=2, seed=2, dice=[]))
    first.apply(2)  # the copies share nothing with each other or with the kept state
    assert second.g != first.g and game.prepared[2].g == second.g
    assert (second.seed, first.seed) == (2, 1) and second.rng != first.rng
    # a copy of the game (a coverage probe's, with other code) keeps a setup of its own
    probe = attrs.evolve(game, code=game.code)
    assert not probe.prepared and new_game(probe, players=2, seed=3).game is probe


def test_a_setup_that_rolls_is_played_again_for_each_game():
    rolled = compile_text(
        'ruleset "roll"\nplayers 2\nvar n: int = 0\n'
        "round max 3 { let r = roll 1d6\n n += r\n"
        " let x = choose player(1) from [1, 2]\n n += x }\n"
    )
    a, b = new_game(rolled, players=2, seed=1), new_game(rolled, players=2, seed=2)
    assert not rolled.prepared
    assert dump_state(a) == dump_state(new_game(rolled, players=2, seed=1, dice=[]))
    assert b.rng != a.rng
