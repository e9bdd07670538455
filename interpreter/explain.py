"""Why an option is legal or illegal at a position.

In: a `State` with a pending decision (usually loaded from a save file) and an option, as
JSON or as the text `knapper play` shows for it. Out: an `Explanation`: the decision's
prompt, the `choose` that asked (place, procedure, citation), the stack of procedures that
led there, the source text of the options expression, and the verdict with the legal
options. The options of a pending decision are part of the state, so the verdict is exact.
"""

from __future__ import annotations

import difflib
from typing import Any

import attrs
import orjson

from dsl.errors import KnapperError, Span, diag
from dsl.syntax import ast
from interpreter.core.state import State
from interpreter.trace import rule_cite, stack_of


@attrs.frozen
class Explanation:
    ruleset: str
    player: int
    decision: int  # the number this decision will have (1 = the game's first)
    round: int
    prompt: str
    site: str
    proc: str
    cite: str | None
    stack: tuple[dict[str, Any], ...]  # outermost first: proc, kind, cite, at, line
    options_text: str | None  # the options expression as written
    defined: tuple[str, str] | None  # (place, text) of the `let` the expression names
    uses: tuple[tuple[str, str, str | None], ...]  # derived values it calls: place, text, cite
    options: tuple[Any, ...]
    shown: tuple[str, ...]  # each option as `knapper play` shows it
    asked: str | None = None  # the option as given
    option: Any = None  # the option it was read as
    index: int | None = None  # its place among the options, from 1; None: illegal
    suggestion: str | None = None
    seat: int | None = None  # the seat (from 1) the explanation is for; None: the host's
    withheld: str | None = None  # why the options are not shown, and what would show them
    observation: dict[str, Any] | None = None  # what `seat` sees (its variables)

    @property
    def legal(self) -> bool:
        return self.index is not None

    def to_json(self) -> dict[str, Any]:
        data = attrs.asdict(self)
        data["legal"] = self.legal if self.asked is not None else None
        data["stack"] = list(self.stack)
        data["options"] = list(self.options)
        data["shown"] = list(self.shown)
        return data

    def render(self) -> str:
        cite = f" §{self.cite}" if self.cite else ""
        out = [
            f"{self.ruleset}, round {self.round}: decision {self.decision} is P{self.player + 1}'s"
            f" (player {self.player})",
            f'  "{self.prompt}"{cite}',
            f"  asked at {self.site}, in {self.proc}",
            "  reached through:",
        ]
        for frame in self.stack:
            section = f" §{frame['cite']}" if frame["cite"] else ""
            out.append(f"    {frame['proc']} ({frame['kind']}){section}  at {frame['at']}")
            if frame["line"]:
                out.append(f"        {frame['line']}")
        if self.options_text is not None:
            out.append(f"  options: {self.options_text}")
        if self.defined is not None:
            out.append(f"    where {self.defined[1]}  ({self.defined[0]})")
        for place, text, _cite in self.uses:
            out.append(f"    using {text}  ({place})")
        if self.observation is not None:
            out.append(f"  what P{self.seat} sees:")
            out += [
                f"    {name}: {orjson.dumps(value).decode()}"
                for name, value in self.observation.items()
            ]
        if self.withheld is not None:
            out.append(f"  {self.withheld}")
            return "\n".join(out)
        total = len(self.options)
        if self.asked is None:
            out.append(f"  {total} option{'s' if total != 1 else ''}:")
            out += [f"    {i}. {text}" for i, text in enumerate(self.shown, start=1)]
            return "\n".join(out)
        given = _json_text(self.option)
        if self.index is not None:
            out.append(f"legal: {given} is option {self.index} of {total}")
            return "\n".join(out)
        out.append(f"illegal: {given} is not among the {total} options")
        out.append("  the options are: " + ", ".join(self.shown))
        if self.suggestion:
            out.append(f"  = hint: did you mean {self.suggestion}?")
        return "\n".join(out)


HOST = "host"  # `explain`'s seat for the host (and tests): every option, no observation


def explain(state: State, option: str | None = None, seat: Any = HOST) -> Explanation:
    """Explain the pending decision of `state`, and with `option` (JSON, or the text
    `knapper play` shows) whether that option is legal. K850 if the game is over.

    `seat` (from 1; None for a spectator) is whom the explanation is for: it shows that
    seat's observation, and the options only to the seat that decides, since they may name
    what the others may not see (a hand). Asking about an option for another seat is K512.
    The default, HOST, is the host's own view: all options, no observation."""
    game = state.game
    pending = state.waiting()
    if pending is None:
        raise KnapperError(
            diag(
                "K850",
                "the game is over: there is no decision to explain",
                Span(game.name, 0, 0, 0, 0),
                hint="save the game with `s FILE` in `knapper play` while a decision is pending",
            )
        )
    player, options = pending.who, pending.options
    site = game.sites[pending.site]
    sources = getattr(game.program, "sources", {}) or {}
    frames = stack_of(state)
    stack = tuple({**f, "line": _line_at(f["at"], sources)} for f in frames)
    choose, owner = find_choose(game.program, site.span)
    options_text = defined = None
    uses: tuple = ()
    if choose is not None:
        options_text = source_text(choose.options.span, sources)
        expr = choose.options
        if isinstance(expr, ast.NameRef) and owner is not None:
            found_let = _definition(owner, expr.name, site.span)
            if found_let is not None:
                text = source_text(found_let.span, sources)
                defined = (str(found_let.span), text) if text else None
                expr = found_let.value
        uses = _functions(expr, game.program, sources)
    shown = tuple(game.describe(o) for o in options)
    found: dict[str, Any] = dict(
        ruleset=game.name,
        player=player,
        decision=state.decisions + 1,
        round=state.rounds,
        prompt=site.prompt,
        site=str(site.span),
        proc=site.proc,
        cite=rule_cite(site.cite, frames),
        stack=stack,
        options_text=options_text,
        defined=defined,
        uses=uses,
        options=tuple(options),
        shown=shown,
    )
    if seat != HOST:
        found["seat"] = seat
        if seat is not None:
            found["observation"] = state.observation(seat - 1)["vars"]
        if seat != player + 1:
            if option is not None:
                raise KnapperError(
                    diag(
                        "K512",
                        f"only P{player + 1}, who decides, may ask which options are legal",
                        Span(game.name, 0, 0, 0, 0),
                        hint=f"give --seat {player + 1}",
                    )
                )
            found.update(options=(), shown=(), defined=None, uses=())
            found["withheld"] = (
                f"the options are P{player + 1}'s to see: give --seat {player + 1} to see them"
            )
    if option is None:
        return Explanation(**found)  # type: ignore[arg-type]
    value, at = read_option(option, list(options), list(shown))
    suggestion = None
    if at is None:
        texts = {text: text for text in shown}
        texts.update({_json_text(o): text for o in options for text in [_json_text(o)]})
        close = difflib.get_close_matches(option, list(texts), n=1, cutoff=0.6)
        suggestion = close[0] if close else None
    return Explanation(  # type: ignore[arg-type]
        **found,
        asked=option,
        option=value,
        index=None if at is None else at + 1,
        suggestion=suggestion,
    )


