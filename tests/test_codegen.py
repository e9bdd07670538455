"""The code generator's instruction IR (dsl/codegen/ir.py, lower, link, emit) and `--show-code`.

The differential test plays every ruleset compiled two ways, as games run (straight runs
fused into blocks, `fn` calls remembered) and plainly (one block per IR instruction, every
value worked out afresh), and wants the same games.
"""

from __future__ import annotations

import random
import re
from typing import ClassVar

import attrs
import orjson
import pytest
from click.testing import CliRunner

from conftest import ALL_RULESETS, player_counts
from dsl.codegen.compile import Compiler
from dsl.codegen.exprs import Exprs
from dsl.codegen.ir import (
    NEXT,
    Branch,
    Call,
    Choose,
    Instr,
    Jump,
    Label,
    Leave,
    LoopTest,
    ProcIR,
    Step,
)
from dsl.codegen.link import LinkError, link
from dsl.codegen.lower import Lowerer, _Native, _native_ok
from dsl.errors import NO_SPAN, KnapperError, RulesetRuntimeError, Span
from dsl.pipeline import load_program
from dsl.semantics.check import check_program
from dsl.syntax import ast
from interpreter.api import load
from interpreter.core import rng
from interpreter.core.state import NO_MEMO, run, start
from interpreter.frontends.cli import main
from interpreter.trace import Recorder

SEEDS = (1, 2, 3, 4)

SMALL = """
ruleset "ir"
players 2
var total: int = 0

proc pick(p: player) {
  let n = choose p from [1, 2] as "how many"
  total += n
}

round max 5 {
  for p in players {
    if total < 6 {
      pick(p)
    } else {
      end game winners [p]
    }
  }
}
"""


def compiled(text: str, **options) -> Compiler:
    program, diagnostics, _ = load_program(text, "<ir>")
    assert program is not None and not [d for d in diagnostics if d.severity == "error"]
    compiler = Compiler(check_program(program), **options)
    compiler.compile()
    return compiler


def unfused(name: str):
    program = load(name).program
    return Compiler(check_program(program), fuse=False, remember=False).compile()


# ---------------------------------------------------------------------- fusion on and off
def _begin(game, players: int, seed: int):
    lines: list[bytes] = []
    state = start(game, players, rng.seed_state(seed), run_now=False)
    recorder = Recorder(state, seed, lines.append)
    error = _advance(state, recorder, None)
    return state, recorder, lines, error


def _advance(state, recorder, option) -> str | None:
    """Apply `option` (None: run the setup); the error that stopped the game, if any."""
    try:
        run(state) if option is None else state.apply(option)
    except KnapperError as err:
        return str(err)
    recorder.sync()
    return None


@pytest.mark.parametrize("name", ALL_RULESETS)
def test_fused_and_unfused_code_play_the_same_games(name):
    """Same decisions, options, dice, log lines, state and result after every step."""
    fused, plain = load(name), unfused(name)
    assert sum(len(c) for c in plain.code) > sum(len(c) for c in fused.code)
    seen = set()
    for seed in SEEDS:
        counts = player_counts(fused)
        players = counts[seed % len(counts)]
        a, rec_a, trace_a, error_a = _begin(fused, players, seed)
        b, rec_b, trace_b, error_b = _begin(plain, players, seed)
        agent = random.Random(seed)
        while True:
            assert error_a == error_b
            assert trace_a == trace_b
            assert (a.g, a.rng, a.rounds, a.winners) == (b.g, b.rng, b.rounds, b.winners)
            decision = a.decision()
            assert decision == b.decision()
            if decision is None or error_a is not None:
                break
            option = agent.choice(decision.options)
            error_a, error_b = _advance(a, rec_a, option), _advance(b, rec_b, option)
        assert a.outcome() == b.outcome()
        seen |= {orjson.loads(line)["event"] for line in trace_a}
    assert "decision" in seen


# ---------------------------------------------------------------------- lower
def test_lowering_keeps_jumps_as_data():
    compiler = compiled(SMALL)
    main_ir, pick = compiler.procs_ir
    kinds = [type(i).__name__ for i in main_ir.code]
    assert kinds == [
        "Step",  # a new round
        "Step",  # the loop's list and index
        "LoopTest",  # entry
        "Branch",  # total < 6
        "Call",
        "Jump",  # to the end of the if
        "Leave",  # end game
        "LoopTest",  # after the body
        "Jump",  # to the next round
        "Leave",  # no end game
    ]
    entry, branch, after = main_ir.code[2], main_ir.code[3], main_ir.code[7]
    assert isinstance(entry, LoopTest) and isinstance(after, LoopTest)
    assert entry.again is NEXT and main_ir.labels[after.again] == 3
    assert main_ir.labels[entry.exit] == main_ir.labels[after.exit] == 8
    assert isinstance(branch, Branch) and main_ir.labels[branch.orelse] == 6
    assert isinstance(main_ir.code[4], Call) and main_ir.code[4].proc == 1
    assert [type(i) for i in pick.code] == [Choose, Step, Leave]
    assert pick.local_names == ("p", "n")


def test_a_loop_without_a_decision_runs_as_python_inside_one_step():
    text = SMALL.replace("pick(p)", "for q in [1, 2] { total += q }")
    main_ir = compiled(text).procs_ir[0]
    assert [type(i) for i in main_ir.code] == [Step, Step, Jump, Leave]
    lines = [line for line, _ in main_ir.code[1].lines]
    assert lines[0].startswith("for L[") and lines[1].startswith("    if ")


@attrs.frozen
class _Undeclared(ast.Statement):
    """A statement class that does not say whether it can suspend."""

    span: Span = NO_SPAN


def test_a_statement_that_does_not_say_whether_it_suspends_is_refused():
    stmt = ast.If(((ast.BoolLit(True), ast.Block((_Undeclared(),))),), None)
    with pytest.raises(TypeError, match="_Undeclared does not declare whether it can suspend"):
        _native_ok(stmt)


def test_every_statement_class_is_lowered_and_every_expression_translated():
    assert Lowerer.handled() == set(ast.STATEMENTS)
    assert _Native.handled() == set(ast.STATEMENTS)
    assert Exprs.handled() == set(ast.EXPRESSIONS)


