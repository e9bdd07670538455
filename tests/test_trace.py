"""Traces, `knapper explain` and the dynamic findings of random play."""

from __future__ import annotations

import io

import orjson
import pytest
from click.testing import CliRunner

from dsl.pipeline import compile_text
from interpreter.agents import RandomAgent
from interpreter.api import load, new_game
from interpreter.coverage import breaks_invariant, dynamic_findings
from interpreter.explain import explain
from interpreter.frontends.cli import main
from interpreter.save import dump_state
from interpreter.simulate import simulate
from interpreter.trace import Recorder, decisions_of, play_traced, replay, start_traced


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def lines_of(data: bytes) -> list[dict]:
    return [orjson.loads(line) for line in data.splitlines()]


def traced(name: str, games: int, players: int | None = None) -> list[dict]:
    out = io.BytesIO()
    simulate(name, games, seed=0, players=players, trace=out.write)
    return lines_of(out.getvalue())


# ---------------------------------------------------------------------- traces
@pytest.mark.parametrize("name", ["tic-tac-toe", "pig", "cro-magnon", "aurignac"])
def test_trace_is_complete_and_replays(name):
    game = load(name)
    lines = traced(name, 3)
    for seed in range(3):
        mine = [line for line in lines if line["game"] == seed]
        assert mine[0]["event"] == "start" and mine[0]["seed"] == seed
        assert mine[-1]["event"] == "end"
        decisions = [line for line in mine if line["event"] == "decision"]
        assert [d["n"] for d in decisions] == list(range(1, len(decisions) + 1))
        assert mine[-1]["decisions"] == len(decisions)
        # the recorded options, replayed from the seed, give the same game
        state = replay(game, None, seed, decisions_of(lines, seed))
        assert state.outcome() == {k: mine[-1][k] for k in state.outcome()}
        # and recording the replay gives the same trace, line for line
        again = io.BytesIO()
        options = iter(decisions_of(lines, seed))
        state, recorder = start_traced(game, None, seed, again.write)
        play_traced(state, recorder, lambda _s, _d: next(options))
        assert lines_of(again.getvalue()) == mine


def test_tracing_does_not_change_the_games():
    plain, _ = simulate("pig", 20, seed=5)
    summary, _ = simulate("pig", 20, seed=5, trace=io.BytesIO().write)
    assert (summary.wins, summary.decisions_mean) == (plain.wins, plain.decisions_mean)


def test_decisions_name_their_rule_and_the_stack_that_led_there():
    lines = traced("cro-magnon", 1)
    decision = next(
        line for line in lines if line["event"] == "decision" and line["proc"] == "advance_phase"
    )
    assert decision["site"].endswith(".knap:316:9") or ".knap:" in decision["site"]
    assert decision["cite"] == "ADVANCE PHASE"
    stack = decision["stack"]
    assert stack[0]["proc"] == "main"
    assert [f["proc"] for f in stack[-2:]] == ["take_turn", "advance_phase"]
    assert stack[-1]["cite"] == "ADVANCE PHASE" and stack[-2]["cite"] == "TURN SEQUENCE"
    assert decision["text"] and "option" in decision and decision["options"] >= 2
    dice = [line for line in lines if line["event"] == "die"]
    assert dice and all(1 <= d["value"] <= d["sides"] for d in dice)


def test_log_lines_say_where_they_come_from():
    lines = traced("aurignac", 2)
    logs = [line for line in lines if line["event"] == "log"]
    assert logs, "aurignac logs its events"
    assert all(line["at"] and ".knap:" in line["at"] and line["proc"] for line in logs)


