"""A parser's n-best files cut into partitions on list boundaries, for work spread over processes or machines.

``ranker apply --executor dask`` hands each partition to one task, which reads only its own
bytes, applies the model and writes its part of the output; the parts, concatenated in partition
order, are the output of one process reading the files in turn. A partition is a whole file, or,
for a large uncompressed file, a byte range that begins where a list begins (just after a blank
line) and ends where the next partition begins, so no list is cut and none is read twice. Only a
few kilobytes around each cut are read to place it; a ``.gz`` file cannot be entered in the middle
and is one partition (give a large input as several files).

Paths go through fsspec (Dask's own file layer) when it is installed, so a partition may live on
any file system the workers read (local, NFS, object stores with the matching fsspec package);
plain local paths need nothing beyond the standard library.

Line numbers: a task learns how many lines come before its partition only from the partitions
before it. :func:`count_lines` counts a partition's lines (a pass over its bytes, hundreds of
times faster than ranking them), and the caller gives each partition its first line number
before it is applied, so every message names the file and line as one process would.
"""
from __future__ import annotations

import io
import re
from typing import NamedTuple

#: Bytes read at a time when placing a cut or counting lines.
_BLOCK = 1 << 20


class Partition(NamedTuple):
    """Bytes ``[start, end)`` of ``path`` (``end`` None: to the end), whole lists; ``first_line`` of them."""

    path: str
    start: int = 0
    end: int | None = None
    first_line: int = 1

    @property
    def compressed(self) -> bool:
        return self.path.endswith(".gz")


def open_binary(path: str):
    """``path`` opened for reading bytes: through fsspec when installed (any file system), else locally."""
    try:
        import fsspec
    except ImportError:
        return open(path, "rb")
    return fsspec.open(path, "rb").open()


def size_of(path: str) -> int:
    """The size in bytes of ``path`` (through fsspec when installed)."""
    try:
        import fsspec
    except ImportError:
        import os

        return os.path.getsize(path)
    fs, _, (p,) = fsspec.get_fs_token_paths(path)
    return int(fs.size(p))


def _next_list_start(f, at: int) -> int | None:
    """The offset of the first list that begins at or after ``at``, or None when none does.

    A list begins at a line that is not blank just after a blank line (a line of white space
    alone is blank, as the readers count it). The search starts a byte before ``at``, so a blank
    line that began further back may be missed and the next list start found instead: still a
    list start, which is all a cut needs.
    """
    s = max(0, at - 1)
    f.seek(s)
    buf = b""
    while True:
        data = f.read(_BLOCK)
        buf += data   # grows only while no list starts in it
        for m in _LIST_START.finditer(buf):
            if s + m.end() >= at:
                return s + m.end()
        if not data:
            return None


#: A blank line after a line end, followed by a line that is not blank: a list begins at its end.
_LIST_START = re.compile(rb"\n[ \t\r\f\v]*\n(?=[ \t\r\f\v]*\S)")


def plan(paths, size: int) -> list[Partition]:
    """Partitions of the files ``paths``, in input order: each file whole, or cut about every ``size`` bytes.

    A compressed file, or one of at most ``size`` bytes, is one partition. Partitions of a cut
    file need their ``first_line`` set (:func:`number_lines`) before they are applied.
    """
    out = []
    for path in paths:
        path = str(path)
        total = size_of(path)
        if path.endswith(".gz") or total <= size:
            out.append(Partition(path))
            continue
        cuts = [0]
        with open_binary(path) as f:
            at = size
            while at < total:
                p = _next_list_start(f, max(at, cuts[-1] + 1))
                if p is None:
                    break
                cuts.append(p)
                at = p + size
        out += [Partition(path, a, b) for a, b in zip(cuts, cuts[1:] + [None])]
    return out


def count_lines(part: Partition) -> int:
    """Line ends in the partition's bytes (a plain file's byte range)."""
    n = 0
    with open_binary(part.path) as f:
        f.seek(part.start)
        left = None if part.end is None else part.end - part.start
        while left is None or left > 0:
            data = f.read(_BLOCK if left is None else min(_BLOCK, left))
            if not data:
                break
            n += data.count(b"\n")
            if left is not None:
                left -= len(data)
    return n


def number_lines(parts: list[Partition], counts: dict) -> list[Partition]:
    """``parts`` with each ``first_line`` set from ``counts`` (partition -> its line ends) of the ones before."""
    out, line, last = [], 1, None
    for p in parts:
        if p.path != last:
            line, last = 1, p.path
        out.append(p._replace(first_line=line))
        if p.end is not None:
            line += counts[p]
    return out


def read_bytes(part: Partition):
    """A buffered binary stream of the partition's bytes (decompressed for a ``.gz`` file), read as needed."""
    import gzip

    f = open_binary(part.path)
    if part.compressed:
        return io.BufferedReader(gzip.GzipFile(fileobj=f, mode="rb"))
    f.seek(part.start)
    return io.BufferedReader(_Slice(f, None if part.end is None else part.end - part.start))


class _Slice(io.RawIOBase):
    """The next ``left`` bytes of an open file (all of them when None), as a raw stream."""

    def __init__(self, f, left: int | None):
        super().__init__()
        self.f, self.left = f, left

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = len(b) if self.left is None else min(len(b), self.left)
        data = self.f.read(n) if n else b""
        b[:len(data)] = data
        if self.left is not None:
            self.left -= len(data)
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self.f.close()
        super().close()