# ---------------------------------------------------------------------- link
def _proc(*code: Instr, labels: dict | None = None) -> ProcIR:
    return ProcIR("p", "proc", None, NO_SPAN, code, labels or {}, ())


def _step(text="pass") -> Step:
    return Step(lines=((text, NO_SPAN),), span=NO_SPAN)


def _leave() -> Leave:
    return Leave(lines=("return -2",), span=NO_SPAN)


@attrs.frozen(kw_only=True)
class _Sneaky(Instr):
    """A broken instruction kind: it may suspend, yet claims to fall through."""

    falls_through: ClassVar[bool] = True
    suspends: ClassVar[bool] = True


def test_link_fuses_straight_runs_and_threads_jumps():
    top, end = Label(1), Label(2)
    proc = _proc(
        _step(),
        _step(),
        Branch(cond="x", orelse=end, span=NO_SPAN),
        Jump(target=top, span=NO_SPAN),
        _leave(),
        labels={top: 0, end: 4},
    )
    fused = link(proc)
    assert fused.blocks == ((0, 1, 2), (3,), (4,))
    assert fused.next == (0, 2, 3)  # going on into block 1 goes straight to its target
    assert fused.at == {top: 0, end: 2}
    plain = link(proc, fuse=False)
    assert plain.blocks == ((0,), (1,), (2,), (3,), (4,))
    assert plain.next == (1, 2, 3, 4, 5)


def test_link_checks_that_call_and_suspend_end_their_block():
    proc = _proc(_Sneaky(span=NO_SPAN), _step(), _leave())
    with pytest.raises(LinkError, match="leaves block 0 before its end"):
        link(proc)
    with pytest.raises(LinkError, match="may return CALL or SUSPEND"):
        link(_proc(_step(), Call(proc=0, args=(), span=NO_SPAN)), fuse=False)


def test_link_checks_labels():
    with pytest.raises(LinkError, match="never placed"):
        link(_proc(Jump(target=Label(7), span=NO_SPAN), _leave()))
    with pytest.raises(LinkError, match="past the last instruction"):
        link(_proc(_leave(), labels={Label(1): 1}))
    with pytest.raises(LinkError, match="falls through to nothing"):
        link(_proc(_step()))


@pytest.mark.parametrize("name", ["neanderthal", "aurignac", "cro-magnon"])
def test_every_call_and_decision_ends_its_block(name):
    program = load(name).program
    compiler = Compiler(check_program(program))
    game = compiler.compile()
    for proc, info in zip(compiler.procs_ir, game.procs):
        linked = link(proc)
        for pc, block in enumerate(linked.blocks):
            for i in block[:-1]:
                assert not proc.code[i].suspends
            if proc.code[block[-1]].suspends:
                assert linked.blocks[pc + 1][0] == block[-1] + 1
        assert tuple((b[0], len(b)) for b in linked.blocks) == tuple(
            (b.first, b.count) for b in info.blocks
        )


# ---------------------------------------------------------------------- emit
@pytest.mark.parametrize("name", ["pig", "neanderthal"])
def test_the_kept_source_is_the_code_that_runs(name):
    program = load(name).program
    compiler = Compiler(check_program(program))
    game = compiler.compile()
    for index, (info, code) in enumerate(zip(game.procs, game.code)):
        assert len(info.blocks) == len(info.spans) == len(info.line_spans) == len(code)
        assert sum(b.count for b in info.blocks) == len(compiler.procs_ir[index].code)
        first = 0
        for pc, (block, function) in enumerate(zip(info.blocks, code)):
            assert block.first == first
            first += block.count
            assert block.source.startswith(f"def _i{index}_{pc}(st, L):\n")
            assert len(block.source.splitlines()) == len(info.line_spans[pc]) + 1
            namespace = dict(compiler.env)
            exec(compile(block.source, "<rules>", "exec"), namespace)  # noqa: S102
            assert namespace[f"_i{index}_{pc}"].__code__.co_code == function.__code__.co_code


def test_unfused_code_has_a_position_per_instruction():
    game = compiled(SMALL, fuse=False)
    fused = compiled(SMALL)
    assert [len(p.code) for p in game.procs_ir] == [len(p.code) for p in fused.procs_ir]
    plain_game = unfused("pig")
    assert all(b.count == 1 for info in plain_game.procs for b in info.blocks)


# ---------------------------------------------------------------------- knapper check --show-code
def cli(*args):
    return CliRunner().invoke(main, list(args))


def test_show_code_prints_each_instruction_with_its_ir_and_span():
    result = cli("check", "--show-code", "main", "pig")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("# main: main, ")
    assert "def _i0_0(st, L):\n" in out and out.rstrip().endswith("ok: pig")
    heads = re.findall(r"^# instruction (\d+): IR (\d+)(?:-(\d+))?, (\S+)$", out, re.M)
    game = load("pig")
    assert [int(h[0]) for h in heads] == list(range(len(game.code[0])))
    assert all(h[3].startswith(game.procs[0].span.file) for h in heads)


def test_show_code_all_and_json():
    result = cli("check", "--json", "--show-code", "all", "cro-magnon")
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    procs = report[0]["code"]
    game = load("cro-magnon")
    assert [p["proc"] for p in procs] == [info.name for info in game.procs]
    block = procs[1]["instructions"][0]
    assert block["source"] == game.procs[1].blocks[0].source
    assert block["ir_first"] == 0


def test_show_code_of_an_unknown_procedure():
    result = cli("check", "--show-code", "move_band", "cro-magnon")
    assert result.exit_code == 1
    assert "cro-magnon has no procedure named 'move_band'; did you mean" in result.stderr


# ---------------------------------------------------------------------- faster code, same game
INLINED = """
ruleset "inl"
players 2
var total: int = 0
var cell[0..3]: int = 0
fn twice(x: int): int = x + x
fn at(i: int): int = cell[i]
fn listed(): list of int = [c for c in range(0, 4) if cell[c] == 0]
round max 3 {
  for p in players {
    if len(listed()) == 0 { end game winners [] }
    let k = choose p from listed() as "a cell"
    cell[k] = 1
    total += twice(at(k) + 1)
    for i in range(0, 4) { total += at(i) }
  }
}
"""


