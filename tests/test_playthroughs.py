"""Golden playthroughs: one seeded random game per bundled ruleset, written out decision by
decision with the rule behind each, and the final position. Regenerate with
`python tests/playthroughs/regen.py` and review the diff."""

from __future__ import annotations

import difflib
import random
from pathlib import Path

import orjson
import pytest

from dsl.semantics.resolve import bundled_names
from dsl.syntax.fmt import cite as format_cite
from interpreter.api import load, new_game
from interpreter.protocol.labels import prompt

GOLDEN = Path(__file__).resolve().parent / "playthroughs"
SEED = 1


def ruleset_names() -> list[str]:
    return bundled_names()


def playthrough(name: str) -> str:
    game = load(name)
    players = min(game.players[1], max(game.players[0], 3))
    state = new_game(game, players=players, seed=SEED)
    agent = random.Random(SEED)
    lines = [f"# {game.title} ({name}), {players} players, seed {SEED}"]
    while (decision := state.decision()) is not None:
        option = agent.choice(decision.options)
        cite = format_cite(decision.cite)
        shown = ", ".join(game.describe(o) for o in decision.options)
        if len(shown) > 160:
            shown = shown[:157] + "..."
        asked = prompt(state, game.sites[decision.site])  # its places filled
        lines.append(f"{state.decisions + 1}. P{decision.player + 1} {asked}{cite}")
        lines.append(f"   options: {shown}")
        lines.append(f"   chose: {game.describe(option)}")
        state.apply(option)
    outcome = state.outcome()
    lines.append(f"outcome: {orjson.dumps(outcome).decode()}")
    for key, value in state.observation(None)["vars"].items():
        lines.append(f"{key} = {orjson.dumps(value).decode()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", ruleset_names())
def test_playthrough_matches_golden_file(name):
    path = GOLDEN / f"{name}.txt"
    assert path.exists(), (
        f"no golden playthrough for {name}: run python tests/playthroughs/regen.py"
    )
    expected = path.read_text(encoding="utf-8")
    actual = playthrough(name)
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True), str(path), "now", n=2
            )
        )
        pytest.fail(f"{name} plays differently; if intended, regenerate:\n{diff[:4000]}")
