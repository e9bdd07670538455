"""Reference Connect Four for benchmarks: plain Python, random agents.

``playout(seed, players)`` plays one game on 7 columns x 6 rows and returns the
number of counted decisions; a baseline for the interpreter's speed only.
"""

import random
import time

COLUMNS = 7
ROWS = 6
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def _wins_at(board: list[list[int]], col: int, row: int, player: int) -> bool:
    for dc, dr in DIRECTIONS:
        count = 1
        for sign in (1, -1):
            c = col + sign * dc
            r = row + sign * dr
            while 0 <= c < COLUMNS and 0 <= r < ROWS and board[c][r] == player:
                count += 1
                c += sign * dc
                r += sign * dr
        if count >= 4:
            return True
    return False


def playout(seed: int, players: int = 2, **kw) -> int:
    if players != 2:
        raise ValueError("Connect Four is for 2 players")
    rng = random.Random(seed)
    # board[col][row], row 0 at the bottom; heights[col] is the next free row.
    board = [[-1] * ROWS for _ in range(COLUMNS)]
    heights = [0] * COLUMNS
    player = 0
    decisions = 0
    while True:
        options = [col for col in range(COLUMNS) if heights[col] < ROWS]
        if not options:
            return decisions
        if len(options) == 1:
            col = options[0]
        else:
            col = rng.choice(options)
            decisions += 1
        row = heights[col]
        board[col][row] = player
        heights[col] = row + 1
        if _wins_at(board, col, row, player):
            return decisions
        player = 1 - player


if __name__ == "__main__":
    games = 1000
    start = time.perf_counter()
    for seed in range(games):
        playout(seed, 2)
    elapsed = time.perf_counter() - start
    print(f"connect_four: {games / elapsed:.0f} games/s")
