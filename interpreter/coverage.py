"""Dynamic findings: what seeded random games reveal about a ruleset.

In: a `Game`, a player count, a number of games and the first seed. Out: `Diagnostic`s
(K851-K856), each at the ruleset's place with the rule's citation: procedures, phases and
steps that never ran, decisions that were never reached, decisions that offered no option,
invariants that broke (with the seed and the shortest list of options found that breaks
them), games that did not end within their bound, and other rules that failed at run time.

Games are the ones `knapper simulate --seed S` plays (game k has seed S+k for its dice and
its random agent). Which instructions ran is seen through a copy of the game whose every
instruction is wrapped once: the first call notes it and puts the plain instruction back,
so the games run at nearly full speed and the engine itself knows nothing of coverage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import orjson

from dsl.errors import Diagnostic, IllegalMove, KnapperError, Span, diag
from interpreter.agents import RandomAgent
from interpreter.api import load, new_game
from interpreter.core.game import Game
from interpreter.core.state import State
from interpreter.explain import enclosing_cite
from interpreter.trace import replay, rule_cite, stack_of

BOUND_CODES = {"K404", "K405", "K410"}
SHORTEN_BUDGET = 200  # replays spent shortening one invariant's reproduction


@attrs.frozen
class Failure:
    """One game that went wrong: its seed and the options taken before it did."""

    seed: int
    options: tuple[Any, ...]
    code: str
    message: str
    span: Span
    cite: str | None


class _Probe:
    """A copy of the game whose instructions note, once each, that they ran."""

    def __init__(self, game: Game):
        self.ran: set[tuple[int, int]] = set()
        codes = [list(proc) for proc in game.code]
        for proc, instructions in enumerate(codes):
            for pc in range(len(instructions)):
                instructions[pc] = self._first(codes, proc, pc)
        self.game = attrs.evolve(game, code=tuple(codes))  # type: ignore[arg-type]

    def _first(self, codes: list[list[Callable]], proc: int, pc: int) -> Callable:
        plain = codes[proc][pc]
        ran = self.ran

        def first(st, L):
            ran.add((proc, pc))
            codes[proc][pc] = plain  # the engine reads this list: later calls go straight in
            return plain(st, L)

        return first


def dynamic_findings(
    game: Game | str, players: int | None = None, games: int = 100, seed: int = 0
) -> list[Diagnostic]:
    """Play `games` seeded random games (seeds `seed`, `seed + 1`, ...) and report what
    they show. A ruleset name or path is loaded first."""
    if isinstance(game, str):
        game = load(game)
    n = players if players is not None else game.players[0]
    probe = _Probe(game)
    asked: set[int] = set()
    offered: dict[int, set[str]] = {}
    failures: list[Failure] = []
    for s in range(seed, seed + games):
        failure = _play(probe.game, n, s, asked, offered)
        if failure is not None:
            failures.append(failure)
    found = _never_ran(game, probe.ran, games)
    found += _never_offered(game, offered, games)
    found += _failed(game, n, failures, games)
    return sorted(found, key=Diagnostic.sort_key)


def _play(
    game: Game, n: int, seed: int, asked: set[int], offered: dict[int, set[str]]
) -> Failure | None:
    """One random game, watched: the first thing that goes wrong in it, if anything."""
    taken: list[Any] = []
    state: State | None = None
    try:
        state = new_game(game, players=n, seed=seed)
        broken = state.check_invariants()
        agent = RandomAgent(seed)
        while not broken and (decision := state.decision()) is not None:
            asked.add(decision.site)
            offered.setdefault(decision.site, set()).update(
                o for o in decision.options if isinstance(o, str) and o in game.rows
            )
            option = agent(state, decision)
            taken.append(option)
            state.apply(option)
            broken = state.check_invariants()
    except IllegalMove:
        raise
    except KnapperError as err:
        first = err.diagnostics[0]
        cite = first.cite or enclosing_cite(game.program, first.span)
        if cite is None and state is not None:
            cite = rule_cite(None, stack_of(state))
        return Failure(seed, tuple(taken), first.code, first.message, first.span, cite)
    if broken:
        first = broken[0]
        return Failure(seed, tuple(taken), "K601", first.message, first.span, first.cite)
    return None


def _never_ran(game: Game, ran: set[tuple[int, int]], games: int) -> list[Diagnostic]:
    entered = {proc for proc, _pc in ran}
    index = {info.name: i for i, info in enumerate(game.procs)}
    played = f"{games} random game{'s' if games != 1 else ''}"
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
        pcs = [pc for pc, span in enumerate(game.procs[proc].spans) if span == site.span]
        if any((proc, pc) in ran for pc in pcs):
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


def _never_offered(game: Game, offered: dict[int, set[str]], games: int) -> list[Diagnostic]:
    """Rows of a table that a decision offers, which it never offered in any game: a card
    whose cost can never be paid, or whose condition never holds (K857). A decision counts
    for a table once it has offered at least half of its rows: a decision that offers only
    some kinds of row by design (the spear cards of a hand) is not a finding."""
    played = f"{games} random game{'s' if games != 1 else ''}"
    found = []
    for site_index, rows in sorted(offered.items()):
        site = game.sites[site_index]
        for table, members in game.tables.items():
            seen = rows & set(members)
            if len(seen) < 2 or 2 * len(seen) < len(set(members)):
                continue
            missing = sorted(set(members) - seen)
            if not missing:
                continue
            names = ", ".join(game.describe(r) for r in missing[:8])
            more = f" and {len(missing) - 8} more" if len(missing) > 8 else ""
            found.append(
                diag(
                    "K857",
                    f"the decision {site.prompt!r} offered {len(seen)} of the "
                    f"{len(set(members))} rows of {table!r} in {played}, never {names}{more}",
                    site.span,
                    severity="warning",
                    cite=site.cite,
                    hint="a cost that can never be paid, or a condition that never holds; "
                    "more games (--simulate N) may offer it",
                )
            )
    return found


def _failed(game: Game, n: int, failures: list[Failure], games: int) -> list[Diagnostic]:
    groups: dict[tuple[str, Span], list[Failure]] = {}
    for failure in failures:
        groups.setdefault((failure.code, failure.span), []).append(failure)
    found = []
    for (code, span), group in groups.items():
        first = min(group, key=lambda f: (len(f.options), f.seed))
        share = f"{len(group)} of {games} game{'s' if games != 1 else ''}"
        where = f"seed {first.seed}, after {_decisions(len(first.options))}"
        replay_cmd = f"knapper simulate {_name(game)} -n 1 --seed {first.seed} --players {n}"
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


def _decisions(k: int) -> str:
    return f"{k} decision{'s' if k != 1 else ''}"


def _name(game: Game) -> str:
    """How the command line names the ruleset: its bundled name, else its path."""
    from dsl.semantics.resolve import bundled_names

    return game.name if game.name in bundled_names() else str(game.program.path)


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
