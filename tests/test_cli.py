"""The command line: every command runs, errors are diagnostics with non-zero exits."""

from __future__ import annotations

import re

import orjson
import pytest
from click.testing import CliRunner

from interpreter.frontends.cli import main


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_list_names_every_bundled_ruleset():
    out = run("list")
    assert out.exit_code == 0
    for name in ("tic-tac-toe", "connect-four", "pig", "cro-magnon"):
        assert name in out.output


def test_check_ok_and_error(tmp_path):
    assert run("check", "pig").exit_code == 0
    bad = tmp_path / "bad.knap"
    bad.write_text('ruleset "bad"\nplayers 2\nround max 3 {\n  let x = nope + 1\n}\n')
    out = run("check", str(bad))
    assert out.exit_code == 1
    assert f"{bad}:4:11: error[K201]: unknown name 'nope'" in out.output
    assert "^^^^" in out.output
    assert "Traceback" not in out.output


def test_check_json():
    out = run("check", "--json", "tic-tac-toe")
    assert out.exit_code == 0
    assert orjson.loads(out.output)[0]["ok"] is True


def test_check_unknown_name_is_a_diagnostic():
    out = run("check", "tic-tac-tow")
    assert out.exit_code == 1 and "K100" in out.output and "did you mean" in out.output


def test_simulate_json_reports_wins_length_and_speed():
    out = run("simulate", "tic-tac-toe", "-n", "50", "--seed", "1", "--json")
    assert out.exit_code == 0
    data = orjson.loads(out.output)
    assert data["games"] == 50 and len(data["wins"]) == 2
    assert sum(data["wins"]) + data["no_winner"] == 50
    assert data["decisions_mean"] > 0 and data["decisions_per_second"] > 0


def test_simulate_seats_the_named_agents_the_same_in_parallel():
    args = ("simulate", "tic-tac-toe", "-n", "12", "--seed", "3", "--json")
    seats = ("--agents", "ismcts,random", "--budget", "150")
    one = orjson.loads(run(*args, *seats).output)
    two = orjson.loads(run(*args, *seats, "--jobs", "2").output)
    assert one["agents"] == ["ismcts:150", "random"]
    assert one["wins"][1] == 0 and one["wins"] == two["wins"]
    plain = orjson.loads(run(*args).output)
    assert plain["agents"] == ["random", "random"]
    assert orjson.loads(run(*args, "--agents", "random").output)["wins"] == plain["wins"]


@pytest.mark.parametrize(
    "option", [("--agents", "wise"), ("--budget", "lots"), ("--agents", "ismcts", "--depth", "0")]
)
def test_wrong_agents_are_a_diagnostic(option):
    out = run("simulate", "pig", "-n", "2", *option)
    assert out.exit_code == 1 and "K513" in out.output and "Traceback" not in out.output


def test_simulate_is_the_same_in_parallel():
    one = orjson.loads(run("simulate", "pig", "-n", "40", "--seed", "0", "--json").output)
    two = orjson.loads(
        run("simulate", "pig", "-n", "40", "--seed", "0", "--json", "--jobs", "2").output
    )
    for key in ("wins", "no_winner", "decisions_mean", "rounds_mean"):
        assert one[key] == two[key]


def test_simulate_table():
    out = run("simulate", "connect-four", "-n", "20")
    assert out.exit_code == 0 and "win rate" in out.output and "decisions/s" in out.output


def test_play_at_the_terminal():
    out = run("play", "tic-tac-toe", input="1\n1\n1\n1\n1\n")
    assert out.exit_code == 0
    assert "place your mark (§rules)" in out.output
    assert "game over" in out.output


def test_play_against_a_searching_opponent():
    # always the first free cell: a line an opponent that searches blocks
    args = ("play", "tic-tac-toe", "--seed", "4", "--opponents", "ismcts", "--budget", "300")
    out = run(*args, input="1\n" * 5)
    assert out.exit_code == 0 and "game over" in out.output
    assert "winner(s) P1" not in out.output