def _game(text: str, **options):
    program, _diagnostics, _ = load_program(text, "<ir>")
    assert program is not None
    return Compiler(check_program(program), **options).compile()


def test_a_small_fn_is_compiled_in_place_of_its_call():
    """`twice(at(k) + 1)`: `at` is inlined; `twice` reads `x` twice, and its argument is
    more than a name, so it stays a call; `listed` holds a comprehension, so it stays a call."""
    game = _game(INLINED)
    sources = "\n".join(b.source for info in game.procs for b in info.blocks)
    assert "_F_at(" not in sources
    assert "_F_twice(" in sources and "_F_listed(" in sources
    assert game.inlined == frozenset({"at"})


def test_the_locals_a_loop_uses_are_python_locals_written_back_before_each_return():
    game = _game(INLINED)
    looped = [b.source for info in game.procs for b in info.blocks if "for _l" in b.source]
    assert looped, "the `for i` loop walks a Python local"
    for source in looped:
        body = source.splitlines()
        assert body[1].lstrip().startswith("_l")  # the loads, first
        for line in body:
            if "return " in line and "L[" in line.split("return ")[0]:
                assert re.search(r"L\[\d+\] = _l\d+; return ", line)


def test_fast_locals_leaves_a_block_that_names_its_locals_as_a_whole():
    from dsl.codegen.fastlocals import fast_locals

    whole = "def _i0_0(st, L):\n    for x in L[1]:\n        L[2] += x\n    f(L)\n    return 1"
    assert fast_locals(whole) is None
    reads = "def _i0_0(st, L):\n    for x in L[1]:\n        L[2] += x\n    return 1"
    assert fast_locals(reads) == (
        "def _i0_0(st, L):\n    _l1 = L[1]; _l2 = L[2]\n    for x in _l1:\n        _l2 += x\n"
        "    L[2] = _l2; return 1"
    )


def test_fast_locals_holds_a_variable_read_again_unless_it_is_assigned_whole():
    from dsl.codegen.fastlocals import fast_locals

    looped = "def _F_f(st, v_x):\n    return [st.g[0][i] for i in v_x] + st.g[0][1] + st.g[2]"
    assert fast_locals(looped) == (
        "def _F_f(st, v_x):\n    _g0 = st.g[0]\n    return [_g0[i] for i in v_x] + _g0[1] + st.g[2]"
    )
    # read twice outside any loop: left alone
    assert fast_locals("def _F_f(st):\n    return st.g[0][1] + st.g[0][2]") is None
    # the word of a loop in a string is no loop; a `while` is one
    assert fast_locals("def _F_f(st):\n    return f('for', st.g[0], st.g[0])") is None
    waits = "def _F_f(st):\n    while st.g[0]:\n        st.left -= 1\n    return 1"
    assert fast_locals(waits) == (
        "def _F_f(st):\n    _g0 = st.g[0]\n    while _g0:\n        st.left -= 1\n    return 1"
    )
    # an entry changed in place keeps the variable's list; the whole replaced does not
    entry = "def _i0_0(st, L):\n    for i in L[1]:\n        st.g[0][i] = st.g[0][2]\n    return 1"
    assert fast_locals(entry) == (
        "def _i0_0(st, L):\n    _l1 = L[1]; _g0 = st.g[0]\n    for i in _l1:\n"
        "        _g0[i] = _g0[2]\n    return 1"
    )
    whole = "def _i0_0(st, L):\n    st.g[0] = [st.g[0][i] for i in L[1]]\n    return 1"
    assert "_g0" not in (fast_locals(whole) or "")
    # `st.g` itself handed on, or a variable picked at run time: nothing is held
    assert fast_locals("def _i0_0(st, L):\n    f(st.g)\n    return [st.g[0] for i in L[1]]") == (
        "def _i0_0(st, L):\n    _l1 = L[1]\n    f(st.g)\n    return [st.g[0] for i in _l1]"
    )
    picked = "def _i0_0(st, L):\n    return st.g[L[2]] + sum([st.g[0] for i in L[1]])"
    assert "_g0" not in (fast_locals(picked) or "")


def test_inlined_and_fast_code_plays_as_plain_calls_do():
    """The same seeded games with every speed-up and with none (no fusion, no copies, no
    Python locals), decision for decision."""
    fast = _game(INLINED)
    plain = _game(INLINED, fuse=False)
    for seed in SEEDS:
        a, b = start(fast, 2, rng.seed_state(seed)), start(plain, 2, rng.seed_state(seed))
        pick = random.Random(seed)
        while a.pending is not None:
            assert a.pending[1] == b.pending[1]
            option = pick.choice(a.pending[1])
            a.apply(option)
            b.apply(option)
        assert a.g == b.g and a.winners == b.winners


# ---------------------------------------------------------------------- remembered fns
REMEMBERED = """
ruleset "memo"
players 2
record card { v: int }
table cards: card { a (1)  b (2)  c (3)  d (4) }
zone deck: deck of card
zone piles[0..3]: hand of card
var seen: list of int = []
fn in_deck(): int = len([k for k in deck])
fn pile_size(i: int): int = len([k for k in piles[i]])
round max 1 {
  for k in rows(cards) { add k to deck }
  seen = seen + [in_deck()]
  move a from deck to piles[in_deck()]
  seen = seen + [in_deck(), pile_size(3)]
  draw 2 from deck to piles[in_deck()]
  seen = seen + [in_deck(), pile_size(1), pile_size(3)]
  while in_deck() > 0 max 4 { draw 1 from deck to piles[pile_size(0)] }
  let n = choose player(1) from [in_deck(), pile_size(1)] as "a number"
  seen = seen + [n]
  end game winners []
}
"""


def test_a_remembered_fn_forgets_when_what_it_reads_changes():
    """`in_deck()` and `pile_size(i)` are remembered; each move and draw changes what they
    read, even between taking a card and putting it down (the destination's key is read
    then), and the game is the one plain code plays."""
    fns = _fn_sources(REMEMBERED)
    assert "st.memo.get(" in fns["in_deck"] and "st.memo.get(" in fns["pile_size"]
    assert _game(REMEMBERED).remembers and not _game(REMEMBERED, remember=False).remembers
    for game in (_game(REMEMBERED), _game(REMEMBERED, remember=False)):
        state = start(game, 2, rng.seed_state(1))
        assert state.memo is NO_MEMO  # outside `run`, the memo keeps nothing
        assert state.pending[1] == [0, 1]
        state.apply(0)
        # a to piles[3], b to piles[2], c to piles[1], d to piles[0]
        assert state.get("seen") == [4, 3, 1, 1, 1, 1, 0]
        assert [state.get("piles", i) for i in range(4)] == [["d"], ["c"], ["b"], ["a"]]


