"""The protocol a front-end speaks (docs/protocol.md): every view, decision, event, error
and save of a session validates against the shipped JSON Schemas, on every bundled ruleset;
refused moves change nothing; saves are played again and refused when forged; undo takes
back only what revealed nothing; secret choices stay secret in the event stream."""

from __future__ import annotations

import random

import jsonschema
import orjson
import pytest
from referencing import Registry, Resource

from conftest import ALL_RULESETS, FIXTURES
from dsl.errors import SaveFileError
from dsl.pipeline import compile_path, compile_text
from interpreter.api import load
from interpreter.protocol import SCHEMAS, ProtocolError, Session, schema_of

_REGISTRY = Registry().with_resources(
    (schema_of(n)["$id"].rsplit("/", 1)[-1], Resource.from_contents(schema_of(n))) for n in SCHEMAS
)
_VALIDATORS = {
    n: jsonschema.Draft202012Validator(schema_of(n), registry=_REGISTRY) for n in SCHEMAS
}


def valid(kind: str, message) -> None:
    """`message`, as JSON goes over the wire, fits the schema `kind`."""
    _VALIDATORS[kind].validate(orjson.loads(orjson.dumps(message)))


def _random_moves(session: Session, rnd: random.Random, moves: int, check=None) -> None:
    for n in range(moves):
        seat = session.to_move()
        if seat is None:
            return
        view = session.view(seat)
        if check is not None:
            check(session, view, n)
        option = rnd.choice(view["decision"]["options"])
        session.move(seat, option["value"], view["version"])


def _check_views(session: Session, view: dict, n: int) -> None:
    """The mover's view fits, its labels are unique; every few moves every seat's too."""
    valid("decision", view["decision"])
    labels = [o["label"] for o in view["decision"]["options"]]
    assert len(set(labels)) == len(labels), f"labels repeat in {view['decision']['id']}"
    if n % 10 == 0:
        for seat in [*range(1, session.players + 1), None]:
            valid("view", session.view(seat, since=max(0, view["last_event"] - 40)))


@pytest.mark.parametrize("name", ALL_RULESETS)
def test_every_message_of_a_game_fits_the_schemas(name):
    game = load(name)
    session = Session(game, players=game.players[1] if game.players[1] <= 4 else 4, seed=5)
    valid("schema", session.schema())
    _random_moves(session, random.Random(5), 40, _check_views)
    for seat in [*range(1, session.players + 1), None]:
        for event in session.events(seat):
            valid("event", event)
    valid("save", orjson.loads(session.save()))
    again = Session.load(session.save(), game)
    assert again.view(1) == session.view(1)
    assert again.events(session.players) == session.events(session.players)


def _tic_tac_toe() -> Session:
    return Session(load("tic-tac-toe"), seed=1)


def test_a_refused_move_changes_nothing_and_says_why():
    session = _tic_tac_toe()
    before = session.view(1)
    cases = [
        (2, 4, 0, "K507", "seat"),  # P1 is to move
        (1, 4, 3, "K506", "version"),
        (1, 9, 0, "K502", "option"),
        (1, [4], 0, "K502", "option"),
        (3, 4, 0, "K508", "seat"),
        (None, 4, 0, "K508", "seat"),
    ]
    for seat, option, version, code, field in cases:
        with pytest.raises(ProtocolError) as caught:
            session.move(seat, option, version)
        assert caught.value.code == code
        assert caught.value.field == field
        valid("error", caught.value.to_json())
        assert session.view(1) == before


def test_players_are_seats_from_one_and_moves_name_them_so():
    game = load("neanderthal")
    session = Session(game, players=3, seed=2)
    rnd = random.Random(2)
    found = False
    for _ in range(400):
        seat = session.to_move()
        view = session.view(seat)
        site = game.sites[session.state.pending[2]]
        if site.item_type is not None and str(site.item_type) == "Basic(name='player')":
            values = [o["value"] for o in view["decision"]["options"]]
            engine = list(session.state.pending[1])
            assert values == [p + 1 if p is not None else None for p in engine]
            assert all(
                o["label"].startswith("P") for o in view["decision"]["options"] if o["value"]
            )
            found = True
            break
        session.move(seat, rnd.choice(view["decision"]["options"])["value"], view["version"])
    assert found, "no decision among players was met"
    assert set(session.view(1)["observation"]["colour_of"]) == {"1", "2", "3"}


