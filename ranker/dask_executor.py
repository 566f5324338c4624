"""Dask as the executor: the process pools and the log-linear objective on a dask.distributed cluster.

``[experiment] executor = "dask"`` runs parsing, annotation checks, per-candidate counts and feature
extraction as Dask tasks over chunks of sentences, and keeps the objective's row blocks on the
workers (:mod:`ranker.models.distributed_objective`). The division of labour is the local pool's:
tasks carry what they need (sentences, texts, or the store's path and sentence ids; never an open
connection), workers read the store read-only, and the parent alone writes, taking each task's
result once, when it arrives. A worker that dies takes no result with it: Dask runs its unfinished
tasks again elsewhere, and a result is only written when the parent receives it, so no sentence is
lost or written twice.

Dask is an optional extra (``pip install 'ranker[dask]'``); nothing here imports it until an
executor is built.
"""
from __future__ import annotations

import logging
import pickle
import threading
import uuid
from itertools import islice
from typing import Callable, Iterable, Iterator

from .errors import RankerError
from .gcpause import gc_paused

#: The command that installs the extra, for messages.
INSTALL_HINT = "pip install 'ranker[dask]'"


def dask_missing() -> str | None:
    """Why ``executor = "dask"`` cannot run here (a one-line reason), or None when it can."""
    import importlib.util

    for module in ("dask", "distributed"):
        if importlib.util.find_spec(module) is None:
            return f"the dask executor needs the {module!r} package, which is not installed ({INSTALL_HINT})"
    return None


def check_scheduler_address(address: str) -> None:
    """Refuse an address Dask could not dial (``tcp://host:port``, ``tls://...``, ``inproc://...``)."""
    scheme, sep, rest = address.partition("://")
    if not sep or scheme not in ("tcp", "tls", "inproc", "ucx", "ws", "wss") or not rest:
        raise RankerError(f"scheduler {address!r} is not a Dask scheduler address such as tcp://host:8786")


#: State up to this size travels inside every task of :meth:`DaskExecutor.ordered_map`.
_INLINE_STATE_BYTES = 1 << 20

#: Dask settings of the local cluster this module starts, for workers that parse as fast as forked ones.
#:
#: malloc: Dask's nannies start workers with ``MALLOC_TRIM_THRESHOLD_=65536``; setting any such
#: variable turns off glibc's adaptive ``mmap`` threshold, so every block of 128 KiB or more that Link
#: Grammar allocates for a sentence is mapped, faulted in page by page and unmapped again. That took
#: 5x the page faults, five times the system time and 7-10% of a worker's time per sentence
#: (measured outside Dask with the variable set; two workers faulting at once also share the kernel and the
#: memory bus). Here the thresholds are those glibc's adaptation ends at on 64-bit (mmap 32 MiB,
#: trim twice that), fixed; a value set in the environment still wins.
#:
#: Background: every Dask server wakes every 20 ms (``tick``: is the event loop blocked?), every
#: worker samples its task thread's stack every 10 ms (the dashboard's profile, which needs the GIL
#: the task holds) and each server reads psutil's counters twice a second. That cost a busy worker
#: 4-9% of its CPU time, and each idle worker 0.028 and the client 0.024 of a core, taken from the
#: other worker when two parse; with these, 0.5% and 0.003-0.005 of a core.
#:
#: A cluster started by the user (``scheduler = ...``) keeps its own settings (README).
LOCAL_CLUSTER_CONFIG = {
    "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 32 << 20,
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 64 << 20,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}

# Handlers built on a worker, by (run, thread): a parser is loaded once per worker thread and run,
# not once per task, and never shared between threads.
_HANDLERS: dict = {}
_HANDLERS_LOCK = threading.Lock()


def _run_chunk(make_handler: Callable, init_arg, run: str, chunk: list) -> list:
    key = (run, threading.get_ident())
    with _HANDLERS_LOCK:
        handle = _HANDLERS.get(key)
        if handle is None:
            for k in [k for k in _HANDLERS if k[0] != run]:   # an earlier run's parsers: free them
                del _HANDLERS[k]
            handle = _HANDLERS[key] = make_handler(init_arg)
    # The local pool's forked workers inherit the paused collector of `ranker run` and every
    # command (ranker.gcpause); a Dask worker is its own process and must pause it itself.
    with gc_paused():
        return [handle(item) for item in chunk]


def _call_paused(fn: Callable, state, task):
    """``fn(state, task)`` with the cyclic collector paused, as in the local pool's forked workers."""
    with gc_paused():
        return fn(state, task)


