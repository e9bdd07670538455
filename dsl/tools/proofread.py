"""A resolved program -> a proofreading rulebook in Markdown (`knapper doc --proofread`).

For a rules editor who checks the ruleset against the printed book. Takes a checked
`Program`, the book's text when the user has a copy (a `SourceText`, dsl/tools/sources.py)
and the ruleset's scenario files, and returns one Markdown page: every section the ruleset
cites, in the book's order, with the passage of the book beside it, then everything that
cites the section: its rules, its tables (each row marked printed or reconstructed), its
other definitions, the notes on it and its worked examples (scenarios, in plain words);
then what cites no section, and an index from each section to what cites it.

The passages are read from the user's copy at run time; without one the page says where
each passage is to be read, so a page rendered without the text holds no words of the book.
Rules and tables are written as the rulebook writes them (dsl/tools/rulebook.py,
dsl/tools/rulebook_parts.py); nothing here knows any game.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import attrs

from dsl.errors import KnapperError, read_source
from dsl.resources import rulesets_root
from dsl.semantics.resolve import Program, find_ruleset, resolve_text
from dsl.syntax import ast
from dsl.syntax.fmt import args, expr, params, stmt
from dsl.syntax.parse import parse
from dsl.tools import rulebook_parts as parts
from dsl.tools.comments import comment_of
from dsl.tools.rulebook import RuleWalk, describe_rule, part_lead
from dsl.tools.rulebook_md import Page, code, link, plain, section
from dsl.tools.sources import (
    SourceText,
    locate,
    normalise,
    read_source_text,
    sources_dir,
    split_cite,
)

NO_SECTION = "(none)"  # the group of what cites no section
_QUOTE = 4000  # a passage longer than this is cut, with where it goes on in the book
# citations inside a rule, by construct: what the index calls them
_INNER = {
    ast.Choose: "decision",
    ast.Agree: "agreement",
    ast.Negotiate: "negotiation",
    ast.CallStmt: "call",
    ast.Spend: "cost",
    ast.EndGame: "end of the game",
    ast.Perform: "effect",
    ast.Trigger: "moment",
    ast.Quiet: "quiet point",
    ast.Proc: "rule it replaces",
    ast.Fn: "derived value it replaces",
}
_STRICT = {
    "shuffles": "nothing may be shuffled unscripted",
    "choices": "every decision, even one with a single option, is scripted",
}


@attrs.frozen
class ScenarioFile:
    """A file of scenarios for a ruleset: `harness` when they play on a ruleset built on it
    (one that adds the positions the examples start from)."""

    path: Path
    file: ast.File
    text: str
    harness: bool = False


@attrs.define
class _Group:
    """What cites one section of the book."""

    cite: str  # as first written
    decls: list = attrs.Factory(list)
    rows: list[tuple[str, str]] = attrs.Factory(list)  # (table or map, row or place)
    inner: list[tuple[str, ast.Node]] = attrs.Factory(list)  # (rule holding it, node)
    notes: list[ast.Note] = attrs.Factory(list)
    examples: list[tuple[int, ast.Scenario, ScenarioFile]] = attrs.Factory(list)
    whole: bool = False  # the ruleset's header cites it


# ------------------------------------------------------------------ inputs
def book_text(program: Program, sources: str | Path | None = None) -> SourceText | None:
    """The user's copy of the text the ruleset's `source` names, found as `knapper lint`
    finds it (`--sources`, KNAPPER_SOURCES, ../shared/rulebooks); None when there is none."""
    declared = program.one(ast.Source)
    if declared is None:
        return None
    found = locate(declared.text, sources_dir(sources), declared.span)
    return read_source_text(found, declared.text) if found is not None else None


def scenario_files(program: Program, also: Iterable[Path] = ()) -> list[ScenarioFile]:
    """The scenario files beside the ruleset and in `also` (files, or folders searched
    through) whose `scenarios for` names it, or names a harness of positions made for it:
    a ruleset that extends it through files that are not bundled rulesets themselves, or
    (for a ruleset, not a variant) one that imports only libraries the ruleset reads."""
    own = Path(program.path).resolve()
    libraries = {str(Path(p).resolve()) for p in program.sources}
    found: set[Path] = set(own.parent.glob("*.scenario"))
    for place in also:
        found |= set(place.rglob("*.scenario")) if place.is_dir() else {place}
    out = []
    for path in sorted(p.resolve() for p in found):
        read = _scenarios(str(path), path.stat().st_mtime_ns)
        if read is None:
            continue
        file, text, target = read
        if target == str(own):
            out.append(ScenarioFile(path, file, text))
            continue
        if _bundled(target):
            continue
        chain, reads = _built_from(target, Path(target).stat().st_mtime_ns)
        if str(own) in chain:
            made_for = not any(_bundled(p) for p in chain[1 : chain.index(str(own))])
        else:
            alone = not any(_bundled(p) for p in chain)
            made_for = alone and program.kind == "ruleset" and bool(reads) and reads <= libraries
        if made_for:
            out.append(ScenarioFile(path, file, text, harness=True))
    return out


@functools.lru_cache(maxsize=256)
def _scenarios(path: str, _mtime: int) -> tuple[ast.File, str, str] | None:
    """A scenario file, its text and the resolved ruleset it names; None when it is no
    scenario file or names nothing that resolves."""
    try:
        text = read_source(Path(path))
        file = parse(text, path)
        if file.kind != "scenarios":
            return None
        here = Path(path).parent
        target = find_ruleset(file.name, here, tree=here, span=file.span, what="scenarios for")
    except KnapperError:
        return None
    return (file, text, str(target.resolve())) if target is not None else None


@functools.lru_cache(maxsize=256)
def _built_from(path: str, _mtime: int) -> tuple[tuple[str, ...], frozenset[str]]:
    """The files a ruleset extends, itself first, and the bundled files it reads."""
    program, _diagnostics, sources = resolve_text(read_source(Path(path)), path)
    reads = frozenset(str(Path(p).resolve()) for p in sources if _bundled(p))
    if program is None:
        return (path,), reads
    return tuple(str(Path(p).resolve()) for p in program.lineage), reads


def _bundled(path: str) -> bool:
    return Path(path).resolve().is_relative_to(rulesets_root().resolve())


# ------------------------------------------------------------------ book order
def natural_key(cite: str) -> tuple:
    """A section id as a sort key that puts `A2` before `A10` and `6.2` before `6.10`."""
    chunks = re.split(r"(\d+)", normalise(cite))
    return tuple((0, int(c), "") if c.isdigit() else (1, 0, c) for c in chunks if c)


def book_order(cites: Iterable[str], text: SourceText | None) -> list[str]:
    """Citations in the order of the book: where the text places their sections, those it
    does not know after them; by a natural sort of the ids without a text."""

    def key(cite: str) -> tuple:
        found = text.find(split_cite(cite)[0]) if text is not None else None
        return (0, found.start, natural_key(cite)) if found else (1, 0, natural_key(cite))

    return sorted(cites, key=key)


def _groups(program: Program, scenarios: list[ScenarioFile]) -> dict[str, _Group]:
    """What cites each section, by normalised citation (NO_SECTION: what cites none)."""
    groups: dict[str, _Group] = {}

    def group(cite: str | None) -> _Group:
        key = normalise(cite) if cite else NO_SECTION
        return groups.setdefault(key, _Group(cite or NO_SECTION))

    if program.cite:
        group(program.cite).whole = True
    for decl in program.decls.values():
        if isinstance(decl, ast.Note):
            for cite in [decl.cite, *decl.also] if decl.cite or decl.also else [None]:
                group(cite).notes.append(decl)
            continue
        if isinstance(decl, (ast.Import, ast.Title, ast.Source, ast.View)):
            continue
        group(getattr(decl, "cite", None)).decls.append(decl)
        for node, cite, owner in _inside(decl):
            if isinstance(node, (ast.Row, ast.MapNode, ast.MapEdge)):
                name = node.name if not isinstance(node, ast.MapEdge) else _edge(node)
                group(cite).rows.append((owner, name))
            else:
                group(cite).inner.append((owner, node))
    for found in scenarios:
        for sc in found.file.scenarios:
            group(sc.cite).examples.append((0, sc, found))
    return groups


def _inside(decl) -> Iterator[tuple[ast.Node, str, str]]:
    """The nodes inside a declaration that cite a section, with the section and the
    declaration's name."""
    owner = _name(decl)
    for node in ast.walk(decl):
        cite = getattr(node, "cite", None)
        if node is not decl and isinstance(cite, str):
            yield node, cite, owner


