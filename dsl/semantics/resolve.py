"""Stage 2: files -> one flat program.

Follows `import` (libraries, inside the ruleset tree only: see dsl/semantics/paths.py),
applies `variant ... extends ...` overlays (`set`, `replace`, `add`, `remove`, row edits)
and returns a `Program`: every declaration by name, in order, with where each came from.
Problems are collected as diagnostics; `ResolveResult.diagnostics` is empty when all went well.
"""

from __future__ import annotations

import functools
from pathlib import Path

import attrs

from dsl.errors import Diagnostic, KnapperError, Note, Span, diag, did_you_mean, read_source
from dsl.resources import rulesets_root
from dsl.semantics.paths import confine, shown_path
from dsl.syntax import ast
from dsl.syntax.fmt import params as fmt_params
from dsl.syntax.header import Header, read_header
from dsl.syntax.parse import parse
from dsl.syntax.visitor import Transformer, Visitor, on

OVERLAYS = (ast.SetParam, ast.Replace, ast.AddDecl, ast.AddRow, ast.RemoveDecl, ast.RemoveRow)


@attrs.frozen
class Program:
    name: str
    path: str
    decls: dict[str, ast.Decl]
    origin: dict[str, Span]  # the overlay or file that last defined each declaration
    sources: dict[str, str]
    extends: tuple[str, ...] = ()  # names of the rulesets this one builds on, nearest first
    header: Span | None = None  # where the file's header stands
    kind: str = "ruleset"  # ruleset | variant | library
    # the declarations changed by an overlay anywhere in the chain, and where
    overlaid: dict[str, Span] = attrs.Factory(dict)
    combines: tuple[str, ...] = ()  # variants whose overlays this one combines
    lineage: tuple[str, ...] = ()  # resolved paths of this file and the files it extends
    cite: str | None = None  # the section the file's header cites
    # the base's declarations an overlay replaced or removed, as the base had them (lint
    # does not call what only they used unused: the variant left it behind on purpose)
    replaced: dict[str, ast.Decl] = attrs.Factory(dict)

    def get(self, cls):
        return [d for d in self.decls.values() if isinstance(d, cls)]

    def one(self, cls):
        found = self.get(cls)
        return found[0] if found else None


@attrs.define
class _Loader:
    tree: Path  # the folder of the file asked for: every file it names must lie in it
    sources: dict[str, str] = attrs.Factory(dict)
    diagnostics: list[Diagnostic] = attrs.Factory(list)
    imported: set[str] = attrs.Factory(set)  # libraries already merged, by resolved path

    def read(self, path: Path, span: Span | None) -> ast.File | None:
        key = str(path)
        try:
            text = self.sources.get(key) or read_source(path, span)
            self.sources[key] = text
            return parse(text, key)
        except KnapperError as err:
            self.diagnostics += err.diagnostics
            return None


def resolve_text(
    text: str, path: str, tree: Path | None = None
) -> tuple[Program | None, list[Diagnostic], dict[str, str]]:
    """The program of `text`, written as if at `path`. The files it names must lie in `tree`
    (the folder of `path` by default) or the bundled rulesets."""
    loader = _Loader(Path(path).parent if tree is None else tree, sources={path: text})
    try:
        file = parse(text, path)
    except KnapperError as err:
        return None, err.diagnostics, loader.sources
    program = _resolve_file(file, Path(path), loader, chain=())
    return program, loader.diagnostics, loader.sources


def resolve_with_libraries(
    base: Path, imports: tuple[ast.Import, ...], beside: Path
) -> tuple[Program | None, list[Diagnostic], dict[str, str]]:
    """The ruleset at `base`, with the libraries `imports` names merged in: files beside
    `beside` (a scenario file, whose helper procedures need not be copied into a variant)."""
    loader = _Loader(beside.parent)
    file = loader.read(base, None)
    program = None if file is None else _resolve_file(file, base, loader, chain=())
    if program is None or not imports:
        return program, loader.diagnostics, loader.sources
    decls, origin = dict(program.decls), dict(program.origin)
    for item in imports:
        _import(item, beside, loader, decls, origin, (str(beside.resolve()),))
    return attrs.evolve(program, decls=decls, origin=origin), loader.diagnostics, loader.sources