def read_option(text: str, options: list, shown: list[str]) -> tuple[Any, int | None]:
    """The option `text` stands for, and its place among `options` (None: not there).

    Read as JSON first (`3`, `"hunt"`, `[1, "x"]`), then as the text `knapper play` shows
    (`Low Countries`, exactly, then ignoring case), then as a bare string (`low_countries`)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = text
    else:
        if value in options:
            return value, options.index(value)
    for same in (lambda a, b: a == b, lambda a, b: a.casefold() == b.casefold()):
        for i, label in enumerate(shown):
            if same(label, text.strip()):
                return options[i], i
    if text in options:
        return text, options.index(text)
    return value, None


def _json_text(value: Any) -> str:
    return orjson.dumps(value, default=str).decode()


def source_text(span: Span, sources: dict[str, str]) -> str | None:
    """The text a span covers (one line: its part of that line), spaces squeezed."""
    text = sources.get(span.file)
    if text is None or span.line <= 0:
        return None
    lines = text.splitlines()
    if span.end_line > len(lines):
        return None
    if span.line == span.end_line:
        part = lines[span.line - 1][span.col - 1 : span.end_col - 1]
    else:
        part = "\n".join(
            [lines[span.line - 1][span.col - 1 :]]
            + lines[span.line : span.end_line - 1]
            + [lines[span.end_line - 1][: span.end_col - 1]]
        )
    return " ".join(part.split())


def _line_at(place: str, sources: dict[str, str]) -> str | None:
    file, _, rest = place.rpartition(":")
    file, _, line = file.rpartition(":")
    text = sources.get(file)
    if text is None or not line.isdigit():
        return None
    lines = text.splitlines()
    n = int(line)
    return lines[n - 1].strip() if 1 <= n <= len(lines) else None


def span_contains(outer: Span, inner: Span) -> bool:
    return (
        outer.file == inner.file
        and (outer.line, outer.col) <= (inner.line, inner.col)
        and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)
    )


def enclosing_cite(program: Any, span: Span) -> str | None:
    """The citation of the innermost cited declaration or statement around `span`."""
    best: tuple[Span, str] | None = None
    for decl, _depth in ast.rules(getattr(program, "decls", {}).values()):
        decl_span = getattr(decl, "span", None)
        if decl_span is None or not span_contains(decl_span, span):
            continue
        for node in ast.walk(decl):
            cite = getattr(node, "cite", None)
            here = getattr(node, "span", None)
            if cite and isinstance(here, Span) and span_contains(here, span):
                if best is None or span_contains(best[0], here):
                    best = (here, cite)
    return best[1] if best else None


def find_choose(program: Any, span: Span) -> tuple[ast.Choose | None, Any]:
    """The `choose` written at `span`, and the declaration it is in."""
    for decl, _depth in ast.rules(getattr(program, "decls", {}).values()):
        # a rule's own statements (`walk` would go on into the rule it replaced)
        for node in ast.walk(decl.body if isinstance(decl, ast.Proc) else decl):
            if isinstance(node, ast.Choose) and node.span == span:
                return node, decl
    return None, None


def _functions(expr: Any, program: Any, sources: dict[str, str]) -> tuple:
    """The derived values (`fn`) an expression calls: (place, first line, citation)."""
    found: dict[str, tuple[str, str, str | None]] = {}
    decls = getattr(program, "decls", {})
    for node in ast.walk(expr):
        if isinstance(node, ast.CallExpr) and isinstance(decls.get(node.name), ast.Fn):
            fn = decls[node.name]
            text = _line_at(str(fn.span), sources)
            if text and node.name not in found:
                found[node.name] = (str(fn.span), text, fn.cite)
    return tuple(found.values())


def _definition(owner: Any, name: str, before: Span) -> Any:
    """The last `let NAME = ...` or `NAME = ...` above `before` in the same declaration."""
    best = None
    for node in ast.walk(owner):
        target = None
        if isinstance(node, ast.Let):
            target = node.name
        elif isinstance(node, ast.Assign) and not node.target.indices:
            target = node.target.name
        if target != name or node.span.file != before.file:
            continue
        if (node.span.line, node.span.col) < (before.line, before.col):
            if best is None or (node.span.line, node.span.col) > (best.span.line, best.span.col):
                best = node
    return best
