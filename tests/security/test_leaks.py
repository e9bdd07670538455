"""What a seat receives: no command shows one seat another's secret options or choices."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner

from interpreter.agents import RandomAgent, play_out
from interpreter.api import load, new_game
from interpreter.frontends.cli import main
from interpreter.save import dump_state


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def _mulligan(tmp_path):
    """An Aurignac save at Mother Nature's secret mulligan, and her hand."""
    game = load("aurignac")
    state = new_game(game, players=3, seed=1)
    while state.decision().prompt != "set a card aside to draw again":
        state.apply(state.legal()[0])
    path = tmp_path / "mulligan.json"
    path.write_bytes(dump_state(state))
    hand = [game.describe(o) for o in state.legal() if o != "keep the rest"]
    return path, state.decision().player + 1, hand


def test_explain_without_a_seat_shows_no_hand(tmp_path):
    path, decider, hand = _mulligan(tmp_path)
    out = run("explain", str(path))
    assert out.exit_code == 0, out.output
    assert not any(card in out.output for card in hand)
    assert f"--seat {decider}" in out.output


def test_explain_for_another_seat_shows_no_hand(tmp_path):
    path, decider, hand = _mulligan(tmp_path)
    other = 2 if decider != 2 else 3
    out = run("explain", str(path), "--seat", str(other), "--json")
    data = orjson.loads(out.output)
    assert data["options"] == [] and data["seat"] == other
    assert not any(card in out.output for card in hand)
    refused = run("explain", str(path), orjson.dumps(hand[0]).decode(), "--seat", str(other))
    assert refused.exit_code == 1 and "K512" in refused.output


def test_explain_for_the_deciding_seat_shows_its_options(tmp_path):
    path, decider, hand = _mulligan(tmp_path)
    out = run("explain", str(path), "--seat", str(decider))
    assert out.exit_code == 0 and all(card in out.output for card in hand)


def test_a_save_holds_no_hidden_zone_nor_the_generator(tmp_path):
    path, _decider, hand = _mulligan(tmp_path)
    data = orjson.loads(path.read_bytes())
    assert "state" not in data and "rng" not in path.read_text()


def test_play_keeps_a_secret_choice_from_the_other_person_at_the_terminal():
    # P1 (Mother Nature) and P2 share the terminal; P1 sets a card aside in secret
    out = run("play", "aurignac", "--seats", "1,2", "--seed", "1", input="2\n" * 12 + "q\n")
    secret = [line for line in out.output.splitlines() if "set a card aside to draw again:" in line]
    assert secret and all("(a secret choice)" in line for line in secret), out.output


def test_play_and_simulate_draw_a_random_seed():
    seeds = set()
    for _ in range(2):
        out = run("play", "pig", input="q\n")
        seeds.add(out.output.split("seed ", 1)[1].split(":", 1)[0])
    assert len(seeds) == 2 and all(int(s) >= 0 for s in seeds)
    out = run("simulate", "tic-tac-toe", "-n", "1", "--json")
    assert out.exit_code == 0 and "seed " in out.output


def test_a_new_game_without_a_seed_draws_a_random_one_and_keeps_it():

    game = load("pig")
    states = [new_game(game, players=2) for _ in range(3)]
    seeds = {s.seed for s in states}
    assert len(seeds) == 3 and all(0 <= s < 1 << 64 for s in seeds)
    first = states[0]
    again = new_game(game, players=2, seed=first.seed)  # the kept seed plays it again
    play_out(first, RandomAgent(5))
    play_out(again, RandomAgent(5))
    assert first.outcome() == again.outcome() and first.taken == again.taken


def test_a_log_line_to_one_player_reaches_that_seat_alone():
    from dsl.pipeline import compile_text
    from interpreter.protocol import Session

    text = (Path(__file__).parents[1] / "fixtures" / "high-card.knap").read_text()
    text = text.replace(
        "    secret_bonus[p] = roll 1d3\n",
        "    secret_bonus[p] = roll 1d3\n"
        '    log to p "your bonus is {b}", b = secret_bonus[p]\n'
        '    log "a bonus was rolled"\n',
    )
    session = Session(compile_text(text, "high-card-logs.knap"), players=2, seed=4)
    lines = {
        seat: [e["line"] for e in session.events(seat) if e["kind"] == "log"] for seat in (1, 2)
    }
    for seat in (1, 2):
        own = [line for line in lines[seat] if line.startswith("your bonus")]
        assert len(own) == 1 and lines[seat].count("a bonus was rolled") == 2
        assert len(lines[seat]) == 3, (seat, lines)  # not the other seat's bonus
    spectator = [e["line"] for e in session.events(None) if e["kind"] == "log"]
    assert spectator == ["a bonus was rolled"] * 2
