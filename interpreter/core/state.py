"""The game state and its engine.

A `State` is plain data: the variables (`g`), the engine's stack of frames (procedure,
position, locals), the RNG's one-int state, scripted dice, the pending decision and the result.
The framework's bookkeeping (stack, rng, counters) stays apart from the game's own data (`g`).
`State.apply` applies an option and executes compiled instructions until a decision is needed
or the game ends; `run` does the same with no option.

The contract between generated code and this engine (docs/api.md, "The engine's contract"):

- An instruction is a function `(state, locals) -> next`: a position in its procedure, or
  CALL (it pushed a frame), RET or END; or, when it set `state.pending`, `SUSPENDED - r`:
  the frame resumes at position `r` once the decision is taken.
- A frame is a list `[proc, pc, locals]`, read through PROC, PC and LOCALS; a pending
  decision is a tuple `(who, options, site, slot)`, read through WHO, OPTIONS, SITE and SLOT.
  Both stay plain lists and tuples, built by generated code, because a record built at every
  decision or call costs 6-26% of a playout (bench/playouts.py, measured for issue 11);
  everything outside the hot path reads them as the typed `Pending` and `Frame`.
- After CALL the engine resumes the frame at `pc + 1`.
"""

from __future__ import annotations

from itertools import product
from typing import Any

import attrs

from dsl.errors import (
    Diagnostic,
    IllegalMove,
    KnapperError,
    RulesetRuntimeError,
    Span,
    diag,
    did_you_mean,
)
from interpreter.core.budget import DEFAULT as DEFAULT_BUDGET
from interpreter.core.budget import Budget
from interpreter.core.failure import _RULES, explain, failure
from interpreter.core.game import Game

CALL, RET, END = -1, -2, -4
# An instruction that left a decision pending returns `SUSPENDED - r`, `r` the position its
# frame resumes at (dsl/codegen/emit.py: where a copy of the decision runs in another block,
# `r` is not the next position).
SUSPENDED = -5

# The fields of a frame `[proc, pc, locals]` in `state.stack`: the procedure's index in
# `game.code`, the position to run next in it, and its local values.
PROC, PC, LOCALS = 0, 1, 2
# The fields of `state.pending`, a tuple `(who, options, site, slot)`: the deciding player's
# index, the legal options in order, the `choose` that asks (an index into `game.sites`) and
# the local of the waiting frame that receives the answer.
WHO, OPTIONS, SITE, SLOT = 0, 1, 2, 3

# The version of what a saved position means: bump it whenever the compiler or this engine
# changes how a procedure's statements map to positions, or where a frame resumes, without
# changing the layout that `interpreter.save` hashes (instruction counts, spans, locals).
CODE_VERSION = 1


@attrs.frozen
class Decision:
    player: int
    options: tuple[Any, ...]
    prompt: str
    cite: str | None
    site: int


@attrs.frozen
class Pending:
    """The decision a state waits for, as the engine holds it: who decides, the legal options
    (this record's own copy: never a list the state holds), the `choose` that asks (`site`,
    an index into `game.sites`) and the local slot of the waiting frame that receives the
    answer. `reoffer` is always False and not saved: a decision taken for a standing option
    is asked again by the engine (`State._take_offer`), not by the record."""

    who: int
    options: tuple[Any, ...]
    site: int
    slot: int
    reoffer: bool = False


@attrs.frozen
class Frame:
    """A frame of the engine's stack, as a copy: the procedure (an index into `game.procs`),
    the position to run next in it, and its locals (copied)."""

    proc: int
    pc: int
    locals: tuple[Any, ...]


def _parameter_values(st, domains: tuple):
    """Every combination of values of a standing rule's or option's listed parameters (a
    domain of None is the players)."""
    return product(*[st.players if d is None else d for d in domains])


def _waiting_inside(frames, deferred: dict) -> bool:
    """Does one of `frames` wait at a position inside a `simultaneously` block (`deferred`:
    by procedure, the block positions each such block spans)?"""
    for fr in frames:
        for low, high in deferred.get(fr[0], ()):
            if low < fr[1] <= high:
                return True
    return False


def _running(st, proc: int, values: tuple) -> bool:
    """Is a frame of procedure `proc` on the stack with `values` as its first locals (a
    standing rule running for them)?"""
    n = len(values)
    return any(fr[0] == proc and tuple(fr[2][:n]) == values for fr in st.stack)


