"""Reference tic-tac-toe for benchmarks: plain Python, random agents.

``playout(seed, players)`` plays one 3x3 game (X first) and returns the number
of counted decisions; a baseline for the interpreter's speed, nothing more.
"""

import random
import time

LINES = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)


def _wins(board: list[int], player: int) -> bool:
    for a, b, c in LINES:
        if board[a] == player and board[b] == player and board[c] == player:
            return True
    return False


def playout(seed: int, players: int = 2, **kw) -> int:
    if players != 2:
        raise ValueError("tic-tac-toe is for 2 players")
    rng = random.Random(seed)
    board = [-1] * 9
    player = 0
    decisions = 0
    while True:
        options = [cell for cell in range(9) if board[cell] == -1]
        if not options:
            return decisions
        if len(options) == 1:
            cell = options[0]
        else:
            cell = rng.choice(options)
            decisions += 1
        board[cell] = player
        if _wins(board, player):
            return decisions
        player = 1 - player


if __name__ == "__main__":
    games = 1000
    start = time.perf_counter()
    for seed in range(games):
        playout(seed, 2)
    elapsed = time.perf_counter() - start
    print(f"tic_tac_toe: {games / elapsed:.0f} games/s")
