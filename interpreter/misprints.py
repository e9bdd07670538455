"""Worked examples whose figure the rules do not give: `knapper lint`'s K844 findings.

A scenario that plays one of the book's worked examples may record the figure the book
prints beside the one the rules give: `expect final_vp[p] == 34 printed 32`. The scenario
itself checks the rules' figure (34); this module runs the scenario files that record a
printed figure and reports each one the game does not reach as a finding about the book,
at the example's section, linking the scenario that shows it and the ruleset's errata of
that section.

Only files with a `printed` expectation are run, so lint stays fast. Nothing here knows any
game.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from dsl.errors import CheckProblem, Diagnostic, KnapperError, Note, diag
from dsl.semantics.paths import shown_path
from dsl.semantics.resolve import Program
from dsl.syntax import ast
from dsl.tools.proofread import ScenarioFile, scenario_files
from dsl.tools.sources import SourceText
from interpreter.scenario import run_file


def misprint_findings(
    program: Program, text: SourceText | None, also: Iterable[Path] = ()
) -> tuple[list[Diagnostic], list[str]]:
    """The K844 findings of the scenario files beside the ruleset and in `also`, and a
    notice for each such file that cannot be run."""
    out: list[Diagnostic] = []
    notices: list[str] = []
    for found in scenario_files(program, _candidates(also)):
        if not _records_printed(found):
            continue
        shown = shown_path(found.path)
        try:
            results = run_file(shown)
        except (KnapperError, CheckProblem) as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            notices.append(f"{found.path}: its worked examples could not be run ({first})")
            continue
        for sc, result in zip(found.file.scenarios, results, strict=True):
            for m in result.misprints:
                errata = _errata(program, sc.cite)
                plays = f"`knapper scenario {shown}` plays the example"
                fixed = [n for n in errata if n.fix is not None]
                hint = (
                    f"the book should say {fixed[0].fix!r} (erratum {fixed[0].name}); {plays}"
                    if fixed
                    else f"{plays}; correct the book's figure, or the rules if the book is right"
                )
                out.append(
                    diag(
                        "K844",
                        f"the worked example {sc.name!r} prints {m.book} for {m.what}; "
                        f"the rules give {m.rules}",
                        m.span,
                        severity="warning",
                        cite=sc.cite,
                        notes=_book_place(text, sc.cite, m.book)
                        + tuple(Note(n.span, f"the ruleset's erratum {n.name}") for n in errata),
                        hint=hint,
                    )
                )
    return out, notices


def _candidates(also: Iterable[Path]) -> list[Path]:
    """The scenario files of `also` that may record a printed figure (a cheap look at the
    text, before any is parsed and its ruleset resolved)."""
    files = [f for p in also for f in (sorted(p.rglob("*.scenario")) if p.is_dir() else [p])]
    return [f for f in files if _PRINTED.search(f.read_text(encoding="utf-8", errors="replace"))]


_PRINTED = re.compile(r"\bprinted\b")


def _records_printed(found: ScenarioFile) -> bool:
    return any(
        isinstance(step, ast.ScenarioExpect) and step.printed is not None
        for sc in found.file.scenarios
        for step in sc.steps
    )


def _book_place(text: SourceText | None, cite: str | None, figure: str) -> tuple[Note, ...]:
    """The place of the example's section that prints the figure (else its heading)."""
    at = text.find_offset(cite, "", figure) if text is not None and cite else None
    if at is None:
        return ()
    assert text is not None
    return (Note(text.span_at(at), f"the example, §{cite}"),)


def _errata(program: Program, cite: str | None) -> list[ast.Note]:
    """The ruleset's errata of the example's section."""
    return [
        n
        for n in program.get(ast.Note)
        if n.kind == "erratum" and cite is not None and cite in (n.cite, *n.also)
    ]
