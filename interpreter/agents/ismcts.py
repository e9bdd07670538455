"""Information-set Monte Carlo tree search (single observer).

Each playout starts from a fresh copy of the game as the deciding seat may believe it
(interpreter/agents/sample.py: what it does not see dealt again, the dice to come unknown),
so the one tree the agent grows holds what is true of every game that looks the same to it.
A node is reached by a decision's option; at each decision the playout goes down to the
child, among those legal in this copy, with the best upper confidence bound, where a child's
exploration term counts the playouts in which it was legal (its availability), not those
of its parent; the first option not yet in the tree is added, then random options follow to
the end of the game, or for `depth` decisions in all. What the end is worth to each seat
(interpreter/agents/value.py) is credited, at every node on the way, to the seat whose
option it was. Dice are not nodes: a node's statistics mix what the dice did after it.

The agent answers with the root's most visited option (ties to the earlier one).
"""

from __future__ import annotations

import math
from typing import Any

from dsl.errors import KnapperError
from interpreter.agents.sample import sample
from interpreter.agents.search import Searcher, key, rollout
from interpreter.agents.value import values
from interpreter.core.state import Decision, State


class _Node:
    __slots__ = ("who", "visits", "total", "available", "children")

    def __init__(self, who: int) -> None:
        self.who = who  # the seat whose option leads here
        self.visits = 0
        self.total = 0.0  # what the playouts through here were worth to `who`
        self.available = 0  # playouts that could have come here
        self.children: dict[Any, _Node] = {}


class ISMCTSAgent(Searcher):
    c = 0.7  # the exploration constant of the bound (values lie in 0..1)

    def choose(self, state: State, decision: Decision) -> Any:
        options = decision.options
        seat = decision.player
        root = _Node(seat)
        more = self.budget.counter()
        while more():
            try:
                self._playout(state, seat, root)
            except KnapperError:
                self.dropped += 1  # the rules refused this sample: it counts for nothing
        keys = [key(o) for o in options]
        visits = [root.children[k].visits if k in root.children else -1 for k in keys]
        return options[visits.index(max(visits))]

    def _playout(self, state: State, seat: int, root: _Node) -> None:
        rng = self.rng
        copy = sample(state, seat, rng)
        left = self.depth if self.depth is not None else -1
        node, path = root, []
        while left != 0 and (decision := copy.decision()) is not None:
            who = decision.player
            legal = [(key(o), o) for o in decision.options]
            fresh = [(k, o) for k, o in legal if k not in node.children]
            for k, _ in legal:
                if k in node.children:
                    node.children[k].available += 1
            if fresh:
                k, option = fresh[rng.randrange(len(fresh))]
                child = node.children[k] = _Node(who)
                child.available += 1
                copy.apply(option)
                left -= 1
                path.append(child)
                break
            k, option = max(legal, key=lambda ko: self._bound(node.children[ko[0]]))
            node = node.children[k]
            copy.apply(option)
            left -= 1
            path.append(node)
        rollout(copy, rng, left if left >= 0 else None)
        worth = values(copy)
        for visited in path:
            visited.visits += 1
            visited.total += worth[visited.who]

    def _bound(self, node: _Node) -> float:
        if node.visits == 0:  # added by a playout that failed
            return math.inf
        return node.total / node.visits + self.c * math.sqrt(math.log(node.available) / node.visits)
