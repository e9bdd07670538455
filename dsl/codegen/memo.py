"""Remembered derived values: which `fn`s keep the value of a call, and what forgets it.

A `fn` reads the state and its arguments and changes nothing (the checker refuses dice in
one, K218), so two calls with the same arguments give the same value until a statement
writes what the `fn` reads. A big ruleset asks the same question many times between two
decisions (who stands on a place, what a row grants), so the generated code remembers:

- a remembered `fn` looks its arguments up in `st.memo` first, and stores what it works out
  there (`wrap`);
- the engine gives a state a fresh memo each time `run` starts (where some `fn` of the
  game remembers: `Game.remembers`) and takes it away when `run` stops
  (`interpreter.core.state.NO_MEMO` keeps nothing): a value read from outside the engine,
  or after a front-end changed the state, is always worked out afresh;
- a statement that writes state some remembered `fn` reads is followed by `st.memo.clear()`
  (`Lowerer.block`), and so is the start of a round (`round_number`).

What a run does is the same with or without the memo, except for the work budget: a value
found in the memo costs no step. The memo starts empty with each run, so a game replayed
from its seed or resumed from a save spends the same budget as it did the first time.

Remembered: a plain `fn` with a rule of its own that does more than a fixed amount of work
(one the compiler does not inline, `exprs.inlinable`), all of whose parameters are values
that can key a dict (a number, a flag, a text, a player, an enum value that carries nothing,
a row or a node: a list or an enum value that carries values is a Python list), and that may
be asked twice between two writes: called by another `fn` or in a comprehension, or in more
than one place. A `fn` called once per statement would only pay for a memo it never reads
(5-10 % of a small game whose one `fn` is asked once a move, by bench/playouts.py).
"""

from __future__ import annotations

from dsl.semantics.symbols import Symbols
from dsl.syntax import ast

from .exprs import inlinable

MISS = object()  # `_MISS` in generated code: no value kept for this call
LOOKUP_LINES = 3  # the lines of `wrap`'s body that look the call up, before any work
_KEYS = ("int", "bool", "text", "player")  # basic types whose values are dict keys


def remembered(program, sym: Symbols) -> dict[str, int]:
    """The `fn`s whose calls are remembered, each with the number its memo keys start with."""
    asked_again = _asked_again(program)
    out: dict[str, int] = {}
    for fn in program.get(ast.Fn):
        if (
            fn.name in asked_again
            and fn.kind == "fn"
            and not fn.signature_only
            and fn.base is None
            and inlinable(fn, sym) is None
            and all(_keyable(p.type, sym) for p in fn.params)
        ):
            out[fn.name] = len(out)
    return out


def _asked_again(program) -> set[str]:
    """The `fn`s that a run may call twice with nothing written between: those called in
    another `fn`'s body, in a comprehension, or in more than one place."""
    places: dict[str, int] = {}
    out: set[str] = set()

    def visit(node, repeated: bool) -> None:
        if isinstance(node, ast.CallExpr) and not node.base:
            places[node.name] = places.get(node.name, 0) + 1
            if repeated or places[node.name] > 1:
                out.add(node.name)
        inner = repeated or isinstance(node, ast.Comprehension)
        for child in ast.children_of(node):
            visit(child, inner)

    for decl in program.decls.values():
        visit(decl, isinstance(decl, ast.Fn))
    return out


def _keyable(t, sym: Symbols) -> bool:
    if not isinstance(t, ast.TypeName):
        return False  # a list
    if t.name in _KEYS:
        return True
    decl = sym.decls.get(t.name)
    if isinstance(decl, ast.Enum):
        return not decl.payloads
    return sym.kind.get(t.name) in ("record", "table", "map")


def wrap(number: int, params: tuple[str, ...], charge: str, body: str) -> str:
    """The body of a remembered `fn` (its Python parameters `params`): look the call up,
    else charge the budget's step (`charge`, its lines), work out `body` and keep it."""
    key = f"({number}, {', '.join(params)})" if params else str(number)
    return (
        f"    _key = {key}\n"
        "    _got = st.memo.get(_key, _MISS)\n"
        "    if _got is not _MISS: return _got\n"
        f"{charge}"
        f"    _got = st.memo[_key] = {body}\n"
        "    return _got"
    )
