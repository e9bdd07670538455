"""Chance watched from outside the engine: a tap that stands in for a state's scripted dice.

In: a `State` whose `script` is a `ChanceTap`. Out: the same dice and shuffles as without
it, noted in the state's trace (for `--trace`), or a fault where a strict scenario forbids
chance it did not script.

`_die` and `_shuffle` (interpreter/core/runtime.py) hand every roll and shuffle to a `script`
that is not a plain list; a tap is always true, so `_die` takes that branch even when no
dice are scripted. Ordinary games pay nothing: their `script` is a plain list.
"""

from __future__ import annotations

from interpreter.core.runtime import _die, _shuffle
from interpreter.core.state import RulesetFault, State


class ChanceTap(list):
    """The scripted dice of a game (usually none), always true so that `_die` asks it for
    every die. Unscripted dice and shuffles come from the state's generator, unless
    `strict_dice` or `strict_shuffles` makes them faults (K414, K415)."""

    def __init__(self, dice=(), strict_dice: bool = False, strict_shuffles: bool = False):
        super().__init__(dice)
        self.strict_dice = strict_dice
        self.strict_shuffles = strict_shuffles

    def __bool__(self) -> bool:
        return True

    def roll(self, st: State, sides: int) -> int:
        if self.strict_dice and len(self) == 0:  # (a tap is always true)
            raise RulesetFault(
                "K414", f"a d{sides} was rolled here, and the scenario scripts no more dice"
            )
        # one ordinary roll: `_die` itself, with the plain list of scripted dice in place
        st.script = list(self)
        try:
            value = _die(st, sides)
        finally:
            self[:] = st.script
            st.script = self
        if st.trace is not None:
            st.trace.append(("die", sides, value))
        return value

    def shuffle(self, st: State, items: list) -> None:
        if self.strict_shuffles and len(items) > 1:
            raise RulesetFault(
                "K415",
                f"{len(items)} items were shuffled here; the scenario declares `shuffles "
                "strict`, so set their order in its `position` instead",
            )
        st.script = []
        try:
            _shuffle(st, items)
        finally:
            st.script = self
