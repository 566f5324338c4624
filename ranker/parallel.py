"""Process pools over sentences, and their progress bars: the one place the project forks workers.

Two pools, for two kinds of work. :func:`run_pool` is for work that may crash or hang (a C parser):

``concurrent.futures`` breaks the whole pool when one worker dies (a segfault inside a C parser)
and ``multiprocessing.Pool`` waits forever for the lost task. Here each worker takes one item at a
time over its own pipe, so the parent always knows which item a dead or overdue worker held: that
item is reported as failed, the worker is replaced, and the rest go on. Results arrive in
completion order. :func:`ordered_map` is for pure-Python work whose results must come back in task
order (feature extraction: the same matrix for any number of workers) with nothing to survive.
Both fork, so workers inherit the parent's state instead of receiving it pickled.

Both go through the *current executor* (:func:`current_executor`): :class:`LocalExecutor`, these
forked pools, unless a stage runs inside :func:`use_executor` with another one
(:class:`ranker.dask_executor.DaskExecutor`), as scikit-learn's estimators keep their ``n_jobs``
and joblib's ``parallel_backend`` decides where the work goes. The callers do not change.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from contextlib import contextmanager
from multiprocessing.connection import wait
from typing import Callable, Iterable, Iterator

# fork: workers start in milliseconds and inherit the imported modules; they never touch the
# parent's open SQLite connection.
_CTX = mp.get_context("fork")
#: Worker counts above the cores already warned about (one warning a process, not one a stage).
_WARNED: set[int] = set()


def resolve_workers(workers: int) -> int:
    """Processes (or threads) to use: the one rule of ``--workers`` and ``[experiment] workers``.

    ``0`` means every core; a negative number is refused; a number above the cores is kept (it
    sizes the work's chunks, which a Dask cluster of more workers than this machine's cores
    spreads) with one ``ranker: warning:`` line, the first time. Processes started on this machine
    are capped by :func:`local_processes`: never more than the cores, nor than a pool's tasks.
    """
    import os
    import sys

    if workers < 0:
        from .errors import RankerError

        raise RankerError(f"workers must be >= 0 (0 = every core), not {workers}")
    cores = os.cpu_count() or 1
    if workers > cores and workers not in _WARNED:
        _WARNED.add(workers)
        print(f"ranker: warning: workers = {workers} is more than this machine's {cores} cores: ranker "
              f"starts no more than {cores} processes (the work is CPU-bound; more would only compete for "
              "the cores)", file=sys.stderr)
    return workers or cores


def local_processes(workers: int, tasks: int | None = None) -> int:
    """Processes a pool on this machine starts for ``tasks`` tasks: ``workers``, but no more than the
    tasks (when known) and the cores (at least one).

    Capping at the tasks alone bounded nothing on a real split: ``--workers 1000`` forked a
    process per sentence of a 413-sentence split in ``select``, ``annotate``, ``counts`` and
    ``parse`` (``parse`` took 3 min 41 s instead of 40 s, and Link Grammar's clock budget timed
    out sentences it parses in time on an idle core).
    """
    import os

    return max(1, min(workers, workers if tasks is None else tasks, os.cpu_count() or 1))


def _quiet_on_interrupt() -> None:
    """In a worker: Ctrl-C (SIGINT, sent to the whole process group) is the parent's to handle.

    The parent prints one ``ranker: interrupted`` line and stops its workers (a busy one is
    killed); a worker that raised KeyboardInterrupt itself printed a traceback each. SIGTERM takes
    its default action again, not the parent's handler the fork copied (which raised in the worker
    too): ``multiprocessing`` stops its workers with it, and a worker that ignored it would be
    waited for forever as the parent exits.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _worker_main(conn, parent_end, make_handler, init_arg) -> None:
    # The fork copied the parent's end of this pipe too: close it, or the worker holds its own
    # pipe open and never reads EOF when the parent is killed (it would wait forever, orphaned).
    parent_end.close()
    _quiet_on_interrupt()
    handler = make_handler(init_arg)
    while True:
        try:
            item = conn.recv()
        except (EOFError, OSError):   # ConnectionResetError: the parent is gone; end quietly
            return
        if item is None:
            return
        result = handler(item)
        try:
            conn.send(result)
        except OSError:   # BrokenPipeError: the parent is gone; end quietly
            return


