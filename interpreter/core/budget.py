"""The work budget: how much the ruleset's code may do between two decisions.

Part of the engine. In: a `Budget` (kept on the `State`), and the calls that generated code
makes where work grows: at the start of each loop, at each `fn` call, for each list built
from a count, for each product, sum and difference of large numbers. Out: nothing, or a
`RulesetFault` K421-K423 that the run loop turns into a `RulesetRuntimeError` at the
statement that was running.

The counters live on the state (`left`: steps, `room`: elements) and are reset whenever the
engine starts running rules (`interpreter.core.state.run`, and the ruleset's code a tool
calls). A loop is charged its whole length when it starts, so counting costs one call per
loop, not one per turn; a `while` loop, whose length is not known, is charged per turn.
"""

from __future__ import annotations

import attrs

# Measured over random playouts of every bundled ruleset (bench/budget_use.py, docs/
# reliability.md): the most any run between two decisions used was far below these.
DEFAULT_STEPS = 10_000_000
DEFAULT_ELEMENTS = 10_000_000
DEFAULT_INT_BITS = 256


@attrs.frozen
class Budget:
    """Limits per run of the rules, from one decision to the next.

    `steps`: loop turns (a `for`, `repeat` or comprehension turn, a `while` turn) and `fn`
    calls. `elements`: items of lists made from a number (`range`, `dice`) and of lists
    joined with `+`. `int_bits`: the largest size of a product, in bits."""

    steps: int = attrs.field(default=DEFAULT_STEPS, validator=attrs.validators.ge(1))
    elements: int = attrs.field(default=DEFAULT_ELEMENTS, validator=attrs.validators.ge(1))
    int_bits: int = attrs.field(default=DEFAULT_INT_BITS, validator=attrs.validators.ge(128))


DEFAULT = Budget()


def _fault(code: str, message: str):
    # imported here: the engine's state imports this module (a fault is the cold path)
    from interpreter.core.state import RulesetFault

    raise RulesetFault(code, message)


def _out_of_steps(st, where: str):
    _fault(
        "K421",
        f"{where} went past the work budget of {st.budget.steps} steps "
        "(loop turns and `fn` calls) between two decisions",
    )


def _out_of_room(st, asked: int):
    _fault(
        "K422",
        f"the rules asked for a list of {asked} items, past the budget of "
        f"{st.budget.elements} items between two decisions",
    )


def _steps(st, items):
    """A loop over `items` starts: charge a step per item, and return them."""
    st.left -= len(items)
    if st.left < 0:
        _out_of_steps(st, "a loop")
    return items


def _count(st, n):
    """`repeat n` (or `draw n`) starts: charge n steps, and return n."""
    if n > 0:
        st.left -= n
        if st.left < 0:
            _out_of_steps(st, "a loop")
    return n


def _turn(st):
    """A `while` loop's turn: one step."""
    st.left -= 1
    if st.left < 0:
        _out_of_steps(st, "a `while` loop")


def _elements(st, n: int) -> None:
    """`n` new items of a list: charge them."""
    if n > 0:
        st.room -= n
        if st.room < 0:
            _out_of_room(st, n)


def _range(st, lo, hi) -> list:
    _elements(st, hi - lo)
    return list(range(lo, hi))


def _join(st, a, b):
    """`a + b` of two lists (their items are charged as new elements, as `_elements` does,
    written out here: two lists are joined a dozen times between two decisions of a large
    game), or of two numbers."""
    if a.__class__ is list:
        n = len(a) + len(b)
        if n > 0:
            st.room -= n
            if st.room < 0:
                _out_of_room(st, n)
    return a + b


def _mul(st, a, b):
    """`a * b`, refused when the product would be larger than the budget's `int_bits`."""
    limit = st.budget.int_bits
    if a.bit_length() + b.bit_length() > limit + 1 or (a * b).bit_length() > limit:
        _too_large(st, "product", a, b)
    return a * b


def _add(st, a, b):
    """`a + b` of two numbers, refused when the sum is larger than the budget's `int_bits`."""
    out = a + b
    if out.bit_length() > st.budget.int_bits:
        _too_large(st, "sum", a, b)
    return out


def _sub(st, a, b):
    """`a - b` of two numbers, refused like `_add`."""
    out = a - b
    if out.bit_length() > st.budget.int_bits:
        _too_large(st, "difference", a, b)
    return out


def _too_large(st, what: str, a, b):
    _fault(
        "K423",
        f"a {what} of a {a.bit_length()}-bit and a {b.bit_length()}-bit number is past "
        f"the budget's limit of {st.budget.int_bits} bits",
    )


# Compiled code multiplies two numbers below this size without a call: their product is
# below 2^128, inside any budget (`int_bits` is at least 128).
_T = 1 << 64

HELPERS = {
    "_T": _T,
    "_steps": _steps,
    "_count": _count,
    "_turn": _turn,
    "_range": _range,
    "_join": _join,
    "_mul": _mul,
    "_add": _add,
    "_sub": _sub,
    "_out_of_steps": _out_of_steps,
}
