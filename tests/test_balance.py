"""`knapper balance`: a study's figures add up, agents are rotated, and the report is written."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from interpreter.agents import Seating
from interpreter.balance import balance, wilson
from interpreter.frontends.cli import main

pytest.importorskip("matplotlib", reason="the report's pictures need the `report` extra")


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_wilson_interval():
    low, high = wilson(5, 10)
    assert round(low, 4) == 0.2366 and round(high, 4) == 0.7634
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 4) == 0.2775
    assert wilson(10, 10)[1] == 1.0 and wilson(0, 0) == (0.0, 1.0)
    # every interval holds its rate, even where rounding would leave 60 of 60 outside
    for n in range(1, 200):
        for k in range(n + 1):
            low, high = wilson(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0, (k, n)


def test_a_study_adds_up():
    study = balance("tic-tac-toe", games=40, seed=3)
    data = study.to_json()
    assert data["finished"] == 40 and data["players"] == 2
    won = sum(r["wins"] for r in data["by_seat"])
    # a game is won by one seat or by nobody in tic-tac-toe
    assert won + data["no_winner"] == 40 and data["no_winner"] > 0
    (everyone,) = data["by_agent"]
    assert everyone["label"] == "random" and everyone["games"] == 80 and everyone["wins"] == won
    for rate in data["by_seat"]:
        low, high = rate["ci95"]
        assert low <= rate["rate"] <= high
    assert len(data["decisions"]["values"]) == 40
    assert data["decisions"]["min"] >= 5  # nobody wins before their third mark
    first = data["first_player"]
    assert first["advantage"] == pytest.approx(data["by_seat"][0]["rate"] - won / 80, abs=1e-3)
    (decision,) = [r for r in data["reached"] if r["kind"] == "decision"]
    assert decision["games"] == 40


def test_rotation_moves_the_agents_and_separates_them_from_the_seats():
    seating = Seating(("flatmc", "random"), ("4",))
    study = balance("pig", games=12, seed=0, seating=seating, rotate=True)
    agents = {r.label: r for r in study.by_agent}
    assert set(agents) == {"flatmc:4", "random"}
    assert agents["flatmc:4"].games == agents["random"].games == 12  # one seat each per game
    assert sum(r.wins for r in study.by_agent) == sum(r.wins for r in study.by_seat)
    assert agents["flatmc:4"].wins > agents["random"].wins
    fixed = balance("pig", games=12, seed=0, seating=seating, rotate=False)
    # without rotation flatmc always sits first: by seat and by agent are the same figures
    assert [r.wins for r in fixed.by_seat] == [r.wins for r in fixed.by_agent]


def test_roles_are_counted_per_game():
    study = balance("aurignac", games=3, seed=0)
    roles = {r.label: r for r in study.roles}
    assert roles and all(r.games == 3 for r in roles.values())
    # a game someone won was won by at least one role
    assert sum(r.wins for r in roles.values()) >= 3 - study.no_winner


def test_the_report_is_written_and_the_same_each_time(tmp_path):
    args = ["balance", "tic-tac-toe", "-n", "8", "--seed", "1"]
    out = run(*args, "-o", str(tmp_path / "a"))
    assert out.exit_code == 0, out.output
    # tic-tac-toe declares no score, so there is no scores picture
    assert "8 games: P1" in out.output and "wrote 9 files" in out.output
    for name in ("report.md", "report.html", "balance.json", "wins.png", "wins.svg"):
        assert (tmp_path / "a" / name).stat().st_size > 0, name
    text = (tmp_path / "a" / "report.md").read_text()
    assert "knapper balance tic-tac-toe -n 8 --seed 1 --players 2" in text
    assert "| P1 |" in text and "![win rates by seat and by agent](wins.svg)" in text
    assert "<table>" in (tmp_path / "a" / "report.html").read_text()
    assert run(*args, "-o", str(tmp_path / "b")).exit_code == 0
    for name in ("wins.svg", "length.svg", "balance.json"):
        a, b = (tmp_path / "a" / name).read_bytes(), (tmp_path / "b" / name).read_bytes()
        if name == "balance.json":  # the times differ from run to run
            a, b = (orjson.loads(x) for x in (a, b))
            for d in (a, b):
                d.pop("cpu_seconds"), d.pop("wall_seconds")
        assert a == b, name


def test_json_is_the_study():
    out = run("balance", "pig", "-n", "6", "--json", "--agents", "greedy,random")
    assert out.exit_code == 0, out.output
    data = orjson.loads(out.output)
    assert data["agents"] == ["greedy", "random"] and data["rotate"] is True
    again = balance("pig", 6, 0, 2, Seating(("greedy", "random"))).to_json()
    for key in ("by_seat", "by_agent", "decisions", "scores", "reached"):
        assert data[key] == again[key], key


def test_the_same_in_parallel():
    one = balance("pig", games=10, seed=5).to_json()
    two = balance("pig", games=10, seed=5, jobs=2).to_json()
    for key in ("by_seat", "decisions", "scores", "reached", "findings"):
        assert one[key] == two[key], key


@pytest.mark.parametrize(
    "args, code",
    [
        (["-n", "0", "--json"], "K514"),
        (["--agents", "wise", "--json"], "K513"),
        (["--json", "--players", "9"], "K503"),
    ],
)
def test_wrong_requests_are_diagnostics(args, code):
    out = run("balance", "pig", *args)
    assert out.exit_code == 1 and code in out.output and "Traceback" not in out.output


def test_a_report_needs_somewhere_to_go(tmp_path):
    out = run("balance", "pig", "-n", "2")
    assert out.exit_code == 2 and "-o DIR" in out.output
    blocked = tmp_path / "file"
    blocked.write_text("")
    out = run("balance", "pig", "-n", "2", "-o", str(blocked / "report"))
    assert out.exit_code == 1 and "K514" in out.output