def _fn_sources(text: str) -> dict[str, str]:
    """Each `fn`'s generated Python, by name (the compiler defines them through `python`)."""
    import dsl.codegen.compile as compile_module

    seen: dict[str, str] = {}
    real = compile_module._python

    def spy(source, env, mode):
        head = source.split("(", 1)[0]
        if head.startswith("def _F_"):
            seen[head.removeprefix("def _F_")] = source
        return real(source, env, mode)

    compile_module._python = spy
    try:
        _game(text)
    finally:
        compile_module._python = real
    return seen


ASKED_TWICE = """
ruleset "memo2"
players 2
var counts[0..2]: int = 0
var seen: list of int = []
fn total(): int = sum([counts[i] for i in range(0, 3)])
round max 1 {
  let a = choose player(1) from [total(), 7] as "first"
  seen = seen + [total()]
  let b = choose player(1) from [total(), 8] as "second"
  seen = seen + [total()]
  end game winners []
}
"""


def test_what_a_front_end_changes_between_decisions_is_read_afresh():
    state = start(_game(ASKED_TWICE), 2, rng.seed_state(1))
    assert state.pending[1] == [0, 7]
    state.set("counts", 1, 5)  # as `knapper play`'s `set` does, outside the engine
    state.apply(7)
    assert state.pending[1] == [5, 8] and state.get("seen") == [5]


CONSTANT_ITEMS = """
ruleset "items"
players 2
param pairs: list of list of int = [[1, 2], [3, 4]]
var total: int = 0
var firsts: list of int = []
proc read_only() {
  for d in pairs { total += d[0] * d[1] }
}
proc changing() {
  for d in pairs {
    d[0] = 0
    firsts = firsts + [d[0]]
  }
}
round max 1 {
  read_only()
  changing()
  read_only()
  end game winners []
}
"""


def test_a_loop_over_a_constant_copies_an_item_only_where_the_procedure_changes_it():
    game = _game(CONSTANT_ITEMS)
    sources = {info.name: "\n".join(block.source for block in info.blocks) for info in game.procs}
    assert "_copy(" not in sources["read_only"]
    assert "_copy(" in sources["changing"]
    state = start(game, 2, rng.seed_state(1))
    # `changing` changed its own copies: the param still holds 1 * 2 + 3 * 4, twice
    assert state.get("total") == 28 and state.get("firsts") == [0, 0]


def test_arithmetic_on_numbers_the_rules_bound_is_not_checked():
    """Connect Four's walk from the new disc: `way` takes 1 and -1, `d` the pairs of a
    `param`; `c + way * d[0]` cannot outgrow the text, so neither the product nor the sum is
    checked (a product by a local that a statement changes still is: tests/security)."""
    game = load("connect-four")
    walk = next(b.source for info in game.procs for b in info.blocks if "while " in b.source)
    assert "_mul(" not in walk and "_add(" not in walk


# ---------------------------------------------------------------------- positions by range
RANGED = """
ruleset "ranged"
players 2
var at[3..7]: int = 0
fn inside(): list of int = [at[k] for k in range(3, 8)]
fn outside(): list of int = [at[k] for k in range(2, 8)]
round max 2 {
  at[4] = 5
  let picked = choose player(1) from inside()
  at[3] = picked + len(outside())
}
"""


def test_a_range_inside_a_key_s_values_indexes_without_a_table_and_one_outside_is_refused():
    game = _game(RANGED)

    def tables(code) -> set[str]:  # the tables of positions a function and its parts read
        inner = [c for c in code.co_consts if hasattr(c, "co_names")]
        return {n for n in code.co_names if n.startswith("_m")}.union(*map(tables, inner))

    assert not tables(game.functions["inside"].__code__)
    assert tables(game.functions["outside"].__code__)
    state = start(game, 2, rng.seed_state(1))
    assert state.pending[1] == [0, 5, 0, 0, 0]  # `at[3..7]`, read from 3 with no table
    with pytest.raises(RulesetRuntimeError) as err:
        state.apply(5)  # `outside()` asks for at[2], which is no key of `at`
    assert err.value.code == "K401"


WALKED = """
ruleset "walked"
players 2
param lines: list of list of int = [[3, 4], [7, 5]]
param wide: list of list of int = [[3, 8], [4]]
var at[3..7]: int = 0
fn firsts(): list of int = [at[l[0]] for l in lines]
fn seconds(): list of int = [at[l[1]] for l in wide]
round max 2 {
  at[7] = 5
  let picked = choose player(1) from firsts()
  at[3] = picked + len(seconds())
}
"""


def test_the_items_of_a_param_inside_a_key_s_values_index_without_a_table():
    """`l[0]` of each of `lines` is 3 or 7, keys of `at`: no table. `wide` has an 8, and a
    list too short for `l[1]`: the table stays, and refuses the 8 (K401)."""
    game = _game(WALKED)
    assert "_m" not in _fn_sources(WALKED)["firsts"]
    assert "_m" in _fn_sources(WALKED)["seconds"]
    state = start(game, 2, rng.seed_state(1))
    assert state.pending[1] == [0, 5]
    with pytest.raises(RulesetRuntimeError) as err:
        state.apply(5)
    assert err.value.code == "K401"


# ---------------------------------------------------------------------- loops in a block
LOOPING = """
ruleset "looping"
players 2..4
var cell[0..9]: int = 0
var marked: int = 0
proc mark(i: int) { marked += 1  cell[i] += 1 }
round max 30 {
  for p in players {
    let k = choose p from [0, 3, 6, 9] as "a cell"
    for i in range(0, 10) {
      if i == k or cell[i] > 1 { mark(i) }
    }
  }
  if marked > 20 { end game winners [] }
}
"""


