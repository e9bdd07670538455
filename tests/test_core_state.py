"""The engine's own contract, checked directly: the pending decision and the frames as typed
records, a clone that nothing done to the original reaches (over every bundled ruleset),
errors of the ruleset told apart from bugs of the engine, and save files that refuse a
position compiled differently or a pending decision that does not fit.
"""

from __future__ import annotations

import random

import attrs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import RULESETS
from conftest import dump_signed as dump_state  # snapshots: see conftest
from conftest import load_signed as load_state
from dsl.errors import RulesetRuntimeError, SaveFileError
from dsl.pipeline import compile_text
from interpreter import save, snapshot
from interpreter.api import load, new_game
from interpreter.core.state import LOCALS, OPTIONS, PC, PROC, SITE, SLOT, WHO, Frame, Pending

RULES = """
ruleset "core-state"
players 2..3
var xs: list of int = [3, 1, 2]
var hand: list of int = [4, 5, 6]
var n: int = 0
proc ask() {{
  let a = choose player(1) from hand as "a card"
  remove a from hand
  n += a
}}
round max 1 {{
  let b = choose player(2) from [1, 2] as "a number"
  ask()
{body}
  end game winners []
}}
"""


def game_of(body: str = ""):
    return compile_text(RULES.format(body=body), "core-state.knap")


def test_the_pending_decision_and_the_frames_as_records():
    state = new_game(game_of(), players=2, seed=0)
    pending = state.waiting()
    raw = state.pending
    assert pending == Pending(raw[WHO], tuple(raw[OPTIONS]), raw[SITE], raw[SLOT])
    assert pending.who == 1 and pending.options == (1, 2) and not pending.reoffer
    assert state.game.sites[pending.site].prompt == "a number"
    frames = state.frames()
    assert [f.proc for f in frames] == [state.game.main]
    assert frames[-1] == Frame(
        state.stack[-1][PROC], state.stack[-1][PC], tuple(state.stack[-1][LOCALS])
    )
    assert frames[-1].locals[pending.slot] is None  # the answer goes there
    state.apply(2)
    assert [state.game.procs[f.proc].name for f in state.frames()] == ["main", "ask"]
    assert state.waiting().options == (4, 5, 6)
    state.apply(5)
    assert state.waiting() is None and state.frames() == ()


def test_pending_options_are_copies_of_the_list_the_state_holds():
    state = new_game(game_of(), players=2, seed=0)
    state.apply(1)
    assert state.pending[OPTIONS] == state.get("hand")  # `choose ... from hand`
    assert state.pending[OPTIONS] is not state.get("hand")  # the decision's own list
    pending, legal, decision = state.waiting(), state.legal(), state.decision()
    legal.append(99)
    assert state.legal() == [4, 5, 6]
    state.get("hand").append(7)  # a tool writing the variable while the decision waits
    assert pending.options == (4, 5, 6) and decision.options == (4, 5, 6)
    assert state.legal() == [4, 5, 6]
    with pytest.raises(AttributeError):
        pending.who = 0  # type: ignore[misc]


# ---------------------------------------------------------------- clones


def _seen(state) -> tuple:
    """Everything a front-end reads from a state: its decision, every observation, its save."""
    views = [state.observation(p) for p in [None, *range(state.n)]]
    return state.decision(), state.waiting(), orjson.dumps(views), dump_state(state)


def _play(state, rng: random.Random, decisions: int) -> None:
    for _ in range(decisions):
        if state.is_over():
            return
        state.apply(rng.choice(state.decision().options))


@pytest.mark.parametrize("name", RULESETS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), cut=st.integers(0, 40), later=st.integers(1, 6))
def test_a_clone_is_independent_of_the_original(name, seed, cut, later):
    game = load(name)
    lo, hi = game.players
    state = new_game(game, players=random.Random(seed).randint(lo, hi), seed=seed)
    rng = random.Random(seed)
    _play(state, rng, cut)
    clone = state.clone()
    seen = _seen(clone)
    _play(state, rng, later)
    assert _seen(clone) == seen, "moving the original on changed its clone"
    again = state.clone()
    again_seen = _seen(again)
    _play(clone, random.Random(seed + 1), later)
    assert _seen(again) == again_seen, "moving a clone on changed another clone"


