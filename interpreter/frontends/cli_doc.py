"""`knapper doc NAME [-o FILE]`: a ruleset as a readable rulebook in Markdown.

Loads and checks the ruleset (a bundled name or a path), renders it with
`dsl.tools.rulebook.render_rulebook` and prints the page or writes it to FILE.
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
def doc(ruleset: str, output: str | None) -> None:
    """Render RULESET (a bundled name or a path) as a rulebook in Markdown."""
    from dsl.tools.rulebook import base_program, render_rulebook
    from interpreter.frontends.cli import _program_or_exit

    program = _program_or_exit(ruleset)
    text = render_rulebook(program, base_program(program))
    if output is None:
        click.echo(text, nl=False)
        return
    path = Path(output)
    if path.parent != Path(""):
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    click.echo(f"wrote {path}", err=True)
