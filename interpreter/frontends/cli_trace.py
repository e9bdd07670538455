"""`knapper explain`: why an option is legal or illegal at a saved position.

Registered by interpreter/frontends/cli.py. The work is done by interpreter/explain.py; traces
(`simulate --trace`, `play --trace`) are options of those commands in interpreter/frontends/cli.py.
"""

from __future__ import annotations

import sys

import click
import orjson


def register(main: click.Group) -> None:
    """Add this module's commands to the `knapper` group."""
    main.add_command(explain_cmd)


@click.command("explain")
@click.argument("save", type=click.Path(dir_okay=False))
@click.argument("option", required=False)
@click.option("--ruleset", default=None, help="The ruleset (default: the one named in SAVE).")
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON.")
@click.option(
    "--seat",
    type=int,
    default=None,
    help="The seat (1 = first) to explain for: its view, and the options if it decides.",
)
def explain_cmd(
    save: str, option: str | None, ruleset: str | None, as_json: bool, seat: int | None
) -> None:
    """Explain the decision pending in SAVE and why OPTION is legal or illegal there.

    OPTION is JSON (3, '"hunt"', '[1, "x"]') or the text `knapper play` shows for it.
    Without OPTION, the decision and its options are listed. The options (and OPTION) are
    shown only with --seat of the seat that decides; without --seat, the explanation is a
    spectator's. The save is read with the key in KNAPPER_SAVE_KEY, if set. The exit status
    is 1 when OPTION is illegal."""
    from dsl.errors import read_source
    from interpreter.api import load
    from interpreter.explain import explain
    from interpreter.save import host_key, load_state

    data = read_source(save)
    game = load(ruleset) if ruleset is not None else None
    state = load_state(data, game, save, key=host_key())
    if seat is not None and not 1 <= seat <= state.n:
        raise click.BadParameter(f"the seats are 1 to {state.n}, not {seat}", param_hint="--seat")
    result = explain(state, option, seat=seat)
    if as_json:
        click.echo(orjson.dumps(result.to_json(), option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo(result.render())
    if option is not None and not result.legal:
        sys.exit(1)
