"""Pausing Python's cyclic garbage collector while bulk data is built.

Reading a forest makes millions of small tuples (tree nodes, links, scores) and none of them forms
a reference cycle, yet every burst of allocations triggers collections that scan the whole,
growing heap. On 150 WSJ forests (67,377 candidates) reading took 9.4 s with the collector on and
2.7 s with it paused. Reference counting still frees everything while paused; only the search for
cycles is skipped, and it runs once when the outermost pause ends if asked to.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def gc_paused(collect: bool = False) -> Iterator[None]:
    """Run the block with the cyclic collector off; nested pauses leave it to the outermost one.

    Parameters
    ----------
    collect : bool
        Collect cycles once at the end (when this pause is the one that turns the collector back
        on), for long blocks that may have made some.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
            if collect:
                gc.collect()
