"""Face-down entries and secret choices (docs/language.md, "Face-down entries: `visible
backs` and `reveal`"; "Secret choices").

A zone `visible backs` holds entries face down: every seat sees where they lie, none what
they are, except a seat they were revealed to (`reveal x to ps`), which knows them until
they are shuffled. A `secret` choice tells the other seats that a choice was made, not
what. The generic tests (tests/test_rulesets_generic.py) check the same on every bundled
ruleset."""

from __future__ import annotations

import pytest

from dsl.errors import CheckProblem
from dsl.pipeline import compile_text
from dsl.syntax.fmt import format_text
from dsl.syntax.parse import parse
from interpreter.agents import RandomAgent, play_out
from interpreter.api import new_game
from interpreter.save import dump_state, load_state

FACES = """
ruleset "faces"
players 2

enum tile { sun, moon, star, rain }
zone bag: deck of tile visible hidden
zone board: row 3 of tile visible backs
var placed: int = 0

setup {
  for t in values(tile) { add t to bag }
  shuffle bag
}

round max 1 {
  for p in players {
    let slot = choose p from [i for i in range(0, 3) if board[i] == none] as "where to place"
    reveal bag[0] to [p]
    draw 1 from bag to board[slot]
    placed += 1
  }
  let mixed = choose player(1) from ["keep", "gather and shuffle"] as "gather the tiles?" secret
  if mixed == "gather and shuffle" {
    for i in range(0, 3) {
      if board[i] != none { move board[i] from board to bag }
    }
    shuffle bag
  }
  end game winners players
}
"""


def faces(text: str = FACES):
    return compile_text(text, "faces.knap")


def test_everyone_sees_where_a_face_down_entry_lies_and_its_placer_what_it_is():
    state = new_game(faces(), players=2, seed=1)
    state.apply(2)
    card = state.get("board")[2]
    hidden = {"hidden": True}
    assert state.observation(0)["vars"]["board"] == [None, None, card]
    assert state.observation(1)["vars"]["board"] == [None, None, hidden]
    assert state.observation(None)["vars"]["board"] == [None, None, hidden]


def test_each_seat_knows_what_it_was_shown_and_nothing_else():
    state = new_game(faces(), players=2, seed=1)
    state.apply(2)
    state.apply(0)
    mine, theirs = state.get("board")[2], state.get("board")[0]
    assert state.observation(0)["vars"]["board"] == [{"hidden": True}, None, mine]
    assert state.observation(1)["vars"]["board"] == [theirs, None, {"hidden": True}]
    assert state.observation(0)["vars"]["$known"][0] == [mine]


def test_a_shuffle_forgets_what_was_shown():
    state = new_game(faces(), players=2, seed=1)
    for option in (2, 0, "gather and shuffle"):
        state.apply(option)
    assert state.is_over()
    assert state.get("$known", 0) == [] and state.get("$known", 1) == []


def test_knowledge_survives_save_and_load():
    game = faces()
    state = new_game(game, players=2, seed=3)
    state.apply(1)
    again = load_state(dump_state(state), game)
    assert again.observation(0) == state.observation(0)
    assert again.observation(1) == state.observation(1)


def test_a_secret_choice_is_marked_on_its_decision_site():
    game = faces()
    secret = [s for s in game.sites if s.prompt == "gather the tiles?"]
    assert [s.secret for s in secret] == [True]
    assert not any(s.secret for s in game.sites if s.prompt == "where to place")


def test_random_play_of_face_down_tiles_ends():
    game = faces()
    for seed in range(20):
        state = new_game(game, players=2, seed=seed)
        play_out(state, RandomAgent(seed=seed))
        assert state.is_over()


def test_only_a_zone_lies_face_down():
    with pytest.raises(CheckProblem) as problem:
        faces(FACES.replace("var placed: int = 0", "var placed: int = 0 visible backs"))
    assert [d.code for d in problem.value.diagnostics] == ["K216"]


def test_reveal_goes_to_a_list_of_players():
    with pytest.raises(CheckProblem) as problem:
        faces(FACES.replace("reveal bag[0] to [p]", "reveal bag[0] to 3"))
    assert [d.code for d in problem.value.diagnostics] == ["K204"]


def test_fmt_writes_backs_reveal_and_secret_back_as_they_parse():
    tree = parse(FACES, "faces.knap")
    text = format_text(FACES, "faces.knap")
    assert "zone board: row 3 of tile visible backs" in text
    assert "reveal bag[0] to [p]" in text
    assert 'as "gather the tiles?" secret' in text
    assert parse(text, "faces.knap") == tree
