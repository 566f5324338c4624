"""The output of a partitioned ``ranker apply``: one part file per partition, joined in input order at the end.

Each task writes its part under a name of its own and renames it into place when it is complete,
so a task that runs twice (its worker died after writing, Dask ran it again elsewhere) leaves one
whole part, never half of one or two. Only when every task has reported does :func:`join_parts`
copy the parts, in partition order, into the output (through :func:`ranker.atomicfile.atomic_write`
for a local output: a failure leaves the old file as it was) and remove them. The parts are a
folder of the run's own beside the output (so on a cluster the output's folder must be shared),
removed at the end whether the run succeeded or not; paths go through fsspec when it is installed.

A folder the user names (``ranker apply --parts DIR``) outlives a run cut short: beside each whole
part a record (``part-NNNNNN.json``, written last) keeps what the partition gave and a key of what
it was made from (the model file's bytes, the format, the partition's file, size, modification time
and byte range), so a rerun with the same folder applies only the partitions without a record of
that key (:func:`finished_parts`). Such a folder is removed once the output is written whole, and
one run at a time works in it (:func:`hold_folder`).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
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


def make_folder(folder: str, exist_ok: bool = False) -> None:
    """Create the parts' folder (a new one, its name the run's own; or the user's, kept between runs)."""
    fs, p = _fs(folder)
    if fs is None:
        os.makedirs(p, exist_ok=exist_ok)
    else:
        fs.makedirs(p, exist_ok=exist_ok)


def remove_folder(folder: str) -> None:
    fs, p = _fs(folder)
    if fs is None:
        shutil.rmtree(p, ignore_errors=True)
    elif fs.exists(p):
        fs.rm(p, recursive=True)


#: The lock a run holds on the user's folder (:func:`hold_folder`).
LOCK = "apply.lock"
_OURS = re.compile(r"part-\d{6}\.(mrg|json)(\.[0-9a-f]{32}\.tmp)?|" + re.escape(LOCK))


@contextmanager
def hold_folder(folder: str):
    """Hold the user's parts folder for this run: a second run given the same folder is refused at once.

    Two runs on one folder each took the other's parts for their own, and the first to finish
    removed the folder under the second, which then failed naming a temporary file (issue 44, item
    15). The lock is an ``flock`` on ``DIR/apply.lock``, released however the run ends (a killed run
    holds none, so it resumes; the file is removed when the run ends); a folder that is a URL of an
    object store is not locked.

    Raises
    ------
    RankerError
        When another run holds the folder.
    """
    import fcntl

    from ...errors import RankerError

    if "://" in folder and not folder.startswith("file://"):
        yield
        return
    local = _fs(folder)[1]
    path = os.path.join(local, LOCK)
    while True:
        os.makedirs(local, exist_ok=True)   # the run before may have removed the folder, done with it
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise RankerError(f"--parts {folder}: another ranker apply is using this folder; wait for it to "
                              "end, or give another folder") from None
        try:
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                break
        except FileNotFoundError:
            pass
        os.close(fd)   # the run before removed the lock as it was opened here: take the new one
    try:
        yield
    finally:
        try:   # the folder is left as the user's own files and the parts made it (the lock is none of them)
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                os.unlink(path)
        except OSError:
            pass
        os.close(fd)


def remove_parts(folder: str) -> None:
    """Remove the parts, records and leftovers a run wrote in a folder the user named, then the
    folder if nothing else is in it (a folder of the user's own files is never emptied)."""
    fs, p = _fs(folder)
    if fs is None:
        for name in os.listdir(p):
            if _OURS.fullmatch(name):
                os.unlink(os.path.join(p, name))
        try:
            os.rmdir(p)
        except OSError:
            pass
        return
    for name in fs.ls(p, detail=False):
        if _OURS.fullmatch(name.rstrip("/").rsplit("/", 1)[-1]):
            fs.rm(name)
    if not fs.ls(p, detail=False):
        fs.rmdir(p)


def write_part(folder: str, number: int):
    """A text stream for part ``number``; the part appears, whole, only when the block ends without error."""
    return _whole(part_name(folder, number))


@contextmanager
def _whole(final: str):
    """A text stream for the file ``final``, which appears, whole, only when the block ends without error."""
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


def part_key(model_digest: str, fmt: str, part) -> str:
    """What a partition's part is made from, as a digest: a part recorded under another key is made again.

    The file is known by its path, size and modification time (as ``make`` knows it), the model by
    a digest of its file's bytes; the chunk size and the executor change no byte of a part.
    """
    fs, p = _fs(part.path)
    if fs is None:
        st = os.stat(p)
        size, mtime = st.st_size, st.st_mtime_ns
    else:
        info = fs.info(p)
        size, mtime = info.get("size"), str(info.get("mtime", info.get("LastModified", "")))
    doc = [model_digest, fmt, part.path, size, mtime, part.start, part.end, part.first_line]
    return hashlib.sha256(json.dumps(doc, default=str).encode()).hexdigest()[:24]


def _record_name(folder: str, number: int) -> str:
    return f"{folder.rstrip('/')}/part-{number:06d}.json"


def record_part(folder: str, number: int, key: str, applied) -> None:
    """Record part ``number`` as finished (after it is in place): its key and what it gave."""
    with _whole(_record_name(folder, number)) as f:
        f.write(json.dumps({"key": key, "applied": list(applied)}))


def finished_parts(folder: str, keys: list[str]) -> dict:
    """``number -> what it gave`` (a list of the :class:`~.lists.Applied` fields) for the parts
    of ``folder`` recorded under ``keys[number]`` whose output is there; an unreadable record is none."""
    done = {}
    for number, key in enumerate(keys):
        fs, rec = _fs(_record_name(folder, number))
        try:
            with (open(rec, encoding="utf-8") if fs is None else fs.open(rec, "r", encoding="utf-8")) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        part = _fs(part_name(folder, number))[1]
        there = os.path.isfile(part) if fs is None else fs.exists(part)
        if isinstance(doc, dict) and doc.get("key") == key and there and isinstance(doc.get("applied"), list):
            done[number] = doc["applied"]
    return done
