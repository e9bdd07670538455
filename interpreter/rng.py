"""The state's own random number generator: a 64-bit LCG whose whole state is one int.

One int is trivially copied, saved as JSON and compared, and gives the same sequence on every
platform and Python version. Dice take the high bits (the well-mixed ones) and scale them.
"""

_MUL = 6364136223846793005
_INC = 1442695040888963407
_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    s = (seed * 0x9E3779B97F4A7C15 + _INC) & _MASK
    for _ in range(4):
        s = (s * _MUL + _INC) & _MASK
    return s


def step(s: int) -> int:
    return (s * _MUL + _INC) & _MASK


def below(s: int, n: int) -> int:
    """A value in 0..n-1 from the generator state `s` (already stepped)."""
    return ((s >> 32) * n) >> 32
