"""Zones and pools: decks draw from the top, rows keep their slots, pools count per kind."""

from __future__ import annotations

import pytest

from dsl.errors import RulesetRuntimeError
from dsl.pipeline import compile_text
from interpreter.api import new_game

GAME = """
ruleset "zones"
players 2
enum colour {{ orange, white, black }}
record card {{ v: int }}
table cards: card {{ a (1)  b (2)  c (3)  d (4) }}
zone deck: deck of card
zone river: row 3 of card
zone rows[player]: row 2 of card
zone hand[player]: hand of card
pool disks[player] of colour = 5
round max 1 {{
  for k in rows(cards) {{ add k to deck }}
  {body}
  end game winners []
}}
"""


def play(body: str):
    return new_game(compile_text(GAME.format(body=body), "zones.knap"), players=2, seed=0)


def test_draw_takes_from_the_top_and_fills_row_gaps():
    state = play(
        "draw 2 from deck to river\nmove a from river to hand[player(1)]\ndraw 1 from deck to river"
    )
    assert state.get("deck") == ["d"]
    assert state.get("river") == ["c", "b", None]
    assert state.get("hand", 0) == ["a"]


def test_a_row_slot_can_be_named():
    state = play("draw 1 from deck to rows[player(2), 1]\nmove b from deck to river[2]")
    assert state.get("rows", 1) == [None, "a"]
    assert state.get("river") == [None, None, "b"]
    assert state.get("deck") == ["c", "d"]


def test_a_taken_slot_and_a_full_row_are_errors():
    with pytest.raises(RulesetRuntimeError) as err:
        play("move a from deck to river[0]\nmove b from deck to river[0]")
    assert err.value.code == "K413"
    with pytest.raises(RulesetRuntimeError) as err:
        play("draw 2 from deck to rows[player(1)]\ndraw 1 from deck to rows[player(1)]")
    assert err.value.code == "K412"


def test_removing_what_is_not_there_is_an_error_at_that_statement():
    with pytest.raises(RulesetRuntimeError) as err:
        play("remove a from hand[player(2)]")
    assert err.value.code == "K403"
    assert "zones.knap:14:" in err.value.render()


def test_pools_count_each_kind():
    state = play("disks[player(1), black] -= 2\ndisks[player(2), white] += 1")
    assert [state.get("disks", 0, c) for c in ("orange", "white", "black")] == [5, 5, 3]
    assert [state.get("disks", 1, c) for c in ("orange", "white", "black")] == [5, 6, 5]


PILE = """
ruleset "pile"
players 2
zone discard: pile of int visible top
zone hand[player]: hand of int visible owner
setup {
  for i in range(1, 6) { add i to discard }
}
round max 1 {
  let c = choose player(1) from [x for x in discard if x != last(discard)]
    as "take a card back from under the top"
  move c from discard to hand[player(1)]
  let done = ask player(2) from ["ok"] as "go on"
  end game winners []
}
"""


def test_a_zone_visible_top_shows_its_top_and_size_and_nothing_under_it():
    game = compile_text(PILE, "pile.knap")
    views = []
    for taken in (1, 3):
        state = new_game(game, players=2, seed=0)
        assert state.observation(1)["vars"]["discard"] == {"top": 5, "size": 5}
        state.apply(taken)
        views.append(state.observation(1)["vars"])
        assert state.observation(0)["vars"]["hand"][0] == [taken]
    # whichever card P1 took from inside the pile, P2 sees the same
    assert views[0] == views[1]
    assert views[0]["discard"] == {"top": 5, "size": 4}


def test_only_a_zone_may_be_visible_top():
    from dsl.errors import CheckProblem

    with pytest.raises(CheckProblem) as err:
        compile_text(PILE.replace("zone discard: pile of int", "var discard: list of int = []"))
    assert "K216" in str(err.value)


def _first_opulence(game):
    """The first Opulence take-back of seeded random play with two cards under the top."""
    from interpreter.agents import RandomAgent

    for seed in range(50):
        state, agent = new_game(game, players=3, seed=seed), RandomAgent(seed=seed)
        while not state.is_over():
            decision = state.decision()
            if decision.prompt.startswith("Opulence") and len(decision.options) >= 3:
                return state, decision
            state.apply(agent(state, decision))
    raise AssertionError("no Opulence take-back in 50 seeded games")


def test_opulence_takes_a_card_back_unseen_by_the_other_seats():
    # Aurignac §9: Mother Nature takes a card back from her discard pile in secret; the pile
    # is `visible top` (mn_discard_face_up), so taking any card under the top shows nothing
    from interpreter.api import load
    from interpreter.save import dump_state, load_state

    game = load("aurignac")
    state, decision = _first_opulence(game)
    top = state.get("mn_discard")[-1]
    under = [o for o in decision.options if o != top][:2]
    after = []
    for card in under:
        branch = load_state(dump_state(state), game)
        branch.apply(card)
        after.append(branch)
    mother = decision.player
    others = [p for p in range(state.n) if p != mother]
    assert all(after[0].observation(p) == after[1].observation(p) for p in others)
    assert after[0].observation(mother) != after[1].observation(mother)
