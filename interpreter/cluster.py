"""Simulations on a cluster: Dask distributed or Ray, through their joblib backends.

`connected(backend, address)` connects to the cluster for the length of a `with` block and
makes it joblib's backend there, so that `joblib.Parallel` sends its tasks to it: for `dask`, a
`distributed.Client` of the scheduler at `address` (a local cluster when it is None); for
`ray`, `ray.init(address)` (a local Ray when it is None). `send`: what every task needs,
which a Dask cluster receives once on each worker instead of once in each task. Both come
with the extra `knapper[scale]`; without it the error says what to install.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import joblib

from dsl.errors import KnapperError, Span, diag

CLUSTERS = ("dask", "ray")


def _error(code: str, message: str, hint: str) -> KnapperError:
    return KnapperError(diag(code, message, Span("<command line>", 0, 0, 0, 0), hint=hint))


def _missing(backend: str, name: str) -> KnapperError:
    message = f"the {backend} backend needs {name}, which is not installed"
    return _error("K470", message, 'pip install "knapper[scale]"')


def _unreachable(backend: str, address: str | None, err: Exception) -> KnapperError:
    where = address or "a local cluster"
    message = f"cannot connect the {backend} backend to {where}: {type(err).__name__}: {err}"
    return _error("K471", message, "check the address, and that the scheduler is running")


@contextlib.contextmanager
def connected(backend: str, address: str | None, send: Sequence = ()) -> Iterator[int]:
    """A connection to the cluster of `backend` ("dask" or "ray") while the block runs; it
    gives the number of tasks the cluster runs at once (its worker threads or CPUs)."""
    if backend == "dask":
        try:
            import distributed
        except ImportError:
            raise _missing("dask", "distributed") from None
        try:
            # without an address, a cluster of local processes that the client owns and
            # closes with it, for trying the backend out
            client = (
                distributed.Client(address, timeout="10s")
                if address
                else distributed.Client(processes=True, dashboard_address=None)
            )
        except (OSError, TimeoutError, ValueError) as err:
            raise _unreachable("dask", address, err) from None
        with client, joblib.parallel_config(backend="dask", scatter=list(send) or None):
            yield max(1, sum(client.nthreads().values()))
    elif backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError:
            raise _missing("ray", "ray") from None
        register_ray()
        try:
            ray.init(address=address, ignore_reinit_error=True, include_dashboard=False)
        except (ConnectionError, OSError, RuntimeError, ValueError) as err:
            raise _unreachable("ray", address, err) from None
        try:
            with joblib.parallel_config(backend="ray"):
                yield max(1, int(ray.cluster_resources().get("CPU", 1)))
        finally:
            ray.shutdown()
    else:
        raise ValueError(f"not a cluster backend: {backend!r}")
