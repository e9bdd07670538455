"""`knapper play`: a person at the terminal against random agents.

Shows what the person may see (their observation), the numbered options and the rule each
decision comes from; the agents' moves are printed as they happen. `q` quits, `s FILE` saves.
"""

from __future__ import annotations

import click

from dsl import ast
from dsl.fmt import cite
from interpreter.agents import RandomAgent
from interpreter.api import load, new_game
from interpreter.save import dump_state, load_state


def _show_log(state) -> None:
    for entry in state.trace:
        if entry[0] == "log":
            values = " ".join(state.game.describe(v) for v in entry[2])
            click.echo(click.style(f"  · {entry[1]} {values}".rstrip(), dim=True))
    state.trace.clear()


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
    ruleset: str, players: int | None, seat: int, seed: int, saved: str | None = None
) -> None:
    game = load(ruleset)
    if saved is not None:
        with open(saved, "rb") as file:
            state = load_state(file.read(), game, path=saved)
    else:
        state = new_game(game, players=players, seed=seed)
    state.trace = []  # the rules' `log` lines are shown as they happen
    you = seat - 1
    if not 0 <= you < state.n:
        raise click.BadParameter(f"seat must be 1..{state.n}", param_hint="--seat")
    agent = RandomAgent(seed)
    click.echo(
        f"{game.title}: you are P{seat} of {state.n}. Type a number, `q` to quit, `s FILE` to save."
    )
    while (decision := state.decision()) is not None:
        _show_log(state)
        site = game.sites[decision.site]
        rule = f" ({cite(site.cite).strip()})" if site.cite else ""
        if decision.player != you:
            option = agent(state, decision)
            click.echo(f"P{decision.player + 1} {decision.prompt}{rule}: {game.describe(option)}")
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
                return
            if answer.startswith("s "):
                with open(answer[2:].strip(), "wb") as out:
                    out.write(dump_state(state))
                click.echo(f"saved to {answer[2:].strip()}")
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(decision.options):
                state.apply(decision.options[int(answer) - 1])
                break
            click.echo(f"type a number from 1 to {len(decision.options)}")
    _show_log(state)
    outcome = state.outcome()
    assert outcome is not None, "the loop above ends only when the game is over"
    winners = ", ".join(f"P{p + 1}" for p in outcome["winners"]) or "nobody"
    click.echo(click.style(f"game over: winner(s) {winners}", bold=True))
    if outcome["scores"] is not None:
        click.echo("scores: " + ", ".join(f"P{i + 1} {s}" for i, s in enumerate(outcome["scores"])))
