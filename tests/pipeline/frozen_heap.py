"""The test process's own objects left out of the cyclic collector's passes while a pipeline run works."""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Run the block with every object alive at its start frozen (:func:`gc.freeze`), unfrozen after.

    ``ranker run`` collects cycles after each of its stages (``StageClock`` in
    ranker/pipeline/experiment.py): in its own process that scans the run's heap; in a pytest
    worker it scanned every object the earlier tests had left too (about 400,000 after four
    pipeline files, 0.23 s a pass: 2 of a tiny run's 5 s, more in a full run's later files).
    Frozen, a pass scans what the run made (what tests/ranker_forked.py does for a command forked
    from the test process, here in the test process itself, for as long as the run lasts: a run's
    forked pool workers inherit the frozen objects, as a command's do). Nothing changes but when
    garbage is found: reference counting frees as before, and a cycle among the frozen objects is
    found after the block. Not for a test that inspects the collector's objects (:func:`gc.get_objects` lists no frozen
    object). Inside a freeze already made (the suite's, tests/conftest.py), it freezes what the test
    made so far too and leaves the unfreezing to the outer one.
    """
    outer = gc.get_freeze_count() > 0   # the suite's hook (tests/conftest.py) froze the earlier tests' objects
    gc.freeze()
    try:
        yield
    finally:
        if not outer:
            gc.unfreeze()   # else the outer freeze ends it
