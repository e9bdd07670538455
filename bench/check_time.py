"""Benchmark: whole-process time of `knapper list` and of `knapper check` on every bundled
ruleset.

Each run is a fresh `python -m interpreter.frontends.cli ...` process, so the figure is what a
user waits for: interpreter startup, imports, then reading the headers (`list`) or parsing,
resolving and checking every ruleset (`check`). `check` is timed with the parse cache on disk
(warm: the files are unchanged since the untimed first run) and with it off
(`KNAPPER_CACHE_DIR=off`: every file parsed, once per process). `knapper simulate
neanderthal -n 1` is timed with the compiled game read from the cache and with the caches
off (compiled in the process, as before there was a cache). For comparison it also times
a process that only imports the CLI module and one that does nothing (`python -c pass`).
Each process is timed in CPU time (user + system, of the child) and wall time; minimum and
median over the runs, after one untimed warm-up of each.

`knapper check` does not generate code, so the code generator (dsl/codegen/compile.py: lower, link,
emit) is timed apart, in this process: the CPU time of compiling every bundled ruleset's
checked program to a Game, median over the same number of runs.

    python bench/check_time.py
    python bench/check_time.py --runs 15 --json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.playouts import environment  # noqa: E402
from dsl.semantics.resolve import bundled_names  # noqa: E402

DEFAULT_RUNS = 10


def time_process(
    argv: list[str], runs: int, env_extra: dict[str, str] | None = None
) -> tuple[list[float], list[float]]:
    """CPU and wall-clock seconds of `runs` runs of `argv` started from the repository root."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=path) | (env_extra or {})
    subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)  # warm the caches
    cpu, wall = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return cpu, wall


def compile_times(names: list[str], runs: int) -> dict[str, float]:
    """Median CPU seconds of `Compiler(checked).compile()` per ruleset (the checks
    are run once, before timing)."""
    from dsl.codegen.compile import Compiler
    from dsl.errors import read_source
    from dsl.pipeline import load_program
    from dsl.semantics.check import check_program
    from dsl.semantics.resolve import find_ruleset

    checked = []
    for name in names:
        path = str(find_ruleset(name))
        program, _, _ = load_program(read_source(path), path)
        assert program is not None, name
        checked.append((name, check_program(program)))
    times: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(runs):
        for name, done in checked:
            start = time.process_time()
            Compiler(done).compile()
            times[name].append(time.process_time() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print a JSON object instead")
    parser.add_argument(
        "--runs", type=int, default=DEFAULT_RUNS, help=f"timed runs each (default {DEFAULT_RUNS})"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be >= 1")

    names = bundled_names()
    cli = [sys.executable, "-m", "interpreter.frontends.cli"]
    off = {"KNAPPER_CACHE_DIR": "off"}
    commands: list[tuple[str, list[str], dict[str, str]]] = [
        ("knapper list", [*cli, "list"], {}),
        ("knapper check (all bundled)", [*cli, "check", *names], {}),
        ("knapper check (all bundled), parse cache off", [*cli, "check", *names], off),
        ("knapper simulate neanderthal -n 1", [*cli, "simulate", "neanderthal", "-n", "1"], {}),
        (
            "knapper simulate neanderthal -n 1, caches off",
            [*cli, "simulate", "neanderthal", "-n", "1"],
            off,
        ),
        (
            "import interpreter.frontends.cli",
            [sys.executable, "-c", "import interpreter.frontends.cli"],
            {},
        ),
        ("python -c pass", [sys.executable, "-c", "pass"], {}),
    ]
    rows = []
    for label, command, env_extra in commands:
        cpu, wall = time_process(command, args.runs, env_extra)
        rows.append(
            {
                "what": label,
                "command": command[1:],
                "env": env_extra,
                "cpu_median_s": statistics.median(cpu),
                "cpu_min_s": min(cpu),
                "median_s": statistics.median(wall),
                "min_s": min(wall),
                "max_s": max(wall),
                "cpu_runs": cpu,
                "runs": wall,
            }
        )
    compiled = compile_times(names, args.runs)
    report = {
        "environment": environment(),
        "rulesets": names,
        "results": rows,
        "compile_cpu_s": {"total": sum(compiled.values()), "per_ruleset": compiled},
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0

    from rich.console import Console
    from rich.table import Table

    env = report["environment"]
    table = Table(title=f"Whole-process time, {args.runs} run(s)")
    table.add_column("process")
    for column in ("CPU min", "CPU median", "wall min", "wall median"):
        table.add_column(column, justify="right")
    for row in rows:
        keys = ("cpu_min_s", "cpu_median_s", "min_s", "median_s")
        table.add_row(row["what"], *(f"{row[k] * 1e3:.0f} ms" for k in keys))
    console = Console(width=None if sys.stdout.isatty() else 110)
    console.print(table)
    console.print(
        f"Python {env['python']}, {env['cpus']} CPUs, load {env['load_average_1min']:.2f}, "
        f"source {env['source_digest']}, {env['date']}"
    )
    console.print(f"rulesets checked: {', '.join(names)}")
    by_label = {row["what"]: row["cpu_median_s"] for row in rows}
    check = by_label["knapper check (all bundled)"]
    imports = by_label["import interpreter.frontends.cli"]
    console.print(
        f"check minus import (CPU): {(check - imports) * 1e3:.0f} ms for {len(names)} rulesets"
    )
    slowest = max(compiled, key=compiled.__getitem__)
    console.print(
        f"code generation (in process, CPU, medians): {sum(compiled.values()) * 1e3:.0f} ms "
        f"for {len(names)} rulesets, slowest {slowest} {compiled[slowest] * 1e3:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