def test_play_aurignac_as_mother_nature_through_a_whole_game():
    # Seat 1 is Mother Nature; always taking the first option, she plays a whole game and
    # is asked in each of her windows (§6.2), reactions during the Tribes' actions included.
    out = run("play", "aurignac", "--seat", "1", "--seed", "2", input="1\n" * 3000)
    assert out.exit_code == 0
    for prompt in (
        "group this herd on one of its areas (§5)",
        "a Start of Season card against this Tribe (P2) (§6.2)",
        "play a Reaction card (§6.2)",
        "a Gift or Event card (§6.2)",
        "the Season card to play (§6.2)",
    ):
        assert prompt in out.output, prompt
    assert "game over" in out.output


def test_play_shows_that_an_agent_made_a_secret_choice_not_what():
    # Aurignac §5: Mother Nature (seat 1, an agent here) sets cards aside in secret when she
    # takes her opening hand; the Tribe at the terminal sees that she chose, not which card
    out = run("play", "aurignac", "--seat", "2", "--seed", "2", input="q\n")
    lines = [line for line in out.output.splitlines() if "set a card aside to draw again" in line]
    assert lines and all(line.endswith(": (a secret choice)") for line in lines)


def test_play_rejects_bad_input_and_can_quit():
    out = run("play", "tic-tac-toe", input="99\nq\n")
    assert "type a number from 1 to 9" in out.output and "game abandoned" in out.output


def test_fmt_check_and_print(tmp_path):
    src = tmp_path / "t.knap"
    src.write_text('ruleset "t"   players 2 round max 1 { end game winners [] }')
    assert run("fmt", "--check", str(src)).exit_code == 1
    out = run("fmt", str(src))
    assert out.output.startswith('ruleset "t"\n\nplayers 2\n')
    assert run("fmt", "--write", str(src)).exit_code == 0
    assert run("fmt", "--check", str(src)).exit_code == 0


def test_unreadable_files_are_diagnostics(tmp_path):
    binary = tmp_path / "binary.knap"
    binary.write_bytes(b"\xff\xfe not text")
    for command in (["check"], ["fmt"], ["scenario"]):
        out = run(*command, str(binary))
        assert out.exit_code == 1, command
        assert "K101" in out.output and "not UTF-8 text" in out.output
        assert "Traceback" not in out.output


def test_save_final_then_export_final(tmp_path):
    out = run("simulate", "pig", "-n", "2", "--seed", "4", "--save-final", str(tmp_path / "end"))
    assert out.exit_code == 0, out.output
    saves = sorted((tmp_path / "end").glob("*.json"))
    assert [p.name for p in saves] == ["pig-2p-seed4.json", "pig-2p-seed5.json"]
    out = run("export-final", str(saves[0]))
    assert out.exit_code == 0, out.output
    data = orjson.loads(out.output)
    assert data["format"] == "knapper-final/1" and data["ruleset"] == "pig"
    assert [s["seat"] for s in data["seats"]] == [1, 2]
    winner = data["winners"][0]
    assert data["seats"][winner - 1]["won"] and data["seats"][winner - 1]["state"]["banked"] >= 100


def test_export_final_refuses_a_game_that_is_not_over(tmp_path):
    from interpreter.api import load, new_game
    from interpreter.save import dump_state

    state = new_game(load("pig"), players=2, seed=1)
    save = tmp_path / "mid.json"
    save.write_bytes(dump_state(state))
    out = run("export-final", str(save))
    assert out.exit_code == 1 and "K505" in out.output


_HELD = """ruleset "held"
players 1

card thing { value: int }

table things: thing {
  a (1)
  b (2)
}

var held: things = none
var seen[things]: bool = false
var total: int = 0

setup { total = 0 }

fn worth(x: things): int = x.value + 1

proc score_held() {
  total += held.value
}

round max 3 {
  ROUND
  end game winners []
}
"""


def _held(tmp_path, round_body: str):
    path = tmp_path / "held.knap"
    path.write_text(_HELD.replace("ROUND", round_body), encoding="utf-8")
    return path


def test_a_none_key_names_the_expression_and_where_none_came_from(tmp_path):
    path = _held(tmp_path, "seen[held] = true")
    out = run("simulate", str(path), "-n", "1")
    assert out.exit_code == 1
    assert "`held` is `none`, but `seen[held]` needs a key there" in out.output
    assert "`held` starts as `none` here" in out.output
    assert "None" not in out.output


