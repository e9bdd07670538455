"""Dynamic findings: what seeded games reveal about a ruleset.

`observe` plays and watches the games; `findings` reads what they showed. In: a `Game`, a
player count, a number of games, the first seed and who plays (random agents, or a `Seating`
of searching ones, whose thinking is not counted as what the game reached). Out:
`Diagnostic`s (K851-K859), each at the ruleset's place with the rule's citation: procedures,
phases and steps that never ran, decisions that were never reached, arms of an `if` or
`match` that never ran, rows and written options a decision never offered (with the
confidence the number of games gives), decisions that offered no option, invariants that
broke (with the seed and the shortest list of options found that breaks them), games that
did not end within their bound, and other rules that failed at run time.

Games are the ones `knapper simulate --seed S` plays (game k has seed S+k for its dice and
its agents). What ran is seen through a copy of the game whose instructions note the lines
they execute until all have been seen (`interpreter.coverage_branches`), so the engine
itself knows nothing of coverage.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import orjson
from joblib import Parallel, delayed

from dsl.errors import Diagnostic, IllegalMove, KnapperError, Span, diag
from dsl.syntax import ast
from interpreter.agents import Seating
from interpreter.api import load, new_game, seat_count
from interpreter.core.game import Game
from interpreter.core.state import State
from interpreter.coverage_branches import Probe, arms_never_run
from interpreter.coverage_rows import excluded, written
from interpreter.explain import enclosing_cite, find_choose, span_contains
from interpreter.simulate import GameResult, roles_of
from interpreter.trace import replay, rule_cite, stack_of

BOUND_CODES = {"K404", "K405", "K410"}
SHORTEN_BUDGET = 200  # replays spent shortening one invariant's reproduction
# games that must reach a decision before an option it never offered is a finding: no
# sighting in 30 puts the chance per game under one in ten (95% confidence)
CONFIDENT_GAMES = 30


@attrs.frozen
class Failure:
    """One game that went wrong: its seed and the options taken before it did."""

    seed: int
    options: tuple[Any, ...]
    code: str
    message: str
    span: Span
    cite: str | None
    agents: str = ""  # the command-line options that seat the game's agents


def dynamic_findings(
    game: Game | str,
    players: int | None = None,
    games: int = 100,
    seed: int = 0,
    seating: Seating | None = None,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[Diagnostic]:
    """Play `games` seeded games (seeds `seed`, `seed + 1`, ...; random agents unless
    `seating` names others) and report what they show. A ruleset name or path is loaded
    first."""
    return findings(observe(game, players, games, seed, seating, jobs=jobs, progress=progress))


def findings(seen: Observed) -> list[Diagnostic]:
    """The dynamic findings of what a run of games showed."""
    game, games = seen.game, seen.games
    played = _games(games, seen.seating)
    dead = arms_never_run(game, seen.spans, played)
    # a decision in an arm that never ran is that arm's finding, not one of its own
    found = [
        d
        for d in _never_ran(game, seen.ran, seen.spans, played)
        if not any(d.code == "K852" and _within(arm.body, d.span) for arm, _ in dead)
    ]
    found += [finding for _, finding in dead]
    found += _never_offered(game, seen.watch, seen.seating)
    found += _failed(game, seen.players, seen.failures, games)
    return sorted(found, key=Diagnostic.sort_key)


@attrs.define
class Observed:
    """What a run of games showed: the games that ended (`results`, in the order of seeds,
    with each seat's agent in `seats`), those that went wrong (`failures`), what the
    decisions offered (`watch`) and what ran (`ran`: the instructions entered; `spans`: the
    statements of the lines executed; `called`: how many games called each procedure;
    `Probe`) and the CPU time the games took (`cpu`, summed over the processes)."""

    game: Game
    players: int
    games: int
    seating: Seating
    results: list[GameResult] = attrs.Factory(list)
    seats: dict[int, tuple[str, ...]] = attrs.Factory(dict)
    failures: list[Failure] = attrs.Factory(list)
    watch: _Watch = attrs.Factory(lambda: _Watch())
    ran: set[tuple[int, int]] = attrs.Factory(set)
    spans: set[Span] = attrs.Factory(set)
    called: dict[int, int] = attrs.Factory(dict)  # per procedure, the games that called it
    cpu: float = 0.0  # CPU seconds the games took, in whichever process played them

    def add(self, other: Observed) -> None:
        self.cpu += other.cpu
        for proc, k in other.called.items():
            self.called[proc] = self.called.get(proc, 0) + k
        self.results += other.results
        self.seats |= other.seats
        self.failures += other.failures
        self.watch.add(other.watch)
        self.ran |= other.ran
        self.spans |= other.spans


def observe(
    game: Game | str,
    players: int | None = None,
    games: int = 100,
    seed: int = 0,
    seating: Seating | None = None,
    rotate: bool = False,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Observed:
    """Play the games of seeds `seed .. seed + games - 1`, watched. With `rotate`, game k's
    agents sit `k` seats on from `seating` (`Seating.turned`). With `jobs` > 1 the games
    are shared among that many processes (each compiles the ruleset again; a game not read
    from a file plays in this one); `progress` is told how many games each batch played."""
    if isinstance(game, str):
        game = load(game)
    seating = seating if seating is not None else Seating()
    n = seat_count(game, players)  # a player count the game does not allow: K503 now
    seating.describe(n)  # wrong agents or budgets are an error before any game
    seeds = list(range(seed, seed + games))
    seen = Observed(game, n, games, seating)
    source = str(game.program.path)  # each worker reads the same file, so spans match
    if jobs > 1 and games > 1 and Path(source).exists():
        batches = [seeds[i::jobs] for i in range(jobs)]  # a share of early and late seeds each
        work = (
            delayed(_observe_seeds)(source, n, b, seating, seed if rotate else None)
            for b in batches
            if b
        )
        for part in Parallel(n_jobs=jobs, return_as="generator")(work):
            seen.add(part)
            if progress:
                progress(part.games)
        seen.results.sort(key=lambda r: r.seed)
        seen.failures.sort(key=lambda f: f.seed)
        seen.game = game
        return seen
    seen.add(_observe_seeds(game, n, seeds, seating, seed if rotate else None, progress))
    return seen


def _observe_seeds(
    game: Game | str,
    n: int,
    seeds: list[int],
    seating: Seating,
    first: int | None,
    progress: Callable[[int], None] | None = None,
) -> Observed:
    """These games, watched by one probe (`first`: the first seed of a rotated run)."""
    if isinstance(game, str):
        game = load(game)
    probe = Probe(game)
    seen = Observed(game, n, len(seeds), seating)
    cpu = time.process_time()
    for s in seeds:
        seats = seating if first is None else seating.turned(s - first, n)
        probe.entered.clear()
        failure, result = _play(probe, n, s, seen.watch, seats)
        for proc in probe.entered:
            seen.called[proc] = seen.called.get(proc, 0) + 1
        if failure is not None:
            seen.failures.append(failure)
        if result is not None:
            seen.results.append(result)
            seen.seats[s] = seats.describe(n)
        if progress:
            progress(1)
    seen.ran, seen.spans = probe.ran, probe.spans
    seen.cpu = time.process_time() - cpu
    return seen


@attrs.define
class _Watch:
    """What the decisions offered: per decision, the options (names and numbers) offered
    in any game, and how many games reached it."""

    offered: dict[int, set[Any]] = attrs.Factory(dict)
    reached: dict[int, int] = attrs.Factory(dict)

    def game(self, sites: set[int]) -> None:
        for site in sites:
            self.reached[site] = self.reached.get(site, 0) + 1

    def add(self, other: _Watch) -> None:
        for site, options in other.offered.items():
            self.offered.setdefault(site, set()).update(options)
        for site, k in other.reached.items():
            self.reached[site] = self.reached.get(site, 0) + k


def _play(
    probe: Probe, n: int, seed: int, watch: _Watch, seating: Seating
) -> tuple[Failure | None, GameResult | None]:
    """One game, watched: the first thing that goes wrong in it, if anything, else how it
    ended. The agents think with the probe paused."""
    game = probe.game
    taken: list[Any] = []
    state: State | None = None
    sites: set[int] = set()
    start = time.perf_counter()
    try:
        state = new_game(game, players=n, seed=seed)
        broken = state.check_invariants()
        agents = seating.agents(n, seed)
        while not broken and (decision := state.decision()) is not None:
            sites.add(decision.site)
            watch.offered.setdefault(decision.site, set()).update(
                o for o in decision.options if isinstance(o, (str, int))
            )
            agent = agents[decision.player] if isinstance(agents, list) else agents
            with probe.paused():
                option = agent(state, decision)
            taken.append(option)
            state.apply(option)
            broken = state.check_invariants()
    except IllegalMove:
        raise
    except KnapperError as err:
        watch.game(sites)
        first = err.diagnostics[0]
        cite = first.cite or enclosing_cite(game.program, first.span)
        if cite is None and state is not None:
            cite = rule_cite(None, stack_of(state))
        failure = Failure(seed, tuple(taken), first.code, first.message, first.span, cite)
        return attrs.evolve(failure, agents=seating.options()), None
    watch.game(sites)
    if broken:
        first = broken[0]
        failure = Failure(seed, tuple(taken), "K601", first.message, first.span, first.cite)
        return attrs.evolve(failure, agents=seating.options()), None
    outcome = state.outcome()
    assert outcome is not None, "the loop ends when the game does"
    scores = outcome["scores"]
    result = GameResult(
        seed,
        tuple(outcome["winners"]),
        tuple(scores) if scores is not None else None,
        outcome["decisions"],
        outcome["rounds"],
        time.perf_counter() - start,
        roles=roles_of(outcome),
    )
    return None, result


def _never_ran(
    game: Game, ran: set[tuple[int, int]], spans: set[Span], played: str
) -> list[Diagnostic]:
    """Procedures never entered (`ran`: the instructions entered) and decisions never
    reached: no line of theirs ran (`spans`), whichever block ran a copy of it
    (dsl/codegen/emit.py, "Tails")."""
    entered = {proc for proc, _pc in ran}
    index = {info.name: i for i, info in enumerate(game.procs)}
    found = []
    for i, info in enumerate(game.procs):
        if info.kind == "main" or i in entered:
            continue
        found.append(
            diag(
                "K851",
                f"{info.kind} {info.name!r} never ran in {played}",
                info.span,
                severity="warning",
                cite=info.cite,
                hint="a condition that is never true, or a call that is never reached; "
                "more games (--simulate N) may reach it",
            )
        )
    for site in game.sites:
        proc = index.get(site.proc)
        if proc is None or proc not in entered:
            continue  # its procedure never ran: reported above
        if site.span in spans:
            continue
        found.append(
            diag(
                "K852",
                f"the decision {site.prompt!r} was never reached in {played}",
                site.span,
                severity="warning",
                cite=site.cite or game.procs[proc].cite,
                hint="the branch or loop around it is never taken",
            )
        )
    return found


def _never_offered(game: Game, watch: _Watch, seating: Seating) -> list[Diagnostic]:
    """Rows of a table (K857), and options of a written list (K859), that a decision could
    offer and never did: a card whose cost can never be paid, or whose condition never
    holds. A decision counts for a table once it has offered at least half of the rows its
    options' expression allows (`interpreter.coverage_rows`): rows it rules out by their
    printed fields, and a decision that offers only some kinds of row by design (the spear
    cards of a hand), are not findings. Nor is a decision reached in fewer than
    `CONFIDENT_GAMES` games: the message states how unlikely the miss is by chance."""
    found = []
    for site_index, offered in sorted(watch.offered.items()):
        site = game.sites[site_index]
        reached = watch.reached.get(site_index, 0)
        if reached < CONFIDENT_GAMES:
            continue
        choose, _owner = find_choose(game.program, site.span)
        if choose is None:
            continue
        ruled_out = excluded(game, choose.options)
        for table, members in game.tables.items():
            allowed = set(members) - ruled_out
            seen = offered & allowed
            if len(seen) < 2 or 2 * len(seen) < len(allowed):
                continue
            missing = sorted(allowed - seen)
            if missing:
                what = f"{len(seen)} of the {len(allowed)} rows of {table!r} it can offer"
                found.append(_missed(game, "K857", site, what, missing, reached, seating))
        options = [o for o in written(game, choose.options) if o not in game.rows]
        if len(options) >= 2:
            missing = [o for o in options if o not in offered]
            if missing:
                what = f"{len(options) - len(missing)} of its {len(options)} written options"
                found.append(_missed(game, "K859", site, what, missing, reached, seating))
    return found


def _missed(
    game: Game,
    code: str,
    site: Any,
    what: str,
    missing: list[Any],
    reached: int,
    seating: Seating,
) -> Diagnostic:
    names = ", ".join(game.describe(r) for r in missing[:8])
    more = f" and {len(missing) - 8} more" if len(missing) > 8 else ""
    # the rule of three: no sighting in G games puts the chance per game under 3/G (95%)
    once_in = reached // 3
    return diag(
        code,
        f"the decision {site.prompt!r} offered {what} in the {_games(reached, seating)} that "
        f"reached it, never {names}{more}; one offered in one game in {once_in} or more "
        "would be missed this way less than 5% of the time",
        site.span,
        severity="warning",
        cite=site.cite,
        hint="a cost that can never be paid, or a condition that never holds; "
        "more games (--simulate N) make the bound tighter",
    )


def _failed(game: Game, n: int, failures: list[Failure], games: int) -> list[Diagnostic]:
    groups: dict[tuple[str, Span], list[Failure]] = {}
    for failure in failures:
        groups.setdefault((failure.code, failure.span), []).append(failure)
    found = []
    for (code, span), group in groups.items():
        first = min(group, key=lambda f: (len(f.options), f.seed))
        share = f"{len(group)} of {games} game{'s' if games != 1 else ''}"
        where = f"seed {first.seed}, after {_decisions(len(first.options))}"
        replay_cmd = (
            f"knapper simulate {_name(game)} -n 1 --seed {first.seed} --players {n}" + first.agents
        )
        if code == "K601":
            options = shorten(game, n, first.seed, list(first.options))
            name = first.message.removeprefix("invariant ").split(" ", 1)[0]
            found.append(
                diag(
                    "K854",
                    f"invariant {name} broke in {share} (shortest: seed {first.seed}, "
                    f"{_decisions(len(options))})",
                    span,
                    cite=first.cite,
                    hint=f"`{replay_cmd} --check-invariants` stops at it after "
                    f"{_decisions(len(first.options))}; from seed {first.seed} these options "
                    f"break it: {_json(options)}",
                )
            )
        elif code == "K402":
            found.append(
                diag(
                    "K853",
                    f"a decision offered no option in {share} (first: {where})",
                    span,
                    cite=first.cite or _site_cite(game, span),
                    hint=f"{first.message}; guard the `choose` with a test on its options; "
                    f"replay: {replay_cmd}",
                )
            )
        elif code in BOUND_CODES:
            found.append(
                diag(
                    "K855",
                    f"the game did not end within its bound in {share} (first: {where}): "
                    f"{first.message}",
                    span,
                    cite=first.cite,
                    hint=f"find the rule that loops, or raise the bound; replay: {replay_cmd}",
                )
            )
        else:
            found.append(
                diag(
                    "K856",
                    f"a rule failed at run time in {share} (first: {where}): "
                    f"[{code}] {first.message}",
                    span,
                    cite=first.cite,
                    hint=f"replay: {replay_cmd}",
                )
            )
    return found


def _within(body: ast.Block, span: Span) -> bool:
    return any(span_contains(s.span, span) for s in body.stmts)


def _games(k: int, seating: Seating | None = None) -> str:
    """`k` games, named for who played them: random games, or games of these agents."""
    what = f"game{'s' if k != 1 else ''}"
    if seating is None or seating.is_random:
        return f"{k} random {what}"
    return f"{k} {what} of {','.join(seating.names)}"


def _decisions(k: int) -> str:
    return f"{k} decision{'s' if k != 1 else ''}"


def _name(game: Game) -> str:
    """How the command line names the ruleset: its bundled name when the file played is the
    bundled one, else the path it was read from (a copy of a bundled ruleset keeps its
    name, and its replay must play the copy)."""
    from dsl.semantics.resolve import find_ruleset

    bundled = find_ruleset(game.name) if game.name else None
    played = Path(game.program.path)
    if bundled is not None and played.exists() and bundled.resolve() == played.resolve():
        return game.name
    return str(game.program.path)


def _site_cite(game: Game, span: Span) -> str | None:
    for site in game.sites:
        if site.span == span:
            return site.cite
    return None


def _json(value: Any) -> str:
    return orjson.dumps(value, default=str).decode()


def breaks_invariant(game: Game, n: int, seed: int, options: list[Any]) -> list[Any] | None:
    """The options, cut after the one that breaks an invariant, if these options played
    from this seed are all legal and break one; else None."""
    taken: list[Any] = []

    def broken(state: State) -> bool:
        return bool(state.check_invariants())

    try:
        state = replay(game, n, seed, _counting(options, taken), after=broken)
    except KnapperError:
        return None
    return taken if broken(state) else None


def _counting(options: list[Any], taken: list[Any]):
    for option in options:
        taken.append(option)
        yield option


def shorten(game: Game, n: int, seed: int, options: list[Any]) -> list[Any]:
    """A shorter list of options that still breaks an invariant from this seed, if one is
    found within `SHORTEN_BUDGET` replays (chunks of options are left out, largest first)."""
    best = options
    budget = SHORTEN_BUDGET
    chunk = max(1, len(best) // 2)
    while best and budget > 0:
        i = 0
        while i < len(best) and budget > 0:
            budget -= 1
            shorter = breaks_invariant(game, n, seed, best[:i] + best[i + chunk :])
            if shorter is not None and len(shorter) < len(best):
                best = shorter
            else:
                i += chunk
        if chunk == 1:
            break
        chunk = max(1, chunk // 2)
    return best
