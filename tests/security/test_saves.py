"""Untrusted save files: every forgery the review found is refused with a code and a field.

The files in `forged/` were written by the Knapper this work started from (schema 2, which
held the position itself) and edited the way the review did; that Knapper loaded each one.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from dsl.errors import SaveFileError
from dsl.pipeline import compile_text
from interpreter.api import load, new_game
from interpreter.core.budget import Budget
from interpreter.frontends.cli import main
from interpreter.save import dump_state, load_state

FORGED = Path(__file__).parent / "forged"
KEY = b"the host's own key"


def refusal(data, game=None, key=None) -> SaveFileError:
    with pytest.raises(SaveFileError) as err:
        load_state(data, game, "forged.json", key=key)
    return err.value


@pytest.mark.parametrize(
    "name",
    [
        "ttt-overwrite.json",  # pending options [5, 0] with X on 5: apply(5) overwrote X
        "ttt-winners.json",  # winners [7], nothing pending: loaded as a finished game
        "pig-dice.json",  # "script": [6] * 300 forced every die
        "pig-bound.json",  # "decisions": -10**18 got past `bound 2000`
        "pig-cells.json",  # cells set to dicts played on
        "neanderthal-hand.json",  # a hidden deck's card in P1's hand, twice
        "ttt-frame.json",  # a frame position equal to the code's length: IndexError on apply
        "ttt-deep.json",  # 2.3 KB nested 1000 deep: RecursionError in observation and clone
    ],
)
def test_a_forged_position_is_refused(name):
    err = refusal((FORGED / name).read_bytes())
    assert err.code == "K703" and "(at schema_version)" in err.render()


def test_explain_does_not_call_a_forged_option_legal():
    out = CliRunner().invoke(main, ["explain", str(FORGED / "ttt-overwrite.json"), "5"])
    assert out.exit_code == 1 and "legal:" not in out.output and "K703" in out.output


def test_export_final_refuses_a_forged_end():
    out = CliRunner().invoke(main, ["export-final", str(FORGED / "ttt-winners.json")])
    assert out.exit_code == 1 and '"winners"' not in out.output and "K703" in out.output


@pytest.fixture
def ttt():
    state = new_game(load("tic-tac-toe"), players=2, seed=3)
    state.apply(5)
    return state


def test_the_same_forgeries_of_a_record_are_refused(ttt):
    data = orjson.loads(dump_state(ttt))
    # O "plays" on X's cell: not an option there
    err = refusal(orjson.dumps({**data, "options": [5, 5]}))
    assert err.code == "K704" and "(at options[1])" in err.render()
    # an unsigned position beside the record
    err = refusal(orjson.dumps({**data, "state": {"pending": [1, [5, 0], 0, 0]}}))
    assert err.code == "K707"
    # more options than the game has decisions
    full = [5, 1, 2, 3, 9, 4, 6, 7, 8]
    assert refusal(orjson.dumps({**data, "options": [*full, 1]})).code == "K704"


@pytest.mark.parametrize(
    "field, value",
    [
        ("options", [1]),
        ("seed", "0000000000000009"),
        ("fingerprint", "0" * 16),
        ("players", 3),
        ("dice", [6]),
        ("layout", "0123456789abcdef"),
    ],
)
def test_a_signed_save_names_the_field_that_does_not_verify(ttt, field, value):
    data = orjson.loads(dump_state(ttt, key=KEY))
    err = refusal(orjson.dumps({**data, field: value}), ttt.game, key=KEY)
    assert err.code == "K707" and f"(at {field})" in err.render()


def test_a_signed_snapshot_that_was_edited_is_refused(ttt):
    data = orjson.loads(dump_state(ttt, key=KEY))
    data["state"]["pending"][1] = [5, 0]
    err = refusal(orjson.dumps(data), ttt.game, key=KEY)
    assert err.code == "K707" and "(at state)" in err.render()
    assert refusal(dump_state(ttt), ttt.game, key=KEY).code == "K708"  # unsigned
    assert refusal(dump_state(ttt, key=b"another key"), ttt.game, key=KEY).code == "K707"


@pytest.mark.parametrize("snapshot", [7, [], "state", None])
def test_a_signed_snapshot_that_is_not_an_object_is_refused(ttt, snapshot):
    from interpreter.save import sign

    data = orjson.loads(dump_state(ttt, key=KEY))
    data = sign({k: v for k, v in data.items() if k != "signature"} | {"state": snapshot}, KEY)
    err = refusal(orjson.dumps(data), ttt.game, key=KEY)
    assert err.code == "K701" and "(at state)" in err.render()


def test_a_signed_snapshot_loads_without_replay(ttt, monkeypatch):
    from interpreter import save

    data = dump_state(ttt, key=KEY)
    monkeypatch.setattr(save, "replay", None)  # a replay would fail
    again = load_state(data, ttt.game, key=KEY)
    assert again.legal() == ttt.legal() and dump_state(again) == dump_state(ttt)


def test_the_neanderthal_invariants_are_checked_after_loading(monkeypatch):
    from interpreter.core.state import State

    game = load("neanderthal")
    state = new_game(game, players=3, seed=0)
    data = dump_state(state)
    monkeypatch.setattr(State, "check_invariants", lambda self: [_Broken()])
    assert refusal(data, game).code == "K706"


class _Broken:
    message = "invariant 'x' does not hold"


BIG = """
ruleset "big"
players 1
var n: int = 1
round max 3 {
  let k = choose player(1) from [64, 14300] as "how many doublings"
  repeat k { n = n * 2 }
  let m = choose player(1) from [n, n + 1] as "a number"
  if m > 0 { end game winners [player(1)] }
}
"""


# a host may allow numbers far past the default budget's 256 bits: they survive its saves
ROOMY = Budget(int_bits=20_000)


@pytest.mark.parametrize("doublings", [64, 14300])
def test_large_integers_survive_a_save(doublings):
    game = compile_text(BIG, "big.knap")
    state = new_game(game, seed=0, budget=ROOMY)
    state.apply(doublings)
    state.apply(state.legal()[1])
    again = load_state(dump_state(state), game, budget=ROOMY)
    assert again.get("n") == 2**doublings and again.is_over()
    signed = load_state(dump_state(state, key=KEY), game, key=KEY, budget=ROOMY)
    assert signed.get("n") == 2**doublings


def test_a_save_replayed_with_a_smaller_budget_is_refused_at_the_rule():
    game = compile_text(BIG, "big.knap")
    state = new_game(game, seed=0, budget=ROOMY)
    state.apply(14300)
    err = refusal(dump_state(state), game)
    assert err.code == "K705" and "K423" in err.render()


def test_play_refuses_a_4300_digit_integer_at_the_rule(tmp_path):
    # the default budget stops the doubling at 256 bits, long before Python's 4300 digits
    path = tmp_path / "big.knap"
    path.write_text(BIG)
    out = CliRunner().invoke(main, ["play", str(path), "--seed", "1"], input="2\n1\nq\n")
    assert out.exception is None or isinstance(out.exception, SystemExit), out.output
    assert "error[K423]" in out.output and "n = n * 2" in out.output, out.output


def _resigned(state, edit) -> bytes:
    """A snapshot of `state` signed with the host's key after `edit` changed its `vars`."""
    from interpreter.save import sign

    data = orjson.loads(dump_state(state, key=KEY))
    edit(data["state"]["vars"])
    return orjson.dumps(sign({k: v for k, v in data.items() if k != "signature"}, KEY))