def test_a_block_that_goes_back_to_itself_loops_in_python_and_plays_as_the_plain_code():
    """A loop whose body only calls on some turns: the turns that do not call go round in
    the block's own `while True:` (emit.py, "Loops in a block"), with the same games."""
    fast, plain = _game(LOOPING), _game(LOOPING, fuse=False)
    looped = [b.source for info in fast.procs for b in info.blocks if "while True:" in b.source]
    assert looped and all("continue" in s or "return" in s.split("while True:")[1] for s in looped)
    assert not any("while True:" in b.source for info in plain.procs for b in info.blocks)
    for seed in SEEDS:
        for n in (2, 4):
            a, b = start(fast, n, rng.seed_state(seed)), start(plain, n, rng.seed_state(seed))
            pick = random.Random(seed)
            while a.pending is not None:
                assert a.pending == b.pending and a.g == b.g
                option = pick.choice(a.pending[1])
                a.apply(option)
                b.apply(option)
            assert a.g == b.g and a.winners == b.winners and a.decisions == b.decisions


# ---------------------------------------------------------------------- tails that go on
CHAINED = """
ruleset "chained"
players 2
var cell[0..3]: int = 0
var turns: int = 0
round max 10 {
  for p in players {
    turns += 1
    cell[turns] += 1
    let a = choose p from ["x", "y"] as "a letter"
  }
}
"""


def test_a_tail_s_own_tail_is_copied_and_a_fault_in_it_is_placed_at_its_statement():
    """The loop's next turn copies the turn's set-up and the decision after it (two copies
    in one block); the fourth turn's `cell[turns]` is no key of `cell`, and the error names
    that statement, as the plain code's does, with the game put back as it was."""
    fast, plain = _game(CHAINED), _game(CHAINED, fuse=False)
    assert any(len(copies) >= 2 for info in fast.procs for copies in info.tails)
    assert not any(copies for info in plain.procs for copies in info.tails)
    found = []
    for game in (fast, plain):
        state = start(game, 2, rng.seed_state(0))
        for _ in range(2):  # turns 1 to 3 (the first is before any decision)
            state.apply("x")
        before = state.get("cell")
        with pytest.raises(RulesetRuntimeError) as err:
            state.apply("y")
        assert state.get("cell") == before and state.pending is not None
        diagnostic = err.value.diagnostics[0]
        found.append((diagnostic.code, diagnostic.message, diagnostic.span.line))
    assert found[0] == found[1]
    assert found[0][0] == "K401" and found[0][2] == 9  # `cell[turns] += 1`


EXITS = """
ruleset "exits"
players 2
var cell[0..3]: int = 0
var turns: int = 0
round max 10 {
  for p in players {
    turns += 1
    cell[turns] += 1
    let done = false
    while not done max 3 {
      let a = choose p from ["stay", "go"] as "a letter"
      if a == "go" { done = true }
    }
  }
}
"""


def _fault_after(game, option: str) -> tuple:
    """Apply `option` until the rules fail: how many applied, the error, and whether the
    game was put back as it was before the failing one."""
    state = start(game, 2, rng.seed_state(0))
    for applied in range(1, 20):
        before = (state.get("cell"), state.get("turns"), state.pending)
        try:
            state.apply(option)
        except RulesetRuntimeError as err:
            diagnostic = err.diagnostics[0]
            back = (state.get("cell"), state.get("turns"), state.pending) == before
            return applied, diagnostic.code, diagnostic.message, diagnostic.span.line, back
    raise AssertionError("the rules never failed")


def test_a_loop_s_exit_runs_a_copy_of_the_block_it_leaves_to():
    """The loop's exit goes to the next player's turn, whose code runs in the block of the
    loop's test: a fault in that copy (`cell[turns]` at the fourth turn) and one in the
    block's own lines after it (the loop's bound, K405) are placed at their statements, as
    the plain code places them, with the game put back as it was."""
    fast, plain = _game(EXITS), _game(EXITS, fuse=False)
    # a block whose code goes on after a copy of another names itself again from there
    assert any(
        block == pc and start > 0
        for info in fast.procs
        for pc, copies in enumerate(info.tails)
        for start, block in copies
    )
    assert any("while True" in b.source and "if " in b.source for p in fast.procs for b in p.blocks)
    inside = [_fault_after(game, "go") for game in (fast, plain)]
    assert inside[0] == inside[1]
    assert inside[0][1] == "K401" and inside[0][3:] == (9, True)
    assert "4 is not a valid key" in inside[0][2]
    after = [_fault_after(game, "stay") for game in (fast, plain)]
    assert after[0] == after[1]
    assert after[0][1] == "K405" and after[0][3] == 11 and after[0][4]


WRITTEN = """
ruleset "written"
players 2
enum colour { red, blue, green }
record good_t { value: int }
table goods: good_t { g1 (1)  g2 (2)  g3 (3) }
param weights: list of int = [5, 6, 7]
var count[colour]: int = 0
var held[colour]: goods = none
var out: list of int = []
var fault: bool = false

round max 1 {
  count[blue] = 2
  held[red] = g2
  out = [count[c] * 10 for c in values(colour)]
    + [g.value for g in rows(goods) if g.value > 1]
    + [i * i for i in range(0, 4) if i != 2]
    + [w for w in weights]
    + [k for k in range(0, 13) if k > 10]
    + [count[a] + b for a in values(colour) for b in weights]
    + [sum([count[x] for x in values(colour)]) + j for j in range(0, 3)]
  if fault { out = [held[h].value for h in values(colour)] }
  end game winners []
}
"""


def test_a_comprehension_over_a_few_known_items_is_written_out_item_by_item():
    """One `for` over at most `WRITTEN_OUT` items known when compiling (an enum's values, a
    table's rows, a written range, a param's list) becomes a list display, nested ones too;
    more items, or two `for`s, stay a comprehension; plain code writes none out. Both give
    the same lists, and a fault in a written-out item is explained as in the comprehension."""
    fast, plain = _game(WRITTEN), _game(WRITTEN, fuse=False)
    written = "\n".join(b.source for info in fast.procs for b in info.blocks)
    for name in "cgiwxj":
        assert f"for v_{name} in" not in written
    assert "for v_k in" in written and "for v_a in" in written
    assert "*((" in written
    assert "for v_c in" in "\n".join(b.source for info in plain.procs for b in info.blocks)
    expected = [0, 20, 0, 2, 3, 0, 1, 9, 5, 6, 7, 11, 12, 5, 6, 7, 7, 8, 9, 5, 6, 7, 2, 3, 4]
    for game in (fast, plain):
        assert new_game_of(game).get("out") == expected
    faults = [str(_failed_with(game, fault=True)[0]) for game in (fast, plain)]
    assert faults[0] == faults[1]
    assert "`held[h]` is `none`, but `held[h].value` needs a row there" in faults[0]