def test_a_none_row_inside_a_fn_names_the_fn(tmp_path):
    out = run("simulate", str(_held(tmp_path, "total += worth(held)")), "-n", "1")
    assert out.exit_code == 1
    assert "in `worth`, `x` is `none`, but `x.value` needs a row there" in out.output
    assert "None" not in out.output


def test_a_none_that_cannot_be_told_says_so_in_the_language(tmp_path):
    fn = "fn pick(): things = held\n"
    path = _held(tmp_path, "seen[pick()] = true")
    path.write_text(path.read_text(encoding="utf-8").replace("setup", fn + "setup"))
    out = run("simulate", str(path), "-n", "1")
    assert "a value was `none` where a key or row was needed" in out.output
    assert "(perhaps `pick()` in `seen[pick()]`)" in out.output
    assert "None" not in out.output


def test_a_none_in_a_scenario_points_at_the_position(tmp_path):
    _held(tmp_path, "score_held()")
    scenario = tmp_path / "held.scenario"
    scenario.write_text(
        'scenarios for "held.knap"\n\nscenario "the held card scores" {\n'
        "  position { total = 5 }\n  run score_held()\n  expect total == 6\n}\n",
        encoding="utf-8",
    )
    out = run("scenario", str(scenario))
    assert "`held` is `none`, but `held.value` needs a row there" in out.output
    assert "`position` replaces the ruleset's setup: it may skip a setup step" in out.output
    assert "None" not in out.output


def test_every_terminal_of_the_grammar_has_a_word():
    from dsl.syntax.examples import terminal_word
    from dsl.syntax.parse import _literals, parser

    missing = [t.name for t in parser().terminals if terminal_word(t.name, _literals()) is None]
    assert not missing, f"add these to TERMINAL_WORDS in dsl/syntax/examples.py: {missing}"


def test_syntax_hints_never_show_grammar_names(tmp_path):
    from dsl.syntax.parse import parser

    # the grammar's names: `ASSIGN_OP`, `assign_op`, `__ANON_0`, `$END`, `int`
    names = {t.name for t in parser().terminals}
    internal = names | {n.lower() for n in names if "_" in n} | {"$END", "int"}
    broken = [
        "setup { x y }",
        "setup { 3 }",
        "3",
        "setup { let = 3 }",
        "setup { let x = f(1 2) }",
        "table t: r { a ( }",
        "zone z: foo",
        "fn f(x int): int = 1",
        "setup { let x = roll 6 }",
    ]
    for body in broken:
        path = tmp_path / "bad.knap"
        path.write_text(f'ruleset "bad"\nplayers 2\n{body}\n', encoding="utf-8")
        out = run("check", str(path))
        hint = next(line for line in out.output.splitlines() if "= hint:" in line)
        words = set(hint.replace("`", " ").replace(",", " ").split())
        assert not words & internal, (body, hint)
        assert "expected one of" not in hint


def test_a_hint_after_a_name_speaks_of_assignment_call_and_index(tmp_path):
    path = tmp_path / "bad.knap"
    path.write_text('ruleset "bad"\nplayers 2\nsetup { x y }\n', encoding="utf-8")
    out = run("check", str(path))
    assert "expected an assignment (`=`, `+=`, `-=`), a call `(…)` or an index `[…]`" in out.output


def _lamp(tmp_path):
    (tmp_path / "base.knap").write_text(
        'ruleset "lamp"\nplayers 1\n'
        'contradiction price §3.1 §4.2 "One coin in 3.1, two in 4.2."\n'
        'contradiction weight §3.3 §4.4 "One pound in 3.3, two in 4.4."\n'
        "round max 1 {\n  end game winners [player(1)]\n}\n",
        encoding="utf-8",
    )
    variant = tmp_path / "variant.knap"
    variant.write_text(
        'variant "dear-lamp" extends "base.knap"\n'
        'contradiction colour §5.1 §5.2 "Red in 5.1, blue in 5.2."\n',
        encoding="utf-8",
    )
    return tmp_path / "base.knap", variant


def test_check_of_a_variant_counts_the_base_warnings_in_one_line(tmp_path):
    _, variant = _lamp(tmp_path)
    out = run("check", str(variant))
    assert out.exit_code == 0
    assert out.output.count("warning[K242]") == 1 and "colour" in out.output
    assert "note: 2 warnings of the base ruleset (base.knap)" in out.output
    assert f"`knapper check --all {variant}` shows them" in out.output


