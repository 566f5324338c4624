"""SIGTERM and SIGINT (Ctrl-C) as an exception, so that a command's clean-up code runs.

Killed by SIGTERM's default action a process runs no ``finally`` clause: ``ranker serve`` would
leave recent decisions only in the store's ``-wal`` log, ``ranker store backup`` a half-written
temporary file beside its destination, and ``ranker run`` died mid-parse without a word while
each of its workers printed a traceback. Every command runs inside :func:`terminated_as_interrupt`
(``ranker.cli.main``): SIGTERM, what ``kill``, a job scheduler or a cluster's nanny sends, stops it
as Ctrl-C does, with one line (:func:`stopped_line`) and exit status 143.
"""
from __future__ import annotations

import contextlib


class Stopped(Exception):
    """SIGTERM or SIGINT arrived inside :func:`stopped_by_signals`."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived inside :func:`terminated_as_interrupt`: a KeyboardInterrupt, so that whatever
    clean-up Ctrl-C runs runs (pools stop their workers, the store records the run as interrupted)."""


@contextlib.contextmanager
def terminated_as_interrupt():
    """Within the block SIGTERM raises :class:`Terminated` (in the main thread only; elsewhere
    nothing changes). Workers forked inside reset it (:mod:`ranker.parallel`)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Terminated()

    old = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def interrupt_of(stopped: Stopped) -> KeyboardInterrupt:
    """The KeyboardInterrupt a :class:`Stopped` stands for: :class:`Terminated` for SIGTERM."""
    import signal

    return Terminated() if stopped.args and stopped.args[0] == signal.SIGTERM else KeyboardInterrupt()


def stopped_line(e: KeyboardInterrupt) -> str:
    """The one line a command stopped by Ctrl-C or SIGTERM ends with: what it kept, and how to go on.

    A command that committed anything to a store before it was stopped says so (the store marks the
    interrupt with ``kept_in``, :meth:`ranker.store.Store.recording`): whole transactions are kept,
    and every writer skips the work stored already (a parse its parsed sentences, a run its cached
    stages), so the same command again goes on from there.
    """
    what = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
    kept = getattr(e, "kept_in", None)
    if kept is None:
        return f"ranker: {what}"
    return f"ranker: {what}; the work it stored in {kept} is kept: run the same command again to go on from there"


def status_of(e: KeyboardInterrupt) -> int:
    """Exit status of a command stopped by ``e``: 128 + the signal's number, as a shell reports it."""
    return 143 if isinstance(e, Terminated) else 130


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
