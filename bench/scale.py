"""Benchmark: simulations on a local Dask cluster, by number of workers.

Plays the same seeded games with `--jobs 1` in this process, then with `--jobs 2` on local
processes (joblib's loky), then on a `distributed` LocalCluster of 2 worker processes (one
thread each, its scheduler in this process), and reports games per second (wall
time, since the work is in other processes; the CPU time of this process beside it), the
parallel efficiency against the run in this process (its time over the cluster's time the
number of workers), and the memory each worker holds at the end. Every run must give the
same games, seed for seed. (A cluster of one thread is not timed: joblib runs a single job
in the calling process.)

    python bench/scale.py
    python bench/scale.py --ruleset cro-magnon --games 400 --json
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.playouts import environment  # noqa: E402
from interpreter.simulate import simulate  # noqa: E402


def _games(results) -> list[tuple]:
    return [(r.seed, r.winners, r.decisions) for r in results]


def run(ruleset: str, games: int, workers: list[int]) -> dict:
    import distributed

    rows = []
    cpu, wall = time.process_time(), time.perf_counter()
    _, alone = simulate(ruleset, games)
    rows.append(
        {
            "where": "this process (--jobs 1)",
            "workers": 1,
            "wall_s": time.perf_counter() - wall,
            "cpu_s": time.process_time() - cpu,
        }
    )
    for n in workers:
        simulate(ruleset, min(games, 8 * n), jobs=n)  # the processes started, the game sent
        cpu, wall = time.process_time(), time.perf_counter()
        _, local = simulate(ruleset, games, jobs=n)
        assert _games(local) == _games(alone), "the local processes played other games"
        rows.append(
            {
                "where": f"--jobs {n} (local processes)",
                "workers": n,
                "wall_s": time.perf_counter() - wall,
                "cpu_s": time.process_time() - cpu,
            }
        )
        with distributed.LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            simulate(ruleset, min(games, 8 * n), backend="dask", address=cluster.scheduler_address)
            cpu, wall = time.process_time(), time.perf_counter()
            _, spread = simulate(ruleset, games, backend="dask", address=cluster.scheduler_address)
            elapsed = time.perf_counter() - wall
            used = time.process_time() - cpu
            memory = [ws.memory.process for ws in cluster.scheduler.workers.values()]
        assert _games(spread) == _games(alone), "the cluster played other games"
        rows.append(
            {
                "where": f"dask, {n} worker(s)",
                "workers": n,
                "wall_s": elapsed,
                "cpu_s": used,
                "worker_memory_mb": [m / 2**20 for m in memory],
            }
        )
    for row in rows:
        row["games_per_s"] = games / row["wall_s"]
        if row["workers"] > 1:
            row["efficiency"] = rows[0]["wall_s"] / (row["wall_s"] * row["workers"])
    return {"environment": environment(), "ruleset": ruleset, "games": games, "results": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", default="pig")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--json", action="store_true", help="print a JSON object instead")
    args = parser.parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.WARNING)
    report = run(args.ruleset, args.games, [2])
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.ruleset}, {args.games} games; {report['environment']['cpus']} CPUs")
    print(f"{'where':28} {'games/s':>9} {'wall':>8} {'CPU here':>9} {'efficiency':>10}  memory")
    for r in report["results"]:
        eff = f"{r['efficiency']:.2f}" if "efficiency" in r else ""
        mem = ", ".join(f"{m:.0f} MB" for m in r.get("worker_memory_mb", []))
        print(
            f"{r['where']:28} {r['games_per_s']:9.1f} {r['wall_s']:7.2f}s {r['cpu_s']:8.2f}s "
            f"{eff:>10}  {mem}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