def test_a_save_is_played_again_and_a_forged_one_is_refused():
    game = load("tic-tac-toe")
    session = _tic_tac_toe()
    session.move(1, 4, 0)
    saved = orjson.loads(session.save())
    assert Session.load(session.save(), game).view(2) == session.view(2)
    forged = [
        b"not json",
        orjson.dumps({**saved, "moves": [4, 4]}),  # a cell taken twice
        orjson.dumps({**saved, "fingerprint": "x"}),
        orjson.dumps({**saved, "moves": "4"}),
        orjson.dumps({**saved, "protocol": 2}),
        orjson.dumps({**saved, "moves": [4, 0, 1, 2, 3, 5, 6, 7, 8, 8]}),
        orjson.dumps([1, 2]),
    ]
    for data in forged:
        with pytest.raises(SaveFileError) as caught:
            Session.load(data, game)
        assert caught.value.code in ("K700", "K701")


def test_undo_takes_back_only_a_move_that_revealed_nothing():
    session = _tic_tac_toe()
    session.move(1, 4, 0)
    assert not session.can_undo(2), "not P2's move"
    assert session.can_undo(1)
    view = session.undo(1)
    assert view["version"] == 0 and view["observation"]["cell"]["4"] == "empty"
    assert session.view(1)["decision"] is not None
    assert any(e["kind"] == "undo" for e in session.events(2))
    pig = Session(load("pig"), seed=3)
    view = pig.view(1)
    roll = next(o["value"] for o in view["decision"]["options"] if o["value"] == "roll")
    pig.move(1, roll, 0)
    assert not pig.can_undo(1), "the die is rolled: taking it back would allow a reroll"
    with pytest.raises(ProtocolError) as caught:
        pig.undo(1)
    assert caught.value.code == "K510"


def test_moves_show_each_seat_what_he_saw_of_a_card_and_no_more():
    session = Session(compile_path(FIXTURES / "high-card.knap"), players=2, seed=3)
    dealt = [e for e in session.events(1) if e["kind"] == "move" and e["to"]["zone"] == "hand"]
    mine = [e for e in dealt if e["to"]["keys"] == ["1"]]
    assert [e["card"] for e in mine] == session.view(1)["observation"]["hand"]["1"]
    theirs = [e for e in dealt if e["to"]["keys"] == ["2"]]
    assert len(theirs) == 2 and all(e["card"] is None for e in theirs)  # face down to seat 1
    card = session.view(1)["decision"]["options"][0]["value"]
    session.move(1, card, session.view(1)["version"])
    played = {"zone": "played", "keys": ["1"]}
    (own,) = [e for e in session.events(1) if e["kind"] == "move" and e["to"] == played]
    (seen,) = [e for e in session.events(2) if e["kind"] == "move" and e["to"] == played]
    assert own["card"] == seen["card"] == card
    assert "revealed" not in own  # seat 1 saw it in his hand
    assert seen["revealed"] and seen["from"] == {"zone": "hand", "keys": ["1"]}


def test_a_secret_choice_shows_the_others_only_that_it_was_made():
    session = Session(load("aurignac"), players=3, seed=4)
    _random_moves(session, random.Random(4), 30)
    secret = [e for e in session.events(None) if e.get("secret")]
    assert secret, "no secret choice was met"
    for event in secret:
        assert "option" not in event and "label" not in event
        mine = [e for e in session.events(event["seat"]) if e["seq"] == event["seq"]]
        assert "option" in mine[0]


_NAMED = """ruleset "named"
players 2
var picked: int = 0
round max 3 {
  let a = choose player(1) from [1, 2] as "first pick" id opening
  let b = choose player(2) from [3, 4] as "second pick"
  let c = choose player(1) from [5, 6] as "third pick"
  picked = a + b + c
  end game winners [player(1)]
}
"""


