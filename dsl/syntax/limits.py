"""Stage 1, before the tree is built: the size limits of a source file.

In: a file's text, then the parse tree Lark made of it. Out: nothing, or a `SyntaxProblem`
with every limit the file passes (K250-K253), each at its place. The limits keep the later
stages, which walk the tree by recursion and compile it to Python, from running out of
stack or of time on a file no game needs (docs/language.md, "Limits").
"""

from __future__ import annotations

from lark import Token, Tree

from dsl.errors import Diagnostic, Span, SyntaxProblem, diag

# The largest bundled file is about 43 KB; a file six times as large is still read in a few
# seconds, and a larger one is refused at once.
MAX_SOURCE_BYTES = 256 * 1024
# How deep the parse tree may go: the bundled rulesets reach 22. Expressions and blocks
# nested deeper would overflow Python's stack in the stages after this one.
MAX_DEPTH = 60
# How many loops may be nested in one another: Python, which runs the compiled rules, allows
# 20 nested loops in one function, and a statement such as `draw` or `shuffle` is a loop.
MAX_LOOPS = 16
_LOOPS = frozenset({"for_stmt", "repeat_stmt", "while_stmt", "outcry_stmt"})
# The largest integer a file may write: the largest that a JavaScript front-end reads exactly.
MAX_INT = 2**53 - 1
_MAX_DIGITS = len(str(MAX_INT))


def check_size(text: str, path: str) -> None:
    """Refuse a file too large to check (K250)."""
    size = len(text.encode("utf-8"))
    if size > MAX_SOURCE_BYTES:
        raise SyntaxProblem(
            diag(
                "K250",
                f"the file is {size} bytes long, more than the limit of {MAX_SOURCE_BYTES}",
                Span(path, 1, 1, 1, 2),
                hint="split it into files that import each other",
            ),
            {path: text},
        )


def check_tree(tree: Tree, text: str, path: str) -> None:
    """Refuse a tree nested too deep (K251), loops nested too deep (K253) or an integer too
    large (K252). The walk is a loop over a stack, not a recursion, so any depth can be
    measured; each limit is reported once, at the first place past it."""
    found: list[Diagnostic] = []
    reported: set[str] = set()

    def report(code: str, message: str, span: Span, hint: str | None = None) -> None:
        if code not in reported:
            reported.add(code)
            found.append(diag(code, message, span, hint=hint))

    stack: list[tuple[Tree, int, int]] = [(tree, 1, 0)]
    while stack:
        node, depth, loops = stack.pop()
        if node.data in _LOOPS:
            loops += 1
            if loops > MAX_LOOPS:
                report(
                    "K253",
                    f"this loop is nested inside {loops - 1} others; the limit is {MAX_LOOPS}",
                    _span_of(node, path),
                    hint="move the inner loops into a procedure of their own",
                )
        if depth > MAX_DEPTH:
            report(
                "K251",
                f"this is nested too deeply: more than {MAX_DEPTH} levels of the syntax tree",
                _span_of(node, path),
                hint="give a part of the expression or block a name (`let`, `fn`, `proc`)",
            )
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth + 1, loops))
            elif isinstance(child, Token) and _too_large(child):
                found.append(
                    diag(
                        "K252",
                        f"the number {_shown(child)} is larger than the limit of {MAX_INT}",
                        _token_span(child, path),
                    )
                )
    if found:
        raise SyntaxProblem(found, {path: text})


def _too_large(token: Token) -> bool:
    """An integer (`INT`), or a number of dice or of sides (`DICE`, `3d6`), past `MAX_INT`."""
    if token.type not in ("INT", "DICE"):
        return False
    return any(
        len(digits) > _MAX_DIGITS or (len(digits) == _MAX_DIGITS and int(digits) > MAX_INT)
        for digits in (part.lstrip("0") for part in str(token).split("d"))
    )


def _shown(token: Token) -> str:
    text = str(token)
    return text if len(text) <= 30 else f"{text[:12]}…({len(text)} digits)"


def _token_span(token: Token, path: str) -> Span:
    line, col = token.line or 1, token.column or 1
    return Span(path, line, col, token.end_line or line, token.end_column or col + 1)


def _span_of(node: Tree, path: str) -> Span:
    meta = node.meta
    if not getattr(meta, "empty", True):
        return Span(path, meta.line, meta.column, meta.end_line, meta.end_column)
    for child in node.scan_values(lambda v: isinstance(v, Token)):
        return _token_span(child, path)
    return Span(path, 1, 1, 1, 2)
