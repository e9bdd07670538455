"""`knapper check --show-code NAME`: the Python generated for a procedure, block by block.

In: a checked program (the `check` command in interpreter/frontends/cli.py has no errors
for it) and a procedure name (`main` is `setup` with the `round` loop; `all` is every
procedure). Out: for each block, the position a frame stores for it (its instruction index),
the IR instructions it runs (dsl/codegen/ir.py), the source it comes from and its generated
function, as kept by dsl/codegen/emit.py on the game's `ProcInfo.blocks`.
"""

from __future__ import annotations

from typing import Any

from dsl.errors import Span, did_you_mean
from dsl.syntax.fmt import cite as format_cite
from interpreter.core.game import Game, ProcInfo


def compile_program(checked) -> Game:
    """The game of a program whose checks found no error (a `Checked`)."""
    from dsl.codegen.compile import Compiler

    return Compiler(checked).compile()


def chosen(game: Game, name: str) -> list[ProcInfo]:
    """The procedures `name` selects (`all`: every one, main first); a LookupError with the
    message to show when there is none of that name."""
    if name == "all":
        return list(game.procs)
    found = [info for info in game.procs if info.name == name]
    if not found:
        names = [info.name for info in game.procs]
        hint = did_you_mean(name, names)
        if hint is None:
            more = ", …" if len(names) > 8 else ""
            hint = f"its procedures are {', '.join(names[:8])}{more} (`all` shows every one)"
        raise LookupError(f"{game.name} has no procedure named {name!r}; {hint}")
    return found


def listing(info: ProcInfo) -> str:
    """The generated code of one procedure as text."""
    cite = format_cite(info.cite) if info.cite else ""
    instructions = sum(block.count for block in info.blocks)
    lines = [
        f"# {info.name}: {info.kind}{cite}, {info.span}; {len(info.blocks)} instructions "
        f"from {instructions} in the IR; locals: {', '.join(info.local_names) or 'none'}"
    ]
    for pc, block in enumerate(info.blocks):
        lines.append(
            f"# instruction {pc}: IR {_range(block.first, block.count)}, {where(block.span)}"
        )
        lines.append(block.source)
    return "\n".join(lines)


def as_json(info: ProcInfo) -> dict[str, Any]:
    return {
        "proc": info.name,
        "kind": info.kind,
        "cite": info.cite,
        "span": str(info.span),
        "locals": list(info.local_names),
        "instructions": [
            {
                "index": pc,
                "ir_first": block.first,
                "ir_count": block.count,
                "span": where(block.span),
                "source": block.source,
            }
            for pc, block in enumerate(info.blocks)
        ],
    }


def where(span: Span) -> str:
    """A span with its end: `file:line:col-line:col`."""
    return f"{span}-{span.end_line}:{span.end_col}"


def _range(first: int, count: int) -> str:
    return str(first) if count == 1 else f"{first}-{first + count - 1}"