def test_check_all_prints_the_base_warnings(tmp_path):
    _, variant = _lamp(tmp_path)
    out = run("check", "--all", str(variant))
    assert out.output.count("warning[K242]") == 3
    assert "note:" not in out.output


def test_check_of_a_base_and_its_variant_prints_each_warning_once(tmp_path):
    base, variant = _lamp(tmp_path)
    out = run("check", str(base), str(variant))
    assert out.output.count("warning[K242]") == 3
    assert "of the base ruleset" not in out.output


def test_list_piped_prints_plain_lines_never_cut():
    out = run("list")  # click's runner is not a terminal, as a pipe is not
    assert out.exit_code == 0
    assert "┃" not in out.output and "…" not in out.output
    lines = out.output.splitlines()
    assert all(len(line.split("\t")) == 4 for line in lines)
    wurm = next(line.split("\t") for line in lines if line.startswith("neanderthal-giant-wurm\t"))
    assert wurm[3].endswith("neanderthal-giant-wurm.knap")


def test_check_of_a_variant_prints_a_warning_it_causes_in_a_base_file(tmp_path):
    (tmp_path / "base.knap").write_text(
        'ruleset "sky"\nplayers 1\nrecord w { loss: int }\n'
        'table weather: w roll 1d6 {\n  1-3 fair "Fair" (0)\n  4-6 storm "Storm" (2)\n}\n'
        "round max 1 {\n  let x = roll weather\n  end game winners [player(1)]\n}\n",
        encoding="utf-8",
    )
    variant = tmp_path / "variant.knap"
    variant.write_text(
        'variant "calm" extends "base.knap"\nremove row weather storm\n', encoding="utf-8"
    )
    out = run("check", str(variant))
    assert "warning[K240]: no row of table 'weather' covers the roll(s) 4-6" in out.output
    assert "of the base ruleset" not in out.output


def _screens(output: str) -> list[list[str]]:
    """The lines printed before each question put to the terminal, but the numbered
    options (a decision among 71 advances lists 71: that is the decision, not a dump)."""
    option = re.compile(r"^  \d+\. ")
    return [
        [line for line in chunk.splitlines() if not option.match(line)]
        for chunk in output.split("your choice:")[:-1]
    ]


@pytest.mark.parametrize(
    ("name", "players", "budget"),
    [
        ("tic-tac-toe", 2, 20),
        ("pig", 3, 20),
        ("connect-four", 2, 20),
        ("cro-magnon", 3, 40),
        ("neanderthal", 3, 50),
        ("aurignac", 3, 50),
    ],
)
def test_play_all_seats_through_a_whole_game_in_screens_not_dumps(name, players, budget):
    out = run(
        "play",
        name,
        "--players",
        str(players),
        "--seats",
        "all",
        "--seed",
        "3",
        input="1\n" * 5000,
    )
    assert out.exit_code == 0, out.output[-2000:]
    assert "game over" in out.output
    screens = _screens(out.output)
    assert screens, "nobody was asked anything"
    worst = max(len(s) for s in screens)
    assert worst <= budget, f"a screen of {worst} lines"
    assert " P0" not in out.output and "player 0" not in out.output


def test_play_prints_its_random_seed_and_refuses_bad_seats():
    out = run("play", "tic-tac-toe", input="q\n")
    assert out.exit_code == 0 and "seed " in out.output.splitlines()[0]
    out = run("play", "tic-tac-toe", "--seats", "1,5", input="q\n")
    assert out.exit_code == 2 and "the seats are 1 to 2" in out.output
    out = run("play", "tic-tac-toe", "--seats", "one", input="q\n")
    assert out.exit_code == 2 and "is not `all`" in out.output


def test_play_shows_forced_decisions_and_a_banner_for_each_seat():
    out = run("play", "neanderthal", "--seats", "all", "--seed", "3", input="1\n" * 60 + "q\n")
    assert "applied, the only option: " in out.output
    assert "== now P2 ==" in out.output
    assert "-- round 0: what P1 sees --" in out.output
