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
        if x == "slow":                # waits (as a worker given little CPU on a busy machine)
            time.sleep(2.5)
        if x == "spin":                # spends CPU without end
            while True:
                pass
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


@pytest.mark.slow
def test_the_hard_timeout_counts_the_workers_cpu_not_the_wall_clock():
    """Regression (session 20): the pool killed a worker after ``hard_timeout`` seconds of wall time,
    so on a machine at a load of 10 on two cores a sentence well within its 10 s CPU budget (90 s
    wall allowed) was killed and stored as a crash. A worker that waits past the timeout now
    finishes; one that spends the timeout's CPU is killed; one that waits ten times it is hung."""
    items = ["slow", "spin", "a"]
    got = dict(run_pool(items, _make, "ok", 2, lambda item, why: (item, why), hard_timeout=1.0))
    assert got["slow"] == got["a"] == "ok"
    assert got["spin"] == "killed: no result after 1 CPU s"


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
    two = min(2, os.cpu_count() or 1)   # and no more than the cores (issue 44, item 18)
    assert len(list(parallel.ordered_map(_pid_of, [1, 2], 1000))) == 2 and pools == [two]
    assert list(parallel.ordered_map(_pid_of, [], 1000)) == [] and pools == [two]
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
                   f"ranker starts no more than {cores} processes (the work is CPU-bound; more would only "
                   "compete for the cores)\n")
    with pytest.raises(RankerError, match="workers must be >= 0"):
        resolve_workers(-1)


_INTERRUPTED = r"""
import sys, time
from ranker.cli import main as cli
from ranker import parallel

def make(arg):
    def handle(x):
        time.sleep(30)
    return handle

def slow(state, task):
    time.sleep(30)

def command(args):
    print("started", flush=True)
    if sys.argv[1] == "run_pool":
        list(parallel.run_pool(range(4), make, None, 2, lambda item, why: why))
    else:
        list(parallel.ordered_map(slow, list(range(4)), 2))
    return 0

class Args:
    func = staticmethod(command)

cli.build_parser = lambda argv: type("P", (), {"parse_args": lambda self, a: Args()})()
sys.exit(cli.main([]))
"""


@pytest.mark.slow   # quick tier under a minute (issue 35, item 8): seconds of real work, CI runs it
@pytest.mark.parametrize("pool", ["run_pool", "ordered_map"])
def test_issue36_ctrl_c_is_one_line_and_status_130_and_the_workers_die_quietly(tmp_path, pool):
    """Regression (issue 36, item 8): Ctrl-C during ``parse`` or ``counts`` printed a KeyboardInterrupt
    traceback from every worker (SIGINT reaches the whole process group); now the parent alone says
    ``ranker: interrupted`` and exits 130, and no worker is left."""
    import signal
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", _INTERRUPTED, pool], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))   # as a terminal would
    assert p.stdout.readline() == "started\n"
    time.sleep(1.0)                                   # the workers are forked and busy
    os.killpg(p.pid, signal.SIGINT)                    # as Ctrl-C: the whole group
    out, err = p.communicate(timeout=60)
    assert (p.returncode, err) == (130, "ranker: interrupted\n")
    time.sleep(0.5)
    try:
        os.killpg(p.pid, 0)
        left = True
    except ProcessLookupError:
        left = False
    assert not left, "a worker outlived the command"