def _failed_with(game, **values):
    """The error a game of two players (seed 1) stops with when its variables are set to
    `values` before it runs, and the state it stops in."""
    state = start(game, 2, rng.seed_state(1), run_now=False)
    for name, value in values.items():
        state.set(name, value)
    with pytest.raises(RulesetRuntimeError) as err:
        run(state)
    return err.value, state


def new_game_of(game):
    state = start(game, 2, rng.seed_state(1))
    assert state.winners == []
    return state


def test_a_decision_of_a_loop_s_player_is_not_checked_unless_the_loop_may_change_him():
    """`choose p` where `p` walks `players` and nothing in the loop sets `p`: always a player
    of the game, so the generated code does not check it. Set in the loop, or walking a list
    the rules make, it is checked (K408 otherwise)."""

    def checks(body: str) -> bool:
        text = (
            'ruleset "seated"\nplayers 2\nvar order: list of player = []\nvar n: int = 0\n'
            f"round max 2 {{\n  order = players\n{body}\n}}\n"
        )
        game = _game(text)
        return "_not_a_player" in "\n".join(b.source for info in game.procs for b in info.blocks)

    choose = '    let x = choose p from [1, 2] as "x"\n    n += x\n'
    assert not checks(f"  for p in players {{\n{choose}  }}")
    assert checks(f"  for p in players {{\n    p = player(1)\n{choose}  }}")
    assert checks(f"  for p in players {{\n    let p = player(1)\n{choose}  }}")
    assert checks(f"  for p in order {{\n{choose}  }}")
    # the inner loop over the same name sets the outer one's: the outer is checked
    inner = f"    for p in players {{\n  {choose}    }}\n"
    assert checks(f"  for p in players {{\n{inner}{choose}  }}")


LOOPS_WRITTEN = """
ruleset "loops"
players 2
param steps: list of list of int = [[1, 0], [0, 1], [2, 2]]
var total: int = 0
var seen: list of int = []
var held: list of int = []

round max 1 {
  for d in steps {
    for way in [1, -1] {
      total += way * d[0] + d[1]
      add d[1] to seen
    }
  }
  for e in steps {
    e = [0, 0]
    total += e[0]
  }
  for f in steps {
    if f[0] == 2 { break }
    total += 1
  }
  for g in [0, 1, 2] { total += held[g] }
  end game winners []
}
"""


def test_a_loop_over_a_few_known_items_is_written_out_unless_it_sets_its_name_or_breaks():
    """The body of a loop without a decision, over a param's list or a list of literals,
    once per item with the item's parts read as numbers; a loop that sets its name or
    breaks stays a loop. The same values as plain code, and the same fault, naming the
    item's local, when an item fails."""
    fast, plain = _game(LOOPS_WRITTEN), _game(LOOPS_WRITTEN, fuse=False)
    written = "\n".join(b.source for info in fast.procs for b in info.blocks)
    assert "in _k" in written  # the loops over `e` and `f` stay loops
    assert written.count("for ") == 2
    faults = []
    for game in (fast, plain):
        error, state = _failed_with(game, held=[5, 6])
        faults.append((error.code, str(error), state.get("total"), state.get("seen")))
    assert faults[0] == faults[1]
    assert faults[0][0] == "K401"
    assert faults[0][2:] == (19, [0, 0, 1, 1, 2, 2])  # what ran before `held[2]` failed
    assert "index" in faults[0][1]
    for game in (fast, plain):
        state = start(game, 2, rng.seed_state(1), run_now=False)
        state.set("held", [5, 6, 7])
        run(state)
        # way * d[0] + d[1] over both ways is 2 * d[1]: 0 + 2 + 4; then 2 steps before the
        # break, and 5 + 6 + 7
        assert state.get("total") == 6 + 2 + 18
        assert state.get("seen") == [0, 0, 1, 1, 2, 2]


BOUNDED = """
ruleset "bounded"
players 2
var cell[0..6]: int = 0
var hits: int = 0
var x: int = 3
fn inside(c: int): bool = c >= 0 and c < 7

round max 1 {
  let y = x
  if inside(y) and cell[y] == 0 { hits += 1 }
  if y >= 0 and cell[y] == 0 { hits += 10 }
  if 0 <= y and y < 7 and cell[y] == 0 { hits += 100 }
  end game winners []
}
"""


def test_a_key_that_a_test_before_it_bounds_indexes_without_a_table():
    """`inside(y) and cell[y] == 0`: where the left side holds, `y` is in 0..6, the keys of
    `cell`, so the right side indexes with `y` itself; a test that bounds `y` on one side
    only leaves the look-up that refuses a key outside the keys. Plain code bounds nothing."""
    fast, plain = _game(BOUNDED), _game(BOUNDED, fuse=False)
    block = fast.procs[0].blocks[0].source
    assert block.count("_m") == 1  # only `y >= 0 and cell[y] == 0` looks `y` up
    assert "_m" in "\n".join(b.source for info in plain.procs for b in info.blocks)
    for game in (fast, plain):
        for value, hits in ((3, 111), (9, 0)):
            state = start(game, 2, rng.seed_state(1), run_now=False)
            state.set("x", value)
            if value == 9:  # `y >= 0` holds, and the look-up refuses 9
                with pytest.raises(RulesetRuntimeError) as err:
                    run(state)
                assert err.value.code == "K401"
            else:
                run(state)
                assert state.get("hits") == hits


