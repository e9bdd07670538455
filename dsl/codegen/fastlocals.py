"""Part of stage 4c: a block's function with the locals its loops use in Python locals.

In: the source of one block's function `(st, L)` (`dsl.codegen.emit`). Out: the source of
the same function, in which each slot of `L` that a loop of the body names (`L[3]`) is a
Python local (`_l3`: one load instead of three steps at each use): read from `L` by a line
put first in the body, and, for a slot the body assigns, written back to `L` just before
every `return` (on the same line). The places to change come from Python's own parse of the
source, never from a search of its text.

A block is left as it is when it names `L` otherwise than `L[number]`, or calls a helper
that reads the frames' locals while it runs (`_HELPERS_READING_FRAMES`). A fault leaves the
written-back slots as they were when the block began; the engine then puts the game back
(`State._go_back`), and a failure's explanation reads the Python locals
(`interpreter.core.failure`).
"""

from __future__ import annotations

import ast

# helpers of interpreter/core/runtime.py that read the locals of the frames on the stack
_HELPERS_READING_FRAMES = frozenset({"_standing", "_offers", "_settled"})
PREFIX = "_l"  # `_l3` holds `L[3]`
# where a slot's uses repeat; elsewhere a load on entry (and a store before each `return`)
# costs as much as the few uses it saves (bench/playouts.py: Pig and tic-tac-toe got slower)
_LOOPS = (ast.For, ast.While, ast.ListComp)


def fast_locals(source: str) -> str | None:
    """The source of the function `source` defines with its loops' slots in locals, one line
    longer (the loads, after the `def`); None when no slot is worth it."""
    func = ast.parse(source).body[0]
    assert isinstance(func, ast.FunctionDef)
    stored: set[int] = set()
    cells: list[tuple[ast.Subscript, int]] = []
    for node in ast.walk(func):  # parents before children: `L[n]` before its `L`
        if isinstance(node, ast.Name):
            if node.id in _HELPERS_READING_FRAMES:
                return None
            if node.id == "L" and not any(node is cell.value for cell, _ in cells):
                return None  # `L` other than in `L[number]`
        slot = _slot(node) if isinstance(node, ast.Subscript) else None
        if slot is not None:
            assert isinstance(node, ast.Subscript)
            cells.append((node, slot))
            if isinstance(node.ctx, ast.Store):
                stored.add(slot)
    looped = {
        slot
        for loop in ast.walk(func)
        if isinstance(loop, _LOOPS)
        for node in ast.walk(loop)
        if isinstance(node, ast.Subscript) and (slot := _slot(node)) is not None
    }
    fast = looped
    if not fast:
        return None
    back = "".join(f"L[{slot}] = {PREFIX}{slot}; " for slot in sorted(stored & fast))
    # (line, start, end, text): each `L[n]` replaced, each `return` preceded by the stores
    edits = [
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
    lines = [line.encode() for line in source.split("\n")]  # offsets count UTF-8 bytes
    for line, start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        assert end is not None
        row = lines[line - 1]
        lines[line - 1] = row[:start] + text.encode() + row[end:]
    loads = "    " + "; ".join(f"{PREFIX}{slot} = L[{slot}]" for slot in sorted(fast))
    body = [row.decode() for row in lines]
    return "\n".join([body[0], loads, *body[1:]])


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
