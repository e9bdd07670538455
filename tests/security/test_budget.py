"""The work budget: rules that pass the checker but would hang or eat memory when played stop
with a K42x error at the rule that was running, in seconds (small budgets keep them fast)."""

from __future__ import annotations

import pytest

from dsl.errors import KnapperError, RulesetRuntimeError
from dsl.pipeline import compile_text
from interpreter.api import new_game
from interpreter.core.budget import Budget

RULES = """ruleset "budget"
players 2
var x: int = 2
var xs: list of int = []
{decls}
proc work() §W1 {{
{body}
}}
round max 1 {{
  work()
  let c = choose player(1) from [1, 2] as "pick"
  end game winners []
}}
"""

SMALL = Budget(steps=10_000, elements=100_000, int_bits=128)

# each derived value calls the one before twice: 2^40 calls. A list argument keeps them from
# being remembered (dsl/codegen/memo.py), so only the budget can stop the chain.
FNS = "fn f0(a: list of int): int = len(a)\n" + "\n".join(
    f"fn f{i}(a: list of int): int = f{i - 1}(a) + f{i - 1}(a)" for i in range(1, 41)
)
# the same chain on a number: each call is remembered, so it takes 40 calls, not 2^40
REMEMBERED = "fn g0(a: int): int = a\n" + "\n".join(
    f"fn g{i}(a: int): int = g{i - 1}(a) + g{i - 1}(a)" for i in range(1, 41)
)

CASES = {
    "comprehension": ("", "  xs = [a + b for a in range(0, 100) for b in range(0, 5000)]", "K421"),
    "repeat": ("", "  repeat 1000000000000 { x += 1 }", "K421"),
    "dice": ("", "  repeat 200 { xs = roll 900d6 }", "K422"),
    "computed dice": ("", "  xs = dice(1000000000, 6)", "K422"),
    "range": ("", "  xs = range(0, 1000000000000)", "K422"),
    "exponential fns": (FNS, "  x = f40([1])", "K421"),
    "squaring": ("", "  repeat 40 { x = x * x }", "K423"),
    "doubling a list": ("", "  xs = [1]\n  repeat 60 { xs = xs + xs }", "K422"),
    "while": ("", "  while x > 0 max 1000000000 { x += 1 }", "K421"),
    "doubling a number": ("", "  repeat 5000 { x = x + x }", "K423"),
    "tripling by a literal": ("", "  repeat 5000 { x = x * 3 }", "K423"),
    "tripling by a small local": ("", "  for k in [3] { repeat 5000 { x = x * k } }", "K423"),
    "taking away the negative": ("", "  repeat 5000 { x = x - (0 - x) }", "K423"),
    "for in for": ("", "  xs = range(0, 5000)\n  for a in xs { for b in xs { x += 1 } }", "K421"),
}