def test_simulate_trace_option_in_parallel_is_the_same(tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert run("simulate", "pig", "-n", "6", "--seed", "0", "--trace", str(one)).exit_code == 0
    parallel = run("simulate", "pig", "-n", "6", "--seed", "0", "-j", "2", "--trace", str(two))
    assert parallel.exit_code == 0
    assert one.read_bytes() == two.read_bytes()
    games = {line["game"] for line in lines_of(one.read_bytes())}
    assert games == set(range(6))


def test_simulate_trace_to_a_folder_that_does_not_exist(tmp_path):
    out = run("simulate", "pig", "-n", "1", "--trace", str(tmp_path / "no" / "t.jsonl"))
    assert out.exit_code != 0 and "Traceback" not in out.output


def test_play_trace(tmp_path):
    trace = tmp_path / "t.jsonl"
    out = run("play", "tic-tac-toe", "--seed", "1", "--trace", str(trace), input="1\n" * 5)
    assert out.exit_code == 0, out.output
    lines = lines_of(trace.read_bytes())
    assert lines[0]["event"] == "start" and lines[-1]["event"] == "end"
    first = next(line for line in lines if line["event"] == "decision")
    assert first["player"] == 0 and first["option"] == 0  # menu entry 1 is cell 0
    state = replay(load("tic-tac-toe"), 2, 1, decisions_of(lines, 1))
    assert state.winners == lines[-1]["winners"]


def test_play_trace_of_an_abandoned_game(tmp_path):
    trace = tmp_path / "t.jsonl"
    out = run("play", "pig", "--trace", str(trace), input="q\n")
    assert out.exit_code == 0
    assert lines_of(trace.read_bytes())[-1]["event"] == "abandoned"


def test_a_failing_game_ends_its_trace_with_the_error():
    game = compile_text(
        'ruleset "f"\nplayers 2\nround max 3 {\n'
        '  let n = choose player(1) from [1, 2] as "n"\n  let z = [1][n]\n}\n',
        "f.knap",
    )
    out = io.BytesIO()
    with pytest.raises(Exception, match="K401"):
        state, recorder = start_traced(game, None, 0, out.write)
        play_traced(state, recorder, lambda _s, d: d.options[-1])
    last = lines_of(out.getvalue())[-1]
    assert last["event"] == "error" and last["diagnostics"][0]["code"] == "K401"


# ---------------------------------------------------------------------- explain
@pytest.fixture
def ttt_save(tmp_path):
    state = new_game(load("tic-tac-toe"), seed=0)
    for cell in (4, 0):
        state.apply(cell)
    path = tmp_path / "ttt.json"
    path.write_bytes(dump_state(state))
    return path


def test_explain_a_legal_option(ttt_save):
    out = run("explain", str(ttt_save), "8", "--seat", "1")
    assert out.exit_code == 0, out.output
    assert '"place your mark" §rules' in out.output
    assert "tic-tac-toe.knap:33:5" in out.output
    assert "let free = [i for i in range(0, 9) if cell[i] == empty]" in out.output
    assert "legal: 8 is option 7 of 7" in out.output


def test_explain_an_illegal_option(ttt_save):
    out = run("explain", str(ttt_save), "4", "--seat", "1")
    assert out.exit_code == 1
    assert "illegal: 4 is not among the 7 options" in out.output
    assert "the options are: 1, 2, 3, 5, 6, 7, 8" in out.output


def test_explain_reads_the_text_play_shows(tmp_path):
    game = load("cro-magnon")
    state = new_game(game, seed=3)
    shown = [game.describe(o) for o in state.legal()]
    assert shown[0] != state.legal()[0], "options are shown by their titles"
    result = explain(state, shown[0])
    assert result.legal and result.index == 1 and result.option == state.legal()[0]
    assert explain(state, orjson.dumps(state.legal()[1]).decode()).index == 2
    wrong = explain(state, shown[0][:-1] + "x")
    assert not wrong.legal and wrong.suggestion == shown[0]


def test_explain_names_the_procedures_that_led_there():
    game = load("cro-magnon")
    state = new_game(game, seed=1)
    agent = RandomAgent(1)
    while state.pending is not None and game.sites[state.pending[2]].proc != "advance_phase":
        state.apply(agent(state, state.decision()))
    result = explain(state, '"done"')
    assert [f["proc"] for f in result.stack][-2:] == ["take_turn", "advance_phase"]
    assert result.options_text == 'band_moves(p) + ["done"]'
    assert any("fn band_moves" in text for _place, text, _cite in result.uses)
    assert result.legal and result.index == len(result.options)
    assert "reached through:" in result.render()


def test_explain_without_an_option_lists_them(ttt_save):
    out = run("explain", str(ttt_save), "--json", "--seat", "1")
    assert out.exit_code == 0
    data = orjson.loads(out.output)
    assert data["options"] == [1, 2, 3, 5, 6, 7, 8] and data["legal"] is None


def test_explain_a_game_that_is_over(tmp_path):
    state = new_game(load("tic-tac-toe"), seed=0)
    while state.pending is not None:
        state.apply(state.legal()[0])
    path = tmp_path / "over.json"
    path.write_bytes(dump_state(state))
    out = run("explain", str(path), "1")
    assert out.exit_code == 1 and "error[K850]" in out.output


def test_explain_a_bad_save(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{")
    out = run("explain", str(path), "1")
    assert out.exit_code == 1 and "error[K700]" in out.output
    assert "error[K101]" in run("explain", str(tmp_path / "none.json")).output


# ---------------------------------------------------------------------- dynamic findings
TINY = """ruleset "tiny"
players 2

var total[player]: int = 0 §T1

proc bonus(p: player) §T5 {
  total[p] += 10
}

proc never(p: player) §T6 {
  total[p] += 100
}

round max 20 §T2 {
  for p in players {
    let n = choose p from [1, 2, 3] as "how many" §T3
    total[p] += n
    if total[p] > 1000 { never(p) }
    if n == 3 { bonus(p) }
    if total[p] > 1000 {
      let m = choose p from [1, 2] as "unreachable" §T7
    }
    if total[p] >= 30 { end game winners [p] §T4 }
  }
}
"""


def tiny(extra: str = "", body: str = TINY):
    return compile_text(body + extra, "tiny.knap")


def test_coverage_finds_a_procedure_never_called_and_arms_never_taken():
    found = dynamic_findings(tiny(), None, 20, 0)
    # the decision never reached lies in an arm never taken: the arm is the finding
    assert [(d.code, d.span.line, d.cite, d.severity) for d in found] == [
        ("K851", 10, "T6", "warning"),
        ("K858", 18, "T2", "warning"),
        ("K858", 21, "T7", "warning"),
    ]
    assert "proc 'never' never ran in 20 random games" in found[0].message
    assert "the `if total[p] > 1000` arm never ran in 20 random games" in found[1].message


def test_coverage_of_tic_tac_toe_finds_nothing():
    assert dynamic_findings("tic-tac-toe", 2, 50, 0) == []


def test_coverage_reports_a_broken_invariant_with_a_short_reproduction():
    game = tiny("invariant small §T9: all([total[p] < 14 for p in players])\n")
    found = [d for d in dynamic_findings(game, None, 10, 0) if d.code == "K854"]
    assert len(found) == 1 and found[0].cite == "T9" and found[0].span.line == 26
    options = orjson.loads(found[0].hint.rsplit("break it: ", 1)[1])
    seed = int(found[0].message.split("seed ")[1].split(",")[0])
    assert breaks_invariant(game, 2, seed, options) == options
    # one bonus (10) and a few more points: a handful of decisions suffice
    assert len(options) <= 6


def test_coverage_reports_no_options_bounds_and_failures():
    game = tiny(
        body=(
            'ruleset "bad"\nplayers 2\nvar total[player]: int = 0\n'
            "var pile: list of int = [1, 2, 3]\n"
            "round max 4 §T2 {\n  for p in players {\n"
            '    let n = choose p from [x for x in pile if x > total[p]] as "take" §T3\n'
            "    total[p] += n\n"
            "    if total[p] == 2 { let z = pile[10] }\n  }\n}\n"
        )
    )
    found = {d.code: d for d in dynamic_findings(game, None, 30, 0)}
    assert set(found) <= {"K853", "K855", "K856"}
    assert found["K853"].cite == "T3" and found["K853"].span.line == 7
    assert "--seed" in (found["K853"].hint or "")
    assert found["K856"].span.line == 9 and "K401" in found["K856"].message


def test_coverage_reports_a_game_that_does_not_end():
    game = compile_text(
        'ruleset "long"\nplayers 2\n'
        'round max 3 §R {\n  let n = choose player(1) from [1, 2] as "n"\n}\n',
        "long.knap",
    )
    (finding,) = dynamic_findings(game, None, 5, 0)
    assert finding.code == "K855" and "5 of 5 games" in finding.message
    assert finding.cite == "R"


def test_recorder_on_a_loaded_state(ttt_save):
    from interpreter.save import load_state

    state = load_state(ttt_save.read_bytes())
    out = io.BytesIO()
    recorder = Recorder(state, "saved", out.write, loaded=str(ttt_save))
    play_traced(state, recorder, lambda _s, d: d.options[0])
    lines = lines_of(out.getvalue())
    assert lines[0]["loaded"] == str(ttt_save) and lines[1]["n"] == 3


def test_coverage_finds_a_row_whose_cost_is_never_paid():
    game = compile_text(
        """
ruleset "shop"
players 1
record item { cost: int }
table goods: item { bread "Bread" (1)  salt "Salt" (2)  crown "Crown" (10) }
var coins: int = 0
round max 3 {
  coins += roll 1d3
  let g = choose player(1) from [x for x in rows(goods) if x.cost <= coins] + ["save"]
    as "buy something" §shop
  if g != "save" { coins -= g.cost }
  if round_number == 3 { end game winners [] }
}
""",
        "shop.knap",
    )
    found = [d for d in dynamic_findings(game, None, 30, 0) if d.code == "K857"]
    assert len(found) == 1 and "never Crown" in found[0].message and found[0].cite == "shop"
