"""Hand-written Python reference implementations of benchmark games.

Each module exposes ``playout(seed, players, **kw) -> int``: one whole game
between uniformly random agents, returning the number of decisions made
(decisions with a single legal option are applied automatically and not
counted, as the interpreter does). They exist only as a speed baseline for
the interpreter in ``bench/``; they are not used by the game engine.
"""
