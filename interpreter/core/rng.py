"""The state's own random number generator: a 64-bit LCG whose whole state is one int.

One int is trivially copied, saved as JSON and compared, and gives the same sequence on every
platform and Python version. Dice take the high bits (the well-mixed ones) and scale them.
"""

MUL = 6364136223846793005
INC = 1442695040888963407
MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    s = (seed * 0x9E3779B97F4A7C15 + INC) & MASK
    for _ in range(4):
        s = (s * MUL + INC) & MASK
    return s


def step(s: int) -> int:
    return (s * MUL + INC) & MASK


def below(s: int, n: int) -> int:
    """A value in 0..n-1 from the generator state `s` (already stepped)."""
    return ((s >> 32) * n) >> 32
