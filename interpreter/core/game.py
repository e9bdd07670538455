"""The compiled game: an immutable description that `State` runs.

Built by `dsl.codegen.compile`; holds compiled code (lists of closures per procedure), the layout of
the state's variables, the data tables and maps, and the metadata that traces, observations,
scenarios and the checker need (spans, citations, prompts, notes).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import attrs

from dsl.errors import Diagnostic, Span


@attrs.frozen
class VarSpec:
    name: str
    slot: int
    domains: tuple[tuple[Any, ...], ...]  # the values of each key, in order
    visibility: str  # public | owner | hidden | top | backs | scratch (in no observation)
    init: Callable  # (state) -> initial value (flat list for keyed variables)
    kind: str  # var | zone | pool
    cite: str | None
    span: Span
    by_player: bool = False  # first key is `player`: sized for the most players allowed
    # per key, what it ranges over (`player`, `int`, an enum's, table's or map's name), and
    # the checker's type of an entry, for observations labelled by them
    key_kinds: tuple[str, ...] = ()
    type: Any = None

    def keys_of(self, flat_index: int) -> tuple:
        keys = []
        for domain in reversed(self.domains):
            flat_index, i = divmod(flat_index, len(domain))
            keys.append(domain[i])
        return tuple(reversed(keys))


@attrs.frozen
class BlockInfo:
    """One instruction of a procedure as compiled: a block of IR instructions (dsl/codegen/ir.py)
    fused into one generated function. Its index in `ProcInfo.blocks` is the position a
    frame stores."""

    first: int  # the index of its first IR instruction in the procedure
    count: int  # how many IR instructions it runs, in order from `first`
    span: Span  # from its first statement to its last
    source: str  # the generated Python (`knapper check --show-code`)


@attrs.frozen
class ProcInfo:
    name: str
    kind: str  # proc | phase | step | main
    cite: str | None
    span: Span
    nlocals: int
    spans: tuple[Span, ...]  # one per instruction: the statement that decides where to go next
    local_names: tuple[str, ...]
    line_spans: tuple[tuple[Span, ...], ...] = ()  # per instruction, the span of each code line
    blocks: tuple[BlockInfo, ...] = ()  # per instruction: the IR it runs and its source
    # per instruction: the copies in it, in the order of their lines, each as the body line
    # it begins at (from 0) and the instruction whose code runs from there, another's or
    # its own again after an exit's copy (dsl/codegen/emit.py, "Tails" and "Exits"); a copy
    # runs to the next one, the last to the end
    tails: tuple[tuple[tuple[int, int], ...], ...] = ()


@attrs.frozen
class ChooseSite:
    prompt: str
    cite: str | None
    proc: str
    span: Span
    always: bool = False  # an `ask`: put to the player even with a single option
    secret: bool = False  # the others learn that the choice was made, not what was chosen
    # the decision's stable name for front-ends: its `id`, else its rule's name (`setup`,
    # `round` for the game's own blocks), then `.2`, `.3`... for the rule's later decisions
    # and `.role` for each role of a joint one (`dsl.codegen.compile.name_sites`)
    id: str = ""
    # the checker's type of the options (of the items, for `agree` and `negotiate`), for
    # their labels (`interpreter.protocol.labels`); None where unknown
    item_type: Any = None
    # the prompt's `{name}` places: each local's name, its slot in the waiting frame and
    # the checker's type (`interpreter.protocol.labels.prompt`)
    places: tuple[tuple[str, int, Any], ...] = ()


@attrs.frozen
class InvariantInfo:
    name: str
    cite: str | None
    span: Span
    holds: Callable  # (state, locals) -> bool


@attrs.frozen
class NoteInfo:
    kind: str  # interpretation | deviation | contradiction
    name: str
    text: str
    cite: str | None
    span: Span
    also: tuple[str, ...] = ()  # further sections cited


@attrs.frozen
class Phrase:
    """An effect or a condition a ruleset declares: its values are the lists
    `[name, *arguments]`, and read as its text."""

    kind: str  # effect | condition
    name: str
    params: tuple[str, ...]
    template: str | None  # its text, `{param}` where an argument goes
    cite: str | None

    def text(self, args: list, describe: Callable[[Any], str]) -> str:
        """The text with these arguments (each as `describe` shows it)."""
        shown = {p: describe(a) for p, a in zip(self.params, args)}
        return phrase_text(self.name, self.template, shown)


def phrase_text(name: str, template: str | None, shown: dict[str, str]) -> str:
    """An effect's or a condition's words with its arguments as shown (parameter -> text):
    its template with each `{param}` filled, or `name(arguments)` without one."""
    if template is None:
        return f"{name}({', '.join(shown.values())})"
    return fill(template, shown)


def plain_text(value: Any) -> str:
    """`str(value)`, except for an integer too long for Python to write in decimal (more
    than 4300 digits): its size and its first hexadecimal digits."""
    if type(value) is int and value.bit_length() > 14000:
        return f"{format(value, '#x')[:18]}… (an integer of {value.bit_length()} bits)"
    return str(value)


def fill(text: str, shown: dict[str, str]) -> str:
    """`text` with each `{name}` place that `shown` names replaced by its words (an effect's
    template, a `log` line, a prompt); other places stay as written."""
    return _PLACE.sub(lambda m: shown.get(m.group(1), m.group(0)), text)


def has_places(text: str) -> bool:
    return _PLACE.search(text) is not None


_PLACE = re.compile(r"{([^{}]*)}")


@attrs.frozen
class Game:
    name: str
    title: str
    source: str | None
    players: tuple[int, int]
    bound: int | None
    vars: tuple[VarSpec, ...]
    code: tuple[tuple[Callable, ...], ...]
    procs: tuple[ProcInfo, ...]
    main: int
    sites: tuple[ChooseSite, ...]
    rows: dict[str, dict[str, Any]]
    tables: dict[str, tuple[str, ...]]
    adjacency: dict[str, tuple[str, ...]]
    invariants: tuple[InvariantInfo, ...]
    score: Callable | None  # (state, [player]) -> int; `role` and `result` likewise
    notes: tuple[NoteInfo, ...]
    params: dict[str, Any]
    fingerprint: str
    functions: dict[str, Callable]  # derived values (`fn`) by name: (state, *args) -> value
    program: Any = attrs.field(eq=False, repr=False)  # the resolved program, for tools
    # (variables) -> a copy of them that shares no list with them (`State.clone`)
    copy_vars: Callable[[list], list] = attrs.field(eq=False, repr=False)
    phrases: dict[str, Phrase] = attrs.field(factory=dict)  # effects and conditions, by name
    # the standing rules as the engine tests them, and the `simultaneously` blocks by
    # procedure (`_standing` in interpreter/core/runtime.py)
    standing: tuple = attrs.field(default=(), eq=False, repr=False)
    options: tuple = attrs.field(default=(), eq=False, repr=False)  # `_offers`' table
    role: Callable | None = attrs.field(default=None, eq=False, repr=False)
    result: Callable | None = attrs.field(default=None, eq=False, repr=False)
    # how well each player stands in any position, for agents that search (`heuristic(p)`)
    heuristic: Callable | None = attrs.field(default=None, eq=False, repr=False)
    deferred: dict[int, tuple[tuple[int, int], ...]] = attrs.field(
        factory=dict, eq=False, repr=False
    )
    # the slot of the engine's zone of what each player was shown (`reveal`), if any
    known_slot: int | None = attrs.field(default=None, eq=False, repr=False)
    # the values of each named type (an enum's, a record's rows, a map's nodes), by its name
    named: dict[str, frozenset[str]] = attrs.field(factory=dict, eq=False, repr=False)
    # `view`: the groups of variables a front-end shows, each a title and names, in order
    views: tuple[tuple[str, tuple[str, ...], str], ...] = ()  # (title, names, whose)
    # the `fn`s whose body generated code may hold in place of a call (dsl/codegen/exprs.py,
    # `Exprs.inlined`): a failure in one has no frame of its own (interpreter/core/failure.py)
    inlined: frozenset[str] = attrs.field(default=frozenset(), eq=False, repr=False)
    # the comprehensions generated code writes out item by item (dsl/codegen/exprs.py,
    # `Exprs.written_out`), by span: the name and its items; no frame holds the name's value
    written_out: dict[Span, tuple[str, tuple]] = attrs.field(factory=dict, eq=False, repr=False)
    # whether some `fn` remembers its calls (dsl/codegen/memo.py): else a run needs no memo
    remembers: bool = attrs.field(default=False, eq=False, repr=False)
    # by player count, the state after a setup that rolls no die, before any seed is set
    # (`interpreter.api.new_game` starts each game from a copy of it); each Game has its own,
    # an `attrs.evolve`d copy too (a coverage probe's game runs other code)
    prepared: dict[int, Any] = attrs.field(init=False, factory=dict, eq=False, repr=False)

    @property
    def shown_vars(self) -> tuple[VarSpec, ...]:
        """The variables observations hold: all but scratch ones."""
        return tuple(spec for spec in self.vars if spec.visibility != "scratch")

    def span_of(self, name: str) -> Span:
        """Where the ruleset declares `name` (a `fn`, `score`...), for its errors."""
        decls = getattr(self.program, "decls", None) or {}
        span = getattr(decls.get(name), "span", None)
        return span if isinstance(span, Span) else Span(self.name, 0, 0, 0, 0)

    def quoting(self, diagnostic: Diagnostic) -> dict[str, str]:
        """The source text an error at this diagnostic quotes, from the program the game was
        compiled from (so a game compiled from text in memory shows its lines too)."""
        sources = getattr(self.program, "sources", None) or {}
        text = sources.get(diagnostic.span.file)
        return {diagnostic.span.file: text} if text is not None else {}

    def var(self, name: str) -> VarSpec:
        for spec in self.vars:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def describe(self, value: Any) -> str:
        """A short human label for an option or value (a row's title, an enum value's words
        or glyph, an effect's or a condition's value as its text)."""
        if isinstance(value, str) and value in self.rows:
            return self.rows[value].get("title") or value
        if isinstance(value, list) and value and isinstance(value[0], str):
            phrase = self.phrases.get(value[0])
            if phrase is not None and len(value) == len(phrase.params) + 1:
                return phrase.text(value[1:], self.describe)
        if isinstance(value, list):
            return "(" + ", ".join(self.describe(v) for v in value) + ")"
        return plain_text(value)
