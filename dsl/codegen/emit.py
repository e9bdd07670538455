"""Stage 4c: linked blocks -> Python functions, each with its source kept.

In: a `Linked` procedure (`dsl.codegen.link`), the number of locals of every procedure (a call
makes room for the callee's), and the namespace generated code runs in. Out: per block, a
function `(state, locals) -> next position` named `_i{procedure}_{block}`, its source, the
span of the statement that decides where it goes, and the span of each of its lines (the
engine finds the failing statement from the traceback's line: `interpreter.core.state`).

**Tails.** A block whose last line would send the engine to a short block (`TAIL_LINES`)
runs a copy of that block's code in its place: one call and one turn of the engine's loop
fewer, on the hot paths of every playout (a decision, a loop's next turn). When the copy's
own last line goes to another short block, that one is copied after it, and so on, while
the copies come to `TAIL_LINES` lines in all and none is copied twice (a loop's next turn
that sets up a player's turn and asks the player: one call where there were three). A
copied decision suspends with the position its original resumes at (`SUSPENDED - (t + 1)`),
so positions, saves and the lines' statements are the same as without it; a block that ends
in a call is never copied (the engine resumes the caller after the block that called). Not
with `fuse=False`.

**Exits.** Where a loop's test leaves the loop in the middle of a block (`if done: return
t`), and block `t` is short and does not end in a call, its code runs there instead, up
to `EXIT_LINES` lines of such copies per block; when `t` goes back to itself it runs in a
`while True:` of its own inside the branch. A player's turn that ends leaves its loop for
the next player's turn: one call and one turn of the engine's loop fewer where that happens
at most decisions. The lines after the copy are the block's own again, which the engine knows from
`ProcInfo.tails` (a copy of the block itself, from that line on). Not with `fuse=False`.

**Loops in a block.** A block that goes back to itself (a loop's next turn whose body is a
test that most turns fail, before a call: "for each player, if ..., perform ...") runs its
turns in a Python `while True:` of its own, each jump back to it a `continue`, instead of
one call of it from the engine's loop per turn. The positions, saves and statements are
the same: only where the engine would call the same block again, the block goes on itself.
Not with `fuse=False`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import attrs

from dsl.codegen.fastlocals import fast_locals
from dsl.codegen.ir import (
    Branch,
    Call,
    CallEffect,
    Choose,
    Instr,
    Jump,
    Leave,
    LoopTest,
    Standing,
    Step,
)
from dsl.codegen.link import Linked
from dsl.errors import Span
from interpreter.core.state import CALL, SUSPENDED

# How many frames deep a performed effect may start: effects performed inside effects are
# the one call chain the checker cannot bound (dsl/semantics/check/flow.py).
EFFECT_DEPTH = 100
_DEEP = f"effects performed inside effects went more than {EFFECT_DEPTH} calls deep"
# the most lines of a block copied into a block that goes to it ("Tails" above)
TAIL_LINES = 16
# the most lines of the blocks a block's loops leave to, copied into it ("Exits" above)
EXIT_LINES = 24


@attrs.frozen
class Emitted:
    functions: tuple[Callable, ...]
    sources: tuple[str, ...]  # one per block: the whole `def`
    spans: tuple[Span, ...]  # per block: its last instruction's statement
    line_spans: tuple[tuple[Span, ...], ...]  # per block: the statement of each body line
    # per block: the copies in it, in the order of their lines, as (the body line where the
    # copy begins, the block whose code runs from there: another block's, or its own again
    # after an exit's copy)
    tails: tuple[tuple[tuple[int, int], ...], ...] = ()


def emit(linked: Linked, index: int, nlocals: list[int], env: dict[str, Any]) -> Emitted:
    code = linked.proc.code
    # each block's lines in its own function, where a jump back to it is a `continue`
    own = [
        _block_lines(linked, pc, nlocals, pc if linked.fused else None)
        for pc in range(len(linked.blocks))
    ]
    bodies = [_chained(linked, pc, nlocals, own) for pc in range(len(linked.blocks))]
    functions, sources, spans, line_spans = [], [], [], []
    tails: list[tuple[tuple[int, int], ...]] = []
    for pc, block in enumerate(linked.blocks):
        lines, lines_at, copies = _exits_copied(linked, pc, bodies)
        name = f"_i{index}_{pc}"
        source = f"def {name}(st, L):\n" + "\n".join(lines)
        # the `while True:` of a block going back to itself counts as no loop (fastlocals.py)
        fast = fast_locals(source) if linked.fused else None
        if fast is not None:  # one line more, first: it loads the locals for the body
            source, lines_at = fast, [lines_at[0], *lines_at]
            copies = [(line + 1, block) for line, block in copies]
        tails.append(tuple(copies))
        python(source, env, "exec")
        functions.append(env.pop(name))
        sources.append(source)
        spans.append(code[block[-1]].span)
        line_spans.append(tuple(lines_at))
    return Emitted(tuple(functions), tuple(sources), tuple(spans), tuple(line_spans), tuple(tails))


@attrs.frozen
class _Body:
    """A block's function body before the exits' copies ("Exits" above): its lines, their
    statements' spans, the copies of other blocks in it as (the line a copy begins at, its
    block), and its loops' exits as (the line that leaves, the block it goes to)."""

    lines: list[str]
    lines_at: list[Span]
    copies: list[tuple[int, int]]
    exits: list[tuple[int, int]]


