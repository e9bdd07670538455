"""Knapper's generic interpreter: the compiled Game, the State and its engine, agents,
simulation, scenarios, saving, and the `knapper` command line.

    from interpreter import load, new_game
    game = load("tic-tac-toe")
    state = new_game(game, players=2, seed=1)
    while not state.is_over():
        decision = state.decision()
        state.apply(decision.options[0])
"""

from interpreter.api import load, new_game

__all__ = ["load", "new_game"]
