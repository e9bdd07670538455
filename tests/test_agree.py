"""Joint decisions: `let x = agree ps from options max n` lets the players of `ps` decide
together. They propose in turn, the first of `ps` first; every other player of `ps` is asked
in order to accept or refuse, and the first refusal ends that proposal; after `n` refused
proposals the first player of `ps` decides alone (docs/language.md, "Joint decisions:
`agree`"). The Brink (§M2, §M3a) is written on it; its scenarios are in
tests/neanderthal/brink.scenario."""

from __future__ import annotations

import pytest

from dsl.errors import CheckProblem, RulesetRuntimeError
from dsl.pipeline import compile_text
from dsl.syntax import ast
from dsl.syntax.fmt import format_text
from dsl.syntax.parse import parse
from interpreter.agents import RandomAgent, play_out
from interpreter.api import new_game
from interpreter.save import dump_state, load_state

CAMP = """
ruleset "camp"
players 1..4

var camp: text = ""
var proposals: int = 0

round max 1 {
  let where = agree players from ["river", "cave", "hill"] max 3 as "where to camp"
  camp = where
  end game winners players
}
"""


def camp(text: str = CAMP):
    return compile_text(text, "camp.knap")


def run(state, answers):
    """Apply the answers; return (player, prompt) of each decision answered."""
    asked = []
    for answer in answers:
        decision = state.decision()
        asked.append((decision.player, state.game.sites[decision.site].prompt))
        state.apply(answer)
    return asked


def test_a_proposal_everyone_accepts_is_the_decision():
    state = new_game(camp(), players=3, seed=1)
    asked = run(state, ["cave", ["accept", "cave"], ["accept", "cave"]])
    assert [p for p, _ in asked] == [0, 1, 2]
    assert asked[0][1] == "propose: where to camp"
    assert asked[1][1] == "answer the proposal: where to camp"
    assert state.is_over() and state.get("camp") == "cave"


def test_the_answers_name_the_proposal():
    state = new_game(camp(), players=2, seed=1)
    state.apply("hill")
    assert list(state.decision().options) == [["accept", "hill"], ["refuse", "hill"]]


def test_a_refusal_ends_the_proposal_and_the_next_player_proposes():
    state = new_game(camp(), players=3, seed=1)
    # P1's river is refused by P2 (P3 is not asked); P2's cave is put to P1, then to P3
    asked = run(state, ["river", ["refuse", "river"], "cave", ["accept", "cave"]])
    assert [p for p, _ in asked] == [0, 1, 1, 0]
    assert state.decision().player == 2
    state.apply(["accept", "cave"])
    assert state.get("camp") == "cave"


def test_after_the_bound_the_first_player_decides_alone():
    state = new_game(camp(), players=2, seed=1)
    run(state, ["river", ["refuse", "river"], "cave", ["refuse", "cave"]])
    run(state, ["hill", ["refuse", "hill"]])
    decision = state.decision()
    assert decision.player == 0
    assert state.game.sites[decision.site].prompt == "no agreement, decide alone: where to camp"
    state.apply("hill")
    assert state.get("camp") == "hill"


def test_one_player_or_one_option_asks_nobody_else():
    state = new_game(camp(), players=1, seed=1)
    run(state, ["hill"])
    assert state.is_over() and state.get("camp") == "hill"
    single = camp(CAMP.replace('["river", "cave", "hill"]', '["cave"]'))
    state = new_game(single, players=3, seed=1)
    assert state.is_over() and state.get("camp") == "cave"


def test_an_empty_group_is_a_fault():
    empty = camp(CAMP.replace("agree players", "agree [p for p in players if false]"))
    with pytest.raises(RulesetRuntimeError) as fault:
        new_game(empty, players=2, seed=1)
    assert fault.value.code == "K402"


def test_a_save_in_the_middle_of_an_agreement_plays_on_identically():
    game = camp()
    state = new_game(game, players=3, seed=4)
    run(state, ["river", ["refuse", "river"]])
    again = load_state(dump_state(state), game)
    assert again.decision() == state.decision()
    for s in (state, again):
        run(s, ["hill", ["accept", "hill"], ["accept", "hill"]])
    assert dump_state(state) == dump_state(again)
    assert state.get("camp") == "hill"


def test_random_play_always_ends_within_the_bound():
    game = camp()
    for seed in range(30):
        state = new_game(game, players=4, seed=seed)
        play_out(state, RandomAgent(seed=seed))
        assert state.is_over() and state.get("camp") in ("river", "cave", "hill")


def test_the_group_must_be_a_list_of_players():
    with pytest.raises(CheckProblem) as problem:
        camp(CAMP.replace("agree players", "agree [1, 2]"))
    assert [d.code for d in problem.value.diagnostics] == ["K204"]


def test_fmt_writes_the_agreement_back_as_it_parses():
    tree = parse(CAMP, "camp.knap")
    text = format_text(CAMP, "camp.knap")
    assert (
        'let where = agree players from ["river", "cave", "hill"] max 3 as "where to camp"' in text
    )
    assert parse(text, "camp.knap") == tree
    (round_,) = [i for i in tree.items if isinstance(i, ast.Round)]
    (agree,) = [s for s in round_.body.stmts if isinstance(s, ast.Agree)]
    assert (agree.name, agree.max) == ("where", 3)