def test_a_decision_is_named_by_its_id_else_by_its_rule():
    from dsl.pipeline import compile_text

    game = compile_text(_NAMED, "named.knap")
    assert [site.id for site in game.sites] == ["opening", "round", "round.2"]
    session = Session(game, seed=0)
    assert session.view(1)["decision"]["id"] == "opening"


def test_two_decisions_may_not_share_an_id():
    from dsl.errors import CheckProblem
    from dsl.pipeline import compile_text

    text = _NAMED.replace('as "third pick"', 'as "third pick" id opening')
    with pytest.raises(CheckProblem) as caught:
        compile_text(text, "named.knap")
    assert [d.code for d in caught.value.diagnostics] == ["K245"]
    assert caught.value.diagnostics[0].span.line == 7
    assert caught.value.diagnostics[0].notes[0].span.line == 5


_LOGGED = """ruleset "logged"
players 2
var pot: int = 3
round max 2 {
  log "{p} takes {amount} from a pot of {pot}", p = player(2), amount = pot - 1, pot
  log "plain", player(1), pot
  end game winners [player(2)]
}
"""


def test_a_log_line_is_a_template_with_named_values():
    from dsl.pipeline import compile_text

    session = Session(compile_text(_LOGGED, "logged.knap"), seed=0)
    logs = [e for e in session.events(1) if e["kind"] == "log"]
    assert logs[0]["line"] == "P2 takes 2 from a pot of 3"
    assert logs[0]["fields"] == {"p": 2, "amount": 2, "pot": 3}
    assert logs[1]["line"] == "plain P1 3"
    assert logs[1]["fields"] == {"player": 1, "pot": 3}


def test_a_local_begun_as_none_is_typed_by_what_it_is_first_given():
    from dsl.errors import CheckProblem
    from dsl.pipeline import compile_text

    text = """ruleset "lead"
players 3
round max 2 {
  let leader = none
  let nobody = none
  for p in players { if p == player(2) { leader = p } }
  log "{leader} leads, {nobody} follows", leader, nobody
  end game winners [leader]
}
"""
    session = Session(compile_text(text, "lead.knap"), seed=0)
    logs = [e for e in session.events(1) if e["kind"] == "log"]
    assert logs[0]["line"] == "P2 leads, none follows"
    assert logs[0]["fields"] == {"leader": 2, "nobody": None}
    with pytest.raises(CheckProblem) as caught:  # once typed, the local keeps its type
        compile_text(text.replace("leader = p }", "leader = p\n leader = 3 }"), "lead.knap")
    assert [d.code for d in caught.value.diagnostics] == ["K204"]


def test_a_template_may_not_name_a_value_the_line_does_not_log():
    from dsl.errors import CheckProblem
    from dsl.pipeline import compile_text

    with pytest.raises(CheckProblem) as caught:
        compile_text(_LOGGED.replace("{amount}", "{amout}"), "logged.knap")
    assert [d.code for d in caught.value.diagnostics] == ["K246"]
    assert "did you mean 'amount'" in caught.value.diagnostics[0].hint


_ASKED = """ruleset "asked"
players 2
enum fruit { apple, pear }
record prize { points: int }
table prizes: prize {
  gold "Gold Cup" (points=5)
}
round max 2 {
  let cup = gold
  for p in players {
    let f = choose p from [apple, pear] as "{p}, a fruit for {cup} ({cup.points} points)?"
  }
  end game winners [player(1)]
}
"""


def test_a_prompt_names_the_locals_it_is_about():
    from dsl.pipeline import compile_text

    session = Session(compile_text(_ASKED, "asked.knap"), seed=0)
    assert session.view(1)["decision"]["prompt"] == "P1, a fruit for Gold Cup (5 points)?"
    session.move(1, "apple", 0)
    event = next(e for e in session.events(2) if e["kind"] == "decision")
    assert event["prompt"] == "P1, a fruit for Gold Cup (5 points)?"
    assert session.view(2)["decision"]["prompt"].startswith("P2, a fruit")