def _edge(edge: ast.MapEdge) -> str:
    return f"{edge.a}–{', '.join(edge.others)}"


# ------------------------------------------------------------------ the page
def render_proofread(
    program: Program, text: SourceText | None = None, scenarios: Iterable[ScenarioFile] = ()
) -> str:
    """The proofreading rulebook of `program`, with the passages of `text` when given."""
    scenarios = list(scenarios)
    page = Page()
    title = program.one(ast.Title)
    page.heading(1, f"Proofreading {title.text if title is not None else program.name}")
    options = " --sources DIR" if text is not None else ""
    beside = Path(program.path).resolve().parent
    if any(f.path.parent != beside for f in scenarios):
        options += " --scenarios PATH"
    page.add(
        f"*Generated by `knapper doc {program.name} --proofread{options}` from the ruleset; "
        "change the ruleset, not this page.*",
        "",
        "For checking the ruleset against the printed book: every section the ruleset cites, "
        "in the book's order, with its passage, then the rules, tables, definitions, notes "
        "and worked examples that cite it. The index at the end lists what cites each section.",
        "",
        _about_text(program, text),
        "",
    )
    groups = _groups(program, scenarios)
    walk = RuleWalk(program)
    walk.noted.update(g.cite for g in groups.values())  # notes stand under their section
    order = book_order([g.cite for k, g in groups.items() if k != NO_SECTION], text)
    shown = [groups[normalise(c)] for c in order] + [groups[k] for k in groups if k == NO_SECTION]
    number = 0
    for g in shown:  # the examples are numbered in the order of the page
        for i, (_n, sc, found) in enumerate(g.examples):
            number += 1
            g.examples[i] = (number, sc, found)
    for g in shown:
        _section(page, program, g, text, walk)
    _index(page, program, groups, order, text)
    return page.text()