ROW_WALK = """
ruleset "rows"
players 2
enum spot { s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14 }
var cell[player, spot]: int = 0
var out: list of spot = []
var who: player = none
var probe: bool = false

round max 1 {
  let a = player(1)
  let b = player(2)
  cell[a, s2] = 3
  cell[a, s9] = 1
  cell[a, s14] = 2
  cell[b, s3] = 5
  out = [s for s in values(spot) if cell[a, s] > 0 and s != s9]
    + [s for s in values(spot) if cell[b, s] >= 5]
    + [s for s in values(spot) if 0 < cell[b, s]]
  if probe { out = [s for s in values(spot) if cell[who, s] > 0] }
  end game winners []
}
"""


def test_a_comprehension_over_a_variable_s_last_key_walks_its_row():
    """One `for` over the values of a variable's last key, too many to write out, whose test
    begins with that variable's cell at the item, walks the variable's row beside the items;
    a test that reads the cell second, or plain code, does not. Both give the same list,
    and the same fault when the row's start fails."""
    fast, plain = _game(ROW_WALK), _game(ROW_WALK, fuse=False)
    walked = fast.procs[0].blocks[0].source
    assert walked.count(" in zip(") == 3  # the third comprehension reads the cell second
    assert " in zip(" not in "\n".join(b.source for info in plain.procs for b in info.blocks)
    for game in (fast, plain):
        assert new_game_of(game).get("out") == ["s2", "s14", "s3", "s3"]
    faults = [str(_failed_with(game, probe=True)[0]) for game in (fast, plain)]
    assert faults[0] == faults[1]
    assert "`who` is `none`" in faults[0]


ROLLED = """
ruleset "rolled"
players 2
var out: list of int = []

round max 1 {
  repeat 5 {
    let face = roll 1d6
    let big = roll 1d20
    out = out + [face, big]
  }
  end game winners []
}
"""


def test_a_die_rolled_into_a_local_is_written_in_place():
    """`let x = roll 1dN` steps the generator in the block itself (no call to `_die`
    unless dice are scripted): the same faces as plain code for a seed, and scripted dice
    still come first, checked against the die."""
    fast, plain = _game(ROLLED), _game(ROLLED, fuse=False)
    source = fast.procs[0].blocks[0].source
    assert "st.rng = _s" in source and "st.rng = _s" not in plain.procs[0].blocks[0].source
    for seed in (1, 2, 3):
        faces = [start(g, 2, rng.seed_state(seed)).get("out") for g in (fast, plain)]
        assert faces[0] == faces[1]
        assert all(1 <= f <= 6 for f in faces[0][::2]) and max(faces[0][1::2]) <= 20
    for game in (fast, plain):
        scripted = start(game, 2, rng.seed_state(1), script=[6, 20, 1, 1]).get("out")
        assert scripted[:4] == [6, 20, 1, 1]
        with pytest.raises(RulesetRuntimeError, match="K406"):
            start(game, 2, rng.seed_state(1), script=[7])


QUANTIFIED = """
ruleset "quantified"
players 2
enum colour { red, green, blue }
var xs: list of int = []
var ys: list of int = [0, 1, 2]
var n: int = 0
var out: list of bool = []
var after: int = 0
fn faults(c: colour): bool = first(xs) > 0

round max 1 {
  out = [all([n > 0, first(xs) > 0]), any([n == 0, first(xs) > 0]),
         all([n > 0 and first(xs) > 0 for c in values(colour)]),
         any([n == 0 or faults(c) for c in values(colour)]),
         all([i > n and first(xs) > 0 for i in range(0, 40)]),
         any([y == n or first(xs) > 0 for y in ys]),
         all([first(xs) > 0 for c in values(colour) if n > 0]), any([]), all([])]
  let rolled = all([roll 1d6 > 6, roll 1d6 > 0])
  after = roll 1d6
  end game winners []
}
"""


def test_any_and_all_stop_at_the_item_that_decides_them():
    """`any` and `all` of a list display or a comprehension (written out or not) work out
    no item after the one that decides them: `first(xs)` of the empty list after it does
    not fail, in fused code or plain. A list that rolls dice rolls every die of it."""
    fast, plain = _game(QUANTIFIED), _game(QUANTIFIED, fuse=False)
    source = fast.procs[0].blocks[0].source
    assert "for v_c in" not in source  # the enum's three values are written out
    assert "any(((v_y == " in source  # a comprehension not written out is a generator
    assert "all([(_die(st, 6) > 6), (_die(st, 6) > 0)])" in source
    for game in (fast, plain):
        state = start(game, 2, rng.seed_state(1), script=[1, 2, 3])
        assert state.get("out") == [False, True, False, True, False, True, True, False, True]
        assert state.get("after") == 3  # both dice of the list were rolled


OUTER_TEST = """
ruleset "outer"
players 2
map m { node n1 node n2 node n3 node n4  n1 -- n2  n2 -- n3  n3 -- n4  n4 -- n1  n1 -- n3 }
var held[m]: int = 0
var xs: list of int = [1, 2]
var out: list of list of m = []
var probe: bool = false

round max 1 {
  held[n1] = 2
  held[n3] = 1
  out = [[t, n] for t in nodes(m) for n in adjacent(t) if held[t] > 0 and held[n] == 0]
    + [[t, n] for t in nodes(m) for n in adjacent(t) if n != n2 and held[t] > 0]
    + [[t, t] for t in nodes(m) for x in xs if held[t] > x]
  if probe { out = [[t, n] for t in nodes(m) for n in adjacent(t) if first([]) == t] }
  end game winners []
}
"""


def test_a_test_of_a_comprehension_that_reads_only_outer_names_is_tested_before_the_last_for():
    """`for t in A for n in B if c(t) and d(n)`: `c(t)` is tested once before `for n`,
    when `B` is never empty (a node's neighbours on a map where every node has one), so it
    is worked out at least once for each `t` as before. A test that reads `n` first, or a
    list that may be empty, stays where it was; plain code does no such thing. Both give
    the same lists, and the same fault."""
    fast, plain = _game(OUTER_TEST), _game(OUTER_TEST, fuse=False)
    source = fast.procs[0].blocks[0].source
    assert source.count("for _o in (") == 2  # the first and the fourth comprehension
    assert "for _o in (" not in "\n".join(b.source for info in plain.procs for b in info.blocks)
    expected = [["n1", "n2"], ["n1", "n4"], ["n3", "n2"], ["n3", "n4"]]
    expected += [["n1", "n4"], ["n1", "n3"], ["n3", "n4"], ["n3", "n1"], ["n1", "n1"]]
    for game in (fast, plain):
        assert new_game_of(game).get("out") == expected
    faults = [str(_failed_with(game, probe=True)[0]) for game in (fast, plain)]
    assert faults[0] == faults[1]