def test_a_prompt_may_name_only_locals_known_there():
    from dsl.errors import CheckProblem
    from dsl.pipeline import compile_text

    with pytest.raises(CheckProblem) as caught:
        compile_text(_ASKED.replace("{cup}", "{cap}"), "asked.knap")
    assert [d.code for d in caught.value.diagnostics] == ["K247"]
    assert "did you mean 'cup'" in caught.value.diagnostics[0].hint
    with pytest.raises(CheckProblem) as caught:
        compile_text(_ASKED.replace("{cup.points}", "{cup.pionts}"), "asked.knap")
    assert [d.code for d in caught.value.diagnostics] == ["K205"]


_VIEWED = """ruleset "viewed"
players 2
var score[player]: int = 1
var turn: int = 0
var marker: int = 7 scratch
view {
  "Scores": score
  "Clock": turn
}
round max 2 {
  let x = choose player(1) from [1, 2]
  end game winners [player(1)]
}
"""


def test_a_declared_view_groups_what_a_seat_sees_and_scratch_is_never_shown():
    from dsl.pipeline import compile_text

    game = compile_text(_VIEWED, "viewed.knap")
    session = Session(game, seed=0)
    assert "marker" not in session.view(1)["observation"]
    assert "marker" not in session.schema()["vars"]
    assert session.state.observation(0)["vars"].keys() == {"score", "turn"}
    assert session.schema()["groups"] == [
        {"title": "Scores", "vars": ["score"], "of": "all"},
        {"title": "Clock", "vars": ["turn"], "of": "all"},
    ]
    assert session.state.get("marker") == 7  # the rules still keep it


@pytest.mark.parametrize(
    ("group", "written", "message"),
    [
        ('"Clock": turn', '"Clock": turnn', "the view names 'turnn', which is no variable"),
        ('"Scores": score', '"Scores": score, marker', "the view names 'marker', which is scratch"),
        ('"Clock": turn', '"Clock" own: turn', "names 'turn', which is not kept per player"),
        ('"Clock": turn', '"Clock" others: score', "the view names 'score' twice"),
    ],
)
def test_a_view_names_only_variables_a_seat_may_see(group, written, message):
    from dsl.errors import CheckProblem
    from dsl.pipeline import compile_text

    with pytest.raises(CheckProblem) as caught:
        compile_text(_VIEWED.replace(group, written), "viewed.knap")
    assert [d.code for d in caught.value.diagnostics] == ["K248"]
    assert message in caught.value.diagnostics[0].message


def test_a_view_shows_a_seat_his_own_entries_apart_from_the_others():
    from dsl.pipeline import compile_text
    from interpreter.frontends.play import _view_lines

    split = _VIEWED.replace('"Scores": score', '"Yours" own: score\n  "Theirs" others: score')
    game = compile_text(split, "viewed.knap")
    session = Session(game, seed=0, players=2)
    assert session.schema()["groups"][:2] == [
        {"title": "Yours", "vars": ["score"], "of": "own"},
        {"title": "Theirs", "vars": ["score"], "of": "others"},
    ]
    session.state.set("score", 1, 5)
    assert _view_lines(session.state, 0) == [("Yours", "  score: 1"), ("Theirs", "  score: P2 5")]
    assert _view_lines(session.state, 1) == [("Yours", "  score: 5"), ("Theirs", "  score: P1 1")]


def test_a_number_past_64_bits_reaches_the_view_as_hexadecimal():
    # 2^200 is inside the budget's size of numbers (256 bits) but past what JSON readers keep
    game = compile_text(
        'ruleset "big"\nplayers 2\nvar x: int = 1\nround max 1 {\n'
        "  repeat 200 { x = x + x }\n"
        '  let c = choose player(1) from [1, 2] as "pick"\n  end game winners []\n}\n',
        "big.knap",
    )
    view = Session(game, players=2, seed=1).view(1)
    valid("view", view)
    assert view["observation"]["x"] == {"int": format(2**200, "x")}
    orjson.dumps(view)  # a reader of 64-bit integers can read it


def test_a_session_without_a_seed_draws_a_random_one():
    game = load("pig")
    assert len({Session(game, players=2).seed for _ in range(3)}) == 3