def _about_text(program: Program, text: SourceText | None) -> str:
    declared = program.one(ast.Source)
    if text is not None:
        return (
            f"The passages are quoted from your copy of {code(text.name)}, read when this page "
            "was made; Knapper ships no text of the book."
        )
    if declared is None:
        return "The ruleset names no source text: read each section's passage in the book."
    return (
        f"The book's text is not part of this page: read each section's passage in your copy "
        f"of {code(declared.text)}, or render the page with "
        f"`knapper doc {program.name} --proofread --sources DIR` (the folder holding it) to "
        "have each passage quoted beside its rules."
    )


def _section(page: Page, program: Program, g: _Group, text: SourceText | None, walk) -> None:
    if g.cite == NO_SECTION:
        page.heading(2, "Citing no section", key=f"section:{NO_SECTION}")
        page.add("What the ruleset does not tie to a section of the book.", "")
    else:
        found = text.find(split_cite(g.cite)[0]) if text is not None else None
        titled = found is not None and normalise(found.title) != normalise(g.cite)
        shown = section(g.cite) + (f" {found.title}" if titled and found else "")
        page.heading(2, shown, key=f"section:{normalise(g.cite)}")
        _passage(page, g.cite, text, program)
    if g.whole:
        page.add(f"The ruleset as a whole cites {section(g.cite)}.", "")
    for decl in g.decls:
        if isinstance(decl, ast.Setup):
            page.heading(3, "Setting up", key="part:setup")
            part_lead(page, program, walk, decl, "The setup")
        elif isinstance(decl, ast.Round):
            page.heading(3, "Playing a round", key="part:round")
            part_lead(page, program, walk, decl, f"A round, played at most {decl.max} times")
        elif isinstance(decl, ast.Proc):
            describe_rule(page, program, decl, walk, 3)
    for decl in g.decls:
        if isinstance(decl, ast.Table):
            parts.component_table(page, decl, program, provenance=True)
        elif isinstance(decl, ast.Map):
            parts.component_map(page, decl, program)
    also = [_definition(d, program) for d in g.decls if not _has_heading(d)]
    also += _elsewhere(g, program)
    also += [
        f"{_inner(n)} in {_owner(o, program)}{_what(n)}" for o, n in _inner_elsewhere(g, program)
    ]
    if also:
        page.add(f"Also citing {_here(g)}:", "", *(f"- {line}" for line in also), "")
    if g.notes:
        page.add(f"Notes on {_here(g)}:", "", *(f"- {parts.note_line(n)}" for n in g.notes), "")
    for number, sc, file in g.examples:
        _example(page, number, sc, file, program)


