"""Traces: every step of a game as JSON lines, each with the rule that caused it.

In: a `State` and a way to write bytes. Out: one JSON object per line (the format is in
docs/cli.md): the start, every decision (who, the prompt, the option taken, the `choose`
that asked and its citation, and the stack of procedures that led there), every `log` line,
every die, and the end or the error that stopped the game.

The engine pays nothing for this when no trace is asked: decisions, `log` lines and the end
already go to `state.trace` when it is a list, and dice are seen through a `ChanceTap`
(interpreter/core/chance.py), which stands in for the scripted dice so `_die` finds it on the
branch it already takes for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from dsl.errors import KnapperError
from interpreter.core.budget import Budget
from interpreter.core.chance import ChanceTap
from interpreter.core.game import Game
from interpreter.core.state import PC, PROC, State, run

Write = Callable[[bytes], Any]


def stack_of(state: State) -> list[dict[str, Any]]:
    """The procedures the engine stands in, outermost first: each with its kind, citation
    and the statement it is at (the call that led on, or the decision)."""
    frames = []
    for frame in state.stack:
        info = state.game.procs[frame[PROC]]
        at = info.spans[max(0, min(frame[PC] - 1, len(info.spans) - 1))]
        frames.append({"proc": info.name, "kind": info.kind, "cite": info.cite, "at": str(at)})
    return frames


def rule_cite(site_cite: str | None, frames: list[dict[str, Any]]) -> str | None:
    """The section a decision comes from: its own, else the innermost cited procedure's."""
    if site_cite:
        return site_cite
    for frame in reversed(frames):
        if frame["cite"]:
            return frame["cite"]
    return None


def pending_context(state: State) -> dict[str, Any] | None:
    """What a trace says about the decision now pending (before it is answered)."""
    pending = state.waiting()
    if pending is None:
        return None
    site = state.game.sites[pending.site]
    frames = stack_of(state)
    return {
        "player": pending.who,
        "prompt": site.prompt,
        "options": len(pending.options),
        "site": str(site.span),
        "proc": site.proc,
        "cite": rule_cite(site.cite, frames),
        "stack": frames,
    }


def _dumps(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj, default=str) + b"\n"


class Recorder:
    """Writes the trace of one game. Make it before the game's first step (or on a loaded
    state), then call `sync()` after every `state.apply`; `sync` returns the engine's
    entries it wrote (so a front-end can show the `log` lines too)."""

    def __init__(self, state: State, game_id: Any, write: Write, **start: Any):
        self.state = state
        self.game_id = game_id
        self.write = write
        if state.trace is None:
            state.trace = []
        if state.script.__class__ is list:
            state.script = ChanceTap(state.script)
        game = state.game
        self.emit(
            "start",
            ruleset=game.name,
            title=game.title,
            fingerprint=game.fingerprint,
            players=state.n,
            **start,
        )
        self.context = pending_context(state)

    def emit(self, event: str, **fields: Any) -> None:
        self.write(_dumps({"event": event, "game": self.game_id, **fields}))

    def sync(self) -> list[tuple]:
        state = self.state
        game = state.game
        entries = list(state.trace or ())
        if state.trace:
            state.trace.clear()
        decisions = state.decisions - sum(1 for e in entries if e[0] == "decision")
        for entry in entries:
            kind = entry[0]
            if kind == "decision":
                decisions += 1
                context = self.context or {}
                option = entry[3]
                self.emit(
                    "decision",
                    n=decisions,
                    **{k: v for k, v in context.items() if k != "stack"},
                    option=option,
                    text=game.describe(option),
                    stack=context.get("stack", []),
                )
                self.context = None
            elif kind == "log":
                where, proc = entry[3][:2] if len(entry) > 3 else (None, None)
                cite = next((p.cite for p in game.procs if p.name == proc), None)
                values = entry[2]
                shown = " ".join([entry[1]] + [game.describe(v) for v in values])
                to = entry[4] if len(entry) > 4 else None
                self.emit(
                    "log",
                    text=entry[1],
                    values=values,
                    shown=shown,
                    at=where,
                    proc=proc,
                    cite=cite,
                    **({"to": to} if to is not None else {}),
                )
            elif kind == "die":
                self.emit("die", sides=entry[1], value=entry[2])
            elif kind == "end":
                outcome = state.outcome() or {"winners": entry[1]}
                self.emit("end", **outcome)
        self.context = pending_context(state)
        return entries

    def fail(self, err: KnapperError) -> None:
        """The error that stopped the game, as the trace's last line."""
        self.sync()
        self.emit("error", diagnostics=[d.to_json() for d in err.diagnostics])


def start_traced(
    game: Game,
    players: int | None,
    seed: int,
    write: Write,
    dice: list[int] | None = None,
    budget: Budget | None = None,
    **start: Any,
) -> tuple[State, Recorder]:
    """A new game recorded from its setup on (the setup's steps are written at the first
    `sync`). A rule failing in the setup is written as the trace's error line, then raised.
    `budget`: the work budget of the game (`new_game`)."""
    from interpreter.api import new_game

    state = new_game(game, players=players, seed=seed, dice=dice, run_now=False, budget=budget)
    recorder = Recorder(state, seed, write, seed=seed, **start)
    try:
        run(state)
    except KnapperError as err:
        recorder.fail(err)
        raise
    recorder.context = pending_context(state)
    return state, recorder


def play_traced(
    state: State,
    recorder: Recorder,
    agents: list | Callable[[State, Any], Any],
    check_invariants: bool = False,
) -> State:
    """`agents.play_out`, written step by step to the recorder (`agents`: one agent, or
    one per seat)."""
    from dsl.errors import RulesetRuntimeError

    try:
        recorder.sync()
        while (decision := state.decision()) is not None:
            agent = agents[decision.player] if isinstance(agents, list) else agents
            state.apply(agent(state, decision))
            recorder.sync()
            if check_invariants:
                broken = state.check_invariants()
                if broken:
                    raise RulesetRuntimeError(broken)
    except KnapperError as err:
        recorder.fail(err)
        raise
    return state


# ---------------------------------------------------------------------- reading traces
def read_trace(path: str | Path) -> list[dict[str, Any]]:
    """The lines of a trace file, parsed."""
    with open(path, "rb") as file:
        return [orjson.loads(line) for line in file if line.strip()]


def decisions_of(lines: Iterable[dict[str, Any]], game_id: Any) -> list[Any]:
    """The options taken in one game of a trace, in order."""
    return [
        line["option"] for line in lines if line["event"] == "decision" and line["game"] == game_id
    ]


def replay(
    game: Game,
    players: int | None,
    seed: int,
    options: Iterable[Any],
    after: Callable[[State], Any] | None = None,
) -> State:
    """The game with this seed, played with these options in order (an option that is not
    legal raises K502). `after(state)` is called after the setup and after every option;
    if it returns something true, the replay stops there."""
    from interpreter.api import new_game

    state = new_game(game, players=players, seed=seed)
    if after is not None and after(state):
        return state
    for option in options:
        state.apply(option)
        if after is not None and after(state):
            break
    return state