def _resolve_file(
    file: ast.File, path: Path, loader: _Loader, chain: tuple[str, ...]
) -> Program | None:
    if file.kind == "scenarios":
        loader.diagnostics.append(
            diag(
                "K120",
                "a scenario file is run with `knapper scenario`, not compiled as a ruleset",
                file.span,
            )
        )
        return None
    decls: dict[str, ast.Decl] = {}
    origin: dict[str, Span] = {}
    extends: tuple[str, ...] = ()
    base: Program | None = None
    if file.kind == "variant":
        try:
            base_path = _named(file.extends or "", path, loader, file.span, "extends")
        except KnapperError as err:
            loader.diagnostics += err.diagnostics
            return None
        if base_path is None or str(base_path) in chain:
            problem = "does not exist" if base_path is None else "extends itself"
            loader.diagnostics.append(
                diag(
                    "K104",
                    f"the base ruleset {file.extends!r} {problem}",
                    file.span,
                    hint=did_you_mean(file.extends or "", bundled_names()) or "run `knapper list`",
                )
            )
            return None
        base_file = loader.read(base_path, file.span)
        if base_file is None:
            return None
        base = _resolve_file(base_file, base_path, loader, chain + (str(path),))
        if base is None:
            return None
        decls, origin = dict(base.decls), dict(base.origin)
        extends = (base.name,) + base.extends
        overlaid = dict(base.overlaid)
        # what this file changes itself settles a conflict between the variants it combines
        settled = {_overlay_key(i) for i in file.items if isinstance(i, OVERLAYS)}
        for other in file.combines:
            _combine(other, file, path, base, decls, origin, overlaid, loader, chain, settled)
        lineage = (str(path.resolve()),) + base.lineage
    else:
        overlaid = {}
        lineage = (str(path.resolve()),)
    own_kind = "base" if file.kind != "variant" else "overlay"
    touched: dict[str, Span] = {}  # what this file's overlays changed, and where
    for item in file.items:
        if isinstance(item, ast.Import):
            _import(item, path, loader, decls, origin, chain + (str(path.resolve()),))
        elif isinstance(item, OVERLAYS):
            if own_kind == "base":
                loader.diagnostics.append(
                    diag(
                        "K112",
                        "overlays (`set`, `replace`, `add`, `remove`) belong in a variant file",
                        item.span,
                    )
                )
                continue
            key = _overlay_key(item)
            if key in touched:
                loader.diagnostics.append(
                    diag(
                        "K114",
                        f"{key!r} is changed twice in this variant",
                        item.span,
                        notes=(Note(touched[key], "first changed here"),),
                        hint="keep one change; the second would silently win",
                    )
                )
                continue
            touched[key] = item.span
            overlaid[key] = item.span
            _overlay(item, decls, origin, loader.diagnostics)
        else:
            _define(item, decls, origin, loader.diagnostics, in_variant=own_kind == "overlay")
    replaced: dict[str, ast.Decl] = {}
    if file.kind == "variant" and base is not None:
        replaced = dict(base.replaced) | {
            key: old for key, old in base.decls.items() if decls.get(key) is not old
        }
    return Program(
        file.name,
        str(path),
        decls,
        origin,
        loader.sources,
        extends,
        file.span,
        file.kind,
        overlaid,
        file.combines,
        lineage,
        file.cite,
        replaced=replaced,
    )


def _combine(name, file, path, base, decls, origin, overlaid, loader, chain, settled) -> None:
    """Apply the overlays of variant `name` on top of `base`: every variant file from `name`
    down to the first one built on a ruleset `base` already contains. A declaration that
    two combined variants both change is a conflict (K115), unless the combining variant
    changes it too, which settles it."""
    parts: list[tuple[ast.File, Path]] = []
    try:
        at_path = _named(name, path, loader, file.span, "the combined variant")
    except KnapperError as err:
        loader.diagnostics += err.diagnostics
        return
    while True:
        at = loader.read(at_path, file.span) if at_path is not None else None
        if at_path is None or at is None or at.kind != "variant" or str(at_path) in chain:
            what = f"it is a {at.kind}, not a variant" if at is not None else "it does not exist"
            loader.diagnostics.append(
                diag(
                    "K116",
                    f"{name!r} cannot be combined: {what}",
                    file.span,
                    hint=did_you_mean(name, bundled_names()) or "name a variant of the same game",
                )
            )
            return
        parts.append((at, at_path))
        try:
            at_path = _named(at.extends or "", at_path, loader, at.span, "extends")
        except KnapperError as err:
            loader.diagnostics += err.diagnostics
            return
        if at_path is not None and str(at_path.resolve()) in base.lineage:
            break
        if at_path is None or len(parts) > 16:
            loader.diagnostics.append(
                diag(
                    "K116",
                    f"{name!r} cannot be combined: it does not build on {base.name!r}",
                    file.span,
                    hint="combine variants of the same base ruleset",
                )
            )
            return
    for part, part_path in reversed(parts):
        for item in part.items:
            if isinstance(item, ast.Import):
                _import(item, part_path, loader, decls, origin, chain + (str(path),))
            elif isinstance(item, OVERLAYS):
                key = _overlay_key(item)
                if key in overlaid and key not in settled and not _same_change(item, decls):
                    loader.diagnostics.append(
                        diag(
                            "K115",
                            f"{key!r} is changed by two of the variants combined here "
                            f"({name!r} among them)",
                            file.span,
                            notes=(
                                Note(overlaid[key], "changed here"),
                                Note(item.span, f"and here, in {part.name!r}"),
                            ),
                            hint=f"settle it: change {key!r} in {file.name!r} itself",
                        )
                    )
                    continue
                overlaid[key] = item.span
                _overlay(item, decls, origin, loader.diagnostics)
            else:
                _define(item, decls, origin, loader.diagnostics, in_variant=True)


