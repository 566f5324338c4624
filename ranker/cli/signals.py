"""SIGTERM and SIGINT (Ctrl-C) as an exception, so that a command's clean-up code runs.

Killed by SIGTERM's default action a process runs no ``finally`` clause: ``ranker serve`` would
leave recent decisions only in the store's ``-wal`` log, ``ranker store backup`` a half-written
temporary file beside its destination.
"""
from __future__ import annotations

import contextlib


class Stopped(Exception):
    """SIGTERM or SIGINT arrived inside :func:`stopped_by_signals`."""


@contextlib.contextmanager
def stopped_by_signals():
    """Within the block SIGTERM and SIGINT raise :class:`Stopped` (in the main thread only:
    handlers can only be set there; elsewhere nothing changes)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Stopped(signum)

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