class DaskExecutor:
    """Runs the project's pools and objective on a Dask cluster.

    Parameters
    ----------
    scheduler : str
        Address of a running scheduler (``tcp://host:8786``); empty: start a
        ``distributed.LocalCluster`` of ``workers`` worker processes on this machine.
    workers : int
        Worker processes of the local cluster (one thread each: the work holds the GIL).
    chunk_size : int
        Items (sentences) per task of :meth:`run_pool`: enough to hide the scheduler's few
        milliseconds per task, few enough that the last tasks even out.
    client : distributed.Client, optional
        An existing client to use (not closed by :meth:`close`).
    timeout : float
        Seconds to keep trying to reach ``scheduler``.
    """

    name = "dask"
    #: The workers are processes of their own (a cluster's, or a local one's): they load the model themselves.
    forked = False
    takes_scheduler = True

    @classmethod
    def available(cls) -> bool:
        """Whether the dask extra is installed here (:func:`dask_missing` says why not)."""
        return dask_missing() is None

    @classmethod
    def check(cls, scheduler: str = "") -> None:
        """Refuse, in one line, a missing dask extra, then a scheduler address Dask could not dial."""
        why = dask_missing()
        if why is not None:
            raise RankerError(why)
        if scheduler:
            check_scheduler_address(scheduler)

    def __init__(self, scheduler: str = "", workers: int = 1, chunk_size: int = 8, client=None,
                 timeout: float = 20.0):
        self.check()
        from distributed import Client, LocalCluster

        from .parallel import local_processes

        self.chunk_size = max(1, int(chunk_size))
        self._cluster = None
        self._own_client = client is None
        if client is not None:
            self.client = client
        elif scheduler:
            check_scheduler_address(scheduler)
            try:
                self.client = Client(scheduler, timeout=timeout)
            except (OSError, TimeoutError) as e:
                raise RankerError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
        else:
            import dask

            # the scheduler and nannies read the settings when they start, and the nannies hand
            # them to the worker processes (also to one restarted after a crash)
            with dask.config.set(LOCAL_CLUSTER_CONFIG):
                # this machine's processes: no more than its cores (ranker.parallel.local_processes)
                # silence_logs: distributed's own ERROR lines carry tracebacks (a heartbeat that
                # timed out on a loaded machine, then recovered); a task that fails is reported by
                # ranker itself, one line naming the item (run_pool's on_failure)
                self._cluster = LocalCluster(n_workers=local_processes(int(workers)),
                                             threads_per_worker=1, silence_logs=logging.CRITICAL,
                                             processes=True, dashboard_address=None)
            self.client = Client(self._cluster)

    def close(self) -> None:
        """Close the client, and the local cluster if this executor started it."""
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _threads(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def run_pool(self, items: Iterable, make_handler: Callable, init_arg, workers: int,
                 on_failure: Callable[[object, str], object], hard_timeout: float | None = None) -> Iterator:
        """:func:`ranker.parallel.run_pool` as Dask tasks of :attr:`chunk_size` items.

        ``workers`` is the cluster's to decide and ``hard_timeout`` is not enforced (Link Grammar
        keeps its own time limit). A task Dask gives up on (its workers kept dying, or it raised)
        is split into one task per item, so only the item at fault is reported through
        ``on_failure``. Items are read from ``items`` lazily, a few tasks ahead of the workers.
        """
        from distributed import as_completed

        run = uuid.uuid4().hex
        pending = iter(items)
        ahead = 2 * self._threads()
        chunks: dict = {}
        done = as_completed()

        def submit(chunk: list) -> None:
            f = self.client.submit(_run_chunk, make_handler, init_arg, run, chunk, pure=False)
            chunks[f] = chunk
            done.add(f)

        def refill() -> None:
            while len(chunks) < ahead:
                chunk = list(islice(pending, self.chunk_size))
                if not chunk:
                    return
                submit(chunk)

        refill()
        try:
            for f in done:
                chunk = chunks.pop(f)
                try:
                    results = f.result()
                except Exception as e:   # KilledWorker, or the handler raised: whatever the task met
                    results = None
                    error = f"crash: {type(e).__name__}: {e}".splitlines()[0]
                finally:
                    f.release()
                if results is None and len(chunk) > 1:
                    for item in chunk:
                        submit([item])
                    continue
                refill()
                if results is None:
                    yield on_failure(chunk[0], error)
                else:
                    yield from results
        finally:
            for f in chunks:
                f.cancel()

    def ordered_map(self, fn: Callable, tasks: list, workers: int, state) -> Iterator:
        """:func:`ranker.parallel.ordered_map` as one Dask task per task, results in task order.

        A small ``state`` (the store's path and the families) travels inside each task, so a task
        lost with its worker can always run again elsewhere; a large one (forests in memory) is
        sent to every worker once.
        """
        if not tasks:
            return
        shared = None
        if len(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)) > _INLINE_STATE_BYTES:
            shared = self.client.scatter([state], broadcast=True, hash=False)[0]
        futures = [self.client.submit(_call_paused, fn, shared if shared is not None else state, t, pure=False)
                   for t in tasks]
        try:
            for i, f in enumerate(futures):
                try:
                    result = f.result()
                except Exception as e:
                    raise RankerError(f"Dask task {i + 1} of {len(tasks)} ({getattr(fn, '__name__', fn)}) "
                                      f"failed: {type(e).__name__}: {e}".splitlines()[0]) from None
                f.release()
                futures[i] = None
                yield result
        finally:
            for f in futures:
                if f is not None:
                    f.cancel()
            if shared is not None:
                shared.release()

    def distribute(self, objective):
        """The objective with its row blocks on the workers (scattered once)."""
        from .models.distributed_objective import DistributedObjective

        return DistributedObjective(objective, self.client)
