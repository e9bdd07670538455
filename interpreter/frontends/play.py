"""`knapper play`: people at the terminal, at one seat or several, against agents (random,
or those `--opponents` names).

Each decision of a person's seat shows a screen, not a dump: the first time, what the seat
may see (entries that hold something); after that, only what changed in the seat's view
since its last decision, then the events since (other seats' decisions, forced decisions,
the rules' `log` lines, dice), then the numbered options with their text and the rule they
come from. Seats are P1..Pn everywhere. `v` shows the whole view again, `q` quits,
`s FILE` saves. With several seats at the terminal, a banner says whose turn it is. With a
trace file, every step is also written there as JSON lines (interpreter/trace.py).
"""

from __future__ import annotations

from typing import Any

import click

from dsl.errors import KnapperError
from dsl.syntax.fmt import cite
from interpreter.agents import Seating
from interpreter.api import load, new_game
from interpreter.core.budget import Budget
from interpreter.core.game import plain_text
from interpreter.frontends.shown import plain
from interpreter.protocol.events import EVERYONE, from_trace
from interpreter.protocol.labels import label, option_labels, prompt, seat, text
from interpreter.protocol.observe import groups, shows
from interpreter.save import dump_state, host_key, load_state

WIDTH = 160  # a variable's line is cut here: the screen is a summary, `v` shows all


def play_terminal(
    ruleset: str,
    players: int | None,
    seats: tuple[int, ...],
    seed: int,
    saved: str | None = None,
    trace: str | None = None,
    budget: Budget | None = None,
    seating: Seating | None = None,
) -> None:
    """`seating`: the agents of the seats no person takes (default: random)."""
    game = load(ruleset)
    seating = seating or Seating()
    seating.describe(players if players is not None else game.players[0])  # an error first
    if trace is None:
        _play(game, players, seats, seed, saved, None, budget, seating)
        return
    try:
        out = open(trace, "wb")  # noqa: SIM115 - closed below
    except OSError as err:
        raise click.FileError(trace, hint=err.strerror or str(err)) from None
    with out:

        def write(line: bytes) -> None:
            out.write(line)
            out.flush()  # the trace is complete up to the last step, even if play is killed

        _play(game, players, seats, seed, saved, write, budget, seating)


def _play(game, players, seats, seed, saved, write, budget, seating) -> None:
    from interpreter.trace import Recorder, start_traced

    recorder = None
    if saved is not None:
        with open(saved, "rb") as file:
            state = load_state(file.read(), game, path=saved, key=host_key(), budget=budget)
        if write is not None:
            recorder = Recorder(state, seed, write, loaded=saved)
    elif write is not None:
        state, recorder = start_traced(game, players, seed, write, budget=budget)
    else:
        state = new_game(game, players=players, seed=seed, run_now=False, budget=budget)
        state.trace = []
        from interpreter.core.state import run

        run(state)
    if state.trace is None:
        state.trace = []  # the events are shown as they happen
    people = sorted(set(range(state.n) if seats == () else (s - 1 for s in seats)))
    bad = [p + 1 for p in people if not 0 <= p < state.n]
    if bad:
        raise click.BadParameter(f"the seats are 1 to {state.n}, not {bad}", param_hint="--seats")
    you = ", ".join(seat(p) for p in people)
    _say(
        f"{game.title}, seed {seed}: you are {you} of {state.n}. "
        "Type a number, `v` to see everything, `q` to quit, `s FILE` to save."
    )
    table = _Table(state, people, recorder)
    try:
        finished = table.loop(seating.agents(state.n, seed))
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
    winners = ", ".join(seat(p) for p in outcome["winners"]) or "nobody"
    _say(f"game over: winner(s) {winners}", bold=True)
    if outcome["scores"] is not None:
        _say(
            "scores: "
            + ", ".join(f"{seat(i)} {plain_text(s)}" for i, s in enumerate(outcome["scores"]))
        )