def _offers(st, table: tuple, who: int) -> list:
    """The standing options player `who` may take now, as values `[name, *values]` (the
    option's parameters after the player), in declaration order, then the values' order.
    One is open while its condition holds, one of its `during` procedures is running, and it
    is not itself running for the same values. `table` is `_OPTIONS`."""
    out = []
    for name, proc, guard, test, domains, _room, during in table:
        if during is not None and not any(fr[0] in during for fr in st.stack):
            continue
        if guard is not None and not guard(st, who):
            continue
        for values in _parameter_values(st, domains):
            if test(st, who, *values) and not _running(st, proc, (who, *values)):
                out.append([name, *values])
    return out


class RulesetFault(Exception):
    """Raised by compiled code for a rule that cannot be carried out (message, code)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


# What applying an option changes in a state, besides its scripted dice: what a failed
# option puts back (`State._go_back`).
_GAME_FIELDS = (
    "g",
    "stack",
    "rng",
    "pending",
    "winners",
    "decisions",
    "rounds",
    "left",
    "room",
    "seed",
    "dealt",
    "taken",
)


class _NoMemo(dict):
    """The memo of a state outside `run`: it keeps nothing, so a derived value read from
    outside (a view, a standing option's test, a front-end's `set`) is always worked out
    afresh."""

    __slots__ = ()

    def __setitem__(self, key, value) -> None:
        pass


NO_MEMO: dict = _NoMemo()
# what `run` passes `State.apply`: no option, only run on
_NO_OPTION = object()


class State:
    __slots__ = (
        "game",
        "n",
        "g",
        "stack",
        "rng",
        "script",
        "pending",
        "winners",
        "decisions",
        "rounds",
        "trace",
        "players",
        "bound",
        "budget",
        "left",
        "room",
        "seed",
        "dealt",
        "taken",
        "origin",
        "memo",
    )

    def __init__(self, game: Game, n: int, rng: int, budget: Budget | None = None):
        self.game = game
        self.n = n
        self.players = list(range(n))
        self.g: list[Any] = []
        self.stack: list[list] = []  # frames [proc, pc, locals]: see PROC, PC, LOCALS
        self.rng = rng
        self.script: list[int] = []
        self.pending: tuple | None = None  # (who, options, site, slot): see WHO, ...
        self.winners: list[int] | None = None
        self.decisions = 0
        self.rounds = 0
        self.trace: list | None = None
        self.bound = game.bound if game.bound is not None else 1 << 62
        # the work budget (interpreter/core/budget.py): what is left of it in this run
        self.budget = budget if budget is not None else DEFAULT_BUDGET
        self.left = self.budget.steps
        self.room = self.budget.elements
        # where the game comes from, so a save can be re-derived (interpreter/save.py): the
        # seed it started with (None: not from a seed, or changed by `set`), the dice
        # scripted at its start, and every option applied since, in order
        self.seed: int | None = None
        self.dealt: tuple[int, ...] = ()
        self.taken: list[Any] = []
        # for a state its seed does not tell (`set`, a scenario, a snapshot without a seed):
        # a copy of it as it was at its first option since, and how many options it had
        # taken then (`_go_back` plays the game again from there); None until that option
        self.origin: tuple[State, int] | None = None
        # the values of remembered `fn` calls (dsl/codegen/memo.py): a dict only while `run`
        # runs (in a game where some `fn` remembers), nothing kept outside it
        self.memo: dict = NO_MEMO

    # ------------------------------------------------------------------ the contract
    def decision(self) -> Decision | None:
        if self.pending is None:
            return None
        pending = self.pending
        info = self.game.sites[pending[SITE]]
        return Decision(
            pending[WHO], tuple(pending[OPTIONS]), info.prompt, info.cite, pending[SITE]
        )

    def legal(self) -> list:
        """The pending options: a copy, so changing it changes nothing in the game."""
        return copy_deep(self.pending[OPTIONS]) if self.pending is not None else []

    def waiting(self) -> Pending | None:
        """The pending decision as a typed record (a copy), or None when nothing is pending."""
        pending = self.pending
        if pending is None:
            return None
        return Pending(
            pending[WHO], tuple(copy_deep(pending[OPTIONS])), pending[SITE], pending[SLOT]
        )

    def frames(self) -> tuple[Frame, ...]:
        """The engine's stack as typed records (copies), outermost first."""
        return tuple(Frame(f[PROC], f[PC], tuple(copy_deep(f[LOCALS]))) for f in self.stack)

    def apply(self, option: Any) -> None:
        """Apply a legal option and run until the next decision; refuse anything else.

        A refused option (or one past the declared bound) raises before anything changes.
        `run(state)` comes here with `_NO_OPTION`: nothing is applied, the game runs on from
        where it is. The engine's loop is here, not in a function of its own, because this
        is the hot path of every playout: a call more per decision costs a few percent of a
        small game's playout (docs/performance.md, "2026-12-07, last").

        An error of the ruleset's own code becomes a `RulesetRuntimeError` at the statement
        that failed (`_stopped`), and the game goes back to where it was before the option;
        any other exception is the engine's and propagates unchanged."""
        pending = self.pending
        # literal indices (1 = OPTIONS, 0 = WHO, 2 = SITE, 3 = SLOT), because reading a
        # module constant costs a lookup
        if option is _NO_OPTION:
            slot = -1
        elif pending is not None and option in pending[1] and self.decisions < self.bound:
            if self.seed is None and self.origin is None:  # a copy to go back to, once
                self.origin = (self.clone(), len(self.taken))
            if option.__class__ is list:
                option = copy_deep(option)
                self.taken.append(copy_deep(option))  # the rules may change their copy
            else:
                self.taken.append(option)
            self.pending = None
            self.decisions += 1
            if self.trace is not None:
                self.trace.append(
                    ("decision", pending[0], pending[2], option, self._placed(pending[2]))
                )
            slot = pending[3]
            if option.__class__ is list and self.game.options:
                try:
                    if self._take_offer(pending, option):
                        return
                except KnapperError:
                    self._go_back()
                    raise
        else:
            raise self._refusal(option)
        budget = self.budget
        self.left = budget.steps
        self.room = budget.elements
        stack = self.stack
        code_of = self.game.code
        fr = stack[-1]  # read with literal indices: 0 = PROC, 1 = PC, 2 = LOCALS
        L = fr[2]
        if slot >= 0:
            L[slot] = option
        code = code_of[fr[0]]
        pc = fr[1]
        if self.game.remembers:
            self.memo = {}
        try:
            while True:
                nxt = code[pc](self, L)
                if nxt >= 0:
                    pc = nxt
                    continue
                if nxt <= -5:  # SUSPENDED - r: a decision is pending
                    fr[1] = -5 - nxt
                    return
                if nxt == CALL:
                    fr[1] = pc + 1
                    fr = stack[-1]
                    code = code_of[fr[0]]
                    L = fr[2]
                    pc = 0
                elif nxt == RET:
                    stack.pop()
                    fr = stack[-1]
                    code = code_of[fr[0]]
                    L = fr[2]
                    pc = fr[1]
                else:  # END
                    stack.clear()
                    return
        except KnapperError:
            if slot >= 0:
                self._go_back()
            raise
        except _STOPPING as err:
            error = _stopped(self, fr, pc, err)
            if error is None:  # the engine's own bug: it propagates as itself
                raise
            if slot >= 0:
                self._go_back()
            raise error from None
        finally:
            self.memo = NO_MEMO

    def _go_back(self) -> None:
        """A rule failed while an option was applied: put the game back where it was before
        that option, played again up to it from its start (its seed and dice) or from its
        `origin`. The trace keeps what ran, as a log of the attempt."""
        if self.origin is not None:
            base, since = self.origin
            before = base.clone()
        else:
            from interpreter.core import rng  # imported here: it imports this module

            assert self.seed is not None, "a state without a seed has an origin"
            before = start(
                self.game, self.n, rng.seed_state(self.seed), list(self.dealt), budget=self.budget
            )
            before.seed, before.dealt, since = self.seed, self.dealt, 0
        before.bound, before.budget = self.bound, self.budget
        for option in self.taken[since:-1]:
            before.apply(option)
        self.script[:] = before.script  # in place: it may be a front-end's chance tap
        for name in _GAME_FIELDS:
            setattr(self, name, getattr(before, name))

    def _placed(self, site: int) -> tuple:
        """The values of the locals decision `site`'s prompt names, as the waiting frame
        holds them (for traces)."""
        frame = self.stack[-1][LOCALS] if self.stack else []
        return tuple(copy_deep(frame[slot]) for _name, slot, _t in self.game.sites[site].places)

    def _take_offer(self, pending, option: list) -> bool:
        """If `option` is one of the standing options that end the pending list (`_offers`),
        run its body; the decision it was taken at is asked again once the body is done (a
        decision always begins a block of its own in such a ruleset)."""
        table = self.game.options
        offered = len(_offers(self, table, pending[WHO]))
        if pending[OPTIONS].index(option) < len(pending[OPTIONS]) - offered:
            return False
        _name, proc, _guard, _test, _domains, room, _during = next(
            e for e in table if e[0] == option[0]
        )
        self.stack[-1][PC] -= 1
        self.stack.append([proc, 0, [pending[WHO], *option[1:]] + [None] * room])
        run(self)
        return True

    def _refusal(self, option: Any) -> KnapperError:
        pending = self.pending
        if pending is None:
            return _error(
                IllegalMove,
                self.game,
                diag("K501", "the game is over; no decision is pending", self._here()),
            )
        if option not in pending[OPTIONS]:
            shown = ", ".join(self.game.describe(o) for o in pending[OPTIONS][:10])
            return _error(
                IllegalMove,
                self.game,
                diag(
                    "K502",
                    f"{self.game.describe(option)!r} is not one of the options",
                    self._here(),
                    hint=f"the options are: {shown}",
                    cite=self.game.sites[pending[SITE]].cite,
                ),
            )
        return _error(
            RulesetRuntimeError,
            self.game,
            diag(
                "K410",
                f"the game would go past its declared bound of {self.game.bound} decisions",
                self._here(),
                hint="raise `bound N decisions` or find the rule that loops",
            ),
        )

    def is_over(self) -> bool:
        return self.winners is not None

    def outcome(self) -> dict | None:
        if self.winners is None:
            return None
        score = self.game.score
        scores = self._per_player("score", score) if score is not None else None
        out: dict[str, Any] = {
            "winners": list(self.winners),
            "scores": scores,
            "decisions": self.decisions,
            "rounds": self.rounds,
        }
        if self.game.result is not None:
            out["results"] = self._per_player("result", self.game.result)
        if self.game.role is not None:
            roles = self._per_player("role", self.game.role)
            out["roles"] = {
                role: {
                    "seats": [p for p in range(self.n) if roles[p] == role],
                    "won": any(roles[p] == role for p in self.winners),
                }
                for role in dict.fromkeys(roles)
            }
        return out

    def standing(self) -> list[int] | None:
        """How well each player stands now, finished or not, for agents that search: the
        ruleset's `heuristic(p)` where it declares one, else its `score(p)`; None where it
        declares neither."""
        game = self.game
        if game.heuristic is not None:
            return self._per_player("heuristic", game.heuristic)
        if game.score is not None:
            return self._per_player("score", game.score)
        return None

    def _per_player(self, kind: str, fn: Any) -> list:
        """The `score(p)`, `role(p)`, `result(p)` or `heuristic(p)` of every player."""
        where = self.game.span_of(f"{kind}()")
        return [
            _rules_code(self, f"the {kind}", where, lambda p=p: fn(self, [p]))
            for p in range(self.n)
        ]

    def clone(self, history: bool = True) -> State:
        """An independent copy: nothing the original does later changes it, nor the reverse.
        The pending options are copied too (they can be a list the original's variables
        hold, which its next move changes). With `history=False` the copy keeps no trace
        and no record of the options taken before (a copy to search, not to save)."""
        other = State.__new__(State)
        other.game = self.game
        other.n = self.n
        other.players = self.players
        other.g = self.game.copy_vars(self.g)
        other.stack = [[f[PROC], f[PC], copy_deep(f[LOCALS])] for f in self.stack]
        other.rng = self.rng
        other.script = list(self.script)
        pending = self.pending
        other.pending = (
            None
            if pending is None
            else (pending[WHO], copy_deep(pending[OPTIONS]), pending[SITE], pending[SLOT])
        )
        other.winners = None if self.winners is None else list(self.winners)
        other.decisions = self.decisions
        other.rounds = self.rounds
        other.trace = None if self.trace is None or not history else list(self.trace)
        other.bound = self.bound
        other.budget = self.budget
        other.left = self.left
        other.room = self.room
        other.seed = self.seed
        other.dealt = self.dealt
        other.taken = copy_deep(self.taken) if history else []
        # never changed, only cloned (`_go_back`)
        other.origin = self.origin if history else None
        other.memo = NO_MEMO
        return other

    def _shown(self, player: int | None) -> list:
        """The face-down entries revealed to `player` (`reveal`); none to a spectator."""
        slot = self.game.known_slot
        if slot is None or player is None:
            return []
        return self.g[slot][player]

    def observation(self, player: int | None) -> dict:
        """What `player` may see (None: a spectator, who sees only public information).

        Scratch variables (the rules' bookkeeping) are left out. Variables visible to their
        owner show only the observer's own entries; hidden ones
        show only the sizes of lists; a zone `visible top` shows its last entry and its size;
        a zone `visible backs` shows where its entries lie, each face down unless it was
        revealed to the observer. The pending decision's options go only to its decider.
        """
        view: dict[str, Any] = {}
        seen = self._shown(player)
        for spec in self.game.shown_vars:
            value = self.g[spec.slot]
            per_seat = len(value) // len(spec.domains[0]) if spec.domains else 1
            if spec.by_player:  # only the seats in this game
                value = value[: self.n * per_seat]
            if spec.visibility == "public":
                view[spec.name] = copy_deep(value)
            elif spec.visibility == "owner":
                view[spec.name] = [
                    copy_deep(value[i]) if i // per_seat == player else _masked(value[i])
                    for i in range(len(value))
                ]
            elif spec.visibility == "top":
                view[spec.name] = [_topped(v) for v in value] if spec.domains else _topped(value)
            elif spec.visibility == "backs":
                view[spec.name] = (
                    [_backs(v, seen) for v in value] if spec.domains else _backs(value, seen)
                )
            else:
                view[spec.name] = [_masked(v) for v in value] if spec.domains else _masked(value)
        decision = None
        pending = self.pending
        if pending is not None:
            who = pending[WHO]
            decision = {
                "player": who,
                "prompt": self.game.sites[pending[SITE]].prompt,
                "options": copy_deep(pending[OPTIONS]) if who == player else None,
            }
        return {
            "ruleset": self.game.name,
            "players": self.n,
            "you": player,
            "vars": view,
            "decision": decision,
            "winners": self.winners,
            "rounds": self.rounds,
        }

    def call(self, name: str, *args) -> Any:
        """A derived value (`fn`) of the ruleset evaluated on this state, e.g.
        `state.call("skill", 0, "tools")` (players are seat indices from 0)."""
        try:
            function = self.game.functions[name]
        except KeyError:
            raise KnapperError(
                diag(
                    "K504",
                    f"{self.game.name} has no derived value named {name!r}",
                    Span(self.game.name, 0, 0, 0, 0),
                    hint=did_you_mean(name, list(self.game.functions)),
                )
            ) from None
        where = self.game.span_of(name)
        return _rules_code(
            self, f"the derived value {name!r}", where, lambda: function(self, *args)
        )

    def get(self, name: str, *keys) -> Any:
        """A variable's value, by name and keys (for tools, tests and front-ends)."""
        spec = self.game.var(name)
        value = self.g[spec.slot]
        if not spec.domains:
            return value
        return value[_flat(spec, keys)]

    def set(self, name: str, *keys_and_value) -> None:
        *keys, value = keys_and_value
        spec = self.game.var(name)
        self.seed = None  # the seed and the options taken no longer tell this state
        self.origin = None  # nor an origin taken before this change
        if not spec.domains:
            self.g[spec.slot] = value
        else:
            self.g[spec.slot][_flat(spec, keys)] = value

    def check_invariants(self) -> list[Diagnostic]:
        broken = []
        for invariant in self.game.invariants:
            try:
                problem = None if invariant.holds(self, []) else "does not hold"
            except Exception as err:  # noqa: BLE001 - a failing invariant is a finding
                problem = f"could not be evaluated ({_explain(err)})"
            if problem is not None:
                message = f"invariant {invariant.name!r} {problem}"
                broken.append(diag("K601", message, invariant.span, cite=invariant.cite))
        return broken + self._unsettled()

    def _unsettled(self) -> list[Diagnostic]:
        """Standing rules whose condition holds at a decision although they are not running
        for those values, nor held back by a `simultaneously` block: the engine's promise
        that they run at once, checked like an invariant."""
        # at a decision every frame's position is up to date, the waiting one's too
        if (
            not self.game.standing
            or self.pending is None
            or _waiting_inside(self.stack, self.game.deferred)
        ):
            return []
        broken = []
        for name, proc, test, domains, _room in self.game.standing:
            for values in _parameter_values(self, domains):
                if test(self, *values) and not _running(self, proc, values):
                    info = self.game.procs[proc]
                    shown = ", ".join(repr(v) for v in values)
                    message = f"standing rule {name!r} did not run although it holds for ({shown})"
                    broken.append(diag("K602", message, info.span, cite=info.cite))
        return broken

    def _here(self):
        if self.stack:
            frame = self.stack[-1]
            proc, pc = frame[PROC], frame[PC]
            spans = self.game.procs[proc].spans
            return spans[max(0, min(pc - 1, len(spans) - 1))]
        return self.game.procs[self.game.main].span