def _chained(linked: Linked, pc: int, nlocals: list[int], own: list) -> _Body:
    """Block `pc`'s lines with its tails' code after them ("Tails" above), in a `while
    True:` when the block goes back to itself ("Loops in a block")."""
    host = pc if linked.fused else None
    lines, lines_at, exits = own[pc][0], own[pc][1], list(own[pc][2])
    copies: list[tuple[int, int]] = []
    chain: list[int] = []  # the blocks copied, in order
    tail, room = _tail(linked, pc, own), TAIL_LINES
    while tail is not None and tail != pc and tail not in chain:
        again, again_at, again_exits = _block_lines(linked, tail, nlocals, host)
        if len(again) > room:
            break
        # the last line goes to block `tail`: its code runs here instead
        copies.append((len(lines) - 1, tail))
        chain.append(tail)
        exits += [(line + len(lines) - 1, to) for line, to in again_exits]
        lines, lines_at = lines[:-1] + again, lines_at[:-1] + again_at
        room -= len(again)
        tail = _tail(linked, tail, own)
    if host is not None and pc in _exits(linked, pc, chain):
        lines = ["    while True:"] + ["    " + line for line in lines]
        lines_at = [lines_at[0], *lines_at]
        copies = [(line + 1, block) for line, block in copies]
        exits = [(line + 1, to) for line, to in exits]
    return _Body(lines, lines_at, copies, exits)


def _block_lines(
    linked: Linked, pc: int, nlocals: list[int], host: int | None = None
) -> tuple[list[str], list[Span], list[tuple[int, int]]]:
    """The body of block `pc`'s function, each line with its statement's span; run in the
    function of block `host` (itself, or a block it is the tail of), where going to `host`
    is going round its loop ("Loops in a block" above). Last, the loops' exits among those
    lines: (the line that leaves when the loop is done, the block it goes to)."""
    code = linked.proc.code
    lines: list[str] = []
    lines_at: list[Span] = []
    exits: list[tuple[int, int]] = []
    for i in linked.blocks[pc]:
        instr = code[i]
        rendered = render(instr, linked, pc, nlocals, host)
        if isinstance(instr, LoopTest) and linked.at[instr.exit] != host:
            exits.append((len(lines) + len(instr.before), linked.at[instr.exit]))
        for text, span in rendered:
            lines.append("    " + text)
            lines_at.append(span)
    last = code[linked.blocks[pc][-1]]
    if last.falls_through:
        lines.append(f"    {_go(linked.next[pc], host)}")
        lines_at.append(last.span)
    return lines, lines_at, exits