def play(decls: str, body: str, budget: Budget | None = SMALL):
    game = compile_text(RULES.format(decls=decls, body=body), "budget.knap")
    return new_game(game, players=2, budget=budget, seed=0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_runaway_rules_stop_at_the_rule_with_a_budget_error(name):
    decls, body, code = CASES[name]
    with pytest.raises(RulesetRuntimeError) as caught:
        play(decls, body)
    err = caught.value
    assert err.code == code
    d = err.diagnostics[0]
    assert d.span.file == "budget.knap" and d.span.line >= 7
    assert "proc 'work'" in d.message
    assert d.cite == "W1"


def test_the_exponential_fn_chain_names_the_fn():
    with pytest.raises(RulesetRuntimeError) as caught:
        play(FNS, "  x = f40([1])")
    assert "fn 'f" in caught.value.diagnostics[0].message


def test_the_default_budget_stops_the_exponential_chain():
    # ten million steps: a few seconds, not the age of the universe
    with pytest.raises(RulesetRuntimeError) as caught:
        play(FNS, "  x = f40([1])", budget=None)
    assert caught.value.code == "K421"


def test_a_remembered_chain_runs_inside_the_budget():
    state = play(REMEMBERED, "  x = g40(1)")
    assert state.get("x") == 2**40


def test_work_inside_the_budget_runs_and_the_budget_is_per_decision():
    # 6,000 turns before each of two decisions: under a budget of 10,000 each time
    game = compile_text(
        RULES.format(decls="", body="  repeat 6000 { x += 1 }").replace(
            "  end game winners []",
            '  work()\n  let d = choose player(2) from [1, 2] as "again"\n  end game winners []',
        ),
        "budget.knap",
    )
    state = new_game(game, players=2, budget=SMALL, seed=0)
    state.apply(1)
    state.apply(2)
    assert state.is_over() and state.get("x") == 2 + 12000


def test_a_clone_keeps_its_budget():
    state = play("", "  x += 1")
    assert state.clone().budget == SMALL


@pytest.mark.parametrize(
    "error",
    [MemoryError, RecursionError, OverflowError],
)
def test_python_running_out_inside_the_rules_is_a_k424(error, monkeypatch):
    from interpreter.core import budget as budget_module

    def give_out(st, n):
        raise error()

    monkeypatch.setattr(budget_module, "_count", give_out)
    from interpreter.core import runtime

    monkeypatch.setitem(runtime.RUNTIME, "_count", give_out)
    with pytest.raises(RulesetRuntimeError) as caught:
        play("", "  repeat 3 { x += 1 }")
    assert caught.value.code == "K424"
    assert isinstance(caught.value, KnapperError)


def test_a_budget_must_be_positive():
    with pytest.raises(ValueError):
        Budget(steps=0)


STEPS = """ruleset "unchanged"
players 2
var x: int = 2
var rolled: list of int = []
proc work() §W1 {
  rolled = roll 3d6
  x = 99
  repeat 1000000000000 { x += 1 }
}
round max 1 {
  rolled = roll 2d6
  let c = choose player(1) from [1, 2] as "pick"
  if c == 2 { work() }
  x += c
  let d = choose player(2) from [1, 2] as "again"
  end game winners []
}
"""


def _looks(state) -> tuple:
    return (
        state.get("x"),
        state.get("rolled"),
        state.rng,
        state.waiting(),
        state.frames(),
        state.decisions,
        list(state.taken),
    )


@pytest.mark.parametrize("told_by", ["its record", "a copy"])
def test_a_failed_option_leaves_the_state_as_it_was(told_by):
    game = compile_text(STEPS, "unchanged.knap")
    state = new_game(game, players=2, seed=7, budget=SMALL)
    if told_by == "a copy":
        state.set("x", 5)  # a state its seed and options no longer tell
    before = _looks(state)
    with pytest.raises(RulesetRuntimeError) as caught:
        state.apply(2)
    assert caught.value.code == "K421"
    assert _looks(state) == before
    state.apply(1)  # and the game goes on from there
    assert state.get("x") == before[0] + 1 and state.waiting().who == 1


def test_a_failed_move_of_a_session_changes_nothing():
    from interpreter.protocol.session import ProtocolError, Session

    game = compile_text(STEPS, "unchanged.knap")
    session = Session(game, 2, seed=7)
    session.state.budget = SMALL
    view = session.view(1)
    events = session.events(None)
    with pytest.raises(ProtocolError) as caught:
        session.move(1, 2, session.version)
    assert caught.value.code == "K421"
    assert session.view(1) == view and session.events(None) == events
    session.move(1, 1, session.version)
    assert session.to_move() == 2


def test_the_command_line_sets_the_budget(tmp_path):
    from click.testing import CliRunner

    from interpreter.frontends.cli import main

    ruleset = tmp_path / "loop.knap"
    ruleset.write_text(RULES.format(decls="", body="  repeat 5000 { x += 1 }"))
    runner = CliRunner()
    ok = runner.invoke(main, ["simulate", str(ruleset), "-n", "2", "--seed", "1"])
    assert ok.exit_code == 0, ok.output
    outputs = {}
    for command, given in (("simulate", ["-n", "2", "--seed", "1"]), ("play", ["--seed", "1"])):
        out = runner.invoke(
            main, [command, str(ruleset), *given, "--max-steps", "1000"], input="1\n"
        )
        assert out.exit_code == 1 and "K421" in out.output and "1000 steps" in out.output
        outputs[command] = " ".join(out.output.split())
    # the command that plays the failing game again keeps the budget it failed with
    assert "--seed 1 --players 2 --max-steps 1000 --max-items" in outputs["simulate"]