def _here(g: _Group) -> str:
    return "no section" if g.cite == NO_SECTION else section(g.cite)


def _passage(page: Page, cite: str, text: SourceText | None, program: Program) -> None:
    """The book's words at `cite`, quoted from the user's copy; or where to read them."""
    if text is None:
        declared = program.one(ast.Source)
        copy = f" ({code(declared.text)})" if declared is not None else ""
        page.add(f"*The passage of {section(cite)} is read from your copy of the book{copy}.*", "")
        return
    found = [text.find(part) for part in split_cite(cite)]
    if None in found:
        page.add(f"*{section(cite)} names no section of {code(text.name)} (see `knapper lint`).*")
        page.add("")
        return
    first, last = found[0], found[-1]
    assert first is not None and last is not None
    start, end = first.start, max(first.end, last.end)
    words = text.text[start:end]
    cut = len(words) > _QUOTE
    if cut:
        words = words[:_QUOTE].rsplit(" ", 1)[0] + " …"
    lines = [" ".join(line.split()) for line in words.splitlines() if line.strip()]
    at, to = text.line_of(start), text.line_of(max(start, end - 1))
    where = f"line {at}" if at == to else f"lines {at}–{to}"
    page.add(f"*{code(text.name)}, {where}" + (", cut short here" if cut else "") + ":*", "")
    page.add(*"\n>\n".join(f"> {_quoted(line)}" for line in lines).split("\n"), "")


def _quoted(line: str) -> str:
    """A line of the book as Markdown shows it: markup escaped, and a line that opens with a
    list number or marker kept as the book prints it."""
    return re.sub(r"^(\d+)\.(\s)|^([#+-])", lambda m: _escape_lead(m), plain(line))


def _escape_lead(m: re.Match) -> str:
    return f"{m.group(1)}\\.{m.group(2)}" if m.group(1) else f"\\{m.group(3)}"


def _has_heading(decl) -> bool:
    return isinstance(decl, (ast.Setup, ast.Round, ast.Proc, ast.Table, ast.Map))


def _definition(d, program: Program) -> str:
    """A definition without a heading of its own, in one line."""
    if isinstance(d, ast.Param):
        line = f"parameter {code(d.name)} = {parts.value(d.value)}"
    elif isinstance(d, (ast.Var, ast.Zone, ast.Pool)):
        line = f"state {code(d.name)}"
    elif isinstance(d, ast.Enum):
        line = f"enumeration {code(d.name)}: " + ", ".join(code(v) for v in d.values)
    elif isinstance(d, ast.Record):
        line = f"{d.keyword} {code(d.name)}"
    elif isinstance(d, ast.Fn):
        line = f"derived value {code(f'{d.name}({params(d.params)})')}"
    elif isinstance(d, ast.Outcome):
        line = f"the {d.kind} of a player {code(d.param)}: {code(expr(d.value))}"
    elif isinstance(d, ast.Players):
        line = "the players: " + (str(d.lo) if d.lo == d.hi else f"{d.lo} to {d.hi}")
    elif isinstance(d, ast.Bound):
        line = f"the length: at most {d.decisions} decisions"
    else:  # invariants, moments, and any declaration with a name
        line = f"{plain(type(d).__name__.lower())} {code(getattr(d, 'name', '?'))}"
    about = parts.about(d, program)
    return line + (f" — {about}" if about else "")


