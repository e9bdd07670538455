"""`knapper doc NAME [--proofread] [-o FILE]`: a ruleset as a readable rulebook in Markdown.

Loads and checks the ruleset (a bundled name or a path), renders it with
`dsl.tools.rulebook.render_rulebook` (or, with `--proofread`, with
`dsl.tools.proofread.render_proofread`: the rules in book order beside the passages of the
user's copy of the book, found as `knapper lint` finds it) and prints the page or writes
it to FILE.
"""

from __future__ import annotations

from pathlib import Path

import click


def register(main: click.Group) -> None:
    """Add this module's commands to the `knapper` group."""
    main.add_command(doc)


@click.command()
@click.argument("ruleset")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), help="Write the rulebook to this file."
)
@click.option(
    "--proofread",
    is_flag=True,
    help="The proofreading rulebook: rules in book order beside the book's passages.",
)
@click.option(
    "--sources",
    type=click.Path(),
    help="Folder of rulebook texts (with --proofread; as for `knapper lint`).",
)
@click.option(
    "--scenarios",
    "scenarios",
    multiple=True,
    type=click.Path(exists=True),
    help="More scenario files or folders for the worked examples (with --proofread).",
)
def doc(
    ruleset: str,
    output: str | None,
    proofread: bool,
    sources: str | None,
    scenarios: tuple[str, ...],
) -> None:
    """Render RULESET (a bundled name or a path) as a rulebook in Markdown."""
    from dsl.errors import KnapperError
    from dsl.tools.rulebook import base_program, render_rulebook
    from interpreter.frontends.cli import _program_or_exit

    if not proofread and (sources or scenarios):
        raise click.UsageError("--sources and --scenarios go with --proofread")
    program = _program_or_exit(ruleset)
    if proofread:
        from dsl.tools.proofread import book_text, render_proofread, scenario_files

        try:
            text = book_text(program, sources)
        except KnapperError as err:
            click.echo(err.render(), err=True)
            raise SystemExit(1) from None
        found = scenario_files(program, [Path(s) for s in scenarios])
        page = render_proofread(program, text, found)
    else:
        page = render_rulebook(program, base_program(program))
    if output is None:
        click.echo(page, nl=False)
        return
    path = Path(output)
    if path.parent != Path(""):
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    click.echo(f"wrote {path}", err=True)
