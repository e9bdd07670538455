"""`knapper play`: a person at the terminal against random agents.

Shows what the person may see (their observation), the numbered options and the rule each
decision comes from; the agents' moves are printed as they happen. `q` quits, `s FILE` saves.
With a trace file, every step is also written there as JSON lines (interpreter/trace.py).
"""

from __future__ import annotations

import click

from dsl.errors import KnapperError
from dsl.syntax import ast
from dsl.syntax.fmt import cite
from interpreter.agents import RandomAgent
from interpreter.api import load, new_game
from interpreter.save import dump_state, load_state


def _show_log(state, recorder=None) -> None:
    if recorder is not None:
        entries = recorder.sync()
    else:
        entries = list(state.trace)
        state.trace.clear()
    for entry in entries:
        if entry[0] == "log":
            values = " ".join(state.game.describe(v) for v in entry[2])
            click.echo(click.style(f"  · {entry[1]} {values}".rstrip(), dim=True))


def _show_position(state, seat: int) -> None:
    """Print what `seat` may see: every variable, skipping empty entries and absent seats."""
    view = state.observation(seat)
    click.echo(click.style(f"-- round {view['rounds']} --", bold=True))
    for spec in state.game.vars:
        value = view["vars"][spec.name]
        if not spec.domains:
            click.echo(f"  {spec.name}: {state.game.describe(value)}")
            continue
        by_player = _first_key_is_player(state, spec)
        entries = []
        for i, entry in enumerate(value):
            keys = spec.keys_of(i)
            if entry in (0, None, [], False, "empty", "") or (by_player and keys[0] >= state.n):
                continue
            shown = [f"P{k + 1}" if n == 0 and by_player else str(k) for n, k in enumerate(keys)]
            entries.append(f"[{', '.join(shown)}]={state.game.describe(entry)}")
        click.echo(f"  {spec.name}: {', '.join(entries) if entries else '(all empty)'}")


def _first_key_is_player(state, spec) -> bool:
    decl = state.game.program.decls.get(spec.name)
    keys: tuple = getattr(decl, "keys", ())
    return bool(keys) and isinstance(keys[0], ast.KeyName) and keys[0].name == "player"


def play_terminal(
    ruleset: str,
    players: int | None,
    seat: int,
    seed: int,
    saved: str | None = None,
    trace: str | None = None,
) -> None:
    game = load(ruleset)
    if trace is None:
        _play(game, players, seat, seed, saved, None)
        return
    try:
        out = open(trace, "wb")  # noqa: SIM115 - closed below
    except OSError as err:
        raise click.FileError(trace, hint=err.strerror or str(err)) from None
    with out:

        def write(line: bytes) -> None:
            out.write(line)
            out.flush()  # the trace is complete up to the last step, even if play is killed

        _play(game, players, seat, seed, saved, write)


def _play(game, players, seat, seed, saved, write) -> None:
    from interpreter.trace import Recorder, start_traced

    recorder = None
    if saved is not None:
        with open(saved, "rb") as file:
            state = load_state(file.read(), game, path=saved)
        if write is not None:
            recorder = Recorder(state, seed, write, loaded=saved)
    elif write is not None:
        state, recorder = start_traced(game, players, seed, write)
    else:
        state = new_game(game, players=players, seed=seed)
    if state.trace is None:
        state.trace = []  # the rules' `log` lines are shown as they happen
    you = seat - 1
    if not 0 <= you < state.n:
        raise click.BadParameter(f"seat must be 1..{state.n}", param_hint="--seat")
    click.echo(
        f"{game.title}: you are P{seat} of {state.n}. Type a number, `q` to quit, `s FILE` to save."
    )
    try:
        finished = _loop(state, you, RandomAgent(seed), recorder)
    except KnapperError as err:
        if recorder is not None:
            recorder.fail(err)
        raise
    if not finished:
        if recorder is not None:
            recorder.emit("abandoned", decisions=state.decisions)
        return
    outcome = state.outcome()
    assert outcome is not None, "the loop ends only when the game is over or abandoned"
    winners = ", ".join(f"P{p + 1}" for p in outcome["winners"]) or "nobody"
    click.echo(click.style(f"game over: winner(s) {winners}", bold=True))
    if outcome["scores"] is not None:
        click.echo("scores: " + ", ".join(f"P{i + 1} {s}" for i, s in enumerate(outcome["scores"])))


def _loop(state, you: int, agent, recorder) -> bool:
    """Decisions until the game is over (True) or the person quits (False)."""
    game = state.game
    seat = you + 1
    while (decision := state.decision()) is not None:
        _show_log(state, recorder)
        site = game.sites[decision.site]
        rule = f" ({cite(site.cite).strip()})" if site.cite else ""
        if decision.player != you:
            option = agent(state, decision)
            shown = "(a secret choice)" if site.secret else game.describe(option)
            click.echo(f"P{decision.player + 1} {decision.prompt}{rule}: {shown}")
            state.apply(option)
            continue
        _show_position(state, you)
        click.echo(click.style(f"P{seat}, {decision.prompt}{rule}", bold=True))
        for i, option in enumerate(decision.options, start=1):
            click.echo(f"  {i}. {game.describe(option)}")
        while True:
            answer = click.prompt("your choice", default="", show_default=False).strip()
            if answer == "q":
                click.echo("game abandoned")
                return False
            if answer.startswith("s "):
                with open(answer[2:].strip(), "wb") as out:
                    out.write(dump_state(state))
                click.echo(f"saved to {answer[2:].strip()}")
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(decision.options):
                state.apply(decision.options[int(answer) - 1])
                break
            click.echo(f"type a number from 1 to {len(decision.options)}")
    _show_log(state, recorder)
    return True