def _lists(value, into: set[int]) -> set[int]:
    """The identities of every list in `value`, at any depth."""
    if type(value) is list:
        into.add(id(value))
        for item in value:
            _lists(item, into)
    return into


@pytest.mark.parametrize("name", RULESETS)
def test_a_clone_s_variables_share_no_list_with_the_original_s(name):
    """`Game.copy_vars` copies each variable only as deep as its type says: no list of the
    original's, at any depth, is one of the copy's."""
    game = load(name)
    state = new_game(game, players=game.players[1], seed=11)
    _play(state, random.Random(11), 30)
    copied = game.copy_vars(state.g)
    assert copied == state.g
    assert not _lists(copied, set()) & _lists(state.g, set())


def test_a_clone_keeps_its_options_when_the_original_plays_the_card_they_list():
    """Aurignac, "the Season card to play": the options are the hand the state holds, and
    playing one removes it from the original's hand (the clone once shared that list)."""
    game = load("aurignac")
    state = new_game(game, players=game.players[0], seed=0)
    rng = random.Random(0)
    for _ in range(200):
        if state.decision().prompt == "the Season card to play":
            break
        state.apply(rng.choice(state.decision().options))
    else:
        pytest.fail("no Season card decision in the first 200 decisions of seed 0")
    clone = state.clone()
    options = clone.decision().options
    state.apply(options[0])
    assert clone.decision().options == options
    assert clone.legal() == list(options)


# ---------------------------------------------------------------- ruleset errors and engine bugs


def test_an_error_of_the_ruleset_is_a_ruleset_runtime_error():
    state = new_game(game_of("  n = xs[n + 5]"), players=2, seed=0)
    state.apply(1)
    with pytest.raises(RulesetRuntimeError) as err:
        state.apply(4)
    assert err.value.code == "K401" and "out of range" in str(err.value)


def test_an_error_in_a_helper_the_rules_call_is_the_rulesets():
    # `order_by` sorts in dsl/semantics/builtins.py: comparing `none` fails there, not in the rules
    state = new_game(game_of("  xs = order_by(xs, [1, none, 2])"), players=2, seed=0)
    state.apply(1)
    with pytest.raises(RulesetRuntimeError) as err:
        state.apply(4)
    assert err.value.code == "K401"


def test_an_engine_bug_propagates_as_itself():
    """An instruction that returns no position (a compiler bug) fails in the engine's loop:
    that TypeError is not the ruleset's and must not become a K401."""
    game = game_of()
    state = new_game(game, players=2, seed=0)
    proc, pc = state.stack[-1][PROC], state.stack[-1][PC]
    code = list(game.code)
    code[proc] = code[proc][:pc] + ((lambda st, L: None),) + code[proc][pc + 1 :]
    state.game = attrs.evolve(game, code=tuple(code))
    with pytest.raises(TypeError, match="NoneType"):
        state.apply(1)


def test_a_bug_in_code_the_rules_call_that_is_not_theirs_propagates():
    class BrokenDice(list):
        """Stands in for scripted dice, as interpreter/core/chance.py does, with a bug."""

        def __bool__(self):
            return True

        def roll(self, st, sides):
            raise TypeError("a bug outside the ruleset")

    state = new_game(game_of("  n = roll 1d6"), players=2, seed=0)
    state.apply(1)
    state.script = BrokenDice()
    with pytest.raises(TypeError, match="a bug outside the ruleset"):
        state.apply(4)


def test_an_initial_value_that_fails_is_the_rulesets():
    rules = RULES.format(body="").replace("var n: int = 0", "var n: int = [1, 2][5]")
    with pytest.raises(RulesetRuntimeError) as err:
        new_game(compile_text(rules, "core-state.knap"), players=2, seed=0)
    assert err.value.code == "K401"


# ---------------------------------------------------------------- save files


