"""Flat Monte Carlo: random playouts after each option, the best average taken.

Per decision, each option gets `budget` playouts (a time budget is shared among the options,
one playout each in turn). A playout starts from a copy of the game as the deciding seat
may believe it (interpreter/agents/sample.py), applies the option, then plays random
options to the end, or for `depth` decisions when given; it counts what the end is worth
to the seat (interpreter/agents/value.py). The option with the best mean wins; ties go to
the earlier option.
"""

from __future__ import annotations

from typing import Any

from dsl.errors import KnapperError
from interpreter.agents.sample import sample
from interpreter.agents.search import SearchBudget, Searcher, rollout
from interpreter.agents.value import values
from interpreter.core.state import Decision, State


class FlatMonteCarloAgent(Searcher):
    def choose(self, state: State, decision: Decision) -> Any:
        options = decision.options
        seat = decision.player
        totals = [0.0] * len(options)
        counts = [0] * len(options)
        budget = self.budget
        if budget.playouts is not None:  # so many per option
            budget = SearchBudget(budget.playouts * len(options))
        more = budget.counter()
        i = 0
        while more():
            copy = sample(state, seat, self.rng)
            try:
                copy.apply(options[i])
                rollout(copy, self.rng, self.depth)
            except KnapperError:
                self.dropped += 1  # the rules refused this sample: it counts for nothing
            else:
                totals[i] += values(copy)[seat]
                counts[i] += 1
            i = (i + 1) % len(options)
        means = [t / c if c else -1.0 for t, c in zip(totals, counts)]
        return options[means.index(max(means))]
