"""Fuzz cases for untrusted input: rulesets built from random typed expressions, and saves
with random edits. Whatever they hold, Knapper must answer with a `KnapperError` (a code
and a place) or play on; any other exception escaping is a defect.

A save is edited in one of three forms: the unsigned record (replayed when loaded), a
signed snapshot signed again after the edit (as a host holding the key could: the snapshot's
own checks must hold), and a signed snapshot edited without the key (it must be refused).

Shared by tests/security/test_fuzz.py (a bounded run in the suite) and bench/fuzz.py (the
long run whose result docs/reliability.md records).
"""

from __future__ import annotations

import json
import random
from typing import Any

import orjson
from hypothesis import strategies as st

from dsl.errors import KnapperError
from dsl.pipeline import compile_text
from interpreter.api import load, new_game
from interpreter.core.budget import Budget
from interpreter.save import dump_state, load_state, sign

# ------------------------------------------------------------------ typed expressions

_SMALL = st.integers(-3, 12).map(str)
# numbers near and past the limits of `knapper check` (K252: 2^53 - 1)
_BIG = st.sampled_from(["1000000000000", "0", "-1", "2", "9007199254740991", "9007199254740992"])
_LOCAL_INT = st.sampled_from(["x", "n", "len(xs)", "sum(xs)"])


def _ints(inner: st.SearchStrategy[str], lists: st.SearchStrategy[str]) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(inner, inner).map(lambda t: f"max({t[0]}, {t[1]})"),
        lists.map(lambda xs: f"len({xs})"),
        lists.map(lambda xs: f"sum({xs})"),
        st.tuples(st.sampled_from(["1", "2", "3", "1001"]), st.sampled_from(["6", "1"])).map(
            lambda t: f"roll {t[0]}d{t[1]}"
        ),
        st.tuples(inner, inner, inner).map(lambda t: f"(if {t[0]} > {t[1]} then {t[2]} else 0)"),
    )


def _lists(inner: st.SearchStrategy[str]) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(inner, inner).map(lambda t: f"range({t[0]}, {t[1]})"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.tuples(inner, inner).map(lambda t: f"[y * {t[0]} for y in range(0, {t[1]})]"),
        st.tuples(inner, inner).map(
            lambda t: f"[a + b for a in range(0, {t[0]}) for b in range(0, {t[1]})]"
        ),
    )


INTS: st.SearchStrategy[str] = st.recursive(
    st.one_of(_SMALL, _BIG, _LOCAL_INT),
    lambda inner: _ints(inner, _lists(inner)),
    max_leaves=12,
)
LISTS: st.SearchStrategy[str] = _lists(INTS)

_TEMPLATE = """ruleset "fuzz"
players 2
bound 20 decisions
var x: int = 1
var xs: list of int = []
var turns: int = 0
fn twice(k: int): int = k + k
round max 4 {{
  let n = 2
  repeat {repeat} {{ x = {step} }}
  xs = {xs}
  x = {x}
  turns = turns + 1
  let pick = choose player(1) from [1, 2]
  if pick == 2 or turns == 4 {{ end game winners [player(2)] }}
}}
"""

RULESETS = st.builds(
    lambda repeat, step, xs, x: _TEMPLATE.format(repeat=repeat, step=step, xs=xs, x=x),
    st.sampled_from(["1", "3", "40", "1000000000000"]),
    st.one_of(INTS, st.just("x * x"), st.just("twice(x)")),
    LISTS,
    INTS,
)


# a budget far below the default, so that a run that would go past it stops in milliseconds
# (the default's own limits are tested in tests/security/test_budget.py)
FUZZ_BUDGET = Budget(steps=200_000, elements=200_000)


def run_ruleset(text: str, moves: int = 6) -> str:
    """Compile and play `text`; 'refused' with a KnapperError, 'played' otherwise."""
    try:
        game = compile_text(text, "fuzz.knap")
        state = new_game(game, seed=1, budget=FUZZ_BUDGET)
        for _ in range(moves):
            decision = state.decision()
            if decision is None:
                break
            state.apply(decision.options[0])
    except KnapperError:
        return "refused"
    return "played"


# ------------------------------------------------------------------ edited saves

_ODD_VALUES = [
    None,
    True,
    -1,
    0,
    7,
    2**64,
    10**40,
    -(10**18),
    "",
    "x" * 50,
    [],
    [0, 0],
    {},
    {"hidden": 1},
    [[[[[]]]]],
]


def mutate(data: Any, rng: random.Random, values: list[Any] = _ODD_VALUES) -> Any:
    """`data` (a save's JSON) changed in one node: replaced by an odd value of another
    kind or value, or a list cut short."""
    nodes: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                nodes.append((node, key))
                walk(value)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                nodes.append((node, i))
                walk(value)

    walk(data)
    if not nodes:
        return data
    parent, key = rng.choice(nodes)
    was = parent[key]
    if isinstance(was, list) and was and rng.random() < 0.3:
        del was[rng.randrange(len(was)) :]
    else:
        parent[key] = rng.choice([v for v in values if not _same(v, was)])
    return data


def _past_64_bits(value: Any) -> bool:
    return type(value) is int and not -(2**63) <= value < 2**64


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


FORMS = ("record", "resigned", "tampered")
KEY = b"the fuzz run's host key"


def save_of(name: str, seed: int, moves: int, key: bytes | None = None) -> bytes:
    """The save of a random game of bundled ruleset `name` after `moves` decisions."""
    state = new_game(load(name), seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        decision = state.decision()
        if decision is None:
            break
        state.apply(rng.choice(decision.options))
    return dump_state(state, key=key)


def edited_save(name: str, seed: int, moves: int, form: str) -> bytes:
    """A save of `name` in `form` (FORMS) with one random edit."""
    key = None if form == "record" else KEY
    data = orjson.loads(save_of(name, seed, moves, key))
    # a host signs only what JSON of 64-bit integers holds (sign() uses orjson)
    values = [v for v in _ODD_VALUES if form != "resigned" or not _past_64_bits(v)]
    data = mutate(data, random.Random(seed), values)
    if form == "resigned" and isinstance(data, dict):
        data = sign({k: v for k, v in data.items() if k != "signature"}, KEY)
    return json.dumps(data).encode()  # json, not orjson: an edit may hold an int past 64 bits


def run_save(name: str, text: bytes, seed: int, form: str, moves: int = 5) -> str:
    """Load an edited save and play on; 'refused' with a KnapperError, 'played' otherwise."""
    rng = random.Random(seed)
    key = None if form == "record" else KEY
    try:
        state = load_state(text, load(name), key=key)
        for _ in range(moves):
            decision = state.decision()
            if decision is None:
                break
            state.apply(rng.choice(decision.options))
        for seat in range(state.n):
            state.observation(seat)
        dump_state(state, key=key)
    except KnapperError:
        return "refused"
    return "played"
