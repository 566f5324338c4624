"""The output of a partitioned ``ranker apply``: one part file per partition, joined in input order at the end.

Each task writes its part under a name of its own and renames it into place when it is complete,
so a task that runs twice (its worker died after writing, Dask ran it again elsewhere) leaves one
whole part, never half of one or two. Only when every task has reported does :func:`join_parts`
copy the parts, in partition order, into the output (through :func:`ranker.atomicfile.atomic_write`
for a local output: a failure leaves the old file as it was) and remove them. The parts are a
folder of the run's own beside the output (so on a cluster the output's folder must be shared),
removed at the end whether the run succeeded or not; paths go through fsspec when it is installed.
"""
from __future__ import annotations

import os
import shutil
import uuid
from contextlib import contextmanager


def _fs(path: str):
    """``(file system, path within it)`` of ``path``: fsspec's when installed, else the local one."""
    try:
        import fsspec
    except ImportError:
        return None, path
    fs, _, (p,) = fsspec.get_fs_token_paths(path)
    return fs, p


def part_name(folder: str, number: int) -> str:
    return f"{folder.rstrip('/')}/part-{number:06d}.mrg"


def make_folder(folder: str) -> None:
    """Create the parts' folder (a new one: its name is the run's own)."""
    fs, p = _fs(folder)
    if fs is None:
        os.makedirs(p)
    else:
        fs.makedirs(p, exist_ok=False)


def remove_folder(folder: str) -> None:
    fs, p = _fs(folder)
    if fs is None:
        shutil.rmtree(p, ignore_errors=True)
    elif fs.exists(p):
        fs.rm(p, recursive=True)


@contextmanager
def write_part(folder: str, number: int):
    """A text stream for part ``number``; the part appears, whole, only when the block ends without error."""
    final = part_name(folder, number)
    tmp = f"{final}.{uuid.uuid4().hex}.tmp"
    fs, p = _fs(tmp)
    f = open(p, "w", encoding="utf-8") if fs is None else fs.open(p, "w", encoding="utf-8")
    try:
        with f:
            yield f
    except BaseException:
        if fs is None:
            os.unlink(p)
        else:
            fs.rm(p)
        raise
    if fs is None:
        os.replace(p, _fs(final)[1])
    else:
        fs.mv(p, _fs(final)[1])


def join_parts(folder: str, count: int, out) -> None:
    """Copy parts ``0 .. count-1`` of ``folder``, in order, into the open text stream ``out``."""
    for k in range(count):
        fs, p = _fs(part_name(folder, k))
        with (open(p, encoding="utf-8") if fs is None else fs.open(p, "r", encoding="utf-8")) as f:
            while True:
                block = f.read(1 << 20)
                if not block:
                    break
                out.write(block)
