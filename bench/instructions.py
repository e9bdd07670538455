"""Benchmark: machine instructions per game, interpreter against hand-written Python.

Time on a shared machine swings between runs (CPU-time ratios moved by a third from one
round to the next while this was written). The number of machine instructions a process
executes does not: counted by valgrind's callgrind, the same code playing the same
seeded games gives the same count (two counts of Neanderthal agreed to the instruction),
provided the children share one hash seed, as they do here (with a random one, two counts
of Neanderthal differed by 0.6 %). This script counts, for each
benchmark game of `bench/playouts.py`, the instructions of a child process that compiles the
ruleset and plays N seeded random games, minus those of one that compiles it and plays none,
on both sides (the interpreter through `interpreter.api`, the reference in `bench/reference/`),
and prints instructions per game and their ratio reference/interpreter.

An instruction ratio is not a time ratio (an instruction of C code that seeds a generator is
cheaper than one of the bytecode loop), but a change to the interpreter that lowers its count
lowers its time, and two counts of two versions compare exactly: the yardstick for deciding
whether a change is worth keeping. Times, the figures the goals are stated in, come from
`bench/playouts.py`.

    python bench/instructions.py                       # every game, about 10 minutes
    python bench/instructions.py --only pig --only tic-tac-toe
    python bench/instructions.py --json
    git worktree add /tmp/before HEAD~3
    python bench/instructions.py --root /tmp/before     # an older commit, counted alike

Needs valgrind (`apt-get install valgrind`); without it the script says so and stops. The
children use a parse cache of their own in a temporary folder, warmed before counting, so a
parse is never counted on one side of the subtraction only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.playouts import environment  # noqa: E402


@attrs.frozen
class Case:
    ruleset: str
    players: int
    games: int  # few: under valgrind a game runs some 50 times slower

    @property
    def label(self) -> str:
        return f"{self.ruleset} {self.players}p"


CASES = [
    Case("tic-tac-toe", 2, 2000),
    Case("connect-four", 2, 400),
    Case("pig", 2, 400),
    Case("cro-magnon", 2, 8),
    Case("neanderthal", 3, 4),
    Case("aurignac", 4, 6),
]
# games without a hand-written reference: the interpreter side only
NO_REFERENCE = {"neanderthal", "aurignac"}

# What a child runs: argv = side, ruleset, players, games; the loops of bench/playouts.py.
CHILD = """
import importlib, sys
sys.path.insert(0, {root!r})
side, name, players, games = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
from bench.playouts import interpreted_batch, reference_batch
from interpreter.api import load
game = load(name)
if side == "interpreter":
    interpreted_batch(game, players, range(games))
else:
    reference = importlib.import_module("bench.reference." + name.replace("-", "_"))
    kw = {{}}
    if name == "cro-magnon":
        kw["adjacency"] = {{k: list(v) for k, v in game.adjacency.items()}}
    reference_batch(reference.playout, players, range(games), kw)
"""

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def count(script: Path, side: str, case: Case, games: int, env: dict[str, str]) -> int:
    """Instructions of one child process, as callgrind counts them."""
    out = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            str(script),
            side,
            case.ruleset,
            str(case.players),
            str(games),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    found = _COLLECTED.search(out.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no instruction count:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def per_game(script: Path, side: str, case: Case, env: dict[str, str]) -> float:
    return (count(script, side, case, case.games, env) - count(script, side, case, 0, env)) / (
        case.games
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", help="a ruleset or a game label")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the checkout to count (default: this one)"
    )
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: apt-get install valgrind", file=sys.stderr)
        return 2
    cases = [c for c in CASES if not args.only or c.ruleset in args.only or c.label in args.only]
    if not cases:
        print(f"no game matches {args.only}; the games are {[c.label for c in CASES]}")
        return 2
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "child.py"
        script.write_text(CHILD.format(root=str(args.root.resolve())), encoding="utf-8")
        cache = Path(folder) / "cache"
        cache.mkdir(mode=0o700)
        # one hash seed for every child: the order of a set of texts, and so the work of
        # walking it, is then the same in each (else Neanderthal's count moves by ~0.6 %)
        env = {**os.environ, "KNAPPER_CACHE_DIR": str(cache), "PYTHONHASHSEED": "0"}
        for case in cases:
            subprocess.run(  # warm the parse cache: no parse is counted
                [sys.executable, str(script), "interpreter", case.ruleset, str(case.players), "0"],
                env=env,
                check=True,
            )
            print(f"{case.label}: counting {case.games} games...", file=sys.stderr)
            interp = per_game(script, "interpreter", case, env)
            ref = None if case.ruleset in NO_REFERENCE else per_game(script, "reference", case, env)
            rows.append(
                {
                    "game": case.label,
                    "games": case.games,
                    "interpreter_per_game": interp,
                    "reference_per_game": ref,
                    "ratio": None if ref is None else ref / interp,
                }
            )
    report = {"environment": environment(), "root": str(args.root), "cases": rows}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'game':16} {'games':>6} {'interpreter/game':>18} {'reference/game':>16} {'ratio':>7}")
    for row in rows:
        ref = row["reference_per_game"]
        theirs = f"{ref / 1e3:>14,.1f}k {row['ratio']:>7.3f}" if ref is not None else ""
        mine = f"{row['interpreter_per_game'] / 1e3:>16,.1f}k"
        print(f"{row['game']:16} {row['games']:>6} {mine} {theirs}")
    print("ratio = reference instructions / interpreter instructions, per game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
