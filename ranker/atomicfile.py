"""Writing an output file so that a failure never leaves it truncated or half written.

The text goes to a temporary file beside the target and replaces it only once it is complete, so
a full disk, a broken pipe or a bad store half-way through leaves the old file (or none) exactly
as it was. A write the system refuses becomes a one-line :class:`ranker.errors.RankerError`
naming the target file. An output that is the store, or a file SQLite or ``ranker serve`` keeps
beside it, is refused before anything is written (:func:`check_not_store`).
"""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from .errors import RankerError


@contextmanager
def atomic_write(path: str | Path, binary: bool = False) -> Iterator[IO]:
    """Open a temporary file for writing that becomes ``path`` when the block ends without error.

    Parameters
    ----------
    path
        The file to (re)place; its folder must exist.
    binary
        Bytes instead of UTF-8 text.

    Raises
    ------
    RankerError
        If the folder is missing or not writable, or a write fails (disk full, size limit);
        ``path`` is then left as it was.
    """
    with atomic_path(path) as tmp:
        with (open(tmp, "wb") if binary else open(tmp, "w", encoding="utf-8")) as f:
            yield f


@contextmanager
def atomic_path(path: str | Path, replace: bool = True, suffix: str = ".tmp") -> Iterator[str]:
    """The name of a new, empty temporary file beside ``path`` that becomes ``path`` when the block
    ends without error; on any error or interruption (Ctrl-C) it is removed.

    The name is unique (:func:`tempfile.mkstemp`): no file of the user's is ever taken for a
    leftover and replaced. With ``replace=False`` an existing ``path`` is kept and the write
    refused (a hard link makes the new file appear only where none is).

    Raises
    ------
    RankerError
        If the folder is missing or not writable, a write fails, or (``replace=False``) ``path``
        exists; ``path`` is then left as it was.
    """
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent or ".")
        os.close(fd)
    except OSError as e:
        raise RankerError(f"{path}: cannot write ({e.strerror or e})") from None
    try:
        yield tmp
        if path.is_dir():
            raise RankerError(f"{path}: is a folder, not a file")
        os.chmod(tmp, _mode_for(path))   # mkstemp makes 0600; the output gets what open() would give
        if replace:
            os.replace(tmp, path)
        else:
            _link_new(tmp, path)
    except FileExistsError:
        _unlink(tmp)
        raise RankerError(f"{path}: already exists; it was left as it was") from None
    except OSError as e:
        _unlink(tmp)
        raise RankerError(f"{path}: cannot write ({e.strerror or e}); the file was left as it was") from None
    except BaseException:
        _unlink(tmp)
        raise


def _link_new(tmp: str, path: Path) -> None:
    """Give ``tmp`` the name ``path`` only if no such file exists (``FileExistsError`` otherwise)."""
    import errno

    try:
        os.link(tmp, path)
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(path):   # a file system without hard links: check, then rename
            raise FileExistsError(errno.EEXIST, "File exists", str(path)) from None
        os.rename(tmp, path)
        return
    os.unlink(tmp)


#: The files beside a store ``S`` that writing over would damage it: SQLite's ``S-wal`` (committed
#: writes not yet in ``S``), ``S-shm`` and ``S-journal``, and the accounts of ``ranker serve``.
STORE_COMPANIONS = {"-wal": "the write-ahead log", "-shm": "the shared-memory index",
                    "-journal": "the rollback journal"}
USERS_SUFFIX = ".users"   # ``S.users``: the users file ranker serve reads unless --users says


def check_not_store(path: str | Path | None, store: str | Path | None, what: str,
                    users: bool = True) -> None:
    """Refuse to write ``path`` (given as ``what``, e.g. ``--out``) when it is one of the store's files.

    The store ``S`` itself, ``S-wal``, ``S-shm``, ``S-journal`` and, unless ``users`` is False (the
    ``--users`` option, whose default it is), ``S.users``: compared as real paths (relative paths,
    ``..`` and symbolic links resolved, those of the store's own real path too) and, for files that
    exist, by device and inode (a hard link). Every command that writes a file calls this before it
    writes anything: an output over the store would destroy it while saying it succeeded.

    Raises
    ------
    RankerError
        ``PATH: WHAT would overwrite the store S itself`` (or its write-ahead log, ...).
    """
    if path is None or store is None:
        return
    roles = {"": f"the store {store} itself",
             **{k: f"{v} of the store {store}" for k, v in STORE_COMPANIONS.items()},
             **({USERS_SUFFIX: f"the users file of the store {store}"} if users else {})}
    same = _same_as(path)
    for base in dict.fromkeys((os.fspath(store), os.path.realpath(store))):
        for suffix, role in roles.items():
            if same(f"{base}{suffix}"):
                raise RankerError(f"{path}: {what} would overwrite {role}; give another path "
                                  "(nothing was written)")


def check_not_input(path: str | Path | None, inputs, what: str) -> None:
    """Refuse to write ``path`` (given as ``what``) when it is one of the command's own inputs.

    ``inputs`` holds ``(option, file)`` pairs (``("--text", "in.txt")``), compared as
    :func:`check_not_store` compares: real paths, and device and inode for files that exist. An
    output over its own input (``ranker apply --text in.txt --out in.txt``) replaced the text with
    its trees and said it succeeded; a pool of workers read its own half-written output.

    Raises
    ------
    RankerError
        ``PATH: WHAT would overwrite its input OPTION FILE`` in one line, before anything is written.
    """
    if path is None:
        return
    same = _same_as(path)
    for option, given in inputs:
        if given is not None and same(given):
            raise RankerError(f"{path}: {what} would overwrite its input {option} {given}; give another path "
                              "(nothing was written)")


def same_file(path: str | Path, other: str | Path) -> bool:
    """Whether ``path`` and ``other`` name one file (by real path, or device and inode), existing or not."""
    return _same_as(path)(other)


def _same_as(path: str | Path):
    """A test of whether a path names the file ``path`` names (by real path, or device and inode)."""
    real = os.path.realpath(path)
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        found = None
    return lambda other: real == os.path.realpath(other) or (found is not None and _same_file(found, other))


def check_output(path: str | Path | None, store: str | Path | None, what: str) -> None:
    """Refuse now, before anything is written, an output ``path`` (given as ``what``, e.g. ``--out``)
    that could not be written: one of the store's files (:func:`check_not_store`), a folder, a file
    in a folder that does not exist, or a place this process may not write (a read-only file system).

    A command that finds out only when it writes its output has by then changed the store (``annotate
    --kind user --export /tmp`` stored the annotation and then exited 2).

    Raises
    ------
    RankerError
        ``WHAT PATH: why`` in one line.
    """
    if path is None:
        return
    if not os.fspath(path):   # Path("") is "." (a folder): "--out : is a folder" said nothing
        raise RankerError(f"{what}: an empty file name; give one")
    check_not_store(path, store, what)
    p = Path(path)
    if p.is_dir() or os.fspath(path).endswith(os.sep):
        raise RankerError(f"{what} {path}: is a folder; give a file name")
    parent = p.parent
    if not parent.is_dir():
        raise RankerError(f"{what} {path}: no such directory {parent}")
    # the file is written to a temporary file beside it and renamed (atomic_write): the folder too
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise RankerError(f"{what} {path}: not writable")


def _same_file(found: os.stat_result, other: str) -> bool:
    try:
        return os.path.samestat(found, os.stat(other))
    except (OSError, ValueError):
        return False


def _mode_for(path: Path) -> int:
    """The permission bits of the existing file, else those a new file gets under the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass
