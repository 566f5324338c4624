"""Peak resident memory of this process and of its worker processes while a stage runs (Linux /proc).

A stage's memory is its process's and its workers' together: parsing, scoring and feature
extraction run in forked pools whose peaks ``ru_maxrss`` of the parent never sees, and
``RUSAGE_CHILDREN`` only gives the largest child of the whole run. :class:`PeakMemory` resets this
process's high-water mark (``VmHWM``, by writing ``5`` to ``/proc/self/clear_refs``) when a stage
starts, reads it when it ends, and meanwhile samples the whole process tree every ``interval``
seconds: this process's resident size plus each descendant's proportional set size (``Pss``,
so pages a forked worker still shares with its parent are not counted twice). The peak is the
larger of the samples' and the high-water mark plus the least the workers held at any sample.
Where /proc is missing, it measures nothing and reports ``None``.
"""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

_PROC = Path("/proc")


def _status_kib(pid: int | str, key: str) -> int | None:
    try:
        for line in (_PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _pss_kib(pid: int) -> int:
    try:
        for line in (_PROC / str(pid) / "smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return _status_kib(pid, "VmRSS") or 0


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, their children, ...)."""
    parent_of: dict[int, int] = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            parent_of[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    below, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parent_of.items() if pp == p]
        below += kids
        frontier += kids
    return below


def descendants_kib(pid: int) -> int:
    """The proportional sizes of ``pid``'s descendants, together."""
    return sum(_pss_kib(c) for c in descendants(pid))


def tree_kib(pid: int | None = None) -> int:
    """Resident KiB of ``pid`` (default this process) plus its descendants' proportional sizes."""
    pid = pid or os.getpid()
    return (_status_kib(pid, "VmRSS") or 0) + descendants_kib(pid)


class PeakMemory:
    """Context manager: ``peak_mb`` is the tree's peak resident memory while the block ran.

    Parameters
    ----------
    interval : float
        Seconds between samples of the worker processes.
    """

    def __init__(self, interval: float = 0.2):
        self.interval = interval
        self.peak_mb: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._sampled = 0
        self._workers_least = 0

    def _take(self) -> None:
        """One sample of the tree, kept if the largest; the workers' share kept if the least."""
        workers = descendants_kib(os.getpid())
        self._sampled = max(self._sampled, (_status_kib("self", "VmRSS") or 0) + workers)
        self._workers_least = min(self._workers_least, workers)

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            self._take()

    def __enter__(self) -> "PeakMemory":
        if not (_PROC / "self" / "status").exists():
            return self
        try:
            (_PROC / "self" / "clear_refs").write_text("5")   # reset VmHWM to the current RSS
        except OSError:
            pass
        self._workers_least = sys.maxsize   # the first sample sets it
        self._sampled = 0
        self._take()
        self._thread = threading.Thread(target=self._sample, name="peak-memory", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._take()
        # This process's high-water mark came at a moment the samples may have missed; its workers
        # then held, as a rule, no less than the least any sample saw (the first at the start, the
        # last at the end). Taken alone, the mark lost a short spike of this process beside
        # long-lived workers (the samples held the workers but missed the spike: session 24).
        own = _status_kib("self", "VmHWM") or 0
        self.peak_mb = round(max(own + self._workers_least, self._sampled) / 1024, 1)


def release_free_heap() -> None:
    """Return the C heap's free memory to the system (glibc's ``malloc_trim``; elsewhere nothing).

    Building a large matrix slab by slab frees many temporaries of a few MB, below glibc's mmap
    threshold, so they stay in the heap: on the WSJ training matrix about 90 MB that the process
    keeps resident, beside a 607 MB matrix, for the whole fit. Called once the matrix is built.
    """
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
