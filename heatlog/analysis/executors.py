"""Where playouts and simulated races run: any ``concurrent.futures.Executor`` (docs/analysis.md).

- :func:`local_executor`: all local cores by default — a process pool (one worker: in this process);
- :func:`dask_executor`: a Dask cluster, through ``distributed.Client(address).get_executor()`` (the optional
  extra: ``pip install 'heatlog[dask]'``).

Work is cut into chunks whose size does not depend on the number of workers, every chunk is a pure function
of its arguments (seeds derived from the base seed and the playout's index), and results are put back in
index order: the same seed gives the same results on any executor with any number of workers.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from ..engine import MalformedInput

T = TypeVar("T")


class InlineExecutor(Executor):
    """An executor that runs each task at once, in this process (one worker: no pickling, no start-up)."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        fut: Future[T] = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller through the future, as a pool would
            if isinstance(exc, KeyboardInterrupt):
                raise
            fut.set_exception(exc)
        return fut


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which stops cleanly and keeps the finished chunks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def default_workers() -> int:
    """All local cores (the CPUs this process may run on)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: The most processes a local pool may start (more than the cores only wait for them; a typo must not fork
#: thousands), unless the machine has more cores.
MAX_LOCAL_WORKERS = 64


@contextmanager
def local_executor(workers: int | None = None) -> Iterator[Executor]:
    """A process pool of ``workers`` processes (default: all cores); in this process for one worker."""
    n = default_workers() if workers is None else workers
    if n < 1:
        raise MalformedInput(f"--workers {n}: at least one worker")
    most = max(MAX_LOCAL_WORKERS, default_workers())
    if n > most:  # a forking pool starts every process at once: --workers 100000 forked 100000 of them
        raise MalformedInput(
            f"--workers {n}: at most {most} local processes (this machine has {default_workers()} cores); "
            "a cluster takes more (--dask-scheduler)"
        )
    if n == 1:
        yield InlineExecutor()
        return
    pool = ProcessPoolExecutor(max_workers=n, initializer=_ignore_sigint)
    try:
        yield pool
    finally:
        # Not waiting here: after a Ctrl-C the chunks still running are abandoned (their results are not
        # wanted); the workers finish them and exit with the interpreter.
        pool.shutdown(wait=False, cancel_futures=True)


@contextmanager
def dask_executor(address: str, timeout: str = "10s") -> Iterator[Executor]:
    """The executor of a Dask cluster at ``address`` (e.g. ``tcp://10.0.0.5:8786``)."""
    try:
        from distributed import Client
    except ImportError:
        raise MalformedInput("--dask-scheduler needs Dask: pip install 'heatlog[dask]'") from None
    try:
        client = Client(address, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise MalformedInput(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
    try:
        ex = client.get_executor()
        with contextlib.suppress(AttributeError, TypeError, OSError):  # how many tasks the cluster runs at once
            ex.heatlog_width = max(1, sum(client.nthreads().values()))
        yield ex
    finally:
        client.close()


def width(executor: Executor | None, default: int = 1) -> int:
    """How many tasks ``executor`` runs at once: a local pool's processes, a Dask cluster's threads (as
    :func:`dask_executor` found them), else ``default``."""
    if executor is None:
        return 1
    n = getattr(executor, "heatlog_width", None) or getattr(executor, "_max_workers", None)
    return int(n) if isinstance(n, int) and n > 0 else default


@contextmanager
def executor_for(workers: int | None = None, dask_scheduler: str | None = None) -> Iterator[Executor]:
    """The CLI's choice: a Dask cluster if an address is given, else the local process pool."""
    if dask_scheduler:
        if workers is not None:
            raise MalformedInput("give --workers (local cores) or --dask-scheduler (a cluster), not both")
        with dask_executor(dask_scheduler) as ex:
            yield ex
    else:
        with local_executor(workers) as ex:
            yield ex


__all__ = ["InlineExecutor", "dask_executor", "default_workers", "executor_for", "local_executor", "width"]