def _rules_code(state: State, what: str, span: Span, thunk: Any) -> Any:
    """Run the ruleset's own code outside the engine's loop (a `fn` a tool asks for, the
    score): its failures are the ruleset's errors at `span`, like those of `run`."""
    state.left = state.budget.steps
    state.room = state.budget.elements
    try:
        return thunk()
    except RulesetFault as fault:
        raise _error(
            RulesetRuntimeError, state.game, diag(fault.code, fault.message, span)
        ) from None
    except EXHAUSTED as err:
        spent = _exhausted(err)
        raise _error(
            RulesetRuntimeError, state.game, diag(spent.code, spent.message, span)
        ) from None
    except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError) as err:
        if not _raised_by_rules(err):
            raise
        message = f"{what} failed: {_explain(err)}"
        raise _error(RulesetRuntimeError, state.game, diag("K401", message, span)) from None


def _error(kind: type[KnapperError], game: Game, diagnostic: Diagnostic) -> KnapperError:
    """An error of the engine, quoting the ruleset's text it points at."""
    return kind(diagnostic, game.quoting(diagnostic))


def _flat(spec, keys) -> int:
    index = 0
    for domain, key in zip(spec.domains, keys):
        index = index * len(domain) + domain.index(key)
    return index


def _masked(value):
    """A hidden value: a list shows only how many items it holds."""
    if isinstance(value, list):
        return {"hidden": len(value)}
    return {"hidden": True}