@pytest.mark.parametrize(
    "name, index, value",
    [
        ("$known", 1, 0),  # the long fuzz run's find: a seat's view failed on it
        ("hand", 1, ["not_a_biome"]),  # a row of no table of biomes
        ("hand", 1, [7]),
        ("turn", None, "3"),  # text where the ruleset keeps an int
        ("turn", None, True),
        ("first_player", None, 3),  # a seat of no one in a game of 3
        ("portal", 0, 0),  # 0 where the ruleset keeps a bool
        ("vocabulary", 0, {"a": 1}),  # a pool's count
    ],
)
def test_a_signed_snapshot_value_of_the_wrong_type_is_refused(name, index, value):
    # a host's own key signed it, yet a value its variable never holds is refused at load,
    # before a rule or a seat's view meets it
    def edit(variables):
        if index is None:
            variables[name] = value
        else:
            variables[name][index] = value

    state = new_game(load("neanderthal"), players=3, seed=53)
    err = refusal(_resigned(state, edit), state.game, key=KEY)
    where = name if index is None else f"{name}[{index}]"
    assert err.code == "K701" and f"(at state.vars.{where})" in err.render(), err.render()


def test_a_signed_snapshot_of_every_kind_of_value_loads():
    # the check refuses no value a game really holds: none, rows, seats, lists of them
    state = new_game(load("neanderthal"), players=3, seed=53)
    for _ in range(40):
        state.apply(state.decision().options[0])
    again = load_state(dump_state(state, key=KEY), state.game, key=KEY)
    assert dump_state(again) == dump_state(state)
