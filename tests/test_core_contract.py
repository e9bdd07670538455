"""What the code generator and the engine promise to the tools that read them, checked
directly: the link step's own checks and its linked blocks, the metadata a compiled game
carries (procedures, blocks, variables, notes), the exact wording and place of every save
file refusal and of failing rules (also as the JSON front-ends read), what a save's layout
covers, where the engine leaves a game that failed, and chance seen through a scenario's tap.

These tests are part of the mutation run's kill suite (bench/mutation.py,
docs/reliability.md).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

import attrs
import orjson
import pytest

from conftest import dump_signed as dump_state  # snapshots: see conftest
from conftest import load_signed as load_state
from dsl.codegen.compile import Compiler
from dsl.codegen.emit import render
from dsl.codegen.ir import Branch, Call, Instr, Jump, Label, Leave, ProcIR, Step
from dsl.codegen.link import Linked, LinkError, link
from dsl.errors import KnapperError, RulesetRuntimeError, SaveFileError, Span
from dsl.pipeline import check_text, compile_path, compile_text
from interpreter import save
from interpreter.api import new_game
from interpreter.core.chance import ChanceTap
from interpreter.core.state import RulesetFault, run, start
from interpreter.scenario import run_file


def _unquoted(text: str) -> str:
    """A rendered error without the source lines it quotes (the quoting is tested in
    tests/test_core_semantics.py): its header, notes and hint."""
    quoted = re.compile(r"\s*(\d+ \|.*|\^+)")
    return "\n".join(line for line in text.split("\n") if not quoted.fullmatch(line))


def _where(span: Span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)


# ---------------------------------------------------------------- link: checks and blocks

S = Span("ir.knap", 1, 1, 1, 5)
L1, L2, L3 = Label(1), Label(2), Label(3)


def _step() -> Step:
    return Step(lines=(("n = 1", S),), span=S)


def _leave() -> Leave:
    return Leave(lines=("return -2",), span=S)


def _call() -> Call:
    return Call(proc=1, args=(), span=S)


@attrs.frozen(kw_only=True)
class _CallingStep(Step):
    """An instruction kind that runs on to the next one and yet may return CALL: the kind of
    mistake a new statement could make, which the link step must refuse."""

    suspends: ClassVar[bool] = True


def _proc(code: tuple, labels: dict) -> ProcIR:
    return ProcIR("p", "proc", None, S, code, labels, ())


# a branch, a block that only jumps, a straight run ended by a call, two jumps in a row and
# the end: every jump-only block is threaded to where its chain of jumps leads
THREADED = (
    Branch(cond="c", orelse=L1, span=S),  # 0
    Jump(target=L2, span=S),  # 1: only jumps, to L2, which only jumps, to L3
    _step(),  # 2 = L1
    _call(),  # 3: ends the block of 2
    Jump(target=L3, span=S),  # 4
    Jump(target=L3, span=S),  # 5 = L2
    _leave(),  # 6 = L3
)
THREADED_LABELS = {L1: 2, L2: 5, L3: 6}


def test_link_fuses_straight_runs_and_threads_jumps():
    linked = link(_proc(THREADED, THREADED_LABELS))
    assert linked.blocks == ((0,), (1,), (2, 3), (4,), (5,), (6,))
    assert linked.at == {L1: 2, L2: 5, L3: 5}
    assert linked.next == (5, 2, 5, 5, 5, 6)
    assert linked.target(0, L1) == 2 and linked.target(1, THREADED[0].orelse) == 2


def test_link_without_fusion_keeps_every_instruction_and_every_jump():
    linked = link(_proc(THREADED, THREADED_LABELS), fuse=False)
    assert linked.blocks == tuple((i,) for i in range(7))
    assert linked.at == {L1: 2, L2: 5, L3: 6}
    assert linked.next == (1, 2, 3, 4, 5, 6, 7)


def test_link_ends_on_a_loop_of_jumps():
    code = (Jump(target=L1, span=S), Jump(target=L2, span=S), Jump(target=L1, span=S))
    linked = link(_proc(code, {L1: 1, L2: 2}))
    assert linked == Linked(
        _proc(code, {L1: 1, L2: 2}), ((0,), (1,), (2,)), {L1: 1, L2: 1}, (1, 1, 3)
    )


MALFORMED = [
    ((_leave(),), {L1: 1}, "procedure 'p': label 1 is placed past the last instruction"),
    ((_leave(),), {L1: -1}, "procedure 'p': label 1 is placed past the last instruction"),
    (
        (Jump(target=L2, span=S), _leave()),
        {L1: 1},
        "procedure 'p': instruction 0 jumps to label 2, never placed",
    ),
    ((_step(),), {}, "procedure 'p': the last instruction falls through to nothing"),
    ((_step(), _step()), {}, "procedure 'p': the last instruction falls through to nothing"),
    (
        (_step(), _call()),
        {},
        "procedure 'p': Call 1 may return CALL or SUSPEND, but the engine would resume after "
        "it at block 1, which does not begin at instruction 2",
    ),
    (
        (_CallingStep(lines=(), span=S), _leave()),
        {},
        "procedure 'p': _CallingStep 0 leaves block 0 before its end",
    ),
    (
        (_step(), _CallingStep(lines=(), span=S), _leave()),
        {},
        "procedure 'p': _CallingStep 1 leaves block 0 before its end",
    ),
]


@pytest.mark.parametrize("code, labels, message", MALFORMED)
def test_link_refuses_malformed_code(code, labels, message):
    with pytest.raises(LinkError) as err:
        link(_proc(code, labels))
    assert str(err.value) == message


def test_without_fusion_a_call_is_checked_against_its_own_block():
    with pytest.raises(LinkError) as err:
        link(_proc((_step(), _call()), {}), fuse=False)
    assert str(err.value) == (
        "procedure 'p': Call 1 may return CALL or SUSPEND, but the engine would resume after "
        "it at block 2, which does not begin at instruction 2"
    )
    # without fusion, an instruction that may call is a block of its own: nothing to refuse
    linked = link(_proc((_CallingStep(lines=(), span=S), _leave()), {}), fuse=False)
    assert linked.blocks == ((0,), (1,))


# ---------------------------------------------------------------- the compiled game's metadata

META = """ruleset "meta"
players 2
var n: int = 0 §V1
zone pile[player]: list of int §Z1
enum colour { red, blue }
pool stock of colour visible hidden
contradiction price §3.1 §4.2 "Two prices."
interpretation early §E1 "Early."
proc bump(k: int) §P1 {
  let x = choose player(1) from [k, k + 1] as "pick"
  n += x
}
step tick() §S1 {
  n += 1
}
phase turn(p: player) §"TURN SEQUENCE" {
  tick()
  n += 2
  for q in players { bump(3) }
}
round max 3 §R {
  n += 1
  bump(2)
  turn(player(1))
  if n > 5 { end game winners [player(1)] }
}
"""


@pytest.fixture
def meta():
    return compile_text(META, "meta.knap")


def test_each_procedure_says_what_it_is_and_where(meta):
    assert [(p.name, p.kind, p.cite, p.span.file, _where(p.span)) for p in meta.procs] == [
        ("main", "main", None, "meta.knap", (21, 1, 26, 2)),
        ("bump", "proc", "P1", "meta.knap", (9, 1, 12, 2)),
        ("tick", "step", "S1", "meta.knap", (13, 1, 15, 2)),
        ("turn", "phase", "TURN SEQUENCE", "meta.knap", (16, 1, 20, 2)),
    ]
    # parameters first, then `let`s and loop variables; a loop's hidden state starts with $
    assert [(p.nlocals, p.local_names) for p in meta.procs] == [
        (0, ()),
        (2, ("k", "x")),
        (0, ()),
        (4, ("p", "$items", "$index", "q")),
    ]


def test_each_block_says_which_instructions_it_runs_and_where_they_come_from(meta):
    blocks = [[(b.first, b.count, _where(b.span)) for b in p.blocks] for p in meta.procs]
    assert blocks == [
        # main: the round's count, `n += 1` and the call of bump fused; the call of turn;
        # the `if`, and the jump back to the round (the block's span: the round's, its last
        # statement, which begins before its first); the end that `end game` never reaches
        [(0, 3, (21, 1, 23, 10)), (3, 1, (24, 3, 24, 18)), (4, 2, (21, 1, 26, 2)),
         (6, 1, (21, 1, 26, 2))],
        # bump: the decision; what follows it, to the procedure's end
        [(0, 1, (10, 3, 10, 53)), (1, 2, (9, 23, 12, 2))],
        [(0, 2, (13, 17, 15, 2))],
        # turn: the call of tick; `n += 2`, the loop's list and its test; the call in the
        # loop; the loop's test again; the end
        [(0, 1, (17, 3, 17, 9)), (1, 3, (18, 3, 19, 31)), (4, 1, (19, 22, 19, 29)),
         (5, 1, (19, 20, 19, 31)), (6, 1, (16, 40, 20, 2))],
    ]  # fmt: skip
    for index, (proc, code) in enumerate(zip(meta.procs, meta.code)):
        # one function per block, its source kept; the blocks cover the IR in order
        assert len(proc.blocks) == len(code) == len(proc.spans)
        assert [b.source.split("\n")[0] for b in proc.blocks] == [
            f"def _i{index}_{pc}(st, L):" for pc in range(len(code))
        ]
        ends = [b.first + b.count for b in proc.blocks]
        assert [b.first for b in proc.blocks] == [0, *ends[:-1]]
        assert all(b.span.file == "meta.knap" for b in proc.blocks)


def test_unfused_code_runs_one_instruction_per_block(meta):
    checked, _diagnostics, _sources = check_text(META, "meta.knap")
    assert checked is not None
    plain = Compiler(checked, fuse=False).compile()
    for unfused, fused in zip(plain.procs, meta.procs):
        total = sum(b.count for b in fused.blocks)
        assert [(b.first, b.count) for b in unfused.blocks] == [(i, 1) for i in range(total)]


def test_variables_zones_and_pools_say_what_they_are(meta):
    specs = [
        (v.name, v.kind, v.cite, v.visibility, v.domains, v.by_player, _where(v.span))
        for v in meta.vars
    ]
    assert specs == [
        ("n", "var", "V1", "public", (), False, (3, 1, 3, 19)),
        ("pile", "zone", "Z1", "public", ((0, 1),), True, (4, 1, 4, 35)),
        ("stock", "pool", None, "hidden", (("red", "blue"),), False, (6, 1, 6, 36)),
    ]


def test_notes_keep_their_place_and_every_section_they_cite(meta):
    notes = [(n.kind, n.name, n.cite, n.also, _where(n.span)) for n in meta.notes]
    assert notes == [
        ("contradiction", "price", "3.1", ("4.2",), (7, 1, 7, 44)),
        ("interpretation", "early", "E1", (), (8, 1, 8, 34)),
    ]


def test_initial_values_read_the_state_and_a_pool_without_a_count_is_empty():
    game = compile_text(
        'ruleset "init"\nplayers 2..3\nenum colour { red, blue }\n'
        "var seats[player]: int = num_players\npool stock of colour\n"
        "round max 1 {\n  stock[blue] += 2\n  end game winners []\n}",
        "init.knap",
    )
    state = new_game(game, players=3, seed=0)
    assert state.get("seats", 0) == state.get("seats", 2) == 3
    assert (state.get("stock", "red"), state.get("stock", "blue")) == (0, 2)


BASE = """ruleset "base"
players 2
var n: int = 0
fn bonus(k: int): int = k + 1
proc gain(k: int) {
  n += bonus(k)
}
round max 1 {
  gain(2)
  end game winners []
}
"""
MORE = """variant "more" extends "base.knap"
replace fn bonus(k: int): int = base(k) * 10
replace proc gain(k: int) {
  base(k)
  n += 100
}
"""
MOST = """variant "most" extends "more.knap"
replace proc gain(k: int) {
  base(k + 1)
  n += 1000
}
"""


def test_a_replacing_rule_calls_the_rule_it_replaces(tmp_path: Path):
    for name, text in (("base", BASE), ("more", MORE), ("most", MOST)):
        (tmp_path / f"{name}.knap").write_text(text)
    more = compile_path(tmp_path / "more.knap")
    assert [p.name for p in more.procs] == ["main", "gain", "gain (replaced)"]
    assert new_game(more, players=2, seed=0).get("n") == (2 + 1) * 10 + 100
    most = compile_path(tmp_path / "most.knap")
    assert [p.name for p in most.procs][2:] == ["gain (replaced)", "gain (replaced 2x)"]
    assert new_game(most, players=2, seed=0).get("n") == (3 + 1) * 10 + 100 + 1000


# ---------------------------------------------------------------- save files, word for word

SAVES = """ruleset "saves"
players 2..3
var n: int = 0
var hand: list of int = [4, 5, 6]
fn twice(x: int): int = x * 2
proc ask(k: int) {
  let a = choose player(1) from hand as "a card"
  n += a + k
}
round max 2 {
  let b = choose player(2) from [1, 2] as "a number"
  ask(b)
  end game winners []
}
"""


@pytest.fixture
def saved():
    """A game waiting inside the procedure `ask`: two frames."""
    game = compile_text(SAVES, "saves.knap")
    state = new_game(game, players=2, seed=0)
    state.apply(2)
    data = orjson.loads(dump_state(state))
    assert len(data["state"]["stack"]) == 2
    return game, data


def _refusal(data, game, *path) -> SaveFileError:
    raw = data if isinstance(data, bytes) else orjson.dumps(data)
    with pytest.raises(SaveFileError) as err:
        load_state(raw, game, *path)
    return err.value


def _json(err: KnapperError, file: str, code: str, hint: str | None = None) -> dict:
    """The refusal as a front-end reads it: a file, no line or column."""
    (d,) = err.diagnostics
    assert d.to_json() == {
        "code": code,
        "severity": "error",
        "message": d.message,
        "file": file,
        "line": 0,
        "col": 0,
        "end_line": 0,
        "end_col": 0,
        "hint": hint,
        "cite": None,
        "notes": [],
    }
    return d.to_json()


def test_a_file_that_is_not_json_names_the_file(saved):
    game, _data = saved
    err = _refusal(b"{", game, "bad.json")
    assert err.render().startswith("bad.json: error[K700]: not a JSON file: ")
    _json(err, "bad.json", "K700")
    err = _refusal(b"{", game)  # no path: the file is named <save>
    assert err.render().startswith("<save>: error[K700]: not a JSON file: ")
    _json(err, "<save>", "K700")


def test_a_save_compiled_differently_says_so_word_for_word(saved):
    game, data = saved
    err = _refusal({**data, "layout": "0" * 16}, game, "old.json")
    assert err.render() == (
        "old.json: error[K702]: this game was saved by a Knapper that compiled the ruleset "
        "differently, so its position (procedure, instruction) cannot be resumed here "
        "(at layout)\n"
        "  = hint: continue it with the Knapper version that saved it"
    )
    _json(err, "old.json", "K702", "continue it with the Knapper version that saved it")


def test_every_k701_names_the_file_and_no_line(saved):
    game, data = saved
    err = _refusal({**data, "ruleset": "other"}, game)
    assert (
        err.render()
        == "<save>: error[K701]: the game was saved from 'other', not 'saves' (at ruleset)"
    )
    _json(err, "<save>", "K701")
    err = _refusal({**data, "fingerprint": "0"}, game, "bad.json")
    _json(err, "bad.json", "K701", "load it with the ruleset version it was saved with")


def test_a_file_of_the_wrong_shape_lists_every_wrong_field(saved):
    game, data = saved
    edited = {**data, "state": {**data["state"], "rounds": "1", "decisions": None}}
    err = _refusal(edited, game, "bad.json")
    message = err.diagnostics[0].message
    head = "the file does not have the shape of a saved game (at "
    assert message.startswith(head) and message.endswith(")")
    places = message[len(head) : -1].split("; ")
    assert sorted(place.rsplit(" @ ", 1)[1] for place in places) == [
        "$.state.decisions",
        "$.state.rounds",
    ]
    _json(err, "bad.json", "K701")


def _stack_with(data: dict, inner) -> dict:
    stack = [data["state"]["stack"][0], inner]
    return {**data, "state": {**data["state"], "stack": stack}}


SHAPE = "a frame is [procedure, position, locals] (at state.stack[1])"
FIT = "the frame does not fit the ruleset's code (at state.stack[1])"


@pytest.mark.parametrize(
    "frame, message",
    [
        ([1, 1], SHAPE),
        ([1, 1, [2, None], 0], SHAPE),
        (["1", 1, [2, None]], SHAPE),
        ([1, "1", [2, None]], SHAPE),
        ([1, 1, 5], SHAPE),
        ([True, 1, [2, None]], FIT),
        ([-1, 1, [2, None]], FIT),
        (["procs", 1, []], FIT),
        ([1, True, [2, None]], FIT),
        ([1, 1, [2, None, None]], FIT),
    ],
    ids=str,
)
def test_a_frame_that_does_not_fit_says_which(saved, frame, message):
    game, data = saved
    if frame[0] == "procs":
        frame = [len(game.procs), 1, []]
    err = _refusal(_stack_with(data, frame), game, "bad.json")
    assert err.render() == f"bad.json: error[K701]: {message}"


def test_the_inner_frame_as_saved_loads(saved):
    game, data = saved
    state = load_state(orjson.dumps(_stack_with(data, data["state"]["stack"][1])), game)
    state.apply(5)
    assert state.get("n") == 7


# ---------------------------------------------------------------- what the layout covers


def _procs(game, index: int, **changes):
    procs = list(game.procs)
    procs[index] = attrs.evolve(procs[index], **changes)
    return attrs.evolve(game, procs=tuple(procs))


def _changes(game) -> dict:
    """Games that differ from `game` in one thing a saved position refers to."""
    ask = game.procs[1]
    block = ask.blocks[0]
    other = Span("saves.knap", 90, 1, 90, 9)
    code = list(game.code)
    code[1] = code[1] + code[1][-1:]
    sites = list(game.sites)
    return {
        "a procedure's name": _procs(game, 1, name="asked"),
        "a procedure's kind": _procs(game, 1, kind="phase"),
        "its number of locals": _procs(game, 1, nlocals=ask.nlocals + 1),
        "its locals' names": _procs(game, 1, local_names=("k", "b")),
        "its number of instructions": attrs.evolve(game, code=tuple(code)),
        "an instruction's span": _procs(game, 1, spans=(other, *ask.spans[1:])),
        "where a block begins": _procs(
            game, 1, blocks=(attrs.evolve(block, first=1), *ask.blocks[1:])
        ),
        "how many instructions a block runs": _procs(
            game, 1, blocks=(attrs.evolve(block, count=2), *ask.blocks[1:])
        ),
        "a site's procedure": attrs.evolve(
            game, sites=(attrs.evolve(sites[0], proc="ask"), *sites[1:])
        ),
        "a site's span": attrs.evolve(game, sites=(attrs.evolve(sites[0], span=other), *sites[1:])),
    }


def test_the_layout_changes_with_everything_a_position_refers_to(saved):
    game, _data = saved
    plain = save.layout(game)
    assert save.layout(compile_text(SAVES, "elsewhere/saves.knap")) == plain  # not the file
    for what, changed in _changes(game).items():
        assert save.layout(changed) != plain, what


# ---------------------------------------------------------------- failing rules and the engine

FAILS = """ruleset "fails"
players 2
var n: int = 0
var a: list of int = [1, 2, 3]
var who: player = player(1)
var b: list of int = []
fn pick(p: player): int = a[p]
setup {
{setup}
}
round max 2 {
  n = 1
{body}
  end game winners []
}
"""


def _fails(body: str = "", setup: str = "  n = 0", extra: str = ""):
    text = FAILS.replace("{body}", body).replace("{setup}", setup)
    return compile_text(text.replace("var b:", extra + "var b:"), "fails.knap")


def _failure(game) -> tuple[RulesetRuntimeError, object]:
    state = start(game, 2, 0, run_now=False)
    with pytest.raises(RulesetRuntimeError) as err:
        run(state)
    return err.value, state


@pytest.mark.parametrize(
    "body, rendered",
    [
        (
            "  n = a[9]\n  n = 2",
            "fails.knap:13:3: error[K401]: the rule at this place failed: an index is out of range",
        ),
        ("  remove 9 from b\n  n = 2", "fails.knap:13:3: error[K403]: 9 is not in b"),
    ],
)
def test_a_failed_game_is_left_where_the_rule_failed(body, rendered):
    """docs/api.md: the state is left where the rule failed (the round's block, not the
    setup's), its locals as they were."""
    game = _fails(body)
    err, state = _failure(game)
    assert _unquoted(str(err)) == rendered
    (frame,) = state.frames()
    assert (frame.proc, frame.locals) == (0, ())
    assert frame.pc == 1  # block 0 is the setup
    assert game.procs[0].blocks[1].span.line <= 13 <= game.procs[0].blocks[1].span.end_line


def test_the_first_statement_of_a_block_is_named_when_it_fails():
    err, _state = _failure(_fails(setup="  n = a[9]\n  n = 2"))
    assert _unquoted(str(err)) == (
        "fails.knap:9:3: error[K401]: the rule at this place failed: an index is out of range"
    )


def test_a_none_that_fails_says_where_it_came_from_and_how_to_guard_it():
    err, _state = _failure(_fails("  who = none\n  n = pick(who)"))
    assert _unquoted(str(err)) == (
        "fails.knap:14:3: error[K401]: the rule at this place failed: in `pick`, `p` is "
        "`none`, but `a[p]` needs a value there\n"
        "  note: fails.knap:7:29: in `pick`, `p` is `none` here\n"
        "  = hint: where `none` is a value this rule must expect, guard it (`if p != none`); "
        "otherwise set it before this rule runs"
    )
    assert err.diagnostics[0].to_json()["notes"] == [
        {"message": "in `pick`, `p` is `none` here", "file": "fails.knap", "line": 7}
    ]


def test_a_fault_raised_outside_generated_code_is_placed_at_its_instruction():
    """A tool may put its own function in place of an instruction (coverage probes wrap
    them); a rule fault it raises is reported at that instruction's statement."""
    game = _fails("  n = 2")

    def faulty(st, L):
        raise RulesetFault("K499", "a tool's fault")

    code = list(game.code)
    code[0] = (faulty, *code[0][1:])  # the first instruction: the one a game always enters
    err, state = _failure(attrs.evolve(game, code=tuple(code)))
    span = game.procs[0].spans[0]
    assert _unquoted(str(err)) == f"fails.knap:{span.line}:{span.col}: error[K499]: a tool's fault"
    assert state.frames()[0].pc == 0


@pytest.mark.parametrize(
    "init, rendered",
    [
        (
            "var bad: list of int = order_by([1, 2], [1])",
            "fails.knap:7:1: error[K411]: order_by() needs one key per item",
        ),
        (
            "var bad: int = a0[7]",
            "fails.knap:7:1: error[K401]: the initial value of 'bad' failed: an index is out "
            "of range",
        ),
    ],
)
def test_an_initial_value_that_fails_says_what_and_where(init, rendered):
    game = _fails(extra=f"param a0: list of int = [1]\n{init}\n")
    with pytest.raises(RulesetRuntimeError) as err:
        start(game, 2, 0)
    assert _unquoted(str(err.value)) == rendered


def test_start_runs_the_setup_unless_told_not_to():
    game = compile_text(SAVES, "saves.knap")
    assert start(game, 2, 0).decision().prompt == "a number"
    waiting = start(game, 2, 0, run_now=False)
    assert waiting.decision() is None and waiting.frames()[0].pc == 0


def test_winners_and_rows_that_do_not_fit_say_which_value():
    game = compile_text(
        'ruleset "ends"\nplayers 2\nvar champ: player = player(1)\nzone river: row 2 of int\n'
        "round max 1 {\n  add 4 to river\n  let gap = river[1]\n"
        "  if champ == player(2) { remove gap from river }\n  end game winners [champ]\n}",
        "ends.knap",
    )
    for champ, rendered in [
        (2, "ends.knap:9:3: error[K408]: 2 is not a player"),
        ("0", "ends.knap:9:3: error[K408]: '0' is not a player"),
        (1, "ends.knap:8:27: error[K403]: None is not in river"),
    ]:
        state = start(game, 2, 0, run_now=False)
        state.set("champ", champ)
        with pytest.raises(RulesetRuntimeError) as err:
            run(state)
        assert _unquoted(str(err.value)) == rendered


def test_an_unknown_derived_value_in_json(saved):
    game, _data = saved
    with pytest.raises(KnapperError) as err:
        new_game(game, players=2, seed=0).call("thrice", 1)
    assert str(err.value) == (
        "saves: error[K504]: saves has no derived value named 'thrice'\n"
        "  = hint: did you mean 'twice'?"
    )
    _json(err.value, "saves", "K504", "did you mean 'twice'?")


# ---------------------------------------------------------------- chance through a tap

CHANCE = """ruleset "chance"
players 2
var n: int = 0
zone pile: deck of int
round max 1 {
  n = roll 1d6
  n += roll 1d20 * 10
  for i in range(1, 9) { add i to pile }
  shuffle pile
  end game winners []
}
"""


def test_a_chance_tap_sees_every_die_and_shuffle_and_changes_none():
    game = compile_text(CHANCE, "chance.knap")
    plain = new_game(game, players=2, seed=5, dice=[4])
    tapped = new_game(game, players=2, seed=5, run_now=False)
    tapped.script = ChanceTap([4])
    tapped.trace = []
    run(tapped)
    assert (tapped.get("n"), tapped.get("pile")) == (plain.get("n"), plain.get("pile"))
    assert tapped.rng == plain.rng
    twenty = (plain.get("n") - 4) // 10
    assert [e for e in tapped.trace if e[0] == "die"] == [("die", 6, 4), ("die", 20, twenty)]
    assert sorted(tapped.get("pile")) == list(range(1, 9)) != tapped.get("pile")


@pytest.mark.parametrize(
    "strict, rendered",
    [
        (
            {"strict_dice": True},
            "chance.knap:7:3: error[K414]: a d20 was rolled here, and the scenario scripts no "
            "more dice",
        ),
        (
            {"strict_shuffles": True},
            "chance.knap:9:3: error[K415]: 8 items were shuffled here; the scenario declares "
            "`shuffles strict`, so set their order in its `position` instead",
        ),
    ],
)
def test_a_strict_tap_refuses_unscripted_chance(strict, rendered):
    state = new_game(compile_text(CHANCE, "chance.knap"), players=2, run_now=False, seed=0)
    state.script = ChanceTap([4], **strict) if "strict_dice" in strict else ChanceTap(**strict)
    with pytest.raises(RulesetRuntimeError) as err:
        run(state)
    assert _unquoted(str(err.value)) == rendered


TINY = """ruleset "tiny"
players 2
var n: int = 0
proc go(p: player) {
  let one = choose p from [5] as "only"
  n += one
  n += roll 1d6
}
round max 1 { end game winners [] }
"""

TINY_SCENARIOS = """scenarios for "tiny.knap"

scenario "a run stops after its procedure" {
  players 2
  seed 1
  run go(player(1))
  dice 4
  expect n == 9
  expect not game_over
}
"""


def test_a_scenario_lists_the_decisions_taken_for_the_player(tmp_path: Path):
    (tmp_path / "tiny.knap").write_text(TINY)
    (tmp_path / "tiny.scenario").write_text(TINY_SCENARIOS)
    (result,) = run_file(tmp_path / "tiny.scenario")
    assert (result.passed, result.problems, result.warnings) == (True, (), ())
    assert result.forced == ("P1's decision 'only': 5",)


# ---------------------------------------------------------------- places named by locals

PLACES = """ruleset "places"
players 2
var nested: list of list of int = [[1, 2], [3, 4]]
var cells[player]: list of int = [0, 0]
zone river: row 3 of int
zone rows[player]: row 2 of int
round max 1 {
  let xs = [[1, 2], [3, 4]]
  let k = 1
  xs[k, 0] = 9
  nested[k, 1] = xs[k][0]
  cells[player(2), k] = 7
  add 5 to river[k]
  add 6 to rows[player(2), k]
  end game winners []
}
"""


def test_indices_and_slots_named_by_a_local_in_every_kind_of_place():
    """Two indices into a local and into a variable, an index after a key, a row's slot
    with and without keys: each named by the local `k`."""
    state = new_game(compile_text(PLACES, "places.knap"), players=2, seed=0)
    assert state.get("nested") == [[1, 2], [3, 9]]
    assert (state.get("cells", 0), state.get("cells", 1)) == ([0, 0], [0, 7])
    assert state.get("river") == [None, 5, None]
    assert (state.get("rows", 0), state.get("rows", 1)) == ([None, None], [None, 6])


def test_a_list_variable_that_holds_none_is_copied_as_none():
    game = compile_text(
        'ruleset "n"\nplayers 2\nvar maybe: list of int = []\nvar b: list of int = [1]\n'
        "round max 1 {\n  maybe = none\n  let m = maybe\n  b = m\n  end game winners []\n}",
        "n.knap",
    )
    state = new_game(game, players=2, seed=0)
    assert state.is_over() and state.get("b") is None


def test_code_python_would_warn_about_compiles_quietly_and_fails_as_the_rules():
    """`none[0]` is Python that Python warns about when it compiles it (the test suite turns
    warnings into errors); the author hears of it only when the rule runs."""
    game = compile_text(
        'ruleset "w"\nplayers 2\nvar n: int = 0\nround max 1 {\n'
        "  if n > 0 { n = none[0] }\n  end game winners []\n}",
        "w.knap",
    )
    assert new_game(game, players=2, seed=0).is_over()
    state = start(game, 2, 0, run_now=False)
    state.set("n", 1)
    with pytest.raises(RulesetRuntimeError) as err:
        run(state)
    assert err.value.code == "K401" and str(err.value).startswith("w.knap:5:14: error[K401]")


def test_emit_refuses_an_instruction_it_has_no_rule_for():
    @attrs.frozen(kw_only=True)
    class Unknown(Instr):
        pass

    linked = link(_proc((_leave(),), {}))
    assert render(_leave(), linked, 0, [0]) == [("return -2", S)]
    with pytest.raises(TypeError) as err:
        render(Unknown(span=S), linked, 0, [0])
    assert str(err.value) == "dsl.codegen.emit has no rule for Unknown"