def _backs(value: list, seen: list) -> list:
    """A zone of face-down entries: where each lies; its face only if the observer saw it."""
    return [x if x is None or x in seen else {"hidden": True} for x in value]


def _topped(value: list) -> dict:
    """A zone seen from above: its top (last) entry and how many it holds."""
    return {"top": copy_deep(value[-1]) if value else None, "size": len(value)}


def copy_deep(value):
    """A copy of a value that shares no list with it, however deep the lists go (lists are
    values: a list read from one place is copied before another place stores it)."""
    if type(value) is not list:
        return value
    return [copy_deep(item) if type(item) is list else item for item in value]


def start(
    game: Game,
    n: int,
    rng: int,
    script: list[int] | None = None,
    run_now: bool = True,
    budget: Budget | None = None,
) -> State:
    state = State(game, n, rng, budget)
    for spec in game.vars:
        try:
            state.g.append(spec.init(state))
        except EXHAUSTED as err:
            fault = _exhausted(err)
            raise _error(
                RulesetRuntimeError, game, diag(fault.code, fault.message, spec.span)
            ) from None
        except RulesetFault as fault:
            raise _error(
                RulesetRuntimeError, game, diag(fault.code, fault.message, spec.span)
            ) from None
        except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError) as err:
            if not _raised_by_rules(err):
                raise
            message = f"the initial value of {spec.name!r} failed: {_explain(err)}"
            raise _error(RulesetRuntimeError, game, diag("K401", message, spec.span)) from None
    state.stack = [[game.main, 0, [None] * game.procs[game.main].nlocals]]
    if script:
        state.script = list(script)
    if run_now:
        run(state)
    return state