#: A busy worker that spends no CPU is taken for hung after this many times the hard timeout.
HUNG_WALL_FACTOR = 10
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float | None:
    """User and system CPU seconds of process ``pid`` (Linux's ``/proc``), or None where unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return None


class _Worker:
    def __init__(self, make_handler, init_arg):
        self.conn, child = _CTX.Pipe()
        self.proc = _CTX.Process(target=_worker_main, args=(child, self.conn, make_handler, init_arg),
                                 daemon=True)
        self.proc.start()
        child.close()
        self.item = None
        self.started = 0.0
        self.cpu_started: float | None = None

    def give(self, item) -> None:
        self.item, self.started = item, time.monotonic()
        self.cpu_started = _cpu_seconds(self.proc.pid)
        self.conn.send(item)

    def overdue(self, hard_timeout: float | None) -> bool:
        """Whether the item has taken more than ``hard_timeout`` seconds of the worker's CPU.

        CPU, not wall time: on a machine busy with other work a worker gets a fraction of a core,
        and a sentence within its CPU budget took over three times it in wall time (a test at a
        load of 10 on two cores killed a 10 s sentence as hung). A worker blocked without spending
        CPU is caught by the wall clock, at :data:`HUNG_WALL_FACTOR` times the timeout; where the
        process's CPU time cannot be read (no ``/proc``), the wall clock decides alone.
        """
        if hard_timeout is None:
            return False
        wall = time.monotonic() - self.started
        now = _cpu_seconds(self.proc.pid)
        if now is None or self.cpu_started is None:
            return wall > hard_timeout
        return now - self.cpu_started > hard_timeout or wall > HUNG_WALL_FACTOR * hard_timeout

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.proc.kill()
        else:
            try:
                self.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def run_pool(items: Iterable, make_handler: Callable, init_arg, workers: int,
             on_failure: Callable[[object, str], object], hard_timeout: float | None = None) -> Iterator:
    """Apply ``make_handler(init_arg)(item)`` to every item in ``workers`` processes.

    The current executor runs it (:func:`current_executor`); the local one is described here.

    Parameters
    ----------
    items
        Picklable work items.
    make_handler
        Module-level function run once per worker process (loads the parser) returning the
        per-item function; what it returns for an item is yielded.
    init_arg
        Its argument (e.g. parser options).
    workers
        Number of worker processes (at least 1).
    on_failure
        ``on_failure(item, reason)`` builds the result yielded for an item whose worker died
        (``"crash: ..."``) or overran ``hard_timeout`` (``"killed: ..."``).
    hard_timeout
        CPU seconds of one item after which its worker is killed (or ten times as many seconds
        of wall time spent without finishing it: :meth:`_Worker.overdue`).

    Yields
    ------
    object
        One result per item, in completion order.
    """
    return current_executor().run_pool(items, make_handler, init_arg, workers, on_failure, hard_timeout)


def _fork_pool(items: Iterable, make_handler: Callable, init_arg, workers: int,
               on_failure: Callable[[object, str], object], hard_timeout: float | None = None) -> Iterator:
    """:func:`run_pool` in forked processes of this machine (the local executor's).

    A worker starts only when there is an item for it: never more workers than items, nor than
    the cores (:func:`local_processes`).
    """
    workers = local_processes(workers)   # the items are counted as they come
    pending = iter(items)
    pool: list[_Worker] = []
    exhausted = False
    try:
        while True:
            while len(pool) < max(1, workers) and not exhausted:
                nxt = next(pending, _END)
                if nxt is _END:
                    exhausted = True
                else:
                    pool.append(_Worker(make_handler, init_arg))
                    pool[-1].give(nxt)
            for w in pool:
                if w.item is None and not exhausted:
                    nxt = next(pending, _END)
                    if nxt is _END:
                        exhausted = True
                    else:
                        w.give(nxt)
            busy = [w for w in pool if w.item is not None]
            if not busy:
                return
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=1.0)
            for i, w in enumerate(pool):
                if w.item is None:
                    continue
                if w.conn in ready:
                    try:
                        result = w.conn.recv()
                    except (EOFError, OSError):
                        result = None
                    else:
                        # Hand out the next item before the caller sees the result: the caller
                        # may take a while (a database commit), and the worker must not wait for it.
                        w.item = None
                        if not exhausted:
                            nxt = next(pending, _END)
                            if nxt is _END:
                                exhausted = True
                            else:
                                w.give(nxt)
                        yield result
                        continue
                overdue = w.overdue(hard_timeout)
                if w.proc.sentinel in ready or w.conn in ready or overdue:
                    if not overdue:
                        w.proc.join(timeout=2)   # its pipe can close before it is reaped
                    item, code = w.item, w.proc.exitcode
                    w.stop(kill=True)
                    if code == -signal.SIGTERM and not overdue:
                        # stopped, not crashed: SIGTERM to the process group (a job scheduler's)
                        # reaches the workers too, and the parent, stopping as well, keeps the item
                        # unparsed; a worker stopped alone hands its item to its replacement
                        pool[i] = _Worker(make_handler, init_arg)
                        pool[i].give(item)
                        continue
                    reason = (f"killed: no result after {hard_timeout:.0f} CPU s" if overdue and code is None
                              else f"crash: worker exited with code {code}")
                    pool[i] = _Worker(make_handler, init_arg)
                    yield on_failure(item, reason)
    finally:
        for w in pool:
            w.stop(kill=w.item is not None)


_END = object()


@contextmanager
def progress_bar(total: int, desc: str, unit: str = "sent", enabled: bool = True, bar_format: str | None = None):
    """A tqdm bar (``bar.update(n)``), or a silent stand-in when ``enabled`` is false.

    No monitor thread: workers are forked while the bar is open. ``bar_format``: tqdm's.
    """
    if not enabled:
        yield _NoBar()
        return
    from tqdm import tqdm

    tqdm.monitor_interval = 0
    bar = tqdm(total=total, unit=unit, desc=desc, dynamic_ncols=True, bar_format=bar_format)
    try:
        yield bar
    finally:
        bar.close()


class _NoBar:
    n = 0

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass


def ordered_map(fn: Callable, tasks: list, workers: int, progress: str | None = None,
                unit: str = "chunk", state=None) -> Iterator:
    """``fn(state, task)`` for every task in ``workers`` processes, yielded in task order.

    ``fn`` must be a module-level function. The local executor forks its workers after setting
    ``state`` aside, so they inherit it instead of receiving it pickled; another executor sends it
    to its workers (it must then be picklable).
    """
    with progress_bar(len(tasks), progress or "", unit, enabled=bool(progress)) as bar:
        for result in current_executor().ordered_map(fn, tasks, workers, state):
            yield result
            bar.update(1)


# What forked workers of :func:`_fork_ordered` call, inherited through fork.
_FORKED: dict = {}


def _call_forked(task):
    try:
        return _FORKED["fn"](_FORKED["state"], task)
    except Exception as e:
        raise _picklable(e) from None


def _picklable(error: Exception) -> Exception:
    """``error``, or one the parent can rebuild with its message and its worker's traceback.

    A pool pickles a task's exception to the parent, whose result thread unpickles it; an exception
    that cannot be rebuilt there (its ``__init__`` takes other arguments than its ``args``, or it
    holds an unpicklable object) killed that thread, and the pool then waited forever for the
    result (issue 44, item 8). A user's error stays a one-line :class:`~ranker.errors.RankerError`;
    any other is a bug and keeps its traceback in the message.
    """
    import pickle
    import traceback

    from .errors import RankerError

    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        pass
    if isinstance(error, RankerError):
        return RankerError(str(error))
    where = "".join(traceback.format_exception(error))
    return RuntimeError(f"{type(error).__name__} in a worker (not picklable to the parent): {error}\n{where}")


def _fork_ordered(fn: Callable, tasks: list, workers: int, state) -> Iterator:
    """:func:`ordered_map` in forked processes of this machine (the local executor's)."""
    if not tasks:
        return
    _FORKED.update(fn=fn, state=state)
    try:
        with _CTX.Pool(local_processes(workers, len(tasks)), _quiet_on_interrupt) as pool:   # <= tasks, cores
            yield from pool.imap(_call_forked, tasks, chunksize=1)   # in order: same result for any N
    finally:
        _FORKED.clear()


class LocalExecutor:
    """Forked process pools on this machine: the default executor (``[experiment] executor = "local"``).

    Parameters
    ----------
    scheduler : str
        Must be empty: a local pool has no scheduler.
    workers : int
        Unused: every call says its own number of processes.
    """

    name = "local"
    #: Whether the workers are forked from this process, so inherit what it has loaded (a model).
    forked = True
    #: Whether it reads a scheduler address (``[experiment] scheduler``, ``--scheduler``).
    takes_scheduler = False

    @classmethod
    def available(cls) -> bool:
        """Whether it can run on this machine: always (it needs nothing beyond the standard library)."""
        return True

    @classmethod
    def check(cls, scheduler: str = "") -> None:
        """Refuse, in one line, what this executor cannot run with: any scheduler address."""
        if scheduler:
            from .errors import RankerError

            raise RankerError(f"the local executor takes no scheduler address (got {scheduler!r}); "
                              "set executor = \"dask\" to use one")

    def __init__(self, scheduler: str = "", workers: int = 1):
        self.check(scheduler)
        self.workers = workers

    def run_pool(self, items, make_handler, init_arg, workers, on_failure, hard_timeout=None) -> Iterator:
        return _fork_pool(items, make_handler, init_arg, workers, on_failure, hard_timeout)

    def ordered_map(self, fn, tasks, workers, state) -> Iterator:
        return _fork_ordered(fn, tasks, workers, state)

    def distribute(self, objective):
        """The objective itself: its blocks are evaluated by its own threads."""
        return objective

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


_EXECUTORS: list = [LocalExecutor()]


def current_executor():
    """The executor :func:`run_pool`, :func:`ordered_map` and the log-linear objective use now."""
    return _EXECUTORS[-1]


@contextmanager
def use_executor(executor):
    """Run the enclosed stages on ``executor`` (restored afterwards, also on error)."""
    _EXECUTORS.append(executor)
    try:
        yield executor
    finally:
        _EXECUTORS.remove(executor)