def _exits_copied(
    linked: Linked, pc: int, bodies: list[_Body]
) -> tuple[list[str], list[Span], list[tuple[int, int]]]:
    """Block `pc`'s body (lines, their spans, its copies) with the code of each short block
    its loops leave to in place of the `return` that goes there ("Exits" above)."""
    body = bodies[pc]
    lines, lines_at, copies = body.lines, body.lines_at, body.copies
    if not linked.fused:
        return lines, lines_at, copies
    room = EXIT_LINES
    done: set[int] = set()
    for line, target in sorted(body.exits, reverse=True):  # from the last: the rest stay put
        again = bodies[target]
        if target in done or _ends_in_call(linked, target) or len(again.lines) > room:
            continue
        head = lines[line]
        go = f" return {target}"
        assert head.endswith(":" + go), head
        indent = " " * (len(head) - len(head.lstrip()))
        # the lines after the copy are again those of the block whose code held the exit
        owner = pc
        for start, block in copies:
            if start <= line:
                owner = block
        added = len(again.lines)
        lines = [
            *lines[:line],
            head[: -len(go)],
            *(indent + text for text in again.lines),
            *lines[line + 1 :],
        ]
        lines_at = [*lines_at[: line + 1], *again.lines_at, *lines_at[line + 1 :]]
        # in the order of their lines; of two that begin at one line, the later one holds it
        copies = [
            *((start, block) for start, block in copies if start <= line),
            (line + 1, target),
            *((start + line + 1, block) for start, block in again.copies),
            (line + 1 + added, owner),
            *((start + added, block) for start, block in copies if start > line),
        ]
        room -= added
        done.add(target)
    return lines, lines_at, copies


def _go(target: int, host: int | None) -> str:
    """The line that goes to block `target` from the function of block `host`."""
    return "continue" if target == host else f"return {target}"


def _exits(linked: Linked, pc: int, tails: list[int]) -> set[int]:
    """The blocks the function of block `pc` may go to (with its tails' code in it)."""
    out: set[int] = set()
    for block in (pc, *tails):
        for i in linked.blocks[block]:
            instr = linked.proc.code[i]
            if isinstance(instr, Jump):
                out.add(linked.target(block, instr.target))
            elif isinstance(instr, Branch):
                out |= {linked.next[block], linked.at[instr.orelse]}
            elif isinstance(instr, LoopTest):
                out |= {linked.at[instr.exit], linked.target(block, instr.again)}
        if linked.proc.code[linked.blocks[block][-1]].falls_through:
            out.add(linked.next[block])
    return out


def _tail(linked: Linked, pc: int, own: list) -> int | None:
    """The block whose code block `pc` runs at its end (see "Tails" above), if any: the one
    its last line returns, when that one is short and does not end in a call (the engine
    resumes a caller after the block that called)."""
    if not linked.fused:
        return None
    code = linked.proc.code
    last = code[linked.blocks[pc][-1]]
    if last.falls_through:
        target = linked.next[pc]
    elif isinstance(last, Jump):
        target = linked.target(pc, last.target)
    elif isinstance(last, LoopTest):
        target = linked.target(pc, last.again)
    else:
        return None
    if target == pc or _ends_in_call(linked, target) or len(own[target][0]) > TAIL_LINES:
        return None
    return target


def _ends_in_call(linked: Linked, pc: int) -> bool:
    """Whether block `pc` ends in a call: never copied, since the engine resumes a caller
    after the block that called."""
    return isinstance(linked.proc.code[linked.blocks[pc][-1]], (Call, CallEffect, Standing))