PICKED = """
ruleset "picked"
players 2
enum tag { hot, cold, wet }
record step_t { rank: int, tags: list of tag }
table steps: step_t {
  a (1, [hot])  b (2, [cold, hot, hot])  c (1, [])  d (3, [wet])  e (2, [hot, wet])
}
var rank: int = 2
var out: list of steps = []
var names: list of int = []

round max 1 {
  let t = hot
  out = [s for s in rows(steps) if s.rank == rank]
    + [s for s in rows(steps) if 1 == s.rank]
    + [s for s in rows(steps) if t in s.tags and s.rank > 1]
    + [s for s in rows(steps) if s.rank == 7]
    + [s for s in rows(steps) if s.rank > 1 and s.rank == rank]
  names = [s.rank * 10 for s in rows(steps) if wet in s.tags]
  end game winners []
}
"""


def test_a_comprehension_over_rows_picked_by_a_field_walks_only_their_group():
    """`[r for r in rows(t) if r.f == v ...]` or `if v in r.f ...`, `v` a name or written:
    the rows are grouped by the field when compiling, and the comprehension walks `v`'s
    group, in the table's order, testing only the rest; a row that holds `v` twice comes
    once. A test that reads the field second, or plain code, walks every row (here
    written out, each row's field read when compiling). Both give the same lists."""
    fast, plain = _game(PICKED), _game(PICKED, fuse=False)
    source = fast.procs[0].blocks[0].source
    assert source.count(".get(") == 5  # all but the fifth comprehension
    assert "if ((2 > 1) and (2 == _g0))" in source  # the fifth is written out, row by row
    assert ".get(" not in "\n".join(b.source for info in plain.procs for b in info.blocks)
    for game in (fast, plain):
        state = new_game_of(game)
        assert state.get("out") == ["b", "e", "a", "c", "b", "e", "b", "e"]
        assert state.get("names") == [30, 20]


ROW_READ = """
ruleset "row read"
players 2
enum colour { red, green, blue }
var cell[player, colour]: int = 0
var out: list of int = []
var who: player = none
var probe: bool = false

round max 1 {
  let a = player(1)
  cell[a, green] = 4
  cell[player(2), red] = 7
  out = [cell[a, c] for c in values(colour)] + [sum([cell[p, c] for c in values(colour)])
    for p in players] + [cell[a, c] + 1 for c in values(colour)]
  if probe { out = [cell[who, c] for c in values(colour)] }
  end game winners []
}
"""


def test_a_comprehension_of_a_variable_s_cells_along_its_last_key_reads_its_row():
    """`[v[p, c] for c in values(k)]`, `k` the variable's last key, with no test: a slice
    of the variable's row, its start worked out once; a value that is more than the cell,
    or plain code, is no slice. Both give the same list, and the same fault when the row's
    start fails."""
    fast, plain = _game(ROW_READ), _game(ROW_READ, fuse=False)
    source = fast.procs[0].blocks[0].source
    assert source.count(" * 3 + 3]") == 3  # all but `cell[a, c] + 1`, written out
    assert " + 3]" not in "\n".join(b.source for info in plain.procs for b in info.blocks)
    for game in (fast, plain):
        assert new_game_of(game).get("out") == [0, 4, 0, 4, 7, 1, 5, 1]
    faults = [str(_failed_with(game, probe=True)[0]) for game in (fast, plain)]
    assert faults[0] == faults[1]
    assert "`who` is `none`" in faults[0]


KNOWN = """
ruleset "known"
players 2
enum colour { red, green, blue }
param second: int = 1
var cell[colour]: int = 0
var big: int = 0
var out: list of colour = []
var sums: list of int = []

round max 1 {
  cell[green] = 4
  cell[values(colour)[2]] = 5
  big = big + (if cell[green] > 0 then 1 else 0)
  out = [values(colour)[i] for i in range(0, len(values(colour)))] + [values(colour)[second]]
  sums = [cell[values(colour)[i]] + i for i in range(1, len(values(colour)))]
  end game winners []
}
"""


def test_what_the_rules_text_says_is_known_when_compiling():
    """A key written in the rules (an enum's value, a `param`), an item at a known position
    of an enum's values, and `range` up to the number of an enum's values are worked out
    when compiling: the range is written out item by item, the keys are positions. A choice
    between two small numbers is small, so a sum with it is not checked. Plain code writes
    no comprehension out, and both give the same values."""
    fast, plain = _game(KNOWN), _game(KNOWN, fuse=False)
    source = fast.procs[0].blocks[0].source
    assert "_m" not in source and "for v_i in" not in source and "_add(" not in source
    assert "['red', 'green', 'blue'], ['green']" in source
    plain_source = "\n".join(b.source for info in plain.procs for b in info.blocks)
    assert "for v_i in range(0, 3)" in plain_source
    for game in (fast, plain):
        state = new_game_of(game)
        assert state.get("out") == ["red", "green", "blue", "green"]
        assert state.get("sums") == [5, 7]
        assert state.get("big") == 1


SEATS = """
ruleset "seats"
players 2..4
var score[player]: int = 0
var out: list of int = []

round max 1 {
  for p in players { score[p] += 2 }
  let q = player(1)
  for q in players { score[q] += 1 }
  out = [score[r] * 10 for r in players] + [score[q]]
  end game winners []
}
"""


def test_a_name_that_walks_players_is_the_position_of_its_seat():
    """A name bound only by `for` loops over `players` (in a procedure, or a comprehension's)
    holds a seat, which is its own position among a `player` key's values: its cells are
    read without a look-up. A name bound otherwise too keeps the look-up; plain code and
    fused code give the same values."""
    fast, plain = _game(SEATS), _game(SEATS, fuse=False)
    assert fast.procs[0].blocks[0].source.count("[_m") == 2  # `q` is a `let` too
    for game in (fast, plain):
        state = start(game, 3, rng.seed_state(1))
        assert state.get("out") == [30, 30, 30, 3]
