"""A balance study: who wins a ruleset's games, by seat and by agent, and what the games reach.

`balance(game, games, ...)` plays seeded games through `interpreter.coverage.observe` (so the
same run also says which procedures ran and which decisions were reached) and returns a
`Balance`: win rates by seat and by agent with Wilson 95% intervals, the first player's
advantage, the games nobody won, scores per seat, game lengths, the declared roles that won
(`role(p)`), coverage and the dynamic findings, and the games that failed. With `rotate`
(the default) game k seats the agents k places on, so a seat's advantage does not pass
for an agent's strength. `Balance.to_json()` is the data `knapper balance --json` prints and
the report (`interpreter/frontends/balance_report.py`) draws.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from typing import Any

import attrs

from interpreter.agents import Seating
from interpreter.api import load
from interpreter.core.game import Game
from interpreter.coverage import Observed, findings, observe

Z95 = 1.96


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of `k` successes in `n` trials (95% for the default z):
    unlike the normal approximation it stays within 0..1 and is sound for rates near 0 or 1
    and for few games."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # the interval always holds p; rounding can put an end a hair inside it at 0 or 1
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


@attrs.frozen
class Rate:
    """`wins` of `games`, with its 95% interval."""

    label: str
    wins: int
    games: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "label": self.label,
            "wins": self.wins,
            "games": self.games,
            "rate": round(self.rate, 4),
            "ci95": [round(low, 4), round(high, 4)],
        }


@attrs.frozen
class Spread:
    """A sample (one value per finished game, in the order of seeds) and its summary:
    count, mean, standard deviation, minimum, median, maximum."""

    values: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        v = self.values
        if not v:
            return {"n": 0}
        return {
            "n": len(v),
            "mean": round(statistics.fmean(v), 3),
            "sd": round(statistics.pstdev(v), 3) if len(v) > 1 else 0.0,
            "min": min(v),
            "median": statistics.median(v),
            "max": max(v),
            "values": list(v),
        }


@attrs.frozen
class Reached:
    """A procedure (phase, step, effect, proc) or a decision, and how many games reached it."""

    kind: str  # phase | step | effect | proc | decision
    name: str
    cite: str | None
    games: int
    where: str  # file:line

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.frozen
class Balance:
    ruleset: str
    title: str
    players: int
    games: int  # games played; `finished` of them ended
    seed: int
    agents: tuple[str, ...]  # the seating of the first game, seat by seat
    rotate: bool
    by_seat: tuple[Rate, ...]
    by_agent: tuple[Rate, ...]  # per agent label, over every seat it sat at
    no_winner: int
    scores: tuple[Spread, ...] | None  # per seat, when the ruleset declares a score
    decisions: Spread
    rounds: Spread
    roles: tuple[Rate, ...]  # per declared role: the games it won of those it was in
    reached: tuple[Reached, ...]
    findings: tuple[dict[str, Any], ...]  # the dynamic findings (`Diagnostic.to_json`)
    failures: tuple[dict[str, Any], ...]
    cpu_seconds: float
    wall_seconds: float

    @property
    def finished(self) -> int:
        return self.decisions.to_json()["n"]

    @property
    def even_share(self) -> float:
        """The mean seat's win rate: the games won (a shared victory counts for each
        winner) spread evenly over the seats."""
        won = sum(r.wins for r in self.by_seat)
        return won / (self.players * self.finished) if self.finished else 0.0

    @property
    def first_player(self) -> dict[str, Any]:
        """Seat 1's win rate less the mean seat's, with seat 1's interval moved alike: above
        0 the first seat wins more often than an even share of the games won."""
        seat, even = self.by_seat[0], self.even_share
        low, high = seat.interval
        return {
            "advantage": round(seat.rate - even, 4),
            "ci95": [round(low - even, 4), round(high - even, 4)],
            "even_share": round(even, 4),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "title": self.title,
            "players": self.players,
            "games": self.games,
            "finished": self.finished,
            "seed": self.seed,
            "agents": list(self.agents),
            "rotate": self.rotate,
            "by_seat": [r.to_json() for r in self.by_seat],
            "by_agent": [r.to_json() for r in self.by_agent],
            "first_player": self.first_player,
            "no_winner": self.no_winner,
            "scores": [s.to_json() for s in self.scores] if self.scores is not None else None,
            "decisions": self.decisions.to_json(),
            "rounds": self.rounds.to_json(),
            "roles": [r.to_json() for r in self.roles],
            "reached": [r.to_json() for r in self.reached],
            "findings": list(self.findings),
            "failures": list(self.failures),
            "cpu_seconds": round(self.cpu_seconds, 2),
            "wall_seconds": round(self.wall_seconds, 2),
        }


def balance(
    game: Game | str,
    games: int = 100,
    seed: int = 0,
    players: int | None = None,
    seating: Seating | None = None,
    rotate: bool = True,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Balance:
    """Play games `seed .. seed + games - 1` and study them (the CPU time is the games',
    summed over the processes that played them)."""
    if isinstance(game, str):
        game = load(game)
    seating = seating if seating is not None else Seating()
    wall = time.perf_counter()
    seen = observe(game, players, games, seed, seating, rotate=rotate, jobs=jobs, progress=progress)
    return study(seen, seed, rotate, time.perf_counter() - wall)


def study(seen: Observed, seed: int, rotate: bool, wall: float) -> Balance:
    """The balance of the games `seen` (`observe`)."""
    game, n, results = seen.game, seen.players, seen.results
    seat_wins = [0] * n
    agent_wins: dict[str, list[int]] = {}  # label -> [wins, seats taken]
    role_wins: dict[str, list[int]] = {}  # role -> [games won, games it was in]
    for r in results:
        labels = seen.seats[r.seed]
        for p in range(n):
            tally = agent_wins.setdefault(labels[p], [0, 0])
            tally[1] += 1
            if p in r.winners:
                seat_wins[p] += 1
                tally[0] += 1
        for role, won in r.roles:
            tally = role_wins.setdefault(role, [0, 0])
            tally[0] += won
            tally[1] += 1
    finished = len(results)
    scored = [r.scores for r in results if r.scores is not None]
    scores = (
        tuple(Spread(tuple(s[p] for s in scored)) for p in range(n))
        if scored and len(scored) == finished
        else None
    )
    return Balance(
        ruleset=game.name,
        title=game.title,
        players=n,
        games=seen.games,
        seed=seed,
        agents=seen.seating.describe(n),
        rotate=rotate,
        by_seat=tuple(Rate(f"P{p + 1}", seat_wins[p], finished) for p in range(n)),
        by_agent=tuple(Rate(label, w, k) for label, (w, k) in agent_wins.items()),
        no_winner=sum(1 for r in results if not r.winners),
        scores=scores,
        decisions=Spread(tuple(r.decisions for r in results)),
        rounds=Spread(tuple(r.rounds for r in results)),
        roles=tuple(Rate(role, w, k) for role, (w, k) in role_wins.items()),
        reached=_reached(game, seen),
        findings=tuple(d.to_json() for d in findings(seen)),
        failures=tuple(
            {"seed": f.seed, "code": f.code, "message": f.message, "cite": f.cite}
            for f in seen.failures
        ),
        cpu_seconds=seen.cpu,
        wall_seconds=wall,
    )


def _reached(game: Game, seen: Observed) -> tuple[Reached, ...]:
    """Every procedure but `main` and every decision, with the games that reached it."""
    out = [
        Reached(info.kind, info.name, info.cite, seen.called.get(i, 0), _where(info.span))
        for i, info in enumerate(game.procs)
        if info.kind != "main"
    ]
    out += [
        Reached("decision", site.prompt, site.cite, seen.watch.reached.get(i, 0), _where(site.span))
        for i, site in enumerate(game.sites)
    ]
    return tuple(out)


def _where(span: Any) -> str:
    return f"{span.file}:{span.line}"
