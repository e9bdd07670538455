"""Many seeded random games, in parallel through joblib, summarised.

`simulate(name, games, seed, players, jobs)` plays games `seed .. seed+games-1` (each game's
dice and agents seeded from its own number, so results do not depend on how games are split
across workers) and returns a `Summary` of wins per seat, game length and speed. With `trace`,
every game's steps are written as JSON lines (interpreter/trace.py), in the order of seeds.
The game is compiled once, here; workers get it packed (dsl/codegen/cache.py) and unpack it
once each, so they never compile, nor need the ruleset's files.
"""

from __future__ import annotations

import contextlib
import functools
import statistics
import time
from collections.abc import Callable

import attrs
from joblib import Parallel, delayed

from dsl.codegen.cache import unpack
from dsl.errors import KnapperError
from dsl.pipeline import pack_ruleset
from interpreter.agents import Seating, play_out
from interpreter.api import load, new_game
from interpreter.cluster import CLUSTERS, connected
from interpreter.core.budget import Budget
from interpreter.core.game import Game

RANDOM = Seating()  # every seat random: one agent seeded with the game's seed


@attrs.frozen
class GameResult:
    seed: int
    winners: tuple[int, ...]
    scores: tuple | None
    decisions: int
    rounds: int
    seconds: float
    trace: bytes | None = attrs.field(default=None, repr=False, eq=False)  # its JSON lines
    roles: tuple[tuple[str, bool], ...] = ()  # each declared role (`role(p)`), and if it won


def roles_of(outcome: dict) -> tuple[tuple[str, bool], ...]:
    """The roles a finished game's outcome names, each with whether it won (none when the
    ruleset declares no roles)."""
    return tuple((role, held["won"]) for role, held in outcome.get("roles", {}).items())


@attrs.frozen
class Summary:
    ruleset: str
    players: int
    games: int
    wins: tuple[int, ...]  # games won (alone or shared) per seat
    no_winner: int
    decisions_mean: float
    decisions_sd: float
    rounds_mean: float
    rounds_sd: float
    decisions_per_second: float
    seconds: float
    agents: tuple[str, ...] = ()  # each seat's agent (`Seating.describe`)

    def to_json(self) -> dict:
        data = attrs.asdict(self)
        data["win_rate"] = [w / self.games for w in self.wins] if self.games else []
        return data


def play_one(
    name: str,
    players: int,
    seed: int,
    check_invariants: bool = False,
    save_final: str | None = None,
    trace: bool = False,
    budget: Budget | None = None,
    seating: Seating = RANDOM,
    game: Game | None = None,
) -> GameResult:
    """One seeded game of `game` (by default the ruleset `name`, loaded); with
    `save_final`, its end state is written as a save file in that folder, named
    `<ruleset>-<players>p-seed<seed>.json`; with `trace`, the result holds the game's trace
    (and an error raised by the game holds the trace up to it, as `.trace`). `budget`: the
    work budget of the rules (`new_game`); `seating`: who plays each seat
    (interpreter/agents: random by default)."""
    game = game if game is not None else load(name)
    start = time.perf_counter()
    lines: list[bytes] = []
    try:
        if trace:
            from interpreter.trace import play_traced, start_traced

            state, recorder = start_traced(game, players, seed, lines.append, budget=budget)
            agents = seating.agents(players, seed)
            play_traced(state, recorder, agents, check_invariants=check_invariants)
        else:
            state = new_game(game, players=players, seed=seed, budget=budget)
            play_out(state, seating.agents(players, seed), check_invariants=check_invariants)
    except KnapperError as err:
        replay = f"knapper simulate {name} -n 1 --seed {seed} --players {players}"
        if budget is not None:
            replay += f" --max-steps {budget.steps} --max-items {budget.elements}"
        replay += seating.options()
        first = attrs.evolve(err.diagnostics[0], hint=f"in the game with seed {seed}; {replay}")
        again = type(err)([first] + err.diagnostics[1:], err.sources)
        if trace:
            again.trace = b"".join(lines)  # type: ignore[attr-defined]
        raise again from None
    outcome = state.outcome()
    assert outcome is not None, "play_out returns finished games"
    result = GameResult(
        seed,
        tuple(outcome["winners"]),
        tuple(outcome["scores"]) if outcome["scores"] is not None else None,
        outcome["decisions"],
        outcome["rounds"],
        time.perf_counter() - start,
        b"".join(lines) if trace else None,
        roles_of(outcome),
    )
    if save_final is not None:
        from pathlib import Path

        from interpreter.save import dump_state, host_key

        target = Path(save_final) / f"{game.name}-{players}p-seed{seed}.json"
        target.write_bytes(dump_state(state, key=host_key()))
    return result


