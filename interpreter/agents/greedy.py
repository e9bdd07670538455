"""The greedy agent: each option tried once, one step ahead, on what the seat may know.

For each option it takes `samples` copies of the game as the seat may believe it
(interpreter/agents/sample.py), applies the option, lets the rules run to the next decision
and measures how far the seat then stands ahead (`value.margin`: by the ruleset's
`heuristic(p)`, else its `score(p)`; a win above everything). It picks the best mean, ties
broken at random. It never looks further than the option's own consequences.
"""

from __future__ import annotations

import math
import random
from typing import Any

from dsl.errors import KnapperError
from interpreter.agents.sample import sample
from interpreter.agents.value import margin
from interpreter.core.state import Decision, State


class GreedyAgent:
    def __init__(self, seed: Any = 0, samples: int = 1):
        self.rng = random.Random(seed)
        self.samples = max(1, samples)
        self.dropped = 0  # samples the rules failed in (interpreter/agents/search.py)

    def __call__(self, state: State, decision: Decision) -> Any:
        options = decision.options
        if len(options) == 1:
            return options[0]
        seat = decision.player
        best: list[int] = []
        top = None
        for i, option in enumerate(options):
            total, counted = 0.0, 0
            for _ in range(self.samples):
                copy = sample(state, seat, self.rng)
                try:
                    copy.apply(option)
                except KnapperError:
                    self.dropped += 1  # the rules refused this sample: it counts for nothing
                    continue
                total += margin(copy, seat)
                counted += 1
            total = total / counted if counted else -math.inf
            if top is None or total > top:
                best, top = [i], total
            elif total == top:
                best.append(i)
        return options[self.rng.choice(best)]