def _same_change(item, decls) -> bool:
    """Whether an overlay would leave its definition as it already is (two combined variants
    that make the same change do not conflict)."""
    if isinstance(item, ast.SetParam):
        old = decls.get(item.name)
        return isinstance(old, ast.Param) and old.value == item.value
    if isinstance(item, ast.Replace):
        return decls.get(ast.decl_key(item.decl)) == item.decl
    return False


def _overlay_key(item) -> str:
    if isinstance(item, (ast.Replace, ast.AddDecl)):
        return ast.decl_key(item.decl)
    if isinstance(item, (ast.AddRow, ast.RemoveRow)):
        row = item.row.name if isinstance(item, ast.AddRow) else item.row
        return f"{item.table}.{row}"
    return item.name


def _define(decl: ast.Decl, decls, origin, out: list[Diagnostic], in_variant: bool) -> None:
    key = ast.decl_key(decl)
    joined = _join_effect(decls.get(key), decl, out)
    if joined is not None:
        decls[key] = joined
        origin[key] = decl.span
        return
    if key in decls:
        if in_variant:
            out.append(
                diag(
                    "K107",
                    f"{key!r} is already defined by the base ruleset",
                    decl.span,
                    notes=(Note(origin[key], "defined here"),),
                    hint="use `replace` to change it, or pick another name",
                )
            )
        else:
            out.append(
                diag(
                    "K109",
                    f"{key!r} is defined twice",
                    decl.span,
                    notes=(Note(origin[key], "first defined here"),),
                )
            )
        return
    decls[key] = decl
    origin[key] = decl.span


def _join_effect(old, new, out: list[Diagnostic]):
    """An effect (or a condition) declared by its words only (`effect draw(n: int) "draw
    {n}"`, in a data file) and the same effect with its rules (in a file that imports it)
    are one: the rules, with the words' text and citation where the rules give none. None
    when the two are not such a pair."""
    pair = (old, new)
    if not all(isinstance(d, (ast.Proc, ast.Fn)) and d.kind in ast.TAGGED_KINDS for d in pair):
        return None
    if old.kind != new.kind:
        return None
    words = [d for d in pair if d.signature_only]
    rules = [d for d in pair if not d.signature_only]
    if len(words) != 1 or len(rules) != 1:
        return None
    said, done = words[0], rules[0]
    if said.params != done.params or getattr(said, "at", None) != getattr(done, "at", None):
        out.append(
            diag(
                "K117",
                f"the rules of {done.kind} {done.name!r} take ({fmt_params(done.params)})"
                f"{_at(done)}, but its words say ({fmt_params(said.params)}){_at(said)}",
                done.span,
                notes=(Note(said.span, "the words are declared here"),),
                hint="give both the same parameters, in the same order",
            )
        )
    return attrs.evolve(
        done,
        template=done.template if done.template is not None else said.template,
        cite=done.cite or said.cite,
    )


def _at(d) -> str:
    at = getattr(d, "at", None)
    return f" at {at}" if at else ""


def _named(name: str, path: Path, loader: _Loader, span: Span, what: str) -> Path | None:
    """The ruleset that the file at `path` names by `name`, confined to the loader's tree."""
    return find_ruleset(name, relative_to=path.parent, tree=loader.tree, span=span, what=what)