def render(
    instr: Instr, linked: Linked, pc: int, nlocals: list[int], host: int | None = None
) -> list[tuple[str, Span]]:
    """The Python lines of one instruction in block `pc`, each with its statement's span,
    in the function of block `host` (`_block_lines`)."""
    if isinstance(instr, Step):
        return list(instr.lines)
    lines: list[str]
    if isinstance(instr, Jump):
        lines = [_go(linked.target(pc, instr.target), host)]
    elif isinstance(instr, Branch):
        then, orelse = linked.next[pc], linked.at[instr.orelse]
        if orelse == host != then:  # the last line: not going on is the loop's next turn
            lines = [f"if {instr.cond}: return {then}"]
        elif then == host != orelse:
            lines = [f"if not ({instr.cond}): return {orelse}"]
        else:
            lines = [f"return {then} if {instr.cond} else {orelse}"]
    elif isinstance(instr, LoopTest):
        lines = [
            *instr.before,
            f"if {instr.done}: {_go(linked.at[instr.exit], host)}",
            *instr.after,
            _go(linked.target(pc, instr.again), host),
        ]
    elif isinstance(instr, Choose):
        lines = _choose(instr, linked.next[pc], pc + 1)
    elif isinstance(instr, Call):
        room = nlocals[instr.proc] - len(instr.args)
        args = ", ".join(instr.args)
        lines = [
            f"st.stack.append([{instr.proc}, 0, [{args}] + [None] * {room}])",
            f"return {CALL}",
        ]
    elif isinstance(instr, CallEffect):
        lines = [
            f"e = {instr.effect}",
            "p, room, at = _EFFECTS[e[0]]",
            f"if at is not None and at != {instr.moment!r}: "
            "_fault('K418', 'effect ' + e[0] + ' happens only at moment ' + at)",
            f"if len(st.stack) > {EFFECT_DEPTH}: _fault('K416', {_DEEP!r})",
            f"st.stack.append([p, 0, [{instr.player}, {instr.card}] + "
            f"({instr.context} if at is not None else []) + _copy_deep(e[1:]) + [None] * room])",
            f"return {CALL}",
        ]
    elif isinstance(instr, Standing):
        fired = f"L[{instr.slot}]"
        lines = [
            f"if {fired} is not None: _settled(st, _STANDING, {fired})",
            f"{fired} = _standing(st, _STANDING, _DEFER, {instr.rules!r})",
            f"if {fired} is not None: return {CALL}",
            f"return {linked.at[instr.done]}",
        ]
    elif isinstance(instr, Leave):
        lines = list(instr.lines)
    else:
        raise TypeError(f"dsl.codegen.emit has no rule for {type(instr).__name__}")
    return [(line, instr.span) for line in lines]


def _choose(c: Choose, after: int, resume: int) -> list[str]:
    """`o` the options, `who` the decider; with one option (and no `ask`) it is taken at
    once, else the decision is left pending and the engine suspends, to resume at block
    `resume`. With `offers`, the
    decider's standing options follow the decision's own; a `quiet` point asks only a
    player who has some."""
    who = [f"who = {c.player}"]
    if not c.seated:
        who.append("if who.__class__ is not int or not 0 <= who < st.n: _not_a_player(who)")
    suspend = [f"st.pending = (who, o, {c.site}, {c.slot})", f"return {SUSPENDED - resume}"]
    if c.quiet:
        return who + [
            "x = _offers(st, _OPTIONS, who)",
            f"if not x: return {after}",
            f"o = {c.options} + x",
            *suspend,
        ]
    # the pending options are the decision's own list, never a list the state holds
    options = c.options if c.as_list else f"list({c.options})"
    lines = [f"o = {options}"]
    if c.ask:
        lines.append(f"if not o: _no_options(st, {c.site})")
    elif c.several:
        pass  # never fewer than two options: asked
    else:
        lines += [
            "if len(o) < 2:",
            f"    if not o: _no_options(st, {c.site})",
            f"    L[{c.slot}] = {c.only}",
            f"    if st.trace is not None: st.trace.append(('forced', {c.player}, {c.site}, o[0], "
            f"({''.join(f'L[{i}], ' for i in c.placed)})))",
            f"    return {after}",
        ]
    if c.seated and c.several and not c.ask and not c.offers:
        # nothing between the options and the decider: the pending tuple takes both at once
        return [
            f"st.pending = ({c.player}, {options}, {c.site}, {c.slot})",
            suspend[1],
        ]
    offers = ["o += _offers(st, _OPTIONS, who)"] if c.offers else []
    return lines + who + offers + suspend


def python(source: str, namespace: dict, mode: str):
    """Compile generated code. Python's own warnings about it (`None[0]` is "not
    subscriptable") are not the author's concern: the checker and the run-time errors
    speak for such code."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        code = compile(source, "<rules>", mode)
    if mode == "eval":
        return eval(code, namespace)  # noqa: S307 - generated by dsl.codegen.compile
    exec(code, namespace)  # noqa: S102 - generated by dsl.codegen.compile
    return None