class _Table:
    """The terminal: who sits where, what each person's seat was last shown."""

    def __init__(self, state, people: list[int], recorder) -> None:
        self.state = state
        self.people = people
        self.recorder = recorder
        # per seat, the screen lines of its last view (each with its group's title)
        self.shown: dict[int, list[tuple[str, str]]] = {}
        self.last: int | None = None  # the seat that decided last at the terminal

    def loop(self, agents) -> bool:
        """Decisions until the game is over (True) or the person quits (False). `agents`:
        one for every seat no person takes, or one per seat."""
        state = self.state
        while (decision := state.decision()) is not None:
            self.events()
            site = state.game.sites[decision.site]
            if decision.player not in self.people:
                agent = agents[decision.player] if isinstance(agents, list) else agents
                state.apply(agent(state, decision))
                continue
            if not self.ask(decision, site):
                return False
        self.events()
        return True

    def events(self) -> None:
        """What happened since the last call, as every person at the terminal may know it:
        a secret choice shows only that it was made, unless its decider is the only person
        at the terminal (with several, the others read the screen too)."""
        state = self.state
        entries = self.recorder.sync() if self.recorder is not None else list(state.trace)
        if self.recorder is None:
            state.trace.clear()
        for to, event, others in from_trace(state.game, entries):
            shown = event if to is EVERYONE or [to] == self.people else others
            if shown is not None:
                line, dim = _event_line(shown)
                _say(line, dim=dim)

    def ask(self, decision, site) -> bool:
        state = self.state
        game = state.game
        who = decision.player
        if len(self.people) > 1 and who != self.last:
            _say(f"== now {seat(who)} ==", bold=True, reverse=True)
        self.last = who
        self.screen(who, changes_only=who in self.shown)
        rule = f" ({cite(site.cite).strip()})" if site.cite else ""
        asked = prompt(state, site)
        _say(f"{seat(who)}, {asked}{rule}", bold=True)
        options = list(decision.options)
        labels = option_labels(game, site, options)
        for i, (option, short) in enumerate(zip(options, labels), start=1):
            words = text(game, option, short)
            _say(f"  {i}. {words}")
        while True:
            answer = click.prompt("your choice", default="", show_default=False).strip()
            if answer == "q":
                _say("game abandoned")
                return False
            if answer == "v":
                self.screen(who, changes_only=False)
                continue
            if answer.startswith("s "):
                with open(answer[2:].strip(), "wb") as out:
                    out.write(dump_state(state, key=host_key()))
                _say(f"saved to {answer[2:].strip()}")
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                state.apply(options[int(answer) - 1])
                return True
            _say(f"type a number from 1 to {len(options)}")

    def screen(self, who: int, changes_only: bool) -> None:
        """What `who` may see: every line, or those changed since his last screen."""
        state = self.state
        lines = _view_lines(state, who)
        before = set(self.shown.get(who, ()))
        self.shown[who] = lines
        if changes_only:
            lines = [line for line in lines if line not in before]
            heading = f"-- round {state.rounds}: what changed for {seat(who)} --"
        else:
            heading = f"-- round {state.rounds}: what {seat(who)} sees --"
        _say(heading, bold=True)
        titled = len(state.game.views) > 0
        group = None
        for title, line in lines:
            if titled and title != group:
                _say(f" {title}", underline=True)
                group = title
            _say(line)


def _say(line: str, **style: bool) -> None:
    """Print a line of the screen: the text a ruleset wrote in it (names, titles, prompts,
    `log` lines) without control characters or escapes, then styled by Knapper."""
    click.echo(click.style(plain(line), **style) if style else plain(line))


def _event_line(event: dict[str, Any]) -> tuple[str, bool]:
    """An event as a line, and whether it is shown dim (dice and `log` lines)."""
    kind = event["kind"]
    if kind in ("decision", "forced"):
        what = "(a secret choice)" if event.get("secret") else event["label"]
        lead = "applied, the only option: " if kind == "forced" else ""
        return f"P{event['seat']} {event['prompt']}: {lead}{what}", False
    if kind == "die":
        return f"  · rolled {event['value']} (d{event['sides']})", True
    return f"  · {event['line']}", True


def _view_lines(state, player: int) -> list[tuple[str, str]]:
    """A line per variable that holds something the seat may see, with the title of its
    group, in the order of the ruleset's `view` (without one, of its declarations): entries
    by their keys' labels, players as P1..Pn; hidden lists as how many."""
    game = state.game
    view = state.observation(player)["vars"]
    specs = {spec.name: spec for spec in game.shown_vars}
    out = []
    for group in groups(game):
        for name in group["vars"]:
            line = _var_line(game, specs[name], view[name], group["of"], player)
            if line is not None:
                out.append((group["title"], line))
    return out


def _var_line(game, spec, value, whose: str, player: int) -> str | None:
    """A variable's line, or None when it holds nothing (of the entries `whose` selects)."""
    if not spec.domains:
        if _empty(value):
            return None
        return _cut(f"  {spec.name}: {_shown(game, value, spec.type)}")
    entries = []
    for i, entry in enumerate(value):
        if _empty(entry):
            continue
        keys = spec.keys_of(i)
        if spec.by_player and not shows(whose, player, keys[0]):
            continue
        names = [
            seat(k) if kind == "player" else label(game, k) for kind, k in zip(spec.key_kinds, keys)
        ]
        if whose == "own" and spec.by_player:
            names = names[1:]  # the seat's own entries: his seat goes without saying
        entries.append(" ".join([*filter(None, ["/".join(names)]), _shown(game, entry, spec.type)]))
    if not entries:
        return None
    return _cut(f"  {spec.name}: {'; '.join(entries)}")


def _empty(value) -> bool:
    if isinstance(value, list):
        return all(v is None for v in value)
    return value in (0, None, False, "empty", "") or value == {"hidden": 0}


def _shown(game, value, t) -> str:
    if isinstance(value, dict) and "hidden" in value:
        n = value["hidden"]
        return "hidden" if n is True else f"{n} hidden"
    if isinstance(value, dict) and "top" in value:
        top = "nothing" if value["top"] is None else label(game, value["top"])
        return f"{top} on top of {value['size']}"
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return "(" + ", ".join(_shown(game, v, None) for v in value) + ")"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return label(game, value, t)


def _cut(line: str) -> str:
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"