def _import(item: ast.Import, path: Path, loader: _Loader, decls, origin, chain) -> None:
    try:
        target = confine(
            item.path,
            path.parent,
            loader.tree,
            item.span,
            "import",
            hint="imports may only name files beside the ruleset or inside the bundled rulesets",
        )
    except KnapperError as err:
        loader.diagnostics += err.diagnostics
        return
    key = str(target.resolve())
    if key in chain:
        loader.diagnostics.append(diag("K103", f"import cycle through {item.path!r}", item.span))
        return
    if key in loader.imported:
        return  # a library imported twice (by two libraries, say) is merged once
    loader.imported.add(key)
    file = loader.read(target, item.span)
    if file is None:
        return
    if file.kind != "library":
        loader.diagnostics.append(
            diag(
                "K113", f"{item.path!r} is a {file.kind}, only a library can be imported", item.span
            )
        )
        return
    for sub in file.items:
        if isinstance(sub, ast.Import):
            _import(sub, target, loader, decls, origin, chain + (key,))
        elif isinstance(sub, OVERLAYS):
            loader.diagnostics.append(
                diag("K112", "overlays belong in a variant file, not in a library", sub.span)
            )
        else:
            _define(sub, decls, origin, loader.diagnostics, in_variant=False)


def _overlay(item, decls, origin, out: list[Diagnostic]) -> None:
    _Overlay(decls, origin, out).visit(item)


class _Overlay(Visitor):
    """Applies one overlay to the declarations (by key) and where each was last defined."""

    domain = ast.OVERLAYS

    def __init__(self, decls: dict[str, ast.Decl], origin: dict[str, Span], out: list):
        self.decls, self.origin, self.out = decls, origin, out

    @on(ast.SetParam)
    def set_param(self, item: ast.SetParam) -> None:
        decls = self.decls
        old = decls.get(item.name)
        if not isinstance(old, ast.Param):
            self.out.append(
                _unknown(
                    "K105",
                    "parameter",
                    item.name,
                    item.span,
                    [k for k, d in decls.items() if isinstance(d, ast.Param)],
                )
            )
            return
        decls[item.name] = attrs.evolve(old, value=item.value, cite=item.cite or old.cite)
        self.origin[item.name] = item.span

    @on(ast.Replace)
    def replace(self, item: ast.Replace) -> None:
        decls, origin = self.decls, self.origin
        key = ast.decl_key(item.decl)
        old = decls.get(key)
        if old is None:
            self.out.append(_unknown("K106", "definition", key, item.span, list(decls)))
        elif type(old) is not type(item.decl):
            self.out.append(
                diag(
                    "K110",
                    f"{key!r} is a {_kind(old)}, it cannot be replaced by a {_kind(item.decl)}",
                    item.span,
                    notes=(Note(origin[key], "defined here"),),
                )
            )
        else:
            new = item.decl
            if (
                isinstance(new, (ast.Proc, ast.Fn))
                and isinstance(old, (ast.Proc, ast.Fn))
                and "base" not in decls
                and _calls(new, "base")
            ):
                # `base(...)` in a replacing rule calls the rule it replaces: that rule is
                # kept as the new one's `base`, and the calls are marked as `base` calls
                new = attrs.evolve(_MarkBaseCalls().visit(new), base=old)
            decls[key] = new
            origin[key] = item.span

    @on(ast.AddDecl)
    def add(self, item: ast.AddDecl) -> None:
        _define(item.decl, self.decls, self.origin, self.out, in_variant=True)

    @on(ast.RemoveDecl)
    def remove(self, item: ast.RemoveDecl) -> None:
        if item.name not in self.decls:
            self.out.append(_unknown("K108", "definition", item.name, item.span, list(self.decls)))
        else:
            del self.decls[item.name]
            self.origin[item.name] = item.span

    @on(ast.AddRow, ast.RemoveRow)
    def rows(self, item: ast.AddRow | ast.RemoveRow) -> None:
        decls = self.decls
        table = decls.get(item.table)
        if not isinstance(table, ast.Table):
            self.out.append(
                _unknown(
                    "K111",
                    "table",
                    item.table,
                    item.span,
                    [k for k, d in decls.items() if isinstance(d, ast.Table)],
                )
            )
            return
        rows = {r.name: r for r in table.rows}
        if isinstance(item, ast.AddRow):
            if item.row.name in rows:
                self.out.append(_row_taken(item, rows[item.row.name], decls))
                return
            new_rows = table.rows + (item.row,)
        else:
            if item.row not in rows:
                self.out.append(
                    _unknown("K108", f"row of {item.table!r}", item.row, item.span, list(rows))
                )
                return
            new_rows = tuple(r for r in table.rows if r.name != item.row)
        decls[item.table] = attrs.evolve(table, rows=new_rows)
        self.origin[item.table] = item.span


