"""Per-stage peak memory sees this process's and its worker processes' allocations."""
import multiprocessing
import time

import numpy as np
import pytest

from ranker.memory import PeakMemory, descendants, tree_kib


def _hold(mb: int) -> None:
    a = np.ones(mb * 2**20 // 8)      # touched, so resident
    time.sleep(1.0)
    assert a.sum() > 0


@pytest.mark.slow
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


def test_a_spike_between_samples_counts_beside_long_lived_workers():
    """Regression (session 24): with a worker holding 300 MB from before the block to after it, a
    200 MB spike of this process between two samples was lost (the peak was the larger of this
    process's high-water mark alone, and the samples, which held the worker but not the spike):
    ``test_the_peak_is_reset_for_each_block`` failed in a pytest worker that kept browsers open."""
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    p = ctx.Process(target=_hold_until, args=(300, ready))
    p.start()
    try:
        assert ready.wait(30)
        with PeakMemory(interval=60) as big:     # no sample but the first and the last
            a = np.ones(200 * 2**20 // 8)
            del a
        with PeakMemory(interval=60) as small:
            pass
    finally:
        p.terminate()
        p.join()
    assert big.peak_mb - small.peak_mb > 150


def _hold_until(mb: int, ready) -> None:
    a = np.ones(mb * 2**20 // 8)
    ready.set()
    time.sleep(120)
    assert a.sum() > 0


@pytest.mark.slow
def test_the_tree_holds_this_process_and_its_children():
    ctx = multiprocessing.get_context("fork")
    p = ctx.Process(target=time.sleep, args=(0.5,))
    p.start()
    try:
        assert p.pid in descendants(multiprocessing.current_process().pid)
        assert tree_kib() > 0
    finally:
        p.join()


@pytest.mark.slow
def test_free_heap_goes_back_to_the_system():
    # issue 13: a matrix built slab by slab leaves its freed temporaries (a few MB each, below
    # glibc's mmap threshold) resident in the heap; release_free_heap hands them back
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import numpy as np
        from ranker.memory import _status_kib, release_free_heap
        big = np.ones(24 << 17); del big      # freeing a 24 MB block raises the mmap threshold
        blocks = [np.ones(1 << 17) for _ in range(200)]    # 200 x 1 MB, now in the heap
        keep = blocks[-1]
        del blocks
        before = _status_kib("self", "VmRSS")
        release_free_heap()
        print(before - _status_kib("self", "VmRSS"))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) > 100 * 1024          # KiB: most of the 199 MB freed
