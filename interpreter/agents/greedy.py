"""The greedy agent: each option tried once, one step ahead, on what the seat may know.

For each option it takes `samples` copies of the game as the seat may believe it
(interpreter/agents/sample.py), applies the option, lets the rules run to the next decision
and measures how far the seat then stands ahead (`value.margin`: by the ruleset's
`heuristic(p)`, else its `score(p)`; a win above everything). It picks the best mean, ties
broken at random. It never looks further than the option's own consequences.
"""

from __future__ import annotations

import math
from typing import Any

from dsl.errors import KnapperError
from interpreter.agents.sample import sample
from interpreter.agents.search import SearchBudget, Searcher
from interpreter.agents.value import margin
from interpreter.core.state import Decision, State


class GreedyAgent(Searcher):
    """Its budget's playouts are copies per option (1 for a budget of seconds)."""

    default = SearchBudget(1)

    def choose(self, state: State, decision: Decision) -> Any:
        options = decision.options
        seat = decision.player
        samples = self.budget.playouts or 1
        best: list[int] = []
        top = None
        for i, option in enumerate(options):
            total, counted = 0.0, 0
            for _ in range(samples):
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