def _calls(node, name: str) -> bool:
    """Whether `node` calls `name` anywhere (as a statement or in an expression)."""
    return any(
        isinstance(n, (ast.CallStmt, ast.CallExpr)) and n.name == name for n in ast.walk(node)
    )


class _MarkBaseCalls(Transformer):
    """A tree with every call of `base` marked as a call of the rule being replaced."""

    @on(ast.CallStmt, ast.CallExpr)
    def call(self, node: ast.CallStmt | ast.CallExpr):
        node = self.rebuild(node)
        return attrs.evolve(node, base=True) if node.name == "base" else node


def _kind(decl) -> str:
    return type(decl).__name__.lower()


def _row_taken(item: ast.AddRow, old: ast.Row, decls: dict[str, ast.Decl]) -> Diagnostic:
    """K107: `add row` with an id the table already has. The same title says the author
    means that row (to change it, remove it first); otherwise the new row needs its own id."""
    name, table = item.row.name, item.table
    note = Note(old.span, f"the row {name!r} of {table!r} is here")
    if item.row.title is not None and item.row.title == old.title:
        hint = f"to change this row, remove it first (`remove row {table} {name}`), then add it"
    else:
        taken = set(decls) | {
            r.name for d in decls.values() if isinstance(d, ast.Table) for r in d.rows
        }
        n = 2
        while f"{name}_{n}" in taken:
            n += 1
        hint = f"row ids are unique: give the new row an id of its own, such as `{name}_{n}`"
    message = f"table {table!r} already has a row {name!r}"
    return diag("K107", message, item.span, notes=(note,), hint=hint)


def _unknown(code: str, what: str, name: str, span: Span, candidates: list[str]) -> Diagnostic:
    verb = "remove" if code == "K108" else "change"
    return diag(
        code,
        f"there is no {what} named {name!r} to {verb}",
        span,
        hint=did_you_mean(name, candidates),
    )


# ------------------------------------------------------------------ bundled rulesets
@functools.cache
def _bundled_index() -> dict[str, Path]:
    index: dict[str, Path] = {}
    for path in sorted(rulesets_root().rglob("*.knap")):
        head = _header_name(path)
        if head is not None:
            index.setdefault(head, path)
    return index


def _header_name(path: Path) -> str | None:
    head = read_header(path.read_text(encoding="utf-8"))
    return head.name if head is not None and head.kind in ("ruleset", "variant") else None


def inherited_header(path: Path, _chain: tuple[str, ...] = ()) -> Header | None:
    """The header of the ruleset at `path` with the title and players it inherits, read
    without compiling: those of its base, then those that each variant it combines declares
    itself, then its own. None when the file or a base cannot be read this way."""
    try:
        head = read_header(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    if head is None or str(path.resolve()) in _chain:
        return None
    title, players = None, None
    for i, name in enumerate(head.extends):
        base = find_ruleset(name, relative_to=path.parent)
        if base is None:
            return None
        if i == 0:
            got = inherited_header(base, (*_chain, str(path.resolve())))
        else:  # a combined variant brings its overlays only
            got = read_header(base.read_text(encoding="utf-8"))
        if got is None:
            return None
        title, players = got.title or title, got.players or players
    return attrs.evolve(head, title=head.title or title, players=head.players or players)


def bundled_names() -> list[str]:
    return sorted(_bundled_index())


def find_ruleset(
    name_or_path: str,
    relative_to: Path | None = None,
    tree: Path | None = None,
    span: Span | None = None,
    what: str = "the ruleset",
) -> Path | None:
    """A bundled ruleset by name, or a path to a `.knap` file; None when there is none.

    With `tree`, the name was written inside a file in the folder `relative_to` (a variant's
    `extends`, a scenario file's header, a save's `ruleset`): a path is taken relative to
    that folder only, and must lie in `tree` or the bundled rulesets (K102 at `span`)."""
    index = _bundled_index()
    if name_or_path in index:
        return shown_path(index[name_or_path])
    if tree is not None:
        here = relative_to if relative_to is not None else tree
        at = span if span is not None else Span(str(here), 0, 0, 0, 0)
        cand = confine(name_or_path, here, tree, at, what)
        return cand if cand.suffix == ".knap" and cand.is_file() else None
    candidates = [Path(name_or_path)]
    if relative_to is not None:
        candidates.insert(0, relative_to / name_or_path)
    for cand in candidates:
        if cand.suffix == ".knap" and cand.is_file():
            return cand
    return None


def suggest_ruleset(name: str) -> str | None:
    return did_you_mean(name, bundled_names())
