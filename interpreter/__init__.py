"""Knapper's generic interpreter: the compiled Game, the State and its engine, agents,
simulation, scenarios, saving, and the `knapper` command line.

    from interpreter import load, new_game
    game = load("tic-tac-toe")
    state = new_game(game, players=2, seed=1)
    while not state.is_over():
        decision = state.decision()
        state.apply(decision.options[0])
"""

__all__ = ["load", "new_game"]


def __getattr__(name: str):
    # imported on first use: `import interpreter.core` must not load the compiler
    if name in __all__:
        from interpreter import api

        return getattr(api, name)
    raise AttributeError(name)
