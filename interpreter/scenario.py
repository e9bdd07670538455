"""Scenarios: a ruleset started from an explicit position, with scripted dice and decisions,
and expected facts about the result. This is how a rulebook's worked examples become tests.

    scenarios for "pig"
    scenario "a one loses the turn total" §rules {
      players 2
      position { banked[player(1)] = 50 }     # replaces the ruleset's setup
      dice 6, 1                               # scripted dice, used before the generator
      choices "roll", "roll"                  # scripted decisions, in order
      expect banked[player(1)] == 50 as "nothing is banked"
    }

A scenario is compiled as an overlay of its ruleset: `position` replaces `setup`, `run`
replaces `round` with one call, and each `expect` becomes a check evaluated at the end.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from dsl import ast
from dsl.check import check_program
from dsl.compile import Compiler
from dsl.errors import CheckProblem, KnapperError, diag, read_source
from dsl.parse import parse
from dsl.resolve import Program, find_ruleset, resolve_text
from interpreter import rng
from interpreter.state import start


@attrs.frozen
class ScenarioResult:
    name: str
    cite: str | None
    passed: bool
    problems: tuple[str, ...]


def run_file(path: Path) -> list[ScenarioResult]:
    text = read_source(path)
    file = parse(text, str(path))
    if file.kind != "scenarios":
        raise KnapperError(
            diag("K800", 'a scenario file starts with `scenarios for "ruleset"`', file.span)
        )
    base_path = find_ruleset(file.name, relative_to=path.parent)
    if base_path is None:
        raise KnapperError(
            diag(
                "K801",
                f"no ruleset {file.name!r} for these scenarios",
                file.span,
                hint="name a bundled ruleset (`knapper list`) or a .knap file beside this one, "
                'e.g. `scenarios for "my-variant.knap"`',
            )
        )
    program, diagnostics, sources = resolve_text(read_source(base_path), str(base_path))
    if program is None or any(d.severity == "error" for d in diagnostics):
        raise CheckProblem(diagnostics, sources)
    sources[str(path)] = text
    return [run_scenario(program, sc, sources) for sc in file.scenarios]


def scenario_program(program: Program, sc: ast.Scenario) -> Program:
    decls = dict(program.decls)
    if sc.position is not None:
        decls["setup"] = ast.Setup(sc.position, sc.cite, span=sc.position.span)
    if sc.run is not None:
        body = ast.Block(
            (sc.run, ast.EndGame(ast.ListLit(()), None, span=sc.run.span, stop=True)),
            span=sc.run.span,
        )
        decls["round"] = ast.Round(1, body, sc.cite, span=sc.run.span)
    # expectations and scripted choices become derived values, so they are checked and
    # compiled like any other expression of the ruleset
    for i, (value, _label) in enumerate(sc.expects):
        name = f"scenario_expect_{i}"
        decls[name] = ast.Fn(
            name, (), ast.TypeName("bool", span=value.span), value, sc.cite, span=value.span
        )
    for i, value in enumerate(sc.choices):
        name = f"scenario_choice_{i}"
        decls[name] = ast.Fn(name, (), None, value, sc.cite, span=value.span)
    return attrs.evolve(program, decls=decls)


def run_scenario(program: Program, sc: ast.Scenario, sources: dict[str, str]) -> ScenarioResult:
    from dsl.fmt import expr as expr_text

    overlay = scenario_program(program, sc)
    symbols, diagnostics = check_program(overlay)
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        return ScenarioResult(sc.name, sc.cite, False, tuple(d.render(sources) for d in errors))
    compiler = Compiler(overlay, symbols)
    game = compiler.compile()
    players = sc.players if sc.players is not None else game.players[0]
    problems: list[str] = []
    try:
        state = start(game, players, rng.seed_state(sc.seed or 0), script=list(sc.dice))
        choices = [compiler.env[f"_F_scenario_choice_{i}"] for i in range(len(sc.choices))]
        while state.pending is not None and choices:
            choice = choices.pop(0)(state)
            if choice not in state.pending[1]:
                options = ", ".join(game.describe(o) for o in state.pending[1])
                problems.append(
                    f"scripted choice {game.describe(choice)!r} is not legal at "
                    f"{game.sites[state.pending[2]].prompt!r}; options: {options}"
                )
                choices = []
                break
            state.apply(choice)
    except KnapperError as err:
        return ScenarioResult(sc.name, sc.cite, False, (err.render(),))
    if choices:
        problems.append(f"{len(choices)} scripted choice(s) were not used")
    if sc.run is not None and state.pending is not None:
        who, _options, site, _slot = state.pending
        problems.append(
            f"`run {sc.run.name}` stopped at P{who + 1}'s decision "
            f"{game.sites[site].prompt!r}, which has no scripted choice"
        )
    if state.script:
        problems.append(f"{len(state.script)} scripted dice were not used: {state.script}")
    for broken in state.check_invariants():
        problems.append(broken.message)
    for i, (value, label) in enumerate(sc.expects):
        try:
            ok = compiler.env[f"_F_scenario_expect_{i}"](state)
        except Exception as err:  # noqa: BLE001 - reported as the scenario's failure
            problems.append(f"{label or expr_text(value)}: could not be evaluated ({err!r})")
            continue
        if not ok:
            problems.append(f"expected {label or expr_text(value)} (line {value.span.line})")
    if problems and state.pending is not None and sc.run is None:
        who, _options, site, _slot = state.pending
        problems.append(f"the game stopped at P{who + 1}'s decision {game.sites[site].prompt!r}")
    return ScenarioResult(sc.name, sc.cite, not problems, tuple(problems))