def run(state: State) -> None:
    """Execute instructions until a decision is pending or the game is over: `State.apply`
    with no option, where the engine's loop is."""
    state.apply(_NO_OPTION)


def _stopped(state: State, fr: list, pc: int, err: Exception) -> KnapperError | None:
    """The `RulesetRuntimeError` of an error that instruction `pc` of frame `fr` raised, at
    the statement that failed (the frame is left there); None when the error is not the
    ruleset's (`_raised_by_rules`) but a bug of the engine."""
    if isinstance(err, (RulesetFault, *EXHAUSTED)):
        fr[1], span = _failed_at(state, fr[0], pc, err)
        fault = err if isinstance(err, RulesetFault) else _exhausted(err)
        return _error(RulesetRuntimeError, state.game, _fault_diag(state, fr[0], fault, span))
    if not _raised_by_rules(err):
        return None
    fr[1], span = _failed_at(state, fr[0], pc, err)
    why = failure(err, state, span)
    return _error(
        RulesetRuntimeError,
        state.game,
        diag("K401", why.message, span, hint=why.hint, notes=why.notes),
    )


# What running out of memory, of stack or of number range looks like in Python: in the
# ruleset's code these are its work going past what a machine can give, like the budget's
# own faults (K424), never a bare exception.
EXHAUSTED = (MemoryError, RecursionError, OverflowError)
# What `State.apply` turns into a `RulesetRuntimeError` (`_stopped`): the ruleset's faults,
# its work going past the machine, and the Python errors its own code may raise.
_STOPPING = (
    RulesetFault,
    *EXHAUSTED,
    IndexError,
    KeyError,
    TypeError,
    ValueError,
    ZeroDivisionError,
    AttributeError,
)
_BUDGET_CODES = ("K421", "K422", "K423", "K424")


