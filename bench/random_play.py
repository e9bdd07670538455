"""Random play: what happens in many seeded games of uniformly random agents.

Plays games `seed .. seed+n-1` of each selected game (a bundled ruleset or a path, and a
player count) through the public API, the same loop `knapper simulate` runs:

    state = new_game(game, players=players, seed=seed)
    rng = random.Random(seed)
    while state.pending is not None:
        state.apply(rng.choice(state.pending[1]))

so any game in the report can be replayed with
`knapper simulate RULESET -n 1 --seed SEED --players N` (not with `--avoid`, whose agents
take the listed options only when nothing else is offered). Games are split across worker
processes with joblib; each game depends on its seed only, not on how games are split.

Every game gets the generic section (wins per seat, shared wins, decisions and rounds per
game). An Aurignac ruleset also gets the section of bench/aurignac_report.py. A Neanderthal
ruleset or variant (one with the state model of rulesets/neanderthal/state.knap) also gets:
wins by species and by sexuality, the final VP and winning margins, turns per game, how
often a species goes tribal, how often Europe ices over, and why the game ended.

    python bench/random_play.py                      # 1000 games each of neanderthal (3p)
                                                     # and neanderthal-2p
    python bench/random_play.py -n 200 --seed 5000 --jobs 1
    python bench/random_play.py pig:4 tic-tac-toe -n 2000   # generic section only
    python bench/random_play.py --json
    python bench/random_play.py aurignac:3 --avoid pass,PASS   # agents that never pass
                                                               # while they can act

A game is named RULESET or RULESET:PLAYERS (default: the ruleset's fewest players).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import aurignac_report  # noqa: E402
from bench.playouts import environment, source_digest  # noqa: E402
from dsl.errors import KnapperError  # noqa: E402
from interpreter.api import load, new_game  # noqa: E402
from interpreter.core.game import Game  # noqa: E402
from interpreter.core.state import State  # noqa: E402

DEFAULT_GAMES = ["neanderthal:3", "neanderthal-2p:2"]
DEFAULT_N = 1000

# The variables of rulesets/neanderthal/state.knap this report reads. A ruleset that declares
# all of them gets the Neanderthal section.
NEANDERTHAL_VARS = frozenset(
    {
        "turn",
        "colour_of",
        "placard_of",
        "side_of",
        "portal",
        "sexuality_held",
        "final_vp",
        "ice",
        "biome_row",
        "event_deck",
    }
)
REGIONS = ("north_europe", "south_europe")
SLOTS = range(6)


# ================================================================ reading a Neanderthal state
#
# The state model's derived values (`fn`s of state.knap) are evaluated with `State.call`.


def is_neanderthal(game: Game) -> bool:
    return NEANDERTHAL_VARS <= {spec.name for spec in game.vars}


def sexuality_of(game: Game, state: State, p: int) -> str | None:
    return state.call("sexuality_of", p)


def europe_frozen(state: State) -> bool:
    return state.call("europe_frozen")


def ice_count(state: State) -> int:
    return sum(state.call("ice_count", r) for r in REGIONS)


def portal_count(game: Game, state: State, p: int) -> int:
    return state.call("portal_count", p)


def species_name(game: Game, colour: str, placard: str | None) -> str:
    title = game.rows.get(placard, {}).get("title") if placard else None
    return f"{colour} ({title})" if title else colour


# ================================================================ playing


def play_batch(
    name: str, players: int, seeds: list[int], avoid: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """Play the games of `seeds`; one record per game (runs in a worker process)."""
    game = load(name)
    neanderthal = is_neanderthal(game)
    return [play_one(game, players, seed, neanderthal, avoid) for seed in seeds]


def choose(rng: random.Random, options, avoid: frozenset[str]):
    """A uniformly random option; with `avoid`, one of the others whenever there are any."""
    if avoid:
        wanted = [o for o in options if not (isinstance(o, str) and o in avoid)]
        if wanted:
            return rng.choice(wanted)
    return rng.choice(options)


def play_one(
    game: Game, players: int, seed: int, neanderthal: bool, avoid: frozenset[str] = frozenset()
) -> dict[str, Any]:
    start = time.perf_counter()
    state = new_game(game, players=players, seed=seed)
    rng = random.Random(seed)
    chosen: list[str | None] | None = None  # sexualities when the first turn starts
    aurignac = aurignac_report.is_aurignac(game)
    season_decisions: list[int] = []  # Aurignac: decisions taken in each season
    try:
        while state.pending is not None:
            if neanderthal and chosen is None and state.get("turn") >= 1:
                chosen = [sexuality_of(game, state, p) for p in range(players)]
            if aurignac and state.get("season") >= 1:
                while len(season_decisions) < state.get("season"):
                    season_decisions.append(0)
                season_decisions[-1] += 1
            state.apply(choose(rng, state.pending[1], avoid))
    except KnapperError as err:
        return {
            "seed": seed,
            "error": f"{err.diagnostics[0].code}: {err.diagnostics[0].message}",
            "decisions": state.decisions,
            "rounds": state.rounds,
        }
    outcome = state.outcome()
    assert outcome is not None
    record: dict[str, Any] = {
        "seed": seed,
        "winners": list(outcome["winners"]),
        "scores": outcome["scores"],
        "decisions": outcome["decisions"],
        "rounds": outcome["rounds"],
        "seconds": time.perf_counter() - start,
    }
    if neanderthal:
        colours = [state.get("colour_of", p) for p in range(players)]
        record.update(
            species=[
                species_name(game, colours[p], state.get("placard_of", p)) for p in range(players)
            ],
            sexuality_chosen=chosen,
            sexuality=[sexuality_of(game, state, p) for p in range(players)],
            tribal=[state.get("side_of", p) == "tribal_side" for p in range(players)],
            portals=[portal_count(game, state, p) for p in range(players)],
            final_vp=[state.get("final_vp", p) for p in range(players)],
            turns=state.get("turn"),
            ice=ice_count(state),
            europe_frozen=europe_frozen(state),
            event_deck_empty=len(state.get("event_deck")) == 0,
        )
    if aurignac:
        record["aurignac"] = aurignac_report.record(state, players, season_decisions)
    return record


def run_games(
    name: str, players: int, seeds: list[int], jobs: int, log, avoid: frozenset[str] = frozenset()
) -> tuple[list[dict[str, Any]], float]:
    chunk = max(1, min(100, len(seeds) // (jobs * 8) or 1))
    batches = [seeds[i : i + chunk] for i in range(0, len(seeds), chunk)]
    start = time.perf_counter()
    records: list[dict[str, Any]] = []
    if jobs == 1:
        for batch in batches:
            records += play_batch(name, players, batch, avoid)
            log(f"{name} {players}p: {len(records)}/{len(seeds)}")
    else:
        from joblib import Parallel, delayed

        runner = Parallel(n_jobs=jobs, return_as="generator")
        for done in runner(delayed(play_batch)(name, players, b, avoid) for b in batches):
            records += done
            log(f"{name} {players}p: {len(records)}/{len(seeds)}")
    return records, time.perf_counter() - start


# ================================================================ summaries


def spread(values: list[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "sd": 0.0, "min": 0, "max": 0, "median": 0}
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.pstdev(values) if len(values) > 1 else 0.0,
        "min": min(values),
        "max": max(values),
        "median": statistics.median(values),
    }


def generic_summary(records: list[dict[str, Any]], players: int) -> dict[str, Any]:
    """Wins per seat (alone or shared), decisions and rounds per game: for any ruleset."""
    done = [r for r in records if "error" not in r]
    wins = [0] * players
    alone = [0] * players
    for r in done:
        for p in r["winners"]:
            wins[p] += 1
            if len(r["winners"]) == 1:
                alone[p] += 1
    return {
        "games": len(records),
        "finished": len(done),
        "errors": [{"seed": r["seed"], "error": r["error"]} for r in records if "error" in r],
        "wins": wins,
        "wins_alone": alone,
        "win_rate": [w / len(done) if done else 0.0 for w in wins],
        "shared": sum(1 for r in done if len(r["winners"]) > 1),
        "no_winner": sum(1 for r in done if not r["winners"]),
        "decisions": spread([r["decisions"] for r in done]),
        "rounds": spread([r["rounds"] for r in done]),
        "decisions_per_second": (
            sum(r["decisions"] for r in done) / (sum(r["seconds"] for r in done) or 1e-9)
        ),
    }


def _by_key(done: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    """Per value of a per-seat field: seats that had it, their wins, alone, and win rate."""
    seats: Counter = Counter()
    wins: Counter = Counter()
    alone: Counter = Counter()
    for r in done:
        for p, value in enumerate(r[key]):
            seats[value] += 1
            if p in r["winners"]:
                wins[value] += 1
                if len(r["winners"]) == 1:
                    alone[value] += 1
    return {
        str(v): {
            "seats": seats[v],
            "wins": wins[v],
            "wins_alone": alone[v],
            "win_rate": wins[v] / seats[v] if seats[v] else 0.0,
        }
        for v in sorted(seats, key=str)
    }


def neanderthal_summary(records: list[dict[str, Any]], players: int) -> dict[str, Any]:
    done = [r for r in records if "error" not in r]
    n = len(done) or 1
    all_vp = [v for r in done for v in r["final_vp"]]
    winner_vp = [max(r["final_vp"]) for r in done]
    margins = []
    for r in done:
        ranked = sorted(r["final_vp"], reverse=True)
        margins.append(ranked[0] - ranked[1] if len(ranked) > 1 else ranked[0])
    tribal_species: Counter = Counter()
    species_seats: Counter = Counter()
    for r in done:
        for s, t in zip(r["species"], r["tribal"]):
            species_seats[s] += 1
            tribal_species[s] += bool(t)
    tribal_games = sum(1 for r in done if any(r["tribal"]))
    deck = sum(1 for r in done if r["event_deck_empty"] and not r["europe_frozen"])
    ice = sum(1 for r in done if r["europe_frozen"] and not r["event_deck_empty"])
    both = sum(1 for r in done if r["europe_frozen"] and r["event_deck_empty"])
    sexuality_changed = sum(
        1
        for r in done
        if r["sexuality_chosen"] is not None
        for a, b in zip(r["sexuality_chosen"], r["sexuality"])
        if a != b
    )
    return {
        "by_species": _by_key(done, "species"),
        "by_sexuality": _by_key(done, "sexuality"),
        "by_sexuality_chosen": _by_key(
            [r for r in done if r["sexuality_chosen"] is not None], "sexuality_chosen"
        ),
        "sexuality_turned": sexuality_changed,
        "final_vp": spread(all_vp),
        "winner_vp": spread(winner_vp),
        "winning_margin": spread(margins),
        "turns": spread([r["turns"] for r in done]),
        "turns_histogram": dict(sorted(Counter(r["turns"] for r in done).items())),
        "tribal": {
            "games_with_a_tribal_species": tribal_games,
            # Portal disks on the brain maps of the seats still vocal at the end (a seat
            # converts at conversion_portals: 5, or 6 with two players).
            "vocal_portals_at_end": dict(
                sorted(
                    Counter(
                        k for r in done for k, t in zip(r["portals"], r["tribal"]) if not t
                    ).items()
                )
            ),
            "rate": tribal_games / n,
            "seats": sum(tribal_species.values()),
            "by_species": {
                s: {"tribal": tribal_species[s], "seats": species_seats[s]}
                for s in sorted(species_seats)
            },
        },
        "ice": {
            "europe_frozen": sum(1 for r in done if r["europe_frozen"]),
            "all_twelve_slots_ice": sum(1 for r in done if r["ice"] == 2 * len(SLOTS)),
            "ice_slots_at_end": spread([r["ice"] for r in done]),
        },
        "end": {"last_event_card": deck, "europe_frozen": ice, "both": both},
    }


def summarise(name: str, players: int, records, seconds: float, neanderthal: bool):
    seeds = [r["seed"] for r in records]
    result = {
        "game": f"{name} {players}p",
        "ruleset": name,
        "players": players,
        "seeds": [min(seeds), max(seeds)] if seeds else [],
        "seconds": seconds,
        "generic": generic_summary(records, players),
    }
    if neanderthal:
        result["neanderthal"] = neanderthal_summary(records, players)
    done = [r | r["aurignac"] for r in records if "aurignac" in r and "error" not in r]
    if done:
        result["aurignac"] = aurignac_report.summary(done)
    return result


# ================================================================ printing


def _pct(k: int, n: int) -> str:
    return f"{k / n:.1%}" if n else "-"


def _spread_row(label: str, s: dict[str, float]) -> list[str]:
    return [
        label,
        f"{s['mean']:.2f}",
        f"{s['sd']:.2f}",
        f"{s['median']:g}",
        f"{s['min']:g}",
        f"{s['max']:g}",
    ]


def print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 120)
    env = report["environment"]
    for res in report["results"]:
        gen = res["generic"]
        done = gen["finished"]
        console.rule(f"{res['game']}: seeds {res['seeds'][0]}-{res['seeds'][1]}")
        if report.get("avoid"):
            avoided = ", ".join(report["avoid"])
            console.print(f"agents avoid {avoided} while anything else is offered")
        console.print(
            f"{gen['games']} games in {res['seconds']:.1f} s ({report['jobs']} jobs), "
            f"{gen['decisions_per_second']:,.0f} decisions/s per worker; "
            f"{len(gen['errors'])} ended in an error"
        )
        for e in gen["errors"][:10]:
            console.print(f"  [red]seed {e['seed']}[/red]: {e['error']}")

        table = Table(title="Wins per seat (generic)")
        for column in ("seat", "wins", "win rate", "alone"):
            table.add_column(column, justify="left" if column == "seat" else "right")
        for p, w in enumerate(gen["wins"]):
            table.add_row(f"P{p + 1}", str(w), _pct(w, done), str(gen["wins_alone"][p]))
        table.add_row("shared", str(gen["shared"]), _pct(gen["shared"], done), "")
        table.add_row("no winner", str(gen["no_winner"]), _pct(gen["no_winner"], done), "")
        console.print(table)

        table = Table(title="Per game (generic)")
        for column in ("", "mean", "sd", "median", "min", "max"):
            table.add_column(column, justify="left" if not column else "right")
        table.add_row(*_spread_row("decisions", gen["decisions"]))
        table.add_row(*_spread_row("rounds", gen["rounds"]))
        nea = res.get("neanderthal")
        if nea is not None:
            table.add_row(*_spread_row("turns", nea["turns"]))
        console.print(table)
        if "aurignac" in res:
            aurignac_report.print_section(console, res["aurignac"], done, _pct, _spread_row)
        if nea is None:
            continue

        for key, title in (
            ("by_species", "Wins by species"),
            ("by_sexuality", "Wins by sexuality (at the end of the game)"),
            ("by_sexuality_chosen", "Wins by sexuality chosen at setup"),
        ):
            table = Table(title=title)
            for column in ("", "seats", "wins", "win rate", "alone", "share of wins"):
                table.add_column(column, justify="left" if not column else "right")
            total = sum(v["wins"] for v in nea[key].values())
            for value, v in nea[key].items():
                table.add_row(
                    value.replace("_", " "),
                    str(v["seats"]),
                    str(v["wins"]),
                    _pct(v["wins"], v["seats"]),
                    str(v["wins_alone"]),
                    _pct(v["wins"], total),
                )
            console.print(table)
        console.print(
            f"seats whose sexuality was turned during the game: {nea['sexuality_turned']}"
        )

        table = Table(title="Final VP")
        for column in ("", "mean", "sd", "median", "min", "max"):
            table.add_column(column, justify="left" if not column else "right")
        table.add_row(*_spread_row("every seat", nea["final_vp"]))
        table.add_row(*_spread_row("the winner", nea["winner_vp"]))
        table.add_row(*_spread_row("winning margin", nea["winning_margin"]))
        console.print(table)

        tribal, ice, end = nea["tribal"], nea["ice"], nea["end"]
        table = Table(title="Tribalism, ice and the end of the game")
        table.add_column("")
        table.add_column("games", justify="right")
        table.add_column("share", justify="right")
        table.add_row(
            "a species tribal at the end",
            str(tribal["games_with_a_tribal_species"]),
            _pct(tribal["games_with_a_tribal_species"], done),
        )
        for s, v in tribal["by_species"].items():
            table.add_row(f"  {s} tribal", str(v["tribal"]), _pct(v["tribal"], v["seats"]))
        table.add_row(
            "portal disks of vocal seats at the end",
            ", ".join(f"{k}: {v}" for k, v in tribal["vocal_portals_at_end"].items()),
            "",
        )
        table.add_row(
            "Europe frozen at the end", str(ice["europe_frozen"]), _pct(ice["europe_frozen"], done)
        )
        table.add_row(
            "all 12 slots ice at the end",
            str(ice["all_twelve_slots_ice"]),
            _pct(ice["all_twelve_slots_ice"], done),
        )
        table.add_row(
            "ended by the last event card",
            str(end["last_event_card"]),
            _pct(end["last_event_card"], done),
        )
        table.add_row(
            "ended by a frozen Europe", str(end["europe_frozen"]), _pct(end["europe_frozen"], done)
        )
        table.add_row("ended by both at once", str(end["both"]), _pct(end["both"], done))
        console.print(table)
        s = ice["ice_slots_at_end"]
        console.print(
            f"ice slots at the end: mean {s['mean']:.2f}, min {s['min']}, max {s['max']}; "
            "turns per game: " + ", ".join(f"{t}: {k}" for t, k in nea["turns_histogram"].items())
        )
    console.print(
        f"Python {env['python']}, {env['cpus']} CPUs, load {env['load_average_1min']:.2f}, "
        f"source {env['source_digest']}, {env['date']}"
    )
    if env.get("source_changed_during_run"):
        console.print("[red]the code or rulesets changed during the run: games may differ[/red]")


# ================================================================ main


def parse_game(spec: str) -> tuple[str, int | None]:
    name, _, players = spec.partition(":")
    return name, int(players) if players else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "games",
        nargs="*",
        metavar="RULESET[:PLAYERS]",
        help=f"games to play (default: {' '.join(DEFAULT_GAMES)})",
    )
    parser.add_argument(
        "-n",
        "--games-each",
        dest="n",
        type=int,
        default=DEFAULT_N,
        help=f"games of each (default {DEFAULT_N})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: one per CPU)",
    )
    parser.add_argument(
        "--avoid",
        default="",
        metavar="OPTIONS",
        help="comma-separated options (such as pass,done) the agents take only when nothing "
        "else is offered; the default agents choose uniformly among all options",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object instead")
    parser.add_argument(
        "--records", action="store_true", help="with --json, include every game's record"
    )
    args = parser.parse_args(argv)
    if args.n < 1 or args.jobs < 1:
        parser.error("-n and --jobs must be >= 1")
    avoid = frozenset(o.strip() for o in args.avoid.split(",") if o.strip())

    def log(message: str) -> None:
        if sys.stderr.isatty():
            print(f"\r{message}", end="", file=sys.stderr, flush=True)

    # Taken before compiling: the digest names the code and rulesets this run plays. Workers
    # compile for themselves, so an edit during the run is reported (see below).
    env = environment()
    results = []
    all_records = {}
    for spec in args.games or DEFAULT_GAMES:
        name, players = parse_game(spec)
        game = load(name)  # compile errors before starting workers
        n = players if players is not None else game.players[0]
        seeds = list(range(args.seed, args.seed + args.n))
        records, seconds = run_games(name, n, seeds, args.jobs, log, avoid)
        if sys.stderr.isatty():
            print(file=sys.stderr)
        records.sort(key=lambda r: r["seed"])
        results.append(summarise(name, n, records, seconds, is_neanderthal(game)))
        all_records[f"{name} {n}p"] = records
    env["load_average_1min"] = os.getloadavg()[0]
    env["source_changed_during_run"] = source_digest() != env["source_digest"]
    report = {
        "environment": env,
        "games_each": args.n,
        "first_seed": args.seed,
        "avoid": sorted(avoid),
        "jobs": args.jobs,
        "results": results,
    }
    if args.json:
        if args.records:
            report["records"] = all_records
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
