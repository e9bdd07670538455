"""Stage 3, standing rules: that they cannot set each other off without end.

In: a resolved program and its `Symbols`. Out: K237 diagnostics.

A standing rule runs whenever its condition holds and it is not already running for the
same values, and its body must leave its own condition false (K420 at run time otherwise).
So one rule alone always ends. Two or more could still take turns for ever: A's body makes
B's condition true, B's makes A's true again. The checker draws an arrow from A to B when
A's body may write what B's condition reads (`dsl.semantics.access`) and refuses every
cycle of such arrows; without one, every chain of rules set off by a statement ends.
"""

from __future__ import annotations

from dsl.errors import Diagnostic, Note, diag
from dsl.semantics.access import Access
from dsl.syntax import ast


def check_standing(program, symbols) -> list[Diagnostic]:
    rules = [p for p in program.get(ast.Proc) if p.kind == "whenever" and p.when is not None]
    if len(rules) < 2:
        return []
    access = Access(program, symbols)
    reads = {r.name: access.reads(r.when) for r in rules}
    writes = {r.name: access.proc_writes(r.name) for r in rules}
    sets_off = {
        a.name: [b for b in rules if b is not a and writes[a.name] & reads[b.name]] for a in rules
    }
    out: list[Diagnostic] = []
    reported: set[frozenset[str]] = set()
    for start in rules:
        cycle = _cycle_from(start, sets_off)
        if cycle is None or frozenset(r.name for r in cycle) in reported:
            continue
        reported.add(frozenset(r.name for r in cycle))
        pairs = list(zip(cycle, cycle[1:] + cycle[:1]))
        why = "; ".join(
            f"{a.name!r} writes {', '.join(sorted(writes[a.name] & reads[b.name]))}, "
            f"which {b.name!r} reads"
            for a, b in pairs
        )
        out.append(
            diag(
                "K237",
                f"standing rules can set each other off without end: {why}",
                start.span,
                notes=tuple(Note(r.span, f"{r.name!r} is here") for r in cycle[1:]),
                hint="let one rule do both jobs, or make one condition read what the other "
                "rule never writes",
            )
        )
    return out


def _cycle_from(start, sets_off) -> list | None:
    """A cycle of arrows through `start`, as the rules in order from it, if there is one."""
    path = [start]
    seen = {start.name}

    def walk(rule) -> bool:
        for nxt in sets_off[rule.name]:
            if nxt is start:
                return True
            if nxt.name not in seen:
                seen.add(nxt.name)
                path.append(nxt)
                if walk(nxt):
                    return True
                path.pop()
        return False

    return path if walk(start) else None
