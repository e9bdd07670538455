"""What a finished game says of each player: `score(p)`, `role(p)` and `result(p)`
(docs/language.md, "Roles and named results"). K204 for a role that is not an enum value
or a row is in tests/diagnostics/86-*."""

from __future__ import annotations

import random

from dsl.pipeline import compile_text
from interpreter.api import load, new_game

EXPEDITION = """
ruleset "expedition"
players 2..3

enum side { guide "Guide", climber "Climber" }
record level { height: int }
table levels: level {
  base_camp "Base camp" (1)
  summit "Summit" (3)
}
var height: int = 0

round max 1 {
  let h = choose player(1) from [0, 1, 3] as "how high"
  height = h
  end game winners (if height >= 3 then players else [player(1)])
}

score(p) = height
role(p) = if p == player(1) then guide else climber
result(p) = if height >= 3 then summit else if height >= 1 then base_camp else none
"""


def finished(height: int, players: int = 3) -> dict:
    state = new_game(compile_text(EXPEDITION, "expedition.knap"), players=players, seed=0)
    state.apply(height)
    assert state.is_over()
    outcome = state.outcome()
    assert outcome is not None
    return outcome


def test_the_outcome_reports_each_role_with_its_seats_and_whether_it_won():
    outcome = finished(1)
    assert outcome["winners"] == [0]
    assert outcome["roles"] == {
        "guide": {"seats": [0], "won": True},
        "climber": {"seats": [1, 2], "won": False},
    }
    assert finished(3)["roles"]["climber"] == {"seats": [1, 2], "won": True}


def test_the_outcome_names_each_seats_result():
    assert finished(3)["results"] == ["summit", "summit", "summit"]
    assert finished(1)["results"] == ["base_camp"] * 3
    assert finished(0, players=2)["results"] == [None, None]
    assert finished(3)["scores"] == [3, 3, 3]


def test_without_role_or_result_the_outcome_is_as_before():
    text = EXPEDITION.split("role(p)")[0]
    state = new_game(compile_text(text, "plain.knap"), players=2, seed=0)
    state.apply(3)
    assert set(state.outcome()) == {"winners", "scores", "decisions", "rounds"}


def test_aurignac_reports_mother_nature_against_the_tribes():
    game = load("aurignac")
    state = new_game(game, players=3, seed=2)
    agent = random.Random(2)
    while not state.is_over():
        state.apply(agent.choice(state.decision().options))
    outcome = state.outcome()
    roles = outcome["roles"]
    assert set(roles) <= {"mother_nature", "neanderthal", "sapiens"}
    assert len(roles["mother_nature"]["seats"]) == 1
    assert sorted(s for r in roles.values() for s in r["seats"]) == [0, 1, 2]
    for role in roles.values():
        assert role["won"] == any(s in outcome["winners"] for s in role["seats"])


def test_the_solo_game_names_its_success_level():
    game = load("aurignac-solo")
    levels = set()
    for seed in range(6):
        state = new_game(game, players=1, seed=seed)
        agent = random.Random(seed)
        while not state.is_over():
            state.apply(agent.choice(state.decision().options))
        outcome = state.outcome()
        (result,) = outcome["results"]
        assert result in (None, "survival", "stagnation", "growth", "evolution")
        # the named level and the score (its rank) agree
        assert (result is None) == (outcome["scores"][0] == 0)
        levels.add(result)
    assert None in levels
