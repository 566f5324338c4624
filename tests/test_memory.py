"""Per-stage peak memory sees this process's and its worker processes' allocations."""
import multiprocessing
import time

import numpy as np

from ranker.memory import PeakMemory, descendants, tree_kib


def _hold(mb: int) -> None:
    a = np.ones(mb * 2**20 // 8)      # touched, so resident
    time.sleep(1.0)
    assert a.sum() > 0


def test_a_workers_allocation_counts_in_the_peak():
    ctx = multiprocessing.get_context("fork")
    with PeakMemory(interval=0.05) as quiet:
        time.sleep(0.2)
    with PeakMemory(interval=0.05) as busy:
        p = ctx.Process(target=_hold, args=(300,))
        p.start()
        p.join()
    assert p.exitcode == 0
    assert busy.peak_mb - quiet.peak_mb > 250


def test_the_peak_is_reset_for_each_block():
    with PeakMemory() as big:
        a = np.ones(200 * 2**20 // 8)
        del a
    with PeakMemory() as small:
        pass
    assert big.peak_mb - small.peak_mb > 150


def test_the_tree_holds_this_process_and_its_children():
    ctx = multiprocessing.get_context("fork")
    p = ctx.Process(target=time.sleep, args=(0.5,))
    p.start()
    try:
        assert p.pid in descendants(multiprocessing.current_process().pid)
        assert tree_kib() > 0
    finally:
        p.join()