def _elsewhere(g: _Group, program: Program) -> list[str]:
    """The rows and places citing this section in tables and maps of other sections."""
    by_owner: dict[str, list[str]] = {}
    for owner, name in g.rows:
        decl = program.decls.get(owner)
        if not _cites(decl, g.cite):
            by_owner.setdefault(owner, []).append(name)
    return [f"in {link(o)}: " + ", ".join(code(n) for n in names) for o, names in by_owner.items()]


def _inner_elsewhere(g: _Group, program: Program) -> list[tuple[str, ast.Node]]:
    """The citations of this section inside rules that stand under another section (a
    rule's own description lists those of its own section)."""
    return [(o, n) for o, n in g.inner if not _cites(program.decls.get(o), g.cite)]


def _cites(decl, cite: str) -> bool:
    own = getattr(decl, "cite", None)
    return normalise(own) == normalise(cite) if own else cite == NO_SECTION


def _inner(n: ast.Node) -> str:
    return _INNER.get(type(n), "citation")


def _owner(name: str, program: Program) -> str:
    """A link to a declaration with a heading of its own; the name of any other."""
    decl = program.decls.get(name)
    if isinstance(decl, (ast.Setup, ast.Round)):
        return link(f"part:{name}", f"the {name}")
    return link(name) if _has_heading(decl) else code(name)


def _what(n: ast.Node) -> str:
    if isinstance(n, ast.CallStmt):
        return f": {code(n.name)}"
    prompt = getattr(n, "prompt", None)
    return f": *{plain(prompt)}*" if prompt else ""


# ------------------------------------------------------------------ worked examples
def _example(page: Page, n: int, sc: ast.Scenario, found: ScenarioFile, program: Program) -> None:
    page.heading(3, f"Example {n}: {sc.name}", key=f"example:{n}")
    on = (
        f", played on {code(found.file.name)} (made from this ruleset's rules, to start from "
        "the examples' positions)"
        if found.harness
        else ""
    )
    page.add(f"*Scenario from {code(found.path.name)}{on}.*", "")
    said = comment_of(sc, attrs.evolve(program, sources={str(found.path): found.text}))
    if said:
        page.add(plain(said), "")
    players = f"{sc.players} players" if sc.players is not None else "The fewest players allowed"
    setup = f"**Setup.** {players}, seed {sc.seed or 0}. "
    if sc.position is None:
        page.add(setup + "The ruleset's own setup is played.", "")
    else:
        page.add(setup + "The game starts from this position, in place of the setup:", "")
        page.add(*(f"- {code(stmt(s, 0))}" for s in sc.position.stmts), "")
    if sc.run is not None:
        call = code(f"{sc.run.name}({args(sc.run.args)})")
        page.add(f"**Play.** Only {call} is played, once, in place of the rounds.", "")
    strict = [_STRICT[p] for p in sc.strict if p in _STRICT and p != "dice"]
    if sc.dice:
        only = "; no other die may be rolled" if "dice" in sc.strict else ""
        dice = ", ".join(str(d) for d in sc.dice)
        page.add(f"**Dice.** The dice come up {dice}, in this order{only}.", "")
    elif "dice" in sc.strict:
        page.add("**Dice.** No die may be rolled.", "")
    if strict:
        page.add("**Strictly:** " + "; ".join(strict) + ".", "")
    steps = [_step(s) for s in sc.steps]
    if steps:
        page.add("**Moves and what must follow.**", "")
        page.add(*(f"{i}. {s}" for i, s in enumerate(steps, start=1)), "")


