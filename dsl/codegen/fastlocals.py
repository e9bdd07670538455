"""Part of stage 4c: a generated function with what it reads again and again in Python locals.

In: the source of one generated function: a block's `(st, L)` (`dsl.codegen.emit`) or a
`fn`'s `(st, v_...)` (`dsl.codegen.compile`). Out: the source of the same function with one
line more, put first in its body, that loads into Python locals (one load instead of three
steps at each use):

- each slot of `L` that a loop of the body names (`L[3]` becomes `_l3`); for a slot the body
  assigns, the local is written back to `L` just before every `return` (on the same line);
- each state variable the body reads in a loop or a comprehension and never assigns as a
  whole (`st.g[4]` becomes `_g4`; read twice outside any loop it is left alone: in a body
  of many branches the loads cost more than they save, bench/instructions.py). A
  variable's entry in `st.g` is replaced only by an assignment to the whole variable,
  which the body would show (`st.g[4] = ...`): the engine's helpers and the `fn`s a body
  calls change a variable's list in place or not at all, so the local holds the variable
  for as long as the function runs.

What counts as a loop (`_repeats`): Python's loops and comprehensions, and a list of three
entries or more (a comprehension written out item by item, dsl/codegen/exprs.py). The
`while True:` of a block that goes back to itself counts only when its body ends in a test
that leaves (a search, which goes round each time the test fails); the body of any other
runs once on most entries.

The places to change come from Python's own parse of the source, never from a search of its
text. The slots of `L` are left as they are when the body names `L` otherwise than
`L[number]`, or calls a helper that reads the frames' locals while it runs
(`_HELPERS_READING_FRAMES`). A fault leaves the written-back slots as they were when the
block began; the engine then puts the game back (`State._go_back`), and a failure's
explanation reads the Python locals (`interpreter.core.failure`).
"""

from __future__ import annotations

import ast
import re
from collections import Counter

import attrs

