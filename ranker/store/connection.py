"""The store's connection: opening (and creating) the file, read-only opening, the schema check, transactions, backup.

Nothing else opens the file. Writes go through :meth:`Connection.batch` transactions, so a process
killed at any moment leaves whole batches or nothing (SQLite's write-ahead log makes a commit
atomic and durable against a crashed process); every insert is keyed, so running an ingest again
leaves the same content. WAL mode also lets readers (``ranker store stats``) work while a parse
writes. Reading commands open the file with ``readonly=True`` (no write, and no file left beside
the store: :meth:`Connection._open_readonly`), and every open checks the schema before anything is
written, so a file that is not a store is refused unchanged; a write SQLite refuses (full disk, read-only file) is a one-line :class:`StoreError`.

:class:`Connection` is the base of :class:`~ranker.store.Store`; the tables' reading and writing are
its other bases (:mod:`ranker.store.store` lists them).
"""
from __future__ import annotations

import os
import sqlite3
import urllib.parse
from contextlib import contextmanager
from pathlib import Path

from .errors import SchemaVersionError, StoreError
from .schema import ADDED_COLUMNS, DDL, SCHEMA_VERSION

PAGE_SIZE = 32768


class Connection:
    """An open store file, the base of :class:`~ranker.store.Store` (its tables are the other bases)."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self._conn = conn
        self.path = path
        self._depth = 0
        self._run: dict | None = None      # the run being recorded (:meth:`recording`)
        self.runs_only = False              # artifacts and models written in a recorded run only (:meth:`recording`)
        self.readonly = False               # opened with readonly=True
        self._memos: dict[str, tuple] = {}   # name -> (key, stamp, value): the last read kept (:meth:`memoised`)

    def memoised(self, name: str, key, read):
        """``read()``'s value, kept under ``name`` for ``key`` while the store is unchanged.

        Reads a run makes again and again with nothing written between (a rule grid's annotation
        checks under each rule, every forest's qualities at each stage: 19 and 5 reads of GUM's
        millions of rows on a warm rerun) are read once. Any write on this connection
        (``total_changes``) or another (``PRAGMA data_version``) reads them afresh; one value is
        kept per name.
        """
        stamp = (self._conn.total_changes, self._conn.execute("PRAGMA data_version").fetchone()[0])
        got = self._memos.get(name)
        if got is not None and got[:2] == (key, stamp):
            return got[2]
        value = read()
        self._memos[name] = (key, stamp, value)
        return value

    # ---------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, readonly: bool = False) -> "Store":
        """Open (and by default create) a store file.

        The file's schema is checked before anything is written, so a file that is not a store
        (another application's SQLite file, an empty file) is refused unchanged.

        Parameters
        ----------
        path
            The SQLite file; its parent folder is created if missing (unless ``readonly``).
        create
            When False, a missing file is an error instead of a new empty store.
        readonly
            Open for reading only (SQLite ``mode=ro``): nothing is written to the file, the file
            and its folder may be read-only, and a file that is not yet a store is an error.

        Raises
        ------
        SchemaVersionError
            If the file was written by another schema version.
        StoreError
            If the file is not a ranker store, or cannot be opened or written.
        """
        path = Path(path)
        if readonly:
            return cls._open_readonly(path)
        if not path.exists():
            if not create:
                raise StoreError(f"{path}: no such store")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except (FileExistsError, NotADirectoryError):
                raise StoreError(f"{path}: cannot create the store: {_first_file(path.parent)} is a "
                                 f"file, not a folder") from None
            except PermissionError:
                raise StoreError(f"{path}: cannot create the store: no permission to create "
                                 f"folder {path.parent}") from None
        elif path.is_dir():
            raise StoreError(f"{path}: is a folder, not a store file")
        try:
            conn = sqlite3.connect(str(path), isolation_level=None, timeout=60.0)
        except sqlite3.Error as e:
            raise _store_error(path, e) from None
        store = cls(conn, path)
        try:
            store._check_schema(empty_ok=True)
            # Candidate rows are 1-3 KB (tree, links, words): with SQLite's default 4 KB pages
            # each spills to an overflow page of its own, tripling the file and the writer's work.
            # Only takes effect when the file is new (before WAL mode is set); existing stores keep theirs.
            conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
            if conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
                raise StoreError(f"{path}: cannot write the store (read-only file or folder?)")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=OFF")
            store._create_tables()
        except sqlite3.Error as e:
            conn.close()
            raise _store_error(path, e) from None
        except BaseException:
            conn.close()
            raise
        return store

    @classmethod
    @contextmanager
    def writing(cls, path: str | Path, *, create: bool = True):
        """The store opened (and by default created) for a command that writes, closed on leaving.

        A store this call creates is removed again (with its ``-wal`` and ``-shm``) when the block
        fails before anything was committed to it: a command refused while it writes (a bad tree
        half-way through the corpus, whose one transaction is rolled back) leaves no new empty
        store file. A store that holds anything, such as the batches of a parse interrupted late,
        is kept.
        """
        path = Path(path)
        new = create and not path.exists()
        remove = False
        try:
            with cls.open(path, create=create) as store:
                try:
                    yield store
                except BaseException:
                    remove = new and store._holds_nothing()
                    raise
        finally:
            if remove:
                for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                    try:
                        leftover.unlink(missing_ok=True)
                    except OSError:
                        pass

    def _holds_nothing(self) -> bool:
        """Whether no table but the schema's own ``meta`` holds a row (nothing was committed)."""
        try:
            tables = [r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            return not any(self._conn.execute(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone()
                           for t in tables if t != "meta" and not t.startswith("sqlite_"))
        except sqlite3.Error:
            return False   # unreadable now: keep it, as it is

    @classmethod
    def _open_readonly(cls, path: Path) -> "Store":
        """Open for reading so that no file is left beside the store and nothing is written.

        A WAL store is read through its ``-wal`` and ``-shm`` files. A connection opened with
        SQLite's ``mode=ro`` creates them when missing but, unable to checkpoint, never removes
        them, so each reading command used to leave both behind. So: when a ``-wal`` file exists a
        writer is at work (or left its log), and ``mode=ro`` reads through the writer's files,
        which stay the writer's to remove. Otherwise, if the file and its folder are writable,
        the connection is an ordinary one with ``PRAGMA query_only``: SQLite creates the two files
        while the command runs and, as the last connection, removes them when it closes (with
        an empty log the store's bytes are not touched), and a writer that starts meanwhile is
        coordinated as usual (``immutable`` would let it change the file under the reader). A store no one may write here (read-only file or folder) is read as immutable.
        """
        if not path.exists():
            raise StoreError(f"{path}: no such store")
        if path.is_dir():
            raise StoreError(f"{path}: is a folder, not a store file")
        if path.stat().st_size == 0:
            raise StoreError(f"{path}: not a ranker store (empty file)")
        uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
        wal = Path(f"{path}-wal").exists()
        writable = os.access(path, os.W_OK) and os.access(path.resolve().parent, os.W_OK)
        try:
            if not wal and writable:
                conn = sqlite3.connect(str(path), isolation_level=None, timeout=60.0)
                conn.execute("PRAGMA query_only=ON")
            else:
                conn = sqlite3.connect(uri + ("" if wal else "&immutable=1"), uri=True, isolation_level=None,
                                       timeout=60.0)
            # SQLite opens lazily: the first read shows a file it cannot use
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as e:
            raise _store_error(path, e, writing=False) from None
        store = cls(conn, path)
        store.readonly = True
        try:
            store._check_schema(empty_ok=False)
        except BaseException:
            conn.close()
            raise
        return store

    def _check_schema(self, empty_ok: bool) -> None:
        """Refuse a file that is not a store of this schema version, without writing to it."""
        c = self._conn
        tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables and empty_ok:
            return
        if "meta" not in tables:
            raise StoreError(f"{self.path}: not a ranker store (no meta table)")
        row = c.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        found = row[0] if row else None
        if found != str(SCHEMA_VERSION):
            raise SchemaVersionError(
                f"{self.path}: store schema version {found} but this ranker reads version "
                f"{SCHEMA_VERSION}; rebuild the store (ranker parse / ranker import) or use a "
                f"matching ranker")

    def _create_tables(self) -> None:
        with self.batch():
            for statement in DDL.split(";"):
                if statement.strip():
                    self._conn.execute(statement)
            for table, column, declaration in ADDED_COLUMNS:   # a file written before the column
                if not self._has_column(table, column):
                    self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
            self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    def close(self) -> None:
        self._conn.close()

    def checkpoint(self) -> bool:
        """Copy everything the write-ahead log holds into the store file itself and empty the log.

        Until a checkpoint, committed writes may live only in the ``-wal`` file beside the store
        (SQLite checkpoints by itself every 1000 pages, and when the last connection closes
        cleanly): a server stopped by a signal, or a copy of the ``.sqlite`` file alone, would
        lose them. Returns False when another connection's open read kept part of the log (it is
        copied at the next checkpoint); a read-only store has nothing to checkpoint (True).
        """
        if self.readonly:
            return True
        try:
            busy, _, _ = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.OperationalError as e:
            raise _store_error(self.path, e) from None
        return not busy

    def backup(self, dest: str | Path) -> Path:
        """Copy the store, as it is at one instant, to a new file ``dest`` (SQLite's online backup).

        Safe while a server or a run writes the store (the copy is one consistent snapshot,
        the write-ahead log included); the copy is a single file with no ``-wal`` beside it.
        ``dest`` ending in ``/`` (or an existing folder) names a folder: the copy is
        ``dest/<the store's file name>``. The copy is written to a temporary file of a unique name
        beside it, removed on any failure or interruption, so no other file is ever touched.

        Returns
        -------
        Path
            The file written.

        Raises
        ------
        StoreError
            If ``dest`` exists or its folder does not.
        RankerError
            If ``dest`` is the store itself or a file beside it (:func:`ranker.atomicfile.check_not_store`),
            or cannot be written.
        """
        from ..atomicfile import atomic_path

        dest = backup_destination(self.path, dest)
        part = None
        try:
            with atomic_path(dest, replace=False, suffix=".part") as part:
                target = sqlite3.connect(part, isolation_level=None)
                try:
                    self._conn.backup(target)
                    target.execute("PRAGMA journal_mode=DELETE")   # one self-contained file
                finally:
                    target.close()
        except sqlite3.Error as e:
            raise _store_error(dest, e) from None
        finally:
            if part is not None:   # SQLite's journal of the temporary file, had it to stop half-way
                Path(f"{part}-journal").unlink(missing_ok=True)
        return dest

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def batch(self):
        """One transaction around everything inside; nested batches join the outer one.

        A write SQLite refuses (disk full, file too large, read-only file) rolls the whole
        transaction back and becomes a :class:`StoreError` naming the file; what earlier
        batches stored is untouched.
        """
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            raise _store_error(self.path, e) from None
        self._depth = 1
        try:
            if self._run is not None and self._run["id"] is None:
                self._insert_run()   # the first write of a recorded command: in its transaction
            yield self
            self._conn.execute("COMMIT")
        except BaseException as e:
            self._depth = 0
            if self._conn.in_transaction:
                try:
                    self._conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass   # SQLite rolled back itself (SQLITE_FULL); the first error is the one to report
            if isinstance(e, sqlite3.OperationalError):
                raise _store_error(self.path, e) from None
            raise
        self._depth = 0

    def _has_table(self, name: str) -> bool:
        return self._conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                                  (name,)).fetchone() is not None

    def _has_column(self, table: str, column: str) -> bool:
        """Whether ``table`` has ``column`` (a file written before :data:`~.schema.ADDED_COLUMNS`
        opened read-only may lack it)."""
        return any(r[1] == column for r in self._conn.execute(f"PRAGMA table_info({table})"))


def _first_file(folder: Path) -> Path:
    """The nearest ancestor of ``folder`` (itself included) that exists, e.g. the file in the way."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def backup_destination(store: str | Path, dest: str | Path) -> Path:
    """The file :meth:`Store.backup` of ``store`` writes for ``dest``, checked (before the store is opened).

    ``dest`` ending in ``/``, or an existing folder, names a folder: the file is ``dest/<store's
    file name>``.

    Raises
    ------
    StoreError
        If the file exists or its folder does not.
    RankerError
        If it is the store or a file beside it (:func:`ranker.atomicfile.check_not_store`).
    """
    from ..atomicfile import check_not_store

    text = os.fspath(dest)
    dest = Path(dest)
    if text.endswith(("/", os.sep)) or dest.is_dir():   # a folder: the store's own file name in it
        if not dest.is_dir():
            raise StoreError(f"{text}: no such folder (a destination ending in / names a folder)")
        dest = dest / Path(store).name
    check_not_store(dest, store, "the backup")
    if dest.exists() or Path(f"{dest}-wal").exists():
        raise StoreError(f"{dest}: already exists; a backup is written to a new file only")
    if not dest.parent.is_dir():
        raise StoreError(f"{dest}: no such folder {dest.parent}")
    return dest


def _store_error(path: Path, e: sqlite3.Error, writing: bool = True) -> StoreError | sqlite3.Error:
    """A one-line :class:`StoreError` naming the store file for what SQLite refused.

    Only failures of the file or the machine are translated (full disk, read-only, locked,
    damaged, unopenable); any other SQLite error is a bug and is returned as it was, so that it
    keeps its traceback.
    """
    msg = str(e)
    if "full" in msg or "disk I/O" in msg:
        # SQLite reports a write past RLIMIT_FSIZE (EFBIG) as a plain I/O error
        why = (f"cannot write the store: disk full, file size limit or I/O error ({msg}); "
               "this write was rolled back, what was stored before is intact" if writing else
               f"cannot read the store: disk full, file size limit or I/O error ({msg})")
    elif "readonly" in msg or "read-only" in msg:
        why = "cannot write the store: the file or its folder is read-only"
    elif "locked" in msg:
        why = f"the store is locked by another process, e.g. a running parse ({msg})"
    elif "malformed" in msg:
        why = f"damaged store file ({msg}); rebuild it (ranker parse / ranker import) or restore a copy"
    elif "not a database" in msg:
        why = f"not a ranker store ({msg})"
    elif "unable to open" in msg:
        why = f"cannot open the store ({msg}: missing folder or no permission)"
    else:
        return e
    return StoreError(f"{path}: {why}")