def _exhausted(err: BaseException) -> RulesetFault:
    what = {
        MemoryError: "ran out of memory",
        RecursionError: "went too deep (calls inside calls)",
        OverflowError: "made a number too large to use",
    }[next(k for k in (MemoryError, RecursionError, OverflowError) if isinstance(err, k))]
    return RulesetFault("K424", f"the rules {what}")


def _fault_diag(state: State, proc: int, fault: RulesetFault, span: Span) -> Diagnostic:
    """The diagnostic of a fault in procedure `proc`; a budget's fault names the rule that
    was running, and cites it."""
    if fault.code not in _BUDGET_CODES:
        return diag(fault.code, fault.message, span)
    info = state.game.procs[proc]
    rule = "the setup and rounds" if info.kind == "main" else f"{info.kind} {info.name!r}"
    return diag(
        fault.code,
        f"in {rule}: {fault.message}",
        span,
        cite=info.cite,
        hint=_BUDGET_HINT,
    )


_BUDGET_HINT = (
    "the rules did more work than a game needs: look for a loop, a `range` or a product that "
    "grows without a bound; a front-end may allow more (`--max-steps`, `--max-items`, "
    "`new_game(..., budget=Budget(...))`)"
)


def _raised_by_rules(err: BaseException) -> bool:
    """Did the ruleset's own code raise `err`? True when the innermost frame of its traceback
    is generated code, or a runtime helper (dice, shuffles, list moves, the built-ins' helpers)
    that generated code called. Anything else is a bug of the engine, not of the ruleset."""
    # imported here: these modules import this one
    from interpreter.core import budget, chance, rng, runtime

    helpers = {module.__file__ for module in (budget, chance, rng, runtime)}
    files = []
    tb = err.__traceback__
    while tb is not None:
        files.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    for file in reversed(files):
        if file not in helpers:
            return file == _RULES
    return False


def _failed_at(state: State, proc: int, pc: int, err: Exception) -> tuple[int, Span]:
    """Where the game stopped when instruction `pc` raised: the instruction whose line
    raised (the one copied into `pc`, when the line is in its copy: dsl/codegen/emit.py,
    "Tails") and the statement of that line, found from the generated function's line in the
    traceback."""
    info = state.game.procs[proc]
    name = f"_i{proc}_{pc}"
    tb = err.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_name == name:
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is not None and pc < len(info.line_spans) and 2 <= line <= len(info.line_spans[pc]) + 1:
        at = pc
        for start, block in info.tails[pc] if pc < len(info.tails) else ():
            if line - 2 >= start:
                at = block
        return at, info.line_spans[pc][line - 2]
    return pc, info.spans[pc]


def _explain(err: Exception) -> str:
    """Why a rule failed, in the language's words (no Python `None` or exception names)."""
    return explain(err)