# helpers of interpreter/core/runtime.py that read the locals of the frames on the stack
_HELPERS_READING_FRAMES = frozenset({"_standing", "_offers", "_settled"})
PREFIX = "_l"  # `_l3` holds `L[3]`
STATE_PREFIX = "_g"  # `_g4` holds `st.g[4]`
# where a slot's uses repeat; elsewhere a load on entry (and a store before each `return`)
# costs as much as the few uses it saves (bench/playouts.py: two small games got slower)
_LOOPS = (ast.For, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# a list written out with this many entries or more counts as a loop: it is most often a
# comprehension written out item by item (dsl/codegen/exprs.py, `written_out`), each entry one
# turn, and every entry is made
_WRITTEN_OUT = 3
# every loop and comprehension has one of these words; a source without them (most blocks
# and `fn`s) has nothing to hold, and is not parsed (a word in a string only costs the parse)
_LOOP_WORD = re.compile(r"\b(?:for|while)\b")


_STATE_READ = re.compile(r"st\.g\[\d+\]")


def may_loop(source: str) -> bool:
    """Whether `source` may hold a loop or a comprehension (has one of their words), or a
    written-out one: the same state variable named at least `_WRITTEN_OUT` times."""
    if _LOOP_WORD.search(source) is not None:
        return True
    return any(n >= _WRITTEN_OUT for n in Counter(_STATE_READ.findall(source)).values())


def _repeats(node: ast.AST) -> bool:
    """Whether what `node` holds may run again and again: a loop or a comprehension, or a
    list of at least `_WRITTEN_OUT` entries. The `while True:` of a block that goes back to
    itself (`dsl.codegen.emit`, "Loops in a block"), around its whole body or around an
    exit's copy ("Exits"), only when it is a search, ending in a test that leaves: any other
    runs its body once on most entries (a loop test, a decision), so what it names counts
    as named once."""
    if isinstance(node, ast.While):
        if not (isinstance(node.test, ast.Constant) and node.test.value is True):
            return True
        # a search: each turn that fails the last test goes round again ("for each space,
        # if the player has a band there, ..." passes over most spaces)
        last = node.body[-1]
        return (
            isinstance(last, ast.If) and not last.orelse and isinstance(last.body[-1], ast.Return)
        )
    return isinstance(node, _LOOPS) or (
        isinstance(node, ast.List) and len(node.elts) >= _WRITTEN_OUT
    )


# (line, start column, end column, replacement): one change to the source's text
Edit = tuple[int, int, int | None, str]


@attrs.define
class _Uses:
    """What one walk over a function finds: each `L[n]` and each `st.g[n]`, with whether a
    loop holds it, and whether `L` or `st.g` is named otherwise."""

    cells: list[tuple[ast.Subscript, int, bool]] = attrs.Factory(list)
    reads: list[tuple[ast.Subscript, int, bool]] = attrs.Factory(list)
    assigned: set[int] = attrs.Factory(set)
    returns: list[ast.Return] = attrs.Factory(list)
    whole_frame: bool = False  # `L` otherwise than `L[number]`, or a helper reading frames
    whole_state: bool = False  # `st.g` otherwise than `st.g[number]`


def fast_locals(source: str, at: int = 1) -> str | None:
    """The source of the function `source` defines with what it reads repeatedly in locals,
    one line longer (the loads, before line `at` of the source, by default the first line
    after the `def`; a remembered `fn` loads them after its look-up in the memo); None when
    nothing is worth it."""
    if not may_loop(source):
        return None
    func = ast.parse(source).body[0]
    assert isinstance(func, ast.FunctionDef)
    uses = _walk(func)
    loads: list[str] = []
    edits: list[Edit] = []
    for part in (_frame_slots(uses), _state_reads(uses)):
        loads += part[0]
        edits += part[1]
    if not loads:
        return None
    lines = [line.encode() for line in source.split("\n")]  # offsets count UTF-8 bytes
    for line, start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        assert end is not None
        row = lines[line - 1]
        lines[line - 1] = row[:start] + text.encode() + row[end:]
    body = [row.decode() for row in lines]
    return "\n".join([*body[:at], "    " + "; ".join(loads), *body[at:]])


def _walk(func: ast.FunctionDef) -> _Uses:
    uses = _Uses()
    indexed: set[int] = set()  # the `L` and `st.g` that a subscript just visited indexes
    todo: list[tuple[ast.AST, bool]] = [(func, False)]
    while todo:
        node, looped = todo.pop()
        if isinstance(node, ast.Subscript):
            index = node.slice
            number = index.value if isinstance(index, ast.Constant) else None
            if type(number) is not int:
                number = None
            if isinstance(node.value, ast.Name) and node.value.id == "L" and number is not None:
                indexed.add(id(node.value))
                uses.cells.append((node, number, looped))
            elif _is_state(node.value):
                indexed.add(id(node.value))
                if number is None:
                    uses.whole_state = True  # a variable picked at run time
                elif isinstance(node.ctx, ast.Load):
                    uses.reads.append((node, number, looped))
                else:
                    uses.assigned.add(number)
        elif isinstance(node, ast.Name):
            if node.id in _HELPERS_READING_FRAMES or (node.id == "L" and id(node) not in indexed):
                uses.whole_frame = True
        elif isinstance(node, ast.Attribute):
            if _is_state(node) and id(node) not in indexed:
                uses.whole_state = True
        elif isinstance(node, ast.Return):
            uses.returns.append(node)
        inner = looped or _repeats(node)
        todo.extend((child, inner) for child in ast.iter_child_nodes(node))
    return uses


def _frame_slots(uses: _Uses) -> tuple[list[str], list[Edit]]:
    """The loads and edits that hold the slots of `L` a loop names in locals."""
    if uses.whole_frame:
        return [], []
    fast = {slot for _cell, slot, looped in uses.cells if looped}
    if not fast:
        return [], []
    stored = {slot for cell, slot, _ in uses.cells if isinstance(cell.ctx, ast.Store)}
    back = "".join(f"L[{slot}] = {PREFIX}{slot}; " for slot in sorted(stored & fast))
    edits: list[Edit] = [
        (cell.lineno, cell.col_offset, cell.end_col_offset, f"{PREFIX}{slot}")
        for cell, slot, _ in uses.cells
        if slot in fast
    ]
    if back:
        edits += [(node.lineno, node.col_offset, node.col_offset, back) for node in uses.returns]
    return [f"{PREFIX}{slot} = L[{slot}]" for slot in sorted(fast)], edits


def _state_reads(uses: _Uses) -> tuple[list[str], list[Edit]]:
    """The loads and edits that hold in locals the state variables the body reads in a loop
    and never assigns as a whole."""
    if uses.whole_state:
        return [], []
    looped = {slot for _use, slot, in_loop in uses.reads if in_loop}
    fast = sorted(looped - uses.assigned)
    held = set(fast)
    edits: list[Edit] = [
        (use.lineno, use.col_offset, use.end_col_offset, f"{STATE_PREFIX}{slot}")
        for use, slot, _ in uses.reads
        if slot in held
    ]
    return [f"{STATE_PREFIX}{slot} = st.g[{slot}]" for slot in fast], edits


def _is_state(node: ast.AST) -> bool:
    """Whether `node` is `st.g`, the state's variables."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "g"
        and isinstance(node.value, ast.Name)
        and node.value.id == "st"
    )
