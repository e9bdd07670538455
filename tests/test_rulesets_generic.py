"""Generic tests every ruleset gets for free: it compiles; seeded random playouts never
raise, always offer options until the game ends, end within the declared bound and keep the
declared invariants; saving and loading mid-game continues identically; replay is
deterministic; changing hidden information never changes another player's observation.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ALL_RULESETS, player_counts
from interpreter.api import load, new_game
from interpreter.save import dump_state, load_state


def random_playout(game, players: int, seed: int, check=None):
    """Play one seeded random game; returns (state, chosen options)."""
    state = new_game(game, players=players, seed=seed)
    agent = random.Random(seed)
    chosen = []
    while not state.is_over():
        decision = state.decision()
        assert decision is not None, "the game is not over but no decision is pending"
        assert decision.options, "a decision was offered with no options"
        assert 0 <= decision.player < players
        option = agent.choice(decision.options)
        chosen.append(option)
        state.apply(option)
        if check is not None:
            check(state)
    return state, chosen


@pytest.mark.parametrize("name", ALL_RULESETS)
def test_compiles(name):
    game = load(name)
    assert game.procs and game.players[0] >= 1


@pytest.mark.parametrize("name", ALL_RULESETS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), which=st.integers(0, 2))
def test_random_playouts_end_within_bound_and_keep_invariants(name, seed, which):
    game = load(name)
    players = player_counts(game)[which % len(player_counts(game))]

    def invariants_hold(state):
        broken = state.check_invariants()
        assert not broken, "\n".join(d.render() for d in broken)

    state, chosen = random_playout(game, players, seed, check=invariants_hold)
    outcome = state.outcome()
    assert outcome is not None
    assert all(0 <= p < players for p in outcome["winners"])
    if game.bound is not None:
        assert len(chosen) <= game.bound
    assert outcome["decisions"] == len(chosen)


@pytest.mark.parametrize("name", ALL_RULESETS)
def test_replay_is_deterministic(name):
    game = load(name)
    players = game.players[0]
    first, chosen = random_playout(game, players, seed=11)
    again = new_game(game, players=players, seed=11)
    for option in chosen:
        again.apply(option)
    assert dump_state(again) == dump_state(first)


@pytest.mark.parametrize("name", ALL_RULESETS)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), where=st.floats(0, 1))
def test_save_and_load_midgame_continues_identically(name, seed, where):
    game = load(name)
    players = game.players[-1] if game.players[0] == 1 else game.players[0]
    final, chosen = random_playout(game, players, seed)
    cut = int(where * len(chosen))
    state = new_game(game, players=players, seed=seed)
    for option in chosen[:cut]:
        state.apply(option)
    restored = load_state(dump_state(state), game)
    assert dump_state(restored) == dump_state(state)
    clone = state.clone()
    for option in chosen[cut:]:
        restored.apply(option)
        clone.apply(option)
    assert dump_state(restored) == dump_state(final)
    assert dump_state(clone) == dump_state(final)


def _perturb(value):
    """A different value of the same shape (lists keep their length)."""
    if isinstance(value, list):
        return list(reversed(value)) if len(set(map(repr, value))) > 1 else [None] * len(value)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    return None if value is not None else 0


def _under_top(zone: list) -> list:
    """The same zone with everything under its top (last) entry changed."""
    return (
        _perturb(zone[:-1]) + zone[-1:] if len(zone) > 2 else [None] * (len(zone) - 1) + zone[-1:]
    )


def hidden_changes(state):
    """Yield (description, changed state, who must not notice) for each hidden fact."""
    for spec in state.game.vars:
        if spec.visibility == "public":
            continue
        value = state.g[spec.slot]
        if spec.visibility in ("hidden", "scratch"):  # scratch: in no observation at all
            other = state.clone()
            other.g[spec.slot] = [_perturb(v) for v in value] if spec.domains else _perturb(value)
            yield spec.name, other, range(state.n)
        elif spec.visibility == "backs":
            # a face-down entry's face, for each seat it was not revealed to (where entries
            # lie is public)
            for seat in range(state.n):
                seen = state._shown(seat)
                other = state.clone()
                zones = other.g[spec.slot] if spec.domains else [other.g[spec.slot]]
                for zone in zones:
                    zone[:] = [x if x is None or x in seen else "a different face" for x in zone]
                yield f"the faces down in {spec.name}, for P{seat + 1}", other, [seat]
        elif spec.visibility == "top":
            # everything under the top entry is hidden from everyone
            other = state.clone()
            other.g[spec.slot] = (
                [_under_top(v) for v in value] if spec.domains else _under_top(value)
            )
            yield f"what lies under the top of {spec.name}", other, range(state.n)
        else:
            per_seat = len(value) // len(spec.domains[0])
            for owner in range(state.n):
                other = state.clone()
                for i in range(owner * per_seat, (owner + 1) * per_seat):
                    other.g[spec.slot][i] = _perturb(value[i])
                yield (
                    f"{spec.name} of P{owner + 1}",
                    other,
                    [p for p in range(state.n) if p != owner],
                )


@pytest.mark.parametrize("name", ALL_RULESETS)
def test_hidden_information_never_shows(name):
    game = load(name)
    players = max(player_counts(game))
    state = new_game(game, players=players, seed=5)
    agent = random.Random(5)
    hidden_vars = [s for s in game.vars if s.visibility != "public"]
    checked = 0
    while not state.is_over():
        for what, other, blind in hidden_changes(state):
            for p in blind:
                view, other_view = state.observation(p), other.observation(p)
                assert view["vars"] == other_view["vars"], f"P{p + 1} can see {what}"
                checked += 1

        def public(view):
            return {k: v for k, v in view["vars"].items() if game.var(k).visibility == "public"}

        for p in range(players):
            assert public(state.observation(p)) == public(state.observation(None))
        state.apply(agent.choice(state.decision().options))
    if hidden_vars:
        assert checked > 0
    else:
        assert state.observation(0)["vars"] == {s.name: state.g[s.slot] for s in game.shown_vars}


def test_a_secret_choice_shows_the_others_only_that_it_was_made():
    # At every decision of a `secret` site in a seeded game of each ruleset that has one:
    # two options that lead to the same next decision leave what the other seats all see
    # (the spectator's view: each seat also sees its own hand, which chance after the
    # choice may deal differently) equal
    checked = 0
    for name in ALL_RULESETS:
        game = load(name)
        if not any(site.secret for site in game.sites):
            continue
        players = max(player_counts(game))
        state = new_game(game, players=players, seed=7)
        agent = random.Random(7)
        while not state.is_over():
            decision = state.decision()
            if game.sites[decision.site].secret and len(decision.options) > 1:
                first = state.clone()
                first.apply(decision.options[0])
                for option in decision.options[1:4]:
                    other = state.clone()
                    other.apply(option)
                    a, b = first.decision(), other.decision()
                    if a is None or b is None or (a.player, a.site) != (b.player, b.site):
                        continue
                    seen, also = first.observation(None), other.observation(None)
                    assert seen["vars"] == also["vars"], f"{name}: {decision.prompt!r} shows"
                    checked += 1
            state.apply(agent.choice(state.decision().options))
    assert checked > 0


def test_the_hidden_fixture_really_hides_something():
    game = load(next(n for n in ALL_RULESETS if n.endswith("high-card.knap")))
    state = new_game(game, players=2, seed=1)
    mine, theirs = state.observation(0)["vars"]["hand"], state.observation(1)["vars"]["hand"]
    assert mine[0] == state.get("hand", 0) and mine[1] == {"hidden": 2}
    assert theirs[1] == state.get("hand", 1) and theirs[0] == {"hidden": 2}
    assert state.observation(0)["vars"]["deck"] == {"hidden": len(state.get("deck"))}


def _libraries():
    """Every bundled library file (its first line of code starts with `library`)."""
    from dsl.resources import rulesets_root

    for path in sorted(rulesets_root().rglob("*.knap")):
        code = [
            line
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        ]
        if code and code[0].startswith("library "):
            yield path


@pytest.mark.parametrize("path", list(_libraries()), ids=lambda p: p.name)
def test_every_bundled_library_checks_cleanly(path):
    from dsl.pipeline import load_program

    program, diagnostics, sources = load_program(path.read_text(encoding="utf-8"), str(path))
    errors = [d.render(sources) for d in diagnostics if d.severity == "error"]
    assert program is not None and not errors, "\n".join(errors)


@pytest.mark.parametrize("path", list(_libraries()), ids=lambda p: p.name)
def test_every_bundled_librarys_invariants_hold(path, tmp_path):
    from dsl.pipeline import compile_text

    wrapper = tmp_path / "wrapper.knap"
    wrapper.write_text(
        f'ruleset "wrapper"\nimport "{path}"\nplayers 1\nround max 1 {{ end game winners [] }}\n'
    )
    state = new_game(compile_text(wrapper.read_text(), str(wrapper)), players=1, seed=0)
    broken = state.check_invariants()
    assert not broken, "\n".join(d.render() for d in broken)
