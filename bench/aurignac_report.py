"""The Aurignac section of bench/random_play.py: roles, how games end, seasons.

A ruleset with the state model of rulesets/aurignac/state.knap (one that declares every
variable of AURIGNAC_VARS) gets, beside the generic section: wins by role and colour, how
each game ended (Mother Nature after the last season, a Neanderthal's seventh
foundation, a Sapiens' third work), seasons per game, decisions per season, and the
foundations and works reached by the end.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from interpreter.core.game import Game
from interpreter.core.state import State

AURIGNAC_VARS = frozenset({"role_of", "colour_of", "season", "founded", "progress", "tribe_at"})


def is_aurignac(game: Game) -> bool:
    return AURIGNAC_VARS <= {spec.name for spec in game.vars}


def seat_name(state: State, p: int) -> str:
    role = state.get("role_of", p)
    colour = state.get("colour_of", p)
    return role if colour is None else f"{role} ({colour})"


def record(state: State, players: int, season_decisions: list[int]) -> dict[str, Any]:
    """What one finished game says about Aurignac (the generic record has the winners)."""
    roles = [state.get("role_of", p) for p in range(players)]
    return {
        "roles": roles,
        "seats": [seat_name(state, p) for p in range(players)],
        "seasons": state.get("season"),
        "season_decisions": season_decisions,
        "foundations": [
            len(state.get("founded", p)) if roles[p] == "neanderthal" else None
            for p in range(players)
        ],
        "works": [
            state.call("s_works_done", p) if roles[p] == "sapiens" else None for p in range(players)
        ],
    }


def how_it_ended(r: dict[str, Any]) -> str:
    kinds = {r["roles"][p] for p in r["winners"]}
    if not kinds:
        return "nobody won"
    if kinds == {"mother_nature"}:
        return "Mother Nature, after the last season"
    if kinds == {"neanderthal"}:
        return "a Neanderthal's seventh foundation"
    if kinds == {"sapiens"}:
        return "a Sapiens' third work"
    return "several roles at once"


def _spread(values: list[float]) -> dict[str, float]:
    from bench.random_play import spread

    return spread(values)


def summary(done: list[dict[str, Any]]) -> dict[str, Any]:
    seats: Counter = Counter()
    wins: Counter = Counter()
    for r in done:
        for p, name in enumerate(r["seats"]):
            seats[name] += 1
            if p in r["winners"]:
                wins[name] += 1
    ends = Counter(how_it_ended(r) for r in done)

    def reached(key: str) -> list[int]:
        return [v for r in done for v in r[key] if v is not None]

    return {
        "by_seat": {
            name: {"seats": seats[name], "wins": wins[name], "win_rate": wins[name] / seats[name]}
            for name in sorted(seats)
        },
        "ended_by": dict(sorted(ends.items())),
        "seasons": _spread([r["seasons"] for r in done]),
        "decisions_per_season": _spread([d for r in done for d in r["season_decisions"]]),
        "foundations_at_end": _spread(reached("foundations")),
        "works_at_end": _spread(reached("works")),
        "foundations_histogram": dict(sorted(Counter(reached("foundations")).items())),
        "works_histogram": dict(sorted(Counter(reached("works")).items())),
    }


def print_section(console, res: dict[str, Any], done: int, pct, spread_row) -> None:
    from rich.table import Table

    table = Table(title="Wins by role (and colour)")
    for column in ("", "seats", "wins", "win rate"):
        table.add_column(column, justify="left" if not column else "right")
    for name, row in res["by_seat"].items():
        table.add_row(name, str(row["seats"]), str(row["wins"]), pct(row["wins"], row["seats"]))
    console.print(table)

    table = Table(title="How the games ended")
    for column in ("", "games", "share"):
        table.add_column(column, justify="left" if not column else "right")
    for name, k in res["ended_by"].items():
        table.add_row(name, str(k), pct(k, done))
    console.print(table)

    table = Table(title="Seasons and progress")
    for column in ("", "mean", "sd", "median", "min", "max"):
        table.add_column(column, justify="left" if not column else "right")
    table.add_row(*spread_row("seasons per game", res["seasons"]))
    table.add_row(*spread_row("decisions per season", res["decisions_per_season"]))
    table.add_row(*spread_row("foundations (per Neanderthal)", res["foundations_at_end"]))
    table.add_row(*spread_row("works (per Sapiens)", res["works_at_end"]))
    console.print(table)
    console.print(
        "foundations at the end: "
        + ", ".join(f"{k}: {n}" for k, n in res["foundations_histogram"].items())
        + "; works at the end: "
        + ", ".join(f"{k}: {n}" for k, n in res["works_histogram"].items())
    )
