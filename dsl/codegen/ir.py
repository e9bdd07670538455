"""The instruction IR: between the checked program and the generated Python.

In: made by `dsl.codegen.lower` from a checked procedure. Out: grouped into blocks by
`dsl.codegen.link`, turned into one Python function per block by `dsl.codegen.emit`.

A procedure is a flat tuple of instructions. An instruction holds Python source only for
what never leaves it (expressions, straight-line statements, `if`s and loops with no
decision inside); where control goes next is data: a `Label` placed at an instruction
index, or `NEXT`, the instruction that follows. The kinds:

- `Step`: straight-line code, then on to the next instruction (it *falls through*);
- `Jump`, `Branch`, `LoopTest`: go to a label, or on;
- `Choose`, `Call`, `CallEffect`, `Standing`: may stop the engine (return `SUSPEND` or
  `CALL`); the engine resumes the frame at the next position, so such an instruction must
  end its block (the link stage checks it);
- `Leave`: the procedure or the game ends here (its code returns `RET` or `END`, or faults).
"""

from __future__ import annotations

from typing import ClassVar, Union

import attrs

from dsl.errors import Span

Line = tuple[str, Span]  # one line of Python and the statement it comes from


@attrs.frozen
class Label:
    """A position in a procedure, placed at an instruction index once it is known."""

    id: int


@attrs.frozen
class Next:
    """The instruction after this one (after linking: the next block)."""


NEXT = Next()
Target = Union[Label, Next]


@attrs.frozen(kw_only=True)
class Instr:
    span: Span  # the statement that decides where control goes next

    falls_through: ClassVar[bool] = False  # runs to its end, then on to the next instruction
    suspends: ClassVar[bool] = False  # may return CALL or SUSPEND: the engine resumes at pc+1

    def targets(self) -> tuple[Label, ...]:
        return ()


@attrs.frozen(kw_only=True)
class Step(Instr):
    """Straight-line Python: statements that never stop for a decision or jump away."""

    lines: tuple[Line, ...]

    falls_through: ClassVar[bool] = True


@attrs.frozen(kw_only=True)
class Jump(Instr):
    target: Label

    def targets(self) -> tuple[Label, ...]:
        return (self.target,)


@attrs.frozen(kw_only=True)
class Branch(Instr):
    """One branch of an `if`: on to the next instruction when `cond` holds, else `orelse`."""

    cond: str
    orelse: Label

    def targets(self) -> tuple[Label, ...]:
        return (self.orelse,)


@attrs.frozen(kw_only=True)
class LoopTest(Instr):
    """A loop's test: `before`; to `exit` when `done` holds; `after`; then to `again`.

    Emitted once on entry (`again` is NEXT, the body) and once after the body (`again` is
    the body's label), where it joins the body's last straight run: one call fewer per pass
    than a jump back to a shared test."""

    before: tuple[str, ...]
    done: str
    after: tuple[str, ...]
    exit: Label
    again: Target

    def targets(self) -> tuple[Label, ...]:
        again = (self.again,) if isinstance(self.again, Label) else ()
        return (self.exit, *again)


@attrs.frozen(kw_only=True)
class Choose(Instr):
    """A decision: the options, and the player who decides, are Python expressions.

    No option is a fault (`_no_options`); one option is taken without asking unless `ask`;
    otherwise the decision is left pending and the engine suspends. The answer is written
    into the local `slot` when the frame resumes."""

    options: str
    as_list: bool  # `options` always builds a new list (else it is copied into one)
    only: str  # the only option `o[0]` as the slot stores it: copied if options may be lists
    player: str
    site: int
    slot: int
    ask: bool
    offers: bool = False  # the ruleset has standing options: the decider's follow these
    quiet: bool = False  # a `quiet` point: asked only of a player with standing options
    placed: tuple[int, ...] = ()  # the slots of the locals the prompt names, for traces
    several: bool = False  # the options are a list written out with more than one item
    # the player is a loop's name over `players` that nothing else sets: always a player of
    # the game, so not checked
    seated: bool = False

    suspends: ClassVar[bool] = True


@attrs.frozen(kw_only=True)
class Call(Instr):
    """Push a frame for procedure `proc` (its parameters first, then its other locals, whose
    number is known once every procedure is lowered) and return CALL."""

    proc: int
    args: tuple[str, ...]

    suspends: ClassVar[bool] = True


@attrs.frozen(kw_only=True)
class CallEffect(Instr):
    """Push a frame for the effect whose value `effect` is (its tag names the effect): the
    performer, the card, then the value's arguments (copies), then the effect's other locals;
    return CALL. Which procedure runs is known only when the value is, so the frame comes
    from the table `_EFFECTS` (tag -> procedure, room for other locals) built by
    `dsl.codegen.compile`."""

    effect: str
    player: str
    card: str
    moment: str | None = None  # the moment being triggered, if any
    context: str = "[]"  # the values of its parameters, passed to an effect `at` it

    suspends: ClassVar[bool] = True


@attrs.frozen(kw_only=True)
class Standing(Instr):
    """After a statement that wrote what some standing rules read: push the frame of the first
    of `rules` (indices into `_STANDING`) whose condition holds for some values and that is
    not already running for them, note it in the local `slot` and return CALL; or, none
    holding, go on to `done`. The instruction after it jumps back here, so once a rule's body
    returns, `_settled` makes sure it left its condition false and the rules are tested
    again."""

    rules: tuple[int, ...]
    slot: int
    done: Label

    suspends: ClassVar[bool] = True

    def targets(self) -> tuple[Label, ...]:
        return (self.done,)


@attrs.frozen(kw_only=True)
class Leave(Instr):
    """Code whose last line ends the procedure or the game (returns RET or END, or faults)."""

    lines: tuple[str, ...]


@attrs.frozen
class ProcIR:
    """One procedure lowered: its instructions, where each label is placed, its locals."""

    name: str
    kind: str  # proc | phase | step | effect | whenever | main
    cite: str | None
    span: Span
    code: tuple[Instr, ...]
    labels: dict[Label, int]  # label -> index of the instruction it is placed before
    local_names: tuple[str, ...]  # parameters first; hidden loop state starts with `$`
    # the `simultaneously` blocks, each as the labels placed at its start and just after it
    deferred: tuple[tuple[Label, Label], ...] = ()

    @property
    def nlocals(self) -> int:
        return len(self.local_names)