def _step(s: ast.ScenarioStep) -> str:
    if isinstance(s, ast.ScenarioChoices):
        chosen = ", then ".join(code(expr(v)) for v in s.values)
        return f"The player to decide chooses {chosen}."
    value = code(expr(s.value))
    if s.kind == "holds":
        said = f"{plain(s.label)}: " if s.label else ""
        return f"Expected: {said}{value}."
    if s.kind == "offered":
        return f"{value} is offered at the decision now pending."
    if s.kind == "not offered":
        return f"{value} is not offered at the decision now pending."
    return f"Choosing {value} is refused as illegal, and changes nothing."


# ------------------------------------------------------------------ the index
def _index(page: Page, program: Program, groups: dict[str, _Group], order: list[str], text) -> None:
    page.heading(2, "Cross-reference index")
    page.add("For each section of the book, what cites it.", "")
    keys = [normalise(c) for c in order] + ([NO_SECTION] if NO_SECTION in groups else [])
    for key in keys:
        g = groups[key]
        kinds = []
        rules = [_owner(_name(d), program) for d in g.decls if _has_heading(d) and not _is_data(d)]
        data = [link(d.name) for d in g.decls if _is_data(d)]
        rows: dict[str, list[str]] = {}
        for owner, name in g.rows:
            rows.setdefault(owner, []).append(code(name))
        others = [code(_name(d)) for d in g.decls if not _has_heading(d)]
        others += [f"{_inner(n)} in {_owner(o, program)}" for o, n in _inner_elsewhere(g, program)]
        for label, items in (
            ("rules", rules),
            ("tables and maps", data),
            ("rows", [f"{link(o)} ({', '.join(r)})" for o, r in rows.items()]),
            ("notes", [f"{n.kind} {code(n.name)}" for n in g.notes]),
            ("examples", [link(f"example:{n}", str(n)) for n, _sc, _f in g.examples]),
            ("also", others + (["the ruleset as a whole"] if g.whole else [])),
        ):
            if items:
                kinds.append(f"{label}: " + ", ".join(items))
        page.add(f"- {link(f'section:{key}', _here(g))}: " + "; ".join(kinds))
    page.add("")
    uncited = _uncited(text, groups)
    if uncited:
        page.add(
            f"Sections of {code(text.name)} that nothing cites: "
            + ", ".join(section(s) for s in uncited)
            + ".",
            "",
        )


def _name(decl) -> str:
    if isinstance(decl, (ast.Setup, ast.Round)):
        return "setup" if isinstance(decl, ast.Setup) else "round"
    if isinstance(decl, ast.Outcome):
        return decl.kind
    return getattr(decl, "name", type(decl).__name__.lower())


def _is_data(decl) -> bool:
    return isinstance(decl, (ast.Table, ast.Map))


def _uncited(text: SourceText | None, groups: dict[str, _Group]) -> list[str]:
    """The sections of a book of lettered or numbered sections that nothing cites, nor a
    range, nor a subsection (a heading over cited subsections is not a gap)."""
    if text is None or text.style == "upper":
        return []
    spans = []
    for g in groups.values():
        found = [text.find(p) for p in split_cite(g.cite)] if g.cite != NO_SECTION else []
        if found and None not in found:
            spans.append((found[0].start, found[-1].start))  # type: ignore[union-attr]
    covered = {s.id for s in text.sections.values() if any(a <= s.start <= b for a, b in spans)}
    for sid in list(covered):  # every heading above a cited section
        at = text.sections[sid].parent
        while at is not None and at in text.sections:
            covered.add(at)
            at = text.sections[at].parent
    in_order = sorted(text.sections.values(), key=lambda s: s.start)
    return [s.id for s in in_order if s.id not in covered]