@functools.lru_cache(maxsize=2)
def _unpacked(packed: bytes) -> Game:
    """The game a worker was sent, unpacked once however many of its batches it plays."""
    return unpack(packed)


def _batch(
    name, packed, players, seeds, check_invariants, save_final, trace, budget, seating
) -> list[GameResult]:
    game = _unpacked(packed)
    return [
        play_one(name, players, s, check_invariants, save_final, trace, budget, seating, game)
        for s in seeds
    ]


def simulate(
    name: str,
    games: int,
    seed: int = 0,
    players: int | None = None,
    jobs: int = 1,
    check_invariants: bool = False,
    backend: str | None = None,
    progress: Callable[[int], None] | None = None,
    save_final: str | None = None,
    trace: Callable[[bytes], object] | None = None,
    budget: Budget | None = None,
    address: str | None = None,
    seating: Seating = RANDOM,
) -> tuple[Summary, list[GameResult]]:
    """With `trace`, each game's trace is passed to it, in the order of seeds, as soon as
    the game (or its batch) is done, and is not kept in the results. `budget`: the work
    budget of every game's rules (`new_game`). `backend` "dask" or "ray" runs the games on
    that cluster (interpreter/cluster.py), at `address` (a local one when None), `jobs`
    tasks at a time (every worker when `jobs` is 1). `seating`: who plays each seat
    (interpreter/agents: random by default)."""
    game = load(name)
    n = players if players is not None else game.players[0]
    seating.describe(n)  # wrong agents or budgets are an error before any game
    seeds = list(range(seed, seed + games))
    start = time.perf_counter()
    results: list[GameResult] = []
    tracing = trace is not None

    def keep(done: list[GameResult]) -> None:
        for result in done:
            if trace is not None and result.trace is not None:
                trace(result.trace)
                result = attrs.evolve(result, trace=None)
            results.append(result)

    on_cluster = backend in CLUSTERS
    if jobs == 1 and not on_cluster:
        for batch in _batches(seeds, 1):
            for s in batch:  # one at a time, so a game that fails comes after those before
                one = play_one(
                    name, n, s, check_invariants, save_final, tracing, budget, seating, game
                )
                keep([one])
            if progress:
                progress(len(batch))
    else:
        # joblib's default is loky (local processes); "dask" and "ray" run the same batches
        # on a cluster, connected for the length of the run
        # sent once to each worker of a Dask cluster, with each task else
        packed = pack_ruleset(name, game)
        cluster = (
            connected(str(backend), address, send=[packed])
            if on_cluster
            else contextlib.nullcontext(jobs)
        )
        with cluster as slots:
            # on a cluster, `--jobs 1` means every worker; at least 2, since joblib runs a
            # single job in this process
            tasks = max(2, slots if jobs == 1 else jobs) if on_cluster else jobs
            runner = Parallel(
                n_jobs=tasks,
                backend=None if on_cluster else backend,  # a cluster is set by `connected`
                # Ray's backend returns results only all at once
                return_as="list" if backend == "ray" else "generator",
            )
            work = (
                delayed(_batch)(
                    name, packed, n, b, check_invariants, save_final, tracing, budget, seating
                )
                for b in _batches(seeds, tasks)
            )
            for done in runner(work):
                keep(done)
                if progress:
                    progress(len(done))
    elapsed = time.perf_counter() - start
    summary = summarise(game.name, n, results, elapsed)
    return attrs.evolve(summary, agents=seating.describe(n)), results


def _batches(seeds: list[int], slots: int) -> list[list[int]]:
    """The seeds in batches of up to 200 games, at least 8 per task slot when there are few
    games, so that a task carries enough play to be worth sending."""
    chunk = max(1, min(200, len(seeds) // (slots * 8) or 1))
    return [seeds[i : i + chunk] for i in range(0, len(seeds), chunk)]


def summarise(name: str, players: int, results: list[GameResult], elapsed: float) -> Summary:
    wins = [0] * players
    for r in results:
        for p in r.winners:
            wins[p] += 1
    decisions = [r.decisions for r in results]
    rounds = [r.rounds for r in results]
    busy = sum(r.seconds for r in results) or 1e-9
    return Summary(
        ruleset=name,
        players=players,
        games=len(results),
        wins=tuple(wins),
        no_winner=sum(1 for r in results if not r.winners),
        decisions_mean=statistics.fmean(decisions) if decisions else 0.0,
        decisions_sd=statistics.pstdev(decisions) if len(decisions) > 1 else 0.0,
        rounds_mean=statistics.fmean(rounds) if rounds else 0.0,
        rounds_sd=statistics.pstdev(rounds) if len(rounds) > 1 else 0.0,
        decisions_per_second=sum(decisions) / busy,
        seconds=elapsed,
    )
