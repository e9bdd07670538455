"""Stage 4b: a lowered procedure -> blocks, with every jump resolved to a block.

In: a `ProcIR` (`dsl.codegen.ir`). Out: a `Linked` procedure: the instructions grouped into blocks,
and for each label and each block's "next" the block that control reaches. A block becomes
one generated Python function, and its index is a position the engine stores in a frame (so
in a save file).

- **Fusion.** A straight run of instructions that fall through (`Step`s), and the one
  instruction after them that decides where to go, form one block: fewer calls per step.
  A label's instruction always begins a block, so every target is a block.
- **Threading.** A block that only jumps is skipped by whoever would go through it.
- **The resume rule.** An instruction that may return CALL or SUSPEND ends its block, and
  the instruction after it begins the next one: the engine resumes such a frame at the
  block after (`pc + 1`). Checked here for every block; a breach is a compiler bug.

`fuse=False` gives every instruction a block of its own and threads no jumps: the plain
reading of the IR, against which the fused code is tested.
"""

from __future__ import annotations

import attrs

from dsl.codegen.ir import Jump, Label, Next, ProcIR, Target


class LinkError(Exception):
    """The compiler broke a rule of the IR (never the ruleset's fault)."""


@attrs.frozen
class Linked:
    proc: ProcIR
    blocks: tuple[tuple[int, ...], ...]  # the instruction indices of each block, in order
    at: dict[Label, int]  # label -> the block that control reaches through it
    next: tuple[int, ...]  # per block: the block that control reaches by going on
    fused: bool = True  # blocks fused and jumps threaded (else one block per instruction)

    def target(self, pc: int, target: Target) -> int:
        """The block that `target`, in block `pc`, leads to."""
        if isinstance(target, Next):
            return self.next[pc]
        return self.at[target]

    def block_of(self, label: Label) -> int:
        """The block that begins where `label` is placed (before any threading)."""
        i = self.proc.labels[label]
        return next(pc for pc, block in enumerate(self.blocks) if block[0] == i)

    def deferred(self) -> tuple[tuple[int, int], ...]:
        """Each `simultaneously` block as the blocks a frame waiting inside it may resume at:
        after the block it starts in, up to the one just after it."""
        return tuple((self.block_of(a), self.block_of(b)) for a, b in self.proc.deferred)


def link(proc: ProcIR, fuse: bool = True) -> Linked:
    code = proc.code
    starts = set(proc.labels.values())
    blocks: list[list[int]] = []
    for i in range(len(code)):
        if fuse and blocks and i not in starts and code[blocks[-1][-1]].falls_through:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    first = {block[0]: pc for pc, block in enumerate(blocks)}
    _check(proc, blocks)

    # a block that only jumps is skipped by whoever would go through it
    jumps: dict[int, int] = {}
    for pc, block in enumerate(blocks):
        only = code[block[0]]
        if fuse and len(block) == 1 and isinstance(only, Jump):
            jumps[pc] = first[proc.labels[only.target]]
    for pc in list(jumps):
        seen = {pc}
        while jumps[pc] in jumps and jumps[pc] not in seen:
            seen.add(jumps[pc])
            jumps[pc] = jumps[jumps[pc]]
    at = {}
    for label, i in proc.labels.items():
        pc = first[i]
        at[label] = jumps.get(pc, pc)
    nxt = tuple(jumps.get(pc + 1, pc + 1) for pc in range(len(blocks)))
    return Linked(proc, tuple(tuple(block) for block in blocks), at, nxt, fuse)


def _check(proc: ProcIR, blocks: list[list[int]]) -> None:
    """Every label placed at an instruction, every jump to a placed label, only the last
    instruction of a block leaving it, and the resume rule."""
    code = proc.code
    where = f"procedure {proc.name!r}"
    for label, i in proc.labels.items():
        if not 0 <= i < len(code):
            raise LinkError(f"{where}: label {label.id} is placed past the last instruction")
    for i, instr in enumerate(code):
        for label in instr.targets():
            if label not in proc.labels:
                raise LinkError(f"{where}: instruction {i} jumps to label {label.id}, never placed")
    for pc, block in enumerate(blocks):
        for i in block[:-1]:
            if not code[i].falls_through or code[i].suspends:
                kind = type(code[i]).__name__
                raise LinkError(f"{where}: {kind} {i} leaves block {pc} before its end")
        last = block[-1]
        if code[last].falls_through and last + 1 >= len(code):
            raise LinkError(f"{where}: the last instruction falls through to nothing")
        if code[last].suspends and (pc + 1 >= len(blocks) or blocks[pc + 1][0] != last + 1):
            kind = type(code[last]).__name__
            raise LinkError(
                f"{where}: {kind} {last} may return CALL or SUSPEND, but the engine would "
                f"resume after it at block {pc + 1}, which does not begin at instruction "
                f"{last + 1}"
            )
