"""Benchmark: how often play reaches the parts of a rulebook random play never does.

For each question (a ruleset and something a game may reach) it plays seeded games with
random seats and with searching seats, and counts the games that reached it, with a 95%
Wilson interval. A question is one of:

- `called NAME`: the game ran the phase, step, effect or procedure NAME (seen through
  `interpreter.coverage_branches.Probe`; the agents' own playouts do not count);
- `role NAME`: the declared role NAME won;
- `won`: somebody won (the solitaire and cooperative goals end with no winner otherwise);
- `holds FN ARG.. == VALUE`: after some decision the ruleset's `fn` FN gave VALUE.

    python bench/reach.py                          # every question, about an hour on 2 cores
    python bench/reach.py --only aurignac --random 100 --searching 10 --json
    python bench/reach.py --agents ismcts --budget 30 --depth 20 --jobs 2

These are the figures docs/agents.md ("What better play reaches") quotes; they are
measurements, not tests. The questions name rulesets' rules, which only a benchmark may:
the agents and the engine know no ruleset's names.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from joblib import Parallel, delayed

from dsl.errors import KnapperError
from interpreter.agents import Seating
from interpreter.api import load, new_game
from interpreter.balance import wilson
from interpreter.coverage_branches import Probe
from interpreter.simulate import roles_of

QUESTIONS: tuple[tuple[str, str, str], ...] = (
    ("neanderthal", "conversion to tribalism (§I1)", "called portal_convert"),
    ("neanderthal", "an Elder action (§I3)", "called portal_elder_action"),
    ("neanderthal", "husbandry (§H1)", "called animals_husbandry"),
    ("neanderthal", "a negotiation settled (§F1)", "called nego_settle"),
    ("neanderthal", "Europe iced over: the game ends (§J)", "holds europe_frozen == True"),
    ("neanderthal-2p", "conversion to tribalism (§I1)", "called portal_convert"),
    ("neanderthal-k2", "the cooperative goal (§K2)", "won"),
    ("neanderthal-k3", "the introductory solitaire's goal (§K3)", "won"),
    ("neanderthal-alien", "the Alien Intervention's goal (§L7)", "won"),
    ("neanderthal-brink", "The Brink's goal (§M4)", "won"),
    ("aurignac", "a Sapiens tribe wins (§6.5)", "role sapiens"),
    ("aurignac", "a Neanderthal tribe wins (§6.5)", "role neanderthal"),
    ("aurignac-2p", "a tribe wins (§7.2)", "won"),
    ("aurignac-solo", "the solo goal (§8.2)", "won"),
)


def reached(question: str, state, procs: set[str], held: bool) -> bool:
    kind, *rest = question.split()
    if kind == "called":
        return rest[0] in procs
    if kind == "role":
        return any(r == rest[0] and won for r, won in roles_of(state.outcome()))
    if kind == "won":
        return bool(state.outcome()["winners"])
    return held


def _holds(question: str, state) -> bool:
    kind, *rest = question.split()
    if kind != "holds":
        return False
    fn, *args = rest[: rest.index("==")]
    return str(state.call(fn, *args)) == rest[-1]


def play(ruleset: str, questions: list[str], seeds: list[int], seating: Seating) -> list[dict]:
    """One row per game: the questions it reached (a game the rules fail in: none)."""
    game = load(ruleset)
    probe = Probe(game)
    n = game.players[0]
    out = []
    for seed in seeds:
        probe.entered.clear()
        try:
            state = new_game(probe.game, players=n, seed=seed)
            agents = seating.agents(n, seed)
            held = {q: _holds(q, state) for q in questions}
            while (decision := state.decision()) is not None:
                agent = agents[decision.player] if isinstance(agents, list) else agents
                with probe.paused():
                    option = agent(state, decision)
                state.apply(option)
                for q in questions:
                    held[q] = held[q] or _holds(q, state)
        except KnapperError as err:
            print(f"{ruleset} seed {seed}: {err.diagnostics[0].code}", file=sys.stderr)
            continue
        procs = {game.procs[i].name for i in probe.entered}
        out.append({q: reached(q, state, procs, held[q]) for q in questions})
    return out


def measure(ruleset: str, questions: list[str], games: int, seating: Seating, jobs: int) -> dict:
    seeds = list(range(games))
    cpu, wall = time.process_time(), time.perf_counter()
    batches = [seeds[i::jobs] for i in range(jobs) if seeds[i::jobs]]
    rows = [
        row
        for part in Parallel(n_jobs=jobs)(
            delayed(play)(ruleset, questions, b, seating) for b in batches
        )
        for row in part
    ]
    counts = {q: sum(row[q] for row in rows) for q in questions}
    return {
        "agents": ",".join(seating.describe(load(ruleset).players[0])),
        "games": len(rows),
        "reached": counts,
        "seconds_main_cpu": round(time.process_time() - cpu, 1),
        "seconds_wall": round(time.perf_counter() - wall, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", type=int, default=200, help="random games per ruleset")
    parser.add_argument("--searching", type=int, default=20, help="searching games per ruleset")
    parser.add_argument("--agents", default="ismcts")
    parser.add_argument("--budget", default="30")
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default=None, help="only this ruleset's questions")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    by_ruleset: dict[str, list[tuple[str, str]]] = {}
    for ruleset, label, question in QUESTIONS:
        if args.only in (None, ruleset):
            by_ruleset.setdefault(ruleset, []).append((label, question))
    searching = Seating((args.agents,), (args.budget,), args.depth)
    report: list[dict[str, Any]] = []
    for ruleset, asked in by_ruleset.items():
        questions = [q for _, q in asked]
        runs = [measure(ruleset, questions, args.random, Seating(), args.jobs)]
        runs.append(measure(ruleset, questions, args.searching, searching, args.jobs))
        for label, q in asked:
            row: dict[str, Any] = {"ruleset": ruleset, "question": label, "how": q}
            for run in runs:
                k, n = run["reached"][q], run["games"]
                low, high = wilson(k, n)
                row[run["agents"]] = {
                    "games": n,
                    "reached": k,
                    "ci95": [round(low, 3), round(high, 3)],
                }
            report.append(row)
            if not args.json:
                cells = "  ".join(
                    f"{run['agents']}: {run['reached'][q]}/{run['games']}" for run in runs
                )
                print(f"{ruleset:18} {label:45} {cells}", flush=True)
        if not args.json:
            print(
                f"{'':18} (seconds on the clock: "
                + ", ".join(f"{r['agents']} {r['seconds_wall']}" for r in runs)
                + ")",
                flush=True,
            )
    if args.json:
        print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