@pytest.fixture(scope="module")
def saved():
    """A game waiting on the `choose` inside the procedure `ask` (two frames deep)."""
    game = game_of()
    state = new_game(game, players=2, seed=0)
    state.apply(2)
    return game, state, orjson.loads(dump_state(state))


def test_a_save_from_the_same_game_loads(saved):
    game, state, data = saved
    again = load_state(orjson.dumps(data), game_of())  # compiled anew: the same layout
    assert dump_state(again) == dump_state(state)
    again.apply(6)
    assert again.get("n") == 6


def test_a_save_compiled_differently_is_refused(saved, monkeypatch):
    game, _state, data = saved
    with pytest.raises(SaveFileError) as err:
        load_state(orjson.dumps({**data, "layout": "0123456789abcdef"}), game, "old.json")
    assert err.value.code == "K702" and "old.json" in err.value.render()
    assert "compiled the ruleset differently" in err.value.render()
    monkeypatch.setattr(snapshot, "CODE_VERSION", snapshot.CODE_VERSION + 1)  # a newer compiler
    with pytest.raises(SaveFileError) as err:
        load_state(orjson.dumps(data), game)
    assert err.value.code == "K702"


def test_the_layout_follows_the_compiled_positions():
    plain = game_of()
    longer = game_of("  n += 1\n  if n > 3 { n = 0 }")
    assert save.layout(plain) == save.layout(game_of())
    assert save.layout(plain) != save.layout(longer)


def test_a_save_of_another_schema_version_is_refused(saved):
    game, _state, data = saved
    with pytest.raises(SaveFileError) as err:
        load_state(orjson.dumps({**data, "schema_version": 1}), game)
    assert err.value.code == "K703" and "schema_version" in err.value.render()


def _with(data: dict, **state) -> bytes:
    return orjson.dumps({**data, "state": {**data["state"], **state}})


def _pending(data: dict, index: int, value) -> list:
    pending = list(data["state"]["pending"])
    pending[index] = value
    return pending


def _bad_pendings(game, data):
    """(what, a pending decision that does not fit) for each field, at and past its bounds."""
    players = data["state"]["players"]
    slots = len(data["state"]["stack"][-1][2])
    main_site = next(i for i, s in enumerate(game.sites) if s.proc == "main")
    return [
        ("player = players", _pending(data, WHO, players)),
        ("player = -1", _pending(data, WHO, -1)),
        ("player = true", _pending(data, WHO, True)),
        ("options = []", _pending(data, OPTIONS, [])),
        ("options not a list", _pending(data, OPTIONS, 4)),
        ("site = sites", _pending(data, SITE, len(game.sites))),
        ("site = -1", _pending(data, SITE, -1)),
        ("site of another procedure", _pending(data, SITE, main_site)),
        ("slot = locals", _pending(data, SLOT, slots)),
        ("slot = -1", _pending(data, SLOT, -1)),
        ("slot = false", _pending(data, SLOT, False)),
    ]


def test_every_pending_field_that_does_not_fit_is_refused(saved):
    game, _state, data = saved
    last = data["state"]["players"] - 1
    assert load_state(_with(data, pending=_pending(data, WHO, last)), game).waiting().who == last
    for what, pending in _bad_pendings(game, data):
        with pytest.raises(SaveFileError) as err:
            load_state(_with(data, pending=pending), game, "bad.json")
        assert err.value.code == "K701", what
        assert "pending" in err.value.render(), what


@pytest.mark.parametrize("pc", ["0", "len(code)", "true"])
def test_a_frame_position_that_cannot_be_resumed_is_refused(saved, pc):
    game, _state, data = saved
    stack = [list(frame) for frame in data["state"]["stack"]]
    code = game.code[stack[-1][PROC]]
    stack[-1][PC] = eval(pc, {"len": len, "code": code, "true": True})  # noqa: S307
    with pytest.raises(SaveFileError) as err:
        load_state(_with(data, stack=stack), game)
    assert err.value.code == "K701" and "frame" in err.value.render()
