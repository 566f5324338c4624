"""The process pool isolates a crashing or hanging item and goes on with the rest."""
import os
import time

import pytest

from ranker.parallel import run_pool


def _make(arg):
    def handle(x):
        if x == "crash":
            os._exit(3)
        if x == "hang":
            time.sleep(60)
        return (x, arg)
    return handle


@pytest.mark.slow
def test_crash_and_hang_are_reported_and_the_rest_finish():
    items = ["a", "crash", "b", "hang", "c"]
    out = list(run_pool(items, _make, "ok", 2, lambda item, why: (item, why), hard_timeout=1.0))
    got = dict(out)
    assert sorted(got) == sorted(items)
    assert got["a"] == got["b"] == got["c"] == "ok"
    assert got["crash"].startswith("crash: worker exited with code 3")
    assert got["hang"].startswith("killed")


def _pid(arg):
    def handle(x):
        time.sleep(0.05)               # long enough that every started worker gets an item
        return os.getpid()
    return handle


def _pid_of(state, task):
    time.sleep(0.05)
    return os.getpid()


def test_issue36_no_pool_starts_more_workers_than_it_has_tasks(monkeypatch):
    """Regression (issue 36, item 6): ``--workers 1000`` forked 61-84 processes within seconds in
    ``counts``, ``annotate``, ``select`` and ``parse`` whatever the number of sentences; each pool now
    starts at most one worker a task."""
    import multiprocessing

    from ranker import parallel

    started = []
    real = parallel._CTX.Process

    def counting(*a, **k):
        started.append(1)
        return real(*a, **k)

    monkeypatch.setattr(parallel._CTX, "Process", counting)
    pids = list(run_pool(range(3), _pid, None, 1000, lambda item, why: why))
    assert len(pids) == 3 and len(started) <= 3
    assert list(run_pool([], _pid, None, 1000, lambda item, why: why)) == [] and len(started) <= 3
    pools = []
    real_pool = parallel._CTX.Pool
    monkeypatch.setattr(parallel._CTX, "Pool", lambda n, *a, **k: pools.append(n) or real_pool(n, *a, **k))
    assert len(list(parallel.ordered_map(_pid_of, [1, 2], 1000))) == 2 and pools == [2]
    assert list(parallel.ordered_map(_pid_of, [], 1000)) == [] and pools == [2]
    assert multiprocessing.active_children() == []


def test_issue36_workers_above_the_cores_warn_once_and_below_zero_are_refused(monkeypatch, capsys):
    from ranker import parallel
    from ranker.errors import RankerError
    from ranker.pipeline.stages import resolve_workers

    monkeypatch.setattr(parallel, "_WARNED", set())
    cores = os.cpu_count() or 1
    assert resolve_workers(0) == cores and resolve_workers(cores) == cores
    assert capsys.readouterr().err == ""
    assert resolve_workers(cores + 998) == resolve_workers(cores + 998) == cores + 998
    err = capsys.readouterr().err
    assert err == (f"ranker: warning: workers = {cores + 998} is more than this machine's {cores} cores: "
                   "the processes compete for them (each pool starts no more than it has tasks)\n")
    with pytest.raises(RankerError, match="workers must be >= 0"):
        resolve_workers(-1)
