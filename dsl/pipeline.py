"""The whole front end in one place: text -> parse -> resolve -> check -> compile -> Game.

`compile_text` is where source text is attached to errors; compiling and playing stay separate
calls, so one compiled Game serves any number of games. `compile_path` reads a game compiled
before from the cache on disk when none of its files has changed (dsl/codegen/cache.py);
`pack_ruleset` gives a compiled game as bytes, those on disk when they are its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dsl.codegen import cache as compiled
from dsl.codegen.compile import Compiler
from dsl.errors import CheckProblem, Diagnostic, KnapperError, Span, diag, read_source
from dsl.semantics.check import Checked, check_program
from dsl.semantics.resolve import Program, find_ruleset, resolve_text, suggest_ruleset
from interpreter.core.game import Game


def load_program(text: str, path: str) -> tuple[Program | None, list[Diagnostic], dict[str, str]]:
    """Parse, resolve and check; returns the program (if it resolved), all diagnostics, sources."""
    checked, diagnostics, sources = check_text(text, path)
    return (checked.program if checked else None), diagnostics, sources


def check_text(
    text: str, path: str, tree: Path | None = None
) -> tuple[Checked | None, list[Diagnostic], dict[str, str]]:
    """Parse, resolve and check once: the checked program (when it resolved), every
    diagnostic, sorted (those of resolving too), and the source texts. `tree`: the folder
    the files it names must lie in, besides the bundled rulesets (`resolve_text`)."""
    with _within_limits(text, path):
        program, diagnostics, sources = resolve_text(text, path, tree)
        if program is None:
            return None, sorted(diagnostics, key=Diagnostic.sort_key), sources
        checked = check_program(program)
    found = list(diagnostics) + list(checked.diagnostics)
    return checked, sorted(found, key=Diagnostic.sort_key), sources


def compile_text(text: str, path: str = "<string>", tree: Path | None = None) -> Game:
    """The game of `text`, written as if at `path`; `tree` as for `check_text` (a text
    with no folder of its own, such as an upload, passes the bundled rulesets' root, so it
    may name nothing but them)."""
    checked, diagnostics, sources = check_text(text, path, tree)
    errors = [d for d in diagnostics if d.severity == "error"]
    if checked is None or errors:
        raise CheckProblem(errors or diagnostics, sources)
    with _within_limits(text, path):
        return Compiler(checked).compile()


@contextmanager
def _within_limits(text: str, path: str) -> Iterator[None]:
    """What the size limits (K250-K259) did not foresee: a file that makes Python run out of
    memory or stack, or that compiles to more nesting than Python allows, is refused with
    K260, never a bare exception."""
    try:
        yield
    except (MemoryError, RecursionError, OverflowError, SyntaxError) as err:
        what = "ran out of memory" if isinstance(err, MemoryError) else "went too deep"
        raise CheckProblem(
            diag(
                "K260",
                f"the ruleset is too large or too deeply nested to check ({what})",
                Span(path, 1, 1, 1, 2),
                hint="split large declarations and deep expressions into smaller named ones",
            ),
            {path: text},
        ) from None


def compile_path(name_or_path: str | Path) -> Game:
    path = find_ruleset(str(name_or_path))
    if path is None:
        hint = (
            suggest_ruleset(str(name_or_path)) or "run `knapper list` to see the bundled rulesets"
        )
        raise KnapperError(
            diag(
                "K100",
                f"no ruleset named or found at {str(name_or_path)!r}",
                Span(str(name_or_path), 0, 0, 0, 0),
                hint=hint,
            )
        )
    text = read_source(path)
    game = compiled.load(str(path), text)  # compiled before, and nothing changed since
    if game is None:
        game = compile_text(text, str(path))
        compiled.store(str(path), text, game)
    return game


def pack_ruleset(name_or_path: str | Path, game: Game) -> bytes:
    """`game`, compiled from the ruleset `name_or_path`, as bytes (`dsl.codegen.cache.pack`):
    the bytes kept on disk when the cache holds this very game (the same fingerprint),
    which saves packing it again (0.2 s for the largest bundled ruleset), else packed now."""
    path = find_ruleset(str(name_or_path))
    if path is not None:
        kept = compiled.packed(str(path), read_source(path), game.fingerprint)
        if kept is not None:
            return kept
    return compiled.pack(game)
