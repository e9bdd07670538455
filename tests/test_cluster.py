"""Simulations on a cluster (interpreter/cluster.py): Dask distributed on a local cluster of
two worker processes, and Ray started locally; each gives the games of `--jobs 1`, seed for
seed. Each backend's test skips, saying why, when its package is not installed."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from interpreter.frontends.cli import main
from interpreter.simulate import simulate


def _games(results) -> list[tuple]:
    return [(r.seed, r.winners, r.scores, r.decisions, r.rounds) for r in results]


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip(
        "distributed", reason="dask distributed is not installed (the extra knapper[scale])"
    )
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster


def test_dask_plays_the_games_of_one_job_seed_for_seed(dask_cluster) -> None:
    _, alone = simulate("pig", 40, seed=7)
    scheduler = dask_cluster.scheduler
    before = scheduler.transition_counter
    summary, spread = simulate(
        "pig", 40, seed=7, backend="dask", address=dask_cluster.scheduler_address
    )
    assert _games(spread) == _games(alone)
    assert summary.games == 40
    # the batches of games were tasks of the cluster, not run in this process
    assert scheduler.transition_counter > before
    assert any("_batch" in prefix for prefix in scheduler.task_prefixes)


def test_simulate_on_a_dask_scheduler_from_the_command_line(dask_cluster) -> None:
    args = ["simulate", "tic-tac-toe", "-n", "30", "--seed", "3", "--json"]
    alone = CliRunner().invoke(main, args)
    spread = CliRunner().invoke(
        main, [*args, "--backend", "dask", "--scheduler", dask_cluster.scheduler_address]
    )
    assert spread.exit_code == 0, spread.output
    keep = ("wins", "no_winner", "decisions_mean", "rounds_mean")
    a, b = orjson.loads(alone.stdout), orjson.loads(spread.stdout)
    assert {k: a[k] for k in keep} == {k: b[k] for k in keep}


def test_an_unreachable_scheduler_is_a_clear_error() -> None:
    pytest.importorskip("distributed", reason="dask distributed is not installed")
    result = CliRunner().invoke(
        main,
        ["simulate", "pig", "-n", "2", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"],
    )
    assert result.exit_code == 1
    assert "K471" in result.output and "Traceback" not in result.output


def test_an_address_without_its_backend_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["simulate", "pig", "-n", "2", "--scheduler", "x:1"])
    assert result.exit_code == 2 and "--backend dask" in result.output
    result = CliRunner().invoke(main, ["simulate", "pig", "-n", "2", "--address", "x:1"])
    assert result.exit_code == 2 and "--backend ray" in result.output


def test_ray_plays_the_games_of_one_job_seed_for_seed() -> None:
    pytest.importorskip("ray", reason="ray is not installed (the extra knapper[scale])")
    _, alone = simulate("pig", 20, seed=11)
    _, spread = simulate("pig", 20, seed=11, backend="ray", jobs=2)
    assert _games(spread) == _games(alone)
