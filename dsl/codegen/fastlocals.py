"""Part of stage 4c: a generated function with what it reads again and again in Python locals.

In: the source of one generated function: a block's `(st, L)` (`dsl.codegen.emit`) or a
`fn`'s `(st, v_...)` (`dsl.codegen.compile`). Out: the source of the same function with one
line more, put first in its body, that loads into Python locals (one load instead of three
steps at each use):

- each slot of `L` that a loop of the body names (`L[3]` becomes `_l3`); for a slot the body
  assigns, the local is written back to `L` just before every `return` (on the same line);
- each state variable the body reads in a loop or more than once and never assigns as a
  whole (`st.g[4]` becomes `_g4`). A variable's entry in `st.g` is replaced only by an
  assignment to the whole variable, which the body would show (`st.g[4] = ...`): the
  engine's helpers and the `fn`s a body calls change a variable's list in place or not at
  all, so the local holds the variable for as long as the function runs.

The places to change come from Python's own parse of the source, never from a search of its
text. The slots of `L` are left as they are when the body names `L` otherwise than
`L[number]`, or calls a helper that reads the frames' locals while it runs
(`_HELPERS_READING_FRAMES`). A fault leaves the written-back slots as they were when the
block began; the engine then puts the game back (`State._go_back`), and a failure's
explanation reads the Python locals (`interpreter.core.failure`).
"""

from __future__ import annotations

import ast

# helpers of interpreter/core/runtime.py that read the locals of the frames on the stack
_HELPERS_READING_FRAMES = frozenset({"_standing", "_offers", "_settled"})
PREFIX = "_l"  # `_l3` holds `L[3]`
STATE_PREFIX = "_g"  # `_g4` holds `st.g[4]`
# where a slot's uses repeat; elsewhere a load on entry (and a store before each `return`)
# costs as much as the few uses it saves (bench/playouts.py: Pig and tic-tac-toe got slower)
_LOOPS = (ast.For, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

# (line, start column, end column, replacement): one change to the source's text
Edit = tuple[int, int, int | None, str]


def fast_locals(source: str) -> str | None:
    """The source of the function `source` defines with what it reads repeatedly in locals,
    one line longer (the loads, after the `def`); None when nothing is worth it."""
    func = ast.parse(source).body[0]
    assert isinstance(func, ast.FunctionDef)
    in_loops = {
        id(node) for loop in ast.walk(func) if isinstance(loop, _LOOPS) for node in ast.walk(loop)
    }
    loads: list[str] = []
    edits: list[Edit] = []
    for part in (_frame_slots(func, in_loops), _state_reads(func, in_loops)):
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
    return "\n".join([body[0], "    " + "; ".join(loads), *body[1:]])


def _frame_slots(func: ast.FunctionDef, in_loops: set[int]) -> tuple[list[str], list[Edit]]:
    """The loads and edits that hold the slots of `L` a loop names in locals."""
    stored: set[int] = set()
    cells: list[tuple[ast.Subscript, int]] = []
    for node in ast.walk(func):  # parents before children: `L[n]` before its `L`
        if isinstance(node, ast.Name):
            if node.id in _HELPERS_READING_FRAMES:
                return [], []
            if node.id == "L" and not any(node is cell.value for cell, _ in cells):
                return [], []  # `L` other than in `L[number]`
        slot = _slot(node) if isinstance(node, ast.Subscript) else None
        if slot is not None:
            assert isinstance(node, ast.Subscript)
            cells.append((node, slot))
            if isinstance(node.ctx, ast.Store):
                stored.add(slot)
    fast = {slot for cell, slot in cells if id(cell) in in_loops}
    if not fast:
        return [], []
    back = "".join(f"L[{slot}] = {PREFIX}{slot}; " for slot in sorted(stored & fast))
    edits: list[Edit] = [
        (cell.lineno, cell.col_offset, cell.end_col_offset, f"{PREFIX}{slot}")
        for cell, slot in cells
        if slot in fast
    ]
    if back:
        edits += [
            (node.lineno, node.col_offset, node.col_offset, back)
            for node in ast.walk(func)
            if isinstance(node, ast.Return)
        ]
    return [f"{PREFIX}{slot} = L[{slot}]" for slot in sorted(fast)], edits


def _state_reads(func: ast.FunctionDef, in_loops: set[int]) -> tuple[list[str], list[Edit]]:
    """The loads and edits that hold in locals the state variables the body reads in a loop
    or more than once and never assigns as a whole."""
    reads: dict[int, list[ast.Subscript]] = {}
    assigned: set[int] = set()
    indexed = {id(node.value) for node in ast.walk(func) if isinstance(node, ast.Subscript)}
    if any(_is_state(node) and id(node) not in indexed for node in ast.walk(func)):
        return [], []  # `st.g` as a whole: what is done with it is not this pass's to see
    for node in ast.walk(func):
        if not isinstance(node, ast.Subscript) or not _is_state(node.value):
            continue
        index = node.slice
        if not (isinstance(index, ast.Constant) and type(index.value) is int):
            return [], []  # a variable chosen at run time: any of them may be assigned
        if isinstance(node.ctx, ast.Load):
            reads.setdefault(index.value, []).append(node)
        else:
            assigned.add(index.value)
    fast = sorted(
        slot
        for slot, uses in reads.items()
        if slot not in assigned and (len(uses) > 1 or id(uses[0]) in in_loops)
    )
    edits: list[Edit] = [
        (use.lineno, use.col_offset, use.end_col_offset, f"{STATE_PREFIX}{slot}")
        for slot in fast
        for use in reads[slot]
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


def _slot(node: ast.Subscript) -> int | None:
    """n, when `node` is `L[n]`."""
    if (
        isinstance(node.value, ast.Name)
        and node.value.id == "L"
        and isinstance(node.slice, ast.Constant)
        and type(node.slice.value) is int
    ):
        return node.slice.value
    return None
