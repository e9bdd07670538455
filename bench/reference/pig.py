"""Reference Pig dice game for benchmarks: plain Python, random agents.

``playout(seed, players)`` plays one game to 100 points for 2..8 players and
returns the number of decisions; a baseline for the interpreter's speed only.
The game is cut off, without a winner, after ``MAX_DECISIONS`` decisions.
"""

import random
import time

TARGET = 100
MAX_DECISIONS = 2000
OPTIONS = ("roll", "hold")


def playout(seed: int, players: int = 2, **kw) -> int:
    if not 2 <= players <= 8:
        raise ValueError("Pig is for 2 to 8 players")
    rng = random.Random(seed)
    scores = [0] * players
    player = 0
    turn_total = 0
    decisions = 0
    while decisions < MAX_DECISIONS:
        # Both options are always legal, so every decision counts.
        options = list(OPTIONS)
        choice = rng.choice(options)
        decisions += 1
        if choice == "roll":
            face = rng.randint(1, 6)
            if face == 1:
                turn_total = 0
                player = (player + 1) % players
            else:
                turn_total += face
        else:
            scores[player] += turn_total
            turn_total = 0
            if scores[player] >= TARGET:
                return decisions
            player = (player + 1) % players
    return decisions


if __name__ == "__main__":
    games = 1000
    start = time.perf_counter()
    for seed in range(games):
        playout(seed, 2)
    elapsed = time.perf_counter() - start
    print(f"pig: {games / elapsed:.0f} games/s")
