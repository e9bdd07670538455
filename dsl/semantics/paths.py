"""Stage 2, finding files: where a name written inside a file may lead.

A ruleset names other files (`import`, `extends`, the variants it combines), a scenario file
names its ruleset (`scenarios for`), a save file names the ruleset it was played with, and a
ruleset names its rulebook text (`source`). Each such name is untrusted: it comes from a file,
not from the person at the command line. `confine` is the one rule they all pass through: a
named file must lie inside the tree it is confined to (the folder of the file that was asked
for, or the rulebook folder), or inside the bundled rulesets; anything else is K102 at the
place of the name, and the file is not read, nor is its existence revealed.

A name the person typed (`knapper check /any/where/x.knap`) is not confined:
`dsl.semantics.resolve.find_ruleset` confines a name only when it is given the `tree`.
"""

from __future__ import annotations

from pathlib import Path

from dsl.errors import KnapperError, Span, diag
from dsl.resources import rulesets_root


def inside(path: Path, tree: Path, bundled: bool = True) -> bool:
    """Whether `path` (links followed) lies in `tree`, or in the bundled rulesets."""
    real = path.resolve()
    roots = (tree, rulesets_root()) if bundled else (tree,)
    return any(real.is_relative_to(r.resolve()) for r in roots)


def confine(
    name: str,
    beside: Path,
    tree: Path,
    span: Span,
    what: str,
    hint: str = "name a file beside the ruleset, below it, or a bundled ruleset",
    bundled: bool = True,
) -> Path:
    """The file `name` names, relative to the folder `beside` of the file that names it;
    raises K102 at `span` when it lies outside `tree` (and outside the bundled rulesets,
    unless `bundled` is false). `what` says what named it (`import`, `extends`), for the
    message; the folder is not read before the check passes."""
    target = beside / name
    if not inside(target, tree, bundled):
        folder = "the ruleset's folder" if bundled else _shown(tree)
        raise KnapperError(diag("K102", f"{what} {name!r} leaves {folder}", span, hint=hint))
    return target


def shown_path(path: Path) -> Path:
    """A path as messages should show it: relative to the working directory when below it."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _shown(path: Path) -> str:
    """A folder as a hint shows it: relative to the working directory when below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(path)
