"""The candidate-parse store: one SQLite file that every later stage reads.

Nothing else opens the file. Writes go through :meth:`Store.batch` transactions, so a process
killed at any moment leaves whole batches or nothing (SQLite's write-ahead log makes a commit
atomic and durable against a crashed process); every insert is keyed, so running an ingest again
leaves the same content. WAL mode also lets readers (``ranker store stats``) work while a parse
writes. Reading commands open the file with ``readonly=True`` (no write, and no file left beside
the store: :meth:`Store._open_readonly`), and every open checks the schema before anything is
written, so a file that is not a store is refused unchanged; a write SQLite refuses (full disk, read-only file) is a one-line :class:`StoreError`.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import statistics
import urllib.parse
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Iterable, Iterator

from ..gcpause import gc_paused
from .splits import document_filter
from ..trees.penn import format_tree, parse_tree
from .errors import SchemaVersionError, StoreError
from .records import (STATUSES, Annotation, Bracket, BracketCounts, Candidate, ConsistentSet, Decision,
                      Forest, Link, ModelRecord, RunRecord, Scoring, Sentence, StoreStats,
                      StoredCandidate)
from .schema import DDL, SCHEMA_VERSION
from .team import TeamRecords

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_loads = json.loads

#: Consistency rules of :meth:`Store.consistent_sets` (:func:`choose_consistent` says what each keeps).
RULES = ("strict", "fewest", "compatible", "strict-else-compatible", "lexicographic")
#: The rules that read the ``crossing`` count of a check, not only ``missing``.
CROSSING_RULES = ("compatible", "strict-else-compatible", "lexicographic")
PAGE_SIZE = 32768
#: The metric keys of every stored count: a walk down the primary key's first column, one index
#: lookup per key (``SELECT DISTINCT`` scans the whole table: 1.1 s on a 6-million-row store).
_STORED_METRICS = ("WITH RECURSIVE m(x) AS (SELECT MIN(metric) FROM bracket_counts UNION ALL "
                   "SELECT (SELECT MIN(metric) FROM bracket_counts WHERE metric > m.x) FROM m "
                   "WHERE m.x IS NOT NULL) SELECT x FROM m WHERE x IS NOT NULL")
#: One sentence's counts under one metric key: a range of the primary key.
_DELETE_COUNTS = "DELETE FROM bracket_counts WHERE metric=? AND sentence_id=? AND source=?"


class Store(TeamRecords):
    """An open store file; use as a context manager (``with Store.open(path) as st:``)."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self._conn = conn
        self.path = path
        self._depth = 0
        self._run: dict | None = None      # the run being recorded (:meth:`recording`)
        self.readonly = False               # opened with readonly=True

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

    # ---------------------------------------------------------------- sentences and gold
    def add_sentences(self, sentences: Iterable[Sentence]) -> None:
        """Store sentences; a sentence already stored is replaced by the same content."""
        rows = ((s.id, s.corpus, s.document, s.index, _dumps(list(s.tokens)), _dumps(list(s.tags)))
                for s in sentences)
        with self.batch():
            self._conn.executemany("INSERT OR REPLACE INTO sentences VALUES (?,?,?,?,?,?)", rows)

    def add_gold(self, sentence_id: str, tree) -> None:
        """Store the gold tree of a stored sentence (its leaves must be the sentence's tokens)."""
        tokens = self._tokens(sentence_id)
        if tuple(tree.words) != tokens:
            raise StoreError(f"gold tree of {sentence_id} has leaves {list(tree.words)[:8]}... "
                             f"but the sentence's tokens are {list(tokens)[:8]}...")
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO gold VALUES (?,?)", (sentence_id, format_tree(tree)))

    def _tokens(self, sentence_id: str) -> tuple[str, ...]:
        row = self._conn.execute("SELECT tokens FROM sentences WHERE id=?", (sentence_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no sentence {sentence_id!r}")
        return tuple(_loads(row[0]))

    def _sentence_rows(self, corpus, split, fileids, ids=None):
        sql = "SELECT id, corpus, document, idx, tokens, tags FROM sentences"
        args: list = []
        if corpus is not None:
            sql += " WHERE corpus=?"
            args.append(corpus)
        sql += " ORDER BY corpus, document, idx"
        keep = document_filter(corpus, split, fileids)
        for r in self._conn.execute(sql, args):
            if keep is None or keep(r[2]):
                yield Sentence(r[0], r[1], r[2], r[3], tuple(_loads(r[4])), tuple(_loads(r[5])))

    def sentences(self, corpus: str | None = None, split: str | None = None,
                  fileids=None) -> list[Sentence]:
        """Stored sentences in corpus order (corpus, document, index), filtered as asked.

        Parameters
        ----------
        corpus
            Only this corpus (all when None).
        split
            A split name of :mod:`ranker.store.splits` (``train``, ``heldout``, ``test``).
        fileids
            A glob or list of globs over document ids.
        """
        return list(self._sentence_rows(corpus, split, fileids))

    def sentence(self, sentence_id: str) -> Sentence:
        r = self._conn.execute("SELECT id, corpus, document, idx, tokens, tags FROM sentences WHERE id=?",
                               (sentence_id,)).fetchone()
        if r is None:
            raise StoreError(f"{self.path}: no sentence {sentence_id!r}")
        return Sentence(r[0], r[1], r[2], r[3], tuple(_loads(r[4])), tuple(_loads(r[5])))

    def gold(self, sentence_id: str):
        r = self._conn.execute("SELECT tree FROM gold WHERE sentence_id=?", (sentence_id,)).fetchone()
        return None if r is None else parse_tree(r[0], f"gold:{sentence_id}")

    def add_gold_dependencies(self, sentence_id: str, deps) -> None:
        """Store a sentence's gold head dependencies (one per token, heads -1 for the root)."""
        tokens = self._tokens(sentence_id)
        deps = tuple(deps)
        if sorted(d.dependent for d in deps) != list(range(len(tokens))):
            raise StoreError(f"gold dependencies of {sentence_id} do not give one head to each of "
                             f"its {len(tokens)} tokens")
        if any(not -1 <= d.head < len(tokens) for d in deps):
            raise StoreError(f"gold dependencies of {sentence_id} name a head outside the sentence")
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO gold_dependencies VALUES (?,?)",
                               (sentence_id, _dumps([[d.head, d.dependent, d.relation] for d in deps])))

    def gold_dependencies(self, sentence_id: str):
        """The stored gold dependencies of a sentence, or None."""
        from ..trees.dependencies import Dependency

        r = self._conn.execute("SELECT deps FROM gold_dependencies WHERE sentence_id=?",
                               (sentence_id,)).fetchone()
        return None if r is None else tuple(Dependency(h, d, rel) for h, d, rel in _loads(r[0]))

    # ---------------------------------------------------------------- candidates
    def add_source(self, name: str, options: dict) -> None:
        """Record the options a source ran with (provenance shown by stats and reports)."""
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO sources VALUES (?,?)",
                               (name, _dumps(options)))

    def source_options(self) -> dict[str, dict]:
        return {n: _loads(o) for n, o in self._conn.execute("SELECT name, options FROM sources ORDER BY name")}

    def add_candidates(self, candidates: Iterable[Candidate]) -> int:
        """Store candidates keyed by (sentence, source, rank); storing one again replaces it.

        Every stored count of the sentences touched goes (:meth:`delete_bracket_counts`), as when a
        forest is replaced: counts describe a forest, and a changed one is counted again.

        Returns
        -------
        int
            How many candidates were written.
        """
        rows = [encode_candidate(c) for c in candidates]
        by_source: dict[str, set] = {}
        for r in rows:
            by_source.setdefault(r[1], set()).add(r[0])
        with self.batch():
            self._conn.executemany("INSERT OR REPLACE INTO candidates VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            for source, sentence_ids in by_source.items():   # counts of the forests as they were
                self.delete_bracket_counts(sorted(sentence_ids), source)
        return len(rows)

    def replace_forest(self, sentence_id: str, source: str, candidates: Iterable[Candidate]) -> int:
        """Make ``candidates`` the whole forest of ``sentence_id`` from ``source`` (drops stale ranks
        and the old forest's counts under every metric)."""
        rows = [encode_candidate(c) for c in candidates]
        with self.batch():
            self._conn.execute("DELETE FROM candidates WHERE sentence_id=? AND source=?", (sentence_id, source))
            self._conn.executemany("INSERT INTO candidates VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            self.delete_bracket_counts([sentence_id], source)   # they were the old forest's
        return len(rows)

    def replace_encoded_forest(self, sentence_id: str, source: str, rows: list[tuple]) -> int:
        """:meth:`replace_forest` for rows already made by :func:`encode_candidate` (in a worker process)."""
        with self.batch():
            self._conn.execute("DELETE FROM candidates WHERE sentence_id=? AND source=?", (sentence_id, source))
            self._conn.executemany("INSERT INTO candidates VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            self.delete_bracket_counts([sentence_id], source)
        return len(rows)

    def write_parsed(self, source: str, results: Iterable) -> int:
        """Store a batch of parsed sentences, each forest with its parse-log entry, in one transaction.

        ``results`` have ``sentence_id``, ``status``, ``detail``, ``rows`` (from
        :func:`candidate_row`), ``unmapped`` and ``seconds``
        (:class:`ranker.sources.link_grammar.EncodedResult`). Each sentence's old forest from
        ``source`` is replaced, as :meth:`replace_encoded_forest` does, but with one statement per
        table for the whole batch, so the writer stays cheap beside the parsing processes.

        Returns
        -------
        int
            How many candidates were written.
        """
        results = list(results)
        c = self._conn
        with self.batch():
            c.executemany("DELETE FROM candidates WHERE sentence_id=? AND source=?",
                          [(r.sentence_id, source) for r in results])
            self.delete_bracket_counts([r.sentence_id for r in results], source)
            n = 0
            for r in results:
                n += len(r.rows)
            c.executemany("INSERT INTO candidates VALUES (?,?,?,?,?,?,?,?,?,?)",
                          (row for r in results for row in r.rows))
            c.executemany("INSERT OR REPLACE INTO parse_log VALUES (?,?,?,?,?,?,?)",
                          [(r.sentence_id, source, r.status, r.detail, len(r.rows), r.unmapped, r.seconds)
                           for r in results])
        return n

    def _candidates(self, sentence: Sentence, source: str | None) -> tuple[Candidate, ...]:
        sql = ("SELECT source, rank, quality, tree, scores, links, source_words, word_to_token, unmapped "
               "FROM candidates WHERE sentence_id=?")
        args: list = [sentence.id]
        if source is not None:
            sql += " AND source=?"
            args.append(source)
        sql += " ORDER BY source, rank"
        out = []
        # Linkages of one sentence repeat constituent trees and word lists: parse and decode each
        # distinct text once and share the (immutable) result, which also makes per-tree caches
        # downstream hit by identity.
        trees: dict[str, object] = {}
        seqs: dict[str, tuple] = {}
        subtrees: dict = {}   # equal subtrees of the sentence's candidates share one Node
        make_link = Link._make
        with gc_paused():   # millions of cycle-free tuples: see ranker.gcpause
            for src, rank, quality, tree, scores, links, words, w2t, unmapped in \
                    self._conn.execute(sql, args):
                t = trees.get(tree)
                if t is None:
                    t = trees[tree] = parse_tree(tree, f"candidate:{sentence.id}:{src}:{rank}",
                                                 shared=subtrees)
                w = seqs.get(words)
                if w is None:
                    w = seqs[words] = tuple(_loads(words))
                m = seqs.get(w2t)
                if m is None:
                    m = seqs[w2t] = tuple(_loads(w2t))
                out.append(Candidate(sentence.id, src, rank, t, quality, _loads(scores),
                                     tuple(map(make_link, _loads(links))), w, m, unmapped))
        return tuple(out)

    def forests(self, corpus: str | None = "treebank", split: str | None = None, fileids=None,
                source: str | None = None) -> Iterator[Forest]:
        """Every sentence's forest in corpus order, candidates ordered by (source, rank).

        Sentences with no candidate give a forest with an empty ``candidates`` tuple, so callers
        count them (a sentence the parser failed on still counts against a ranker).
        """
        for s in self.sentences(corpus, split, fileids):
            yield Forest(s, self.gold(s.id), self._candidates(s, source))

    def forest(self, sentence_id: str, source: str | None = None, evidence: str | None = None) -> Forest:
        """A sentence's forest of ``source`` (None: every source's), with the candidates of source
        ``evidence`` as its :attr:`~ranker.store.records.Forest.evidence` when one is named."""
        s = self.sentence(sentence_id)
        return Forest(s, self.gold(sentence_id), self._candidates(s, source),
                      None if evidence is None else self.stored_candidates(sentence_id, evidence))

    def stored_candidates(self, sentence_id: str, source: str) -> tuple[StoredCandidate, ...]:
        """A sentence's candidates from ``source`` in rank order, as stored (trees and links as text)."""
        scores: dict[str, dict] = {}
        out = []
        for rank, tree, sc, links, w2t in self._conn.execute(
                "SELECT rank, tree, scores, links, word_to_token FROM candidates "
                "WHERE sentence_id=? AND source=? ORDER BY rank", (sentence_id, source)):
            got = scores.get(sc)
            if got is None:
                got = scores[sc] = _loads(sc)
            out.append(StoredCandidate(rank, tree, got, links, w2t))
        return tuple(out)

    def candidate_rows(self, sentence_id: str, source: str | None = None) -> list[tuple[str, int, str]]:
        """``(source, rank, Penn text)`` of a sentence's candidates in forest order, nothing decoded."""
        sql = "SELECT source, rank, tree FROM candidates WHERE sentence_id=?"
        args: list = [sentence_id]
        if source is not None:
            sql += " AND source=?"
            args.append(source)
        return self._conn.execute(sql + " ORDER BY source, rank", args).fetchall()

    def candidate_trees(self, sentence_id: str, source: str | None = None) -> list[tuple[str, int, object]]:
        """``(source, rank, tree)`` of a sentence's candidates in forest order, nothing else decoded.

        For the stages that need only trees (Heidorn): links, scores and word maps are left
        unread, equal tree texts share one parsed :class:`Tree` and equal subtrees one node.
        """
        trees: dict[str, object] = {}
        subtrees: dict = {}
        out = []
        with gc_paused():
            for src, rank, text in self.candidate_rows(sentence_id, source):
                t = trees.get(text)
                if t is None:
                    t = trees[text] = parse_tree(text, f"candidate:{sentence_id}:{src}:{rank}",
                                                 shared=subtrees)
                out.append((src, rank, t))
        return out

    def candidate_texts(self, sentence_id: str, source: str | None = None) -> list[str]:
        """The stored Penn text of a sentence's candidates in forest order (export without re-parsing)."""
        return [text for _, _, text in self.candidate_rows(sentence_id, source)]

    # ---------------------------------------------------------------- parse log
    def record_parse(self, sentence_id: str, source: str, status: str, detail: str = "",
                     candidates: int = 0, unmapped: int = 0, seconds: float = 0.0) -> None:
        """Note how parsing one sentence went (``ok``, ``fragment``, ``timeout``, ``error``, ``crash``)."""
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO parse_log VALUES (?,?,?,?,?,?,?)",
                               (sentence_id, source, status, detail, candidates, unmapped, seconds))

    def parsed_ids(self, source: str) -> set[str]:
        """Sentences with a parse-log entry for ``source`` (done, whatever the outcome)."""
        return {r[0] for r in self._conn.execute("SELECT sentence_id FROM parse_log WHERE source=?", (source,))}

    def parse_log(self, source: str | None = None) -> list[tuple]:
        """``(sentence_id, source, status, detail, candidates, unmapped, seconds)`` rows."""
        sql = "SELECT * FROM parse_log" + (" WHERE source=?" if source else "") + " ORDER BY sentence_id"
        return [tuple(r) for r in self._conn.execute(sql, (source,) if source else ())]

    def forest_qualities(self, source: str) -> dict[str, tuple[str, ...]]:
        """Each sentence's candidate qualities (forest order) from ``source``, without reading trees."""
        out: dict[str, list[str]] = {}
        for sid, q in self._conn.execute("SELECT sentence_id, quality FROM candidates WHERE source=? "
                                         "ORDER BY sentence_id, rank", (source,)):
            out.setdefault(sid, []).append(q)
        return {k: tuple(v) for k, v in out.items()}

    # ---------------------------------------------------------------- annotations
    def add_annotations(self, annotations: Iterable[Annotation]) -> int:
        rows = [(a.sentence_id, a.kind, _encode_brackets(a.brackets)) for a in annotations]
        with self.batch():
            self._conn.executemany("INSERT OR REPLACE INTO annotations VALUES (?,?,?)", rows)
        return len(rows)

    def replace_annotations(self, kind: str, annotations: Iterable[Annotation]) -> int:
        """Make ``annotations`` the whole of kind ``kind``; returns how many sentences changed.

        Sentences whose brackets changed, or that lost their annotation, lose their candidates'
        checks too (so ``ranker annotate`` checks them again and only them); one transaction.
        """
        new = {a.sentence_id: _encode_brackets(a.brackets) for a in annotations}
        with self.batch():
            old = dict(self._conn.execute("SELECT sentence_id, brackets FROM annotations WHERE kind=?", (kind,)))
            stale = [sid for sid in old if new.get(sid) != old[sid]]
            self._conn.executemany("DELETE FROM annotations WHERE kind=? AND sentence_id=?",
                                   ((kind, sid) for sid in stale))
            self._conn.executemany("DELETE FROM annotation_checks WHERE kind=? AND sentence_id=?",
                                   ((kind, sid) for sid in stale))
            added = [(sid, kind, b) for sid, b in new.items() if old.get(sid) != b]
            self._conn.executemany("INSERT INTO annotations VALUES (?,?,?)", added)
        return len(set(stale) | {r[0] for r in added})

    def annotations(self, kind: str, corpus: str | None = None, split: str | None = None,
                    fileids=None) -> dict[str, Annotation]:
        """Annotations of ``kind`` by sentence id, for the sentences selected (corpus order)."""
        got = {sid: b for sid, b in self._conn.execute(
            "SELECT sentence_id, brackets FROM annotations WHERE kind=?", (kind,))}
        out = {}
        for s in self._sentence_rows(corpus, split, fileids):
            if s.id in got:
                out[s.id] = Annotation(s.id, kind, tuple(Bracket(*b) for b in _loads(got[s.id])))
        return out

    def put_annotation_checks(self, kind: str, rows: Iterable[tuple]) -> None:
        """Store ``(sentence_id, source, rank, missing, crossing)`` of candidates against annotation ``kind``."""
        with self.batch():
            self._conn.executemany("INSERT OR REPLACE INTO annotation_checks VALUES (?,?,?,?,?,?)",
                                   ((kind, *r) for r in rows))

    def unchecked_candidates(self, kind: str) -> list[tuple[str, str, int]]:
        """(sentence, source, rank) of candidates of annotated sentences with no check for ``kind``."""
        return [tuple(r) for r in self._conn.execute(
            "SELECT c.sentence_id, c.source, c.rank FROM candidates c "
            "JOIN annotations a ON a.sentence_id=c.sentence_id AND a.kind=? "
            "LEFT JOIN annotation_checks k ON k.kind=? AND k.sentence_id=c.sentence_id "
            "AND k.source=c.source AND k.rank=c.rank WHERE k.kind IS NULL", (kind, kind))]

    def clear_annotation_checks(self, kind: str) -> None:
        with self.batch():
            self._conn.execute("DELETE FROM annotation_checks WHERE kind=?", (kind,))

    def consistent_sets(self, kind: str, corpus: str | None = "treebank", split: str | None = None,
                        fileids=None, source: str | None = None,
                        *, rule: str) -> dict[str, ConsistentSet]:
        """X(y, z) for every annotated sentence with candidates, weights in forest candidate order.

        Parameters
        ----------
        kind
            Annotation kind (``riezler``, ``chunks``, a user file's kind).
        rule
            One of :data:`RULES` (:func:`choose_consistent`): ``"strict"`` (exactly the
            candidates that contain every annotated bracket; an empty set gives all-zero weights,
            rule ``"none"``), ``"fewest"`` (when the strict set is empty, the candidates with the
            fewest missing brackets), ``"compatible"`` (the candidates that cross no annotated
            bracket), ``"strict-else-compatible"`` and ``"lexicographic"``. No default here: the
            one default is the config's (``[annotation] rule``), which every caller passes.

        Raises
        ------
        StoreError
            If no annotation of ``kind`` is stored, or some candidate was never checked against
            it (both: run ``ranker annotate``); if a rule that reads crossings meets a sentence
            with a rejected bracket (a rejected bracket is never counted as crossed, so such a
            rule would call a candidate that contains it compatible).
        """
        if rule not in RULES:
            raise StoreError(f"unknown consistency rule {rule!r} (known: {', '.join(RULES)})")
        if self._conn.execute("SELECT 1 FROM annotations WHERE kind=? LIMIT 1", (kind,)).fetchone() is None:
            how = (f"--kind {kind}" if kind in ("riezler", "chunks", "user")
                   else f"--kind file --file BRACKETS --name {kind}")
            raise StoreError(f"{self.path}: no annotation {kind!r} is stored; run: ranker annotate "
                             f"--store {self.path} {how}")
        annotated = self.annotations(kind, corpus, split, fileids)
        out: dict[str, ConsistentSet] = {}
        for sid in annotated:
            sql = ("SELECT c.source, c.rank, k.missing, k.crossing FROM candidates c LEFT JOIN annotation_checks k "
                   "ON k.kind=? AND k.sentence_id=c.sentence_id AND k.source=c.source AND k.rank=c.rank "
                   "WHERE c.sentence_id=?")
            args: list = [kind, sid]
            if source is not None:
                sql += " AND c.source=?"
                args.append(source)
            rows = self._conn.execute(sql + " ORDER BY c.source, c.rank", args).fetchall()
            if not rows:
                continue
            if any(r[2] is None for r in rows):
                raise StoreError(f"{self.path}: candidates of {sid} were never checked against "
                                 f"annotation {kind!r}; run: ranker annotate --store {self.path} --kind {kind}")
            if rule in CROSSING_RULES and not all(b.accept for b in annotated[sid].brackets):
                raise StoreError(f"{self.path}: {sid} has rejected brackets of {kind!r}, which crossing "
                                 f"counts do not see; rule {rule!r} cannot use them (use strict or fewest)")
            out[sid] = choose_consistent(sid, tuple(r[2] for r in rows), rule, tuple(r[3] for r in rows))
        return out

    # ---------------------------------------------------------------- discriminant decisions
    def add_decision(self, sentence_id: str, decision) -> int:
        """Append a person's answer to a discriminant of ``sentence_id``; returns its sequence number.

        One transaction (``BEGIN IMMEDIATE`` waits for other writers), so two browsers answering
        at once each get their own number and neither answer is lost.

        Raises
        ------
        StoreError
            If the sentence is not stored, the span is not inside its tokens, or the label, who
            or the ISO-8601 time is missing or malformed.
        """
        label, start, end, accept, who, at = decision
        n = len(self._tokens(sentence_id))
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= n):
            raise StoreError(f"{self.path}: span [{start}, {end}) is not inside the {n} tokens of {sentence_id}")
        if not (isinstance(label, str) and label and not any(c.isspace() for c in label)) or not who or not at:
            raise StoreError(f"{self.path}: a decision needs a label, who and when, found {tuple(decision)!r}")
        try:
            datetime.fromisoformat(at)
        except (TypeError, ValueError):
            raise StoreError(f"{self.path}: a decision's time must be ISO-8601 (as 2026-11-23T16:30:00Z), "
                             f"found {str(at)[:40]!r}") from None
        with self.batch():
            seq = self._conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM decisions WHERE sentence_id=?",
                                     (sentence_id,)).fetchone()[0]
            self._conn.execute("INSERT INTO decisions VALUES (?,?,?,?,?,?,?,?)",
                               (sentence_id, seq, label, start, end, int(bool(accept)), who, at))
        return seq

    def decisions(self, sentence_id: str | None = None) -> list:
        """The decisions on ``sentence_id`` in the order they were made (all sentences' when None).

        Returns a list of :class:`~ranker.store.records.Decision`; with ``sentence_id``
        None, a list of ``(sentence_id, Decision)`` pairs ordered by sentence id, then answer.
        """
        sql = "SELECT sentence_id, label, span_start, span_end, accept, who, at FROM decisions"
        args: tuple = ()
        if sentence_id is not None:
            sql += " WHERE sentence_id=?"
            args = (sentence_id,)
        try:
            rows = self._conn.execute(sql + " ORDER BY sentence_id, seq", args).fetchall()
        except sqlite3.OperationalError:
            if self._has_table("decisions"):
                raise
            return []    # an older store opened read-only: no one has answered anything in it
        out = [(r[0], Decision(r[1], r[2], r[3], bool(r[4]), r[5], r[6])) for r in rows]
        return [d for _, d in out] if sentence_id is not None else out

    def undo_decision(self, sentence_id: str, who: str | None = None):
        """Remove the latest decision on ``sentence_id`` and return it (None when there is none).

        With ``who``, the latest of that person's decisions: when two people annotate one sentence
        at once, one's undo must not take back the other's answer.
        """
        with self.batch():
            by = "" if who is None else " AND who=?"
            r = self._conn.execute("SELECT seq, label, span_start, span_end, accept, who, at FROM decisions "
                                   f"WHERE sentence_id=?{by} ORDER BY seq DESC LIMIT 1",
                                   (sentence_id,) if who is None else (sentence_id, who)).fetchone()
            if r is None:
                return None
            self._conn.execute("DELETE FROM decisions WHERE sentence_id=? AND seq=?", (sentence_id, r[0]))
        return Decision(r[1], r[2], r[3], bool(r[4]), r[5], r[6])

    def _has_table(self, name: str) -> bool:
        return self._conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                                  (name,)).fetchone() is not None

    # ---------------------------------------------------------------- bracket counts
    def put_bracket_counts(self, metric: str, rows: Iterable[BracketCounts]) -> None:
        """Store per-candidate bracket counts against gold under ``metric`` (replacing old ones)."""
        with self.batch():
            self._conn.executemany("INSERT OR REPLACE INTO bracket_counts VALUES (?,?,?,?,?,?,?,?)",
                                   ((metric, *tuple(r)[:7]) for r in rows))

    def delete_bracket_counts(self, sentence_ids: Iterable[str], source: str) -> None:
        """Forget every metric's counts of these sentences' candidates from ``source`` (a new forest)."""
        sentence_ids = list(sentence_ids)
        with self.batch():
            # One delete per stored metric key and sentence, so each is a lookup in the primary key
            # (metric first): by sentence alone, SQLite scans the whole table for every sentence
            # (7 s per 60 sentences on the WSJ store, quadratic over a cold scoring stage).
            metrics = [r[0] for r in self._conn.execute(_STORED_METRICS)]
            self._conn.executemany(_DELETE_COUNTS, ((m, sid, source) for sid in sentence_ids
                                                    for m in metrics))

    def has_bracket_counts(self, metric: str, sentence_id: str, source: str) -> bool:
        """Whether any count of ``sentence_id``'s candidates from ``source`` is stored under ``metric``."""
        return self._conn.execute("SELECT 1 FROM bracket_counts WHERE metric=? AND sentence_id=? "
                                  "AND source=? LIMIT 1", (metric, sentence_id, source)).fetchone() is not None

    def bracket_counts(self, metric: str, corpus: str | None = "treebank", split: str | None = None,
                       fileids=None, source: str | None = None) -> dict[str, tuple[BracketCounts, ...]]:
        """Counts by sentence id (corpus order), each tuple in forest candidate order."""
        out = {}
        for s in self._sentence_rows(corpus, split, fileids):
            rows = self.sentence_bracket_counts(metric, s.id, source)
            if rows:
                out[s.id] = rows
        return out

    def sentence_bracket_counts(self, metric: str, sentence_id: str,
                                source: str | None = None) -> tuple[BracketCounts, ...]:
        """One sentence's counts under ``metric`` in forest candidate order (one indexed query)."""
        sql = ("SELECT sentence_id, source, rank, gold, test, matched, crossing FROM bracket_counts "
               "WHERE metric=? AND sentence_id=?" + (" AND source=?" if source is not None else "") +
               " ORDER BY source, rank")
        args = (metric, sentence_id) if source is None else (metric, sentence_id, source)
        return tuple(BracketCounts(*r) for r in self._conn.execute(sql, args))

    # ---------------------------------------------------------------- artifacts
    def put_artifact(self, kind: str, key: str, payload: bytes, meta: dict | None = None) -> None:
        """Store a blob (feature matrix, model, run) with JSON metadata under ``(kind, key)``."""
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO artifacts VALUES (?,?,?,?)",
                               (kind, key, sqlite3.Binary(bytes(payload)), _dumps(meta or {})))

    def get_artifact(self, kind: str, key: str) -> tuple[bytes, dict] | None:
        r = self._conn.execute("SELECT payload, meta FROM artifacts WHERE kind=? AND key=?", (kind, key)).fetchone()
        return None if r is None else (bytes(r[0]), _loads(r[1]))

    def artifact_keys(self, kind: str) -> list[str]:
        return [r[0] for r in self._conn.execute("SELECT key FROM artifacts WHERE kind=? ORDER BY key", (kind,))]

    # ---------------------------------------------------------------- runs
    @contextmanager
    def recording(self, command: str, settings: dict):
        """Record the command run inside as a row of ``runs`` if (and only if) it writes anything.

        The row is inserted in the command's first write transaction, so a command that refuses
        its input before writing leaves the store unchanged (``ranker import`` of a bad file);
        on leaving, its end and outcome are written (``ok``, ``error: ...``, ``interrupted``).
        ``settings`` is the command's fully resolved settings; the yielded dict can be updated
        inside with what the command read from the store (e.g. the evaluation settings of the
        stored counts), and is what is recorded.
        """
        if self._run is not None:       # nested (ranker run's stages): the outer run records
            yield self._run["settings"]
            return
        self._run = {"id": None, "command": command, "settings": dict(settings), "started": _now()}
        outcome = "ok"
        try:
            yield self._run["settings"]
        except KeyboardInterrupt:
            outcome = "interrupted"
            raise
        except BaseException as e:
            outcome = f"error: {e}".splitlines()[0][:500]
            raise
        finally:
            run, self._run = self._run, None
            # (a row inserted in a transaction the command's error rolled back is gone: leave it so)
            if run["id"] is not None and self._conn.execute("SELECT 1 FROM runs WHERE id=?",
                                                            (run["id"],)).fetchone():
                try:
                    with self.batch():
                        self._conn.execute("UPDATE runs SET ended=?, outcome=?, settings=? WHERE id=?",
                                           (_now(), outcome, _dumps(_jsonable(run["settings"])), run["id"]))
                except (sqlite3.Error, StoreError):
                    pass   # the command's own error (a full disk) is the one to report

    def _insert_run(self) -> None:
        run = self._run
        cur = self._conn.execute(
            "INSERT INTO runs (command, settings, version, started, ended, outcome) VALUES (?,?,?,?,?,?)",
            (run["command"], _dumps(_jsonable(run["settings"])), code_version(), run["started"], "",
             "running"))
        run["id"] = cur.lastrowid

    @property
    def current_run(self) -> int | None:
        """The id of the run being recorded, once it has written something (else None)."""
        return None if self._run is None else self._run["id"]

    def runs(self) -> list[RunRecord]:
        """Every recorded run, oldest first (a store made before runs were recorded: none)."""
        if not self._has_table("runs"):
            return []
        return [RunRecord(r[0], r[1], _loads(r[2]), r[3], r[4], r[5], r[6])
                for r in self._conn.execute("SELECT id, command, settings, version, started, ended, outcome "
                                            "FROM runs ORDER BY id")]

    # ---------------------------------------------------------------- models
    def put_model(self, record: ModelRecord, payload: bytes, meta: dict | None = None) -> ModelRecord:
        """Store a model file (``model`` artifact) and its record in one transaction.

        The record's ``run`` is the current run's when not given; a model stored again under the
        same key (a warm rerun) keeps its first record, except that a choice is added to it.
        """
        with self.batch():
            run = record.run if record.run is not None else self.current_run
            record = record._replace(run=run, created=record.created or _now())
            self._conn.execute("INSERT OR REPLACE INTO artifacts VALUES (?,?,?,?)",
                               ("model", record.key, sqlite3.Binary(bytes(payload)), _dumps(meta or {})))
            old = self.model_record(record.key)
            if old is not None:
                chosen = ", ".join(dict.fromkeys(c for c in (old.chosen, record.chosen) if c))
                self._conn.execute("UPDATE models SET chosen=? WHERE key=?", (chosen, record.key))
                return old._replace(chosen=chosen)
            self._conn.execute("INSERT INTO models VALUES (?,?,?,?,?,?,?,?,?)",
                               (record.key, record.ranker, _dumps(_jsonable(record.settings)), record.data,
                                record.parent, record.chosen, record.run, record.created,
                                _dumps(_jsonable(record.summary))))
        return record

    def choose_model(self, key: str, chosen: str) -> None:
        """Add ``chosen`` (what the model was chosen on) to a stored model's record."""
        old = self.model_record(key)
        if old is None:
            raise StoreError(f"{self.path}: no model record {key}")
        value = ", ".join(dict.fromkeys(c for c in (old.chosen, chosen) if c))
        if value == old.chosen:
            return   # chosen on that before (a warm rerun): nothing to write
        with self.batch():
            self._conn.execute("UPDATE models SET chosen=? WHERE key=?", (value, key))

    def model_record(self, key: str) -> ModelRecord | None:
        if not self._has_table("models"):
            return None
        r = self._conn.execute("SELECT * FROM models WHERE key=?", (key,)).fetchone()
        return None if r is None else _model_record(r)

    def model_records(self) -> list[ModelRecord]:
        """Every stored model's record, oldest first; models stored before records were kept
        (only their artifact) get one made from the model file's metadata."""
        recorded = {} if not self._has_table("models") else \
            {r[0]: _model_record(r) for r in self._conn.execute("SELECT * FROM models ORDER BY created, key")}
        out = list(recorded.values())
        for key, meta in self._conn.execute("SELECT key, meta FROM artifacts WHERE kind='model' ORDER BY key"):
            if key not in recorded:
                meta = _loads(meta)
                out.append(ModelRecord(key, "", {}, "", meta.get("retrained_from"),
                                       "heldout" if "trials" in meta else "", None, "", {}))
        return out

    def model_file(self, key: str) -> bytes | None:
        """The stored model file (JSON bytes) of ``key``."""
        got = self.get_artifact("model", key)
        return None if got is None else got[0]

    # ---------------------------------------------------------------- scorings
    def put_scoring(self, source: str, key: str, settings: dict) -> None:
        """Record that ``source``'s per-candidate counts were computed with ``settings``."""
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO scorings VALUES (?,?,?,?)",
                               (source, key, _dumps(_jsonable(settings)), self.current_run))

    def scorings(self, source: str | None = None) -> list[Scoring]:
        """The evaluation settings under which counts were stored (of ``source``, or every source)."""
        if not self._has_table("scorings"):
            return []
        sql = "SELECT source, key, settings, run FROM scorings"
        args: tuple = ()
        if source is not None:
            sql, args = sql + " WHERE source=?", (source,)
        return [Scoring(r[0], r[1], _loads(r[2]), r[3]) for r in self._conn.execute(sql + " ORDER BY source, key", args)]

    # ---------------------------------------------------------------- statistics
    def stats(self) -> StoreStats:
        """Counts of what the store holds (sentences, candidates by quality, consistent sets)."""
        c = self._conn
        n_sent = c.execute("SELECT COUNT(*) FROM sentences").fetchone()[0]
        per = [r[0] for r in c.execute("SELECT COUNT(*) FROM candidates GROUP BY sentence_id")]
        q = dict(c.execute("SELECT quality, COUNT(*) FROM candidates GROUP BY quality").fetchall())
        unmapped = c.execute("SELECT COALESCE(SUM(unmapped), 0) FROM parse_log").fetchone()[0]
        failures = c.execute("SELECT COUNT(*) FROM parse_log WHERE status IN ('error','crash') "
                             "OR candidates=0").fetchone()[0]
        sets: dict[str, dict[str, int]] = {}
        for (kind,) in c.execute("SELECT DISTINCT kind FROM annotations ORDER BY kind").fetchall():
            counts = dict.fromkeys(STATUSES, 0)
            cur = c.execute("SELECT k.sentence_id, SUM(k.missing = 0), COUNT(*) FROM annotation_checks k "
                            "WHERE k.kind=? GROUP BY k.sentence_id", (kind,))
            for _, ok, total in cur:
                counts["empty" if ok == 0 else "all" if ok == total else "proper"] += 1
            sets[kind] = counts
        decided = c.execute("SELECT COUNT(*), COUNT(DISTINCT sentence_id) FROM decisions").fetchone() \
            if self._has_table("decisions") else (0, 0)    # an older store opened read-only
        return StoreStats(
            sentences=n_sent, sentences_with_candidates=len(per), candidates=sum(per),
            full=q.get("full", 0), fragment=q.get("fragment", 0), timeout=q.get("timeout", 0),
            mean_candidates=float(sum(per) / len(per)) if per else 0.0,
            median_candidates=float(statistics.median(per)) if per else 0.0,
            unmapped_tokens=int(unmapped), failures=failures, consistent_sets=sets,
            corpora=dict(c.execute("SELECT corpus, COUNT(*) FROM sentences GROUP BY corpus ORDER BY corpus").fetchall()),
            sources=dict(c.execute("SELECT source, COUNT(*) FROM candidates GROUP BY source ORDER BY source").fetchall()),
            decisions={"answers": decided[0], "sentences": decided[1]})


def _now() -> str:
    from datetime import timezone

    return datetime.now(timezone.utc).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def _jsonable(value):
    """``value`` with tuples as lists and paths as strings, as JSON keeps them."""
    return json.loads(json.dumps(value, default=str))


def _model_record(r) -> ModelRecord:
    return ModelRecord(r[0], r[1], _loads(r[2]), r[3], r[4], r[5], r[6], r[7], _loads(r[8]))


def code_version() -> str:
    """The ranker code that is running: its package version, and its git commit when run from a checkout.

    Read from the files (no ``git`` process), so recording a run costs nothing measurable.
    """
    import importlib.metadata as md

    try:
        version = md.version("ranker")
    except md.PackageNotFoundError:
        version = "unknown"
    git = Path(__file__).resolve().parents[2] / ".git"
    try:
        if git.is_file():                      # a worktree: "gitdir: PATH"
            git = Path(git.read_text().split(":", 1)[1].strip())
        head = (git / "HEAD").read_text().strip()
        if head.startswith("ref: "):
            ref = head[5:]
            common = (git / (git / "commondir").read_text().strip()).resolve() \
                if (git / "commondir").exists() else git
            loose = [d / ref for d in (git, common) if (d / ref).exists()]
            if loose:
                head = loose[0].read_text().strip()
            else:                              # packed: "SHA REF" lines
                packed = common / "packed-refs"
                lines = packed.read_text().splitlines() if packed.exists() else []
                head = next((ln.split()[0] for ln in lines if ln.endswith(" " + ref)), "")
        if head:
            version += f"+g{head[:12]}"
    except (OSError, IndexError):
        pass
    return version


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


#: A word Penn text cannot hold: a bracket or white space inside, or nothing (words joined by \x01).
_UNWRITABLE = re.compile(r"[()\s]|\x01\x01|^\x01|\x01$|^$")


def penn_text(tree) -> str:
    """One-line Penn text, identical to :func:`ranker.trees.penn.format_tree` but about 40% faster.

    Writing candidates is bound by this (the store must take 50,000 imported trees a second), so
    preterminals are written inline instead of by a recursive call each.
    """
    words = tree.words
    if _UNWRITABLE.search("\x01".join(words)):
        bad = next(w for w in words if not w or _UNWRITABLE.search(w))
        raise StoreError(f"word {bad!r} cannot be written as Penn text (brackets, spaces or empty); "
                         "escape brackets as -LRB- -RRB- -LCB- -RCB- as the Penn Treebank does")

    def rec(n) -> str:
        parts = ["(" + n.label if n.label else "("]
        for c in n.children:
            if type(c) is int:
                parts.append(words[c])
            else:
                k = c.children
                if len(k) == 1 and type(k[0]) is int:
                    parts.append("(" + c.label + " " + words[k[0]] + ")" if c.label else "( " + words[k[0]] + ")")
                else:
                    parts.append(rec(c))
        return " ".join(parts) + ")"

    return rec(tree.root)


def _encode_brackets(brackets) -> str:
    # an accepted bracket is stored as [label, start, end], as before rejected ones existed
    return _dumps([list(b[:3]) if b.accept else list(b) for b in brackets])


def encode_json(value) -> str:
    """The JSON text the store keeps lists and score dicts as (compact, non-ASCII kept as is)."""
    return _dumps(value)


def candidate_row(sentence_id: str, source: str, rank: int, quality: str, tree_text: str, scores_json: str,
                  links_json: str, words_json: str, w2t_json: str, unmapped: int) -> tuple:
    """The row of the ``candidates`` table, from parts already encoded (:func:`encode_json`, Penn text).

    A source that makes thousands of candidates a second encodes each distinct part once and
    builds rows with this; :func:`encode_candidate` is the same row from a :class:`Candidate`.
    """
    return (sentence_id, source, rank, quality, tree_text, scores_json, links_json, words_json, w2t_json, unmapped)


def encode_candidate(c: Candidate) -> tuple:
    """The row a candidate is stored as; cheap to pickle, so worker processes encode, the writer inserts."""
    return candidate_row(c.sentence_id, c.source, c.rank, c.quality, penn_text(c.tree), _dumps(c.scores),
                         _dumps([list(l) for l in c.links]) if c.links else "[]",
                         _dumps(list(c.source_words)) if c.source_words else "[]",
                         _dumps(list(c.word_to_token)) if c.word_to_token else "[]", c.unmapped)


def choose_consistent(sentence_id: str, violations: tuple[int, ...], rule: str,
                      crossing: tuple[int, ...] | None = None) -> ConsistentSet:
    """Pick X(y, z) from each candidate's ``missing`` (``violations``) and ``crossing`` counts under ``rule``.

    Every rule keeps the strict set (the candidates missing no annotated bracket) when it is not
    empty, except ``compatible``; they differ in what they keep when it is empty, which on the
    WSJ sample's Link Grammar forests is over half of the training sentences under Crouch et
    al.'s bracketing (the forest lacks a subject, object, predicative, VP or SBAR bracket):

    - ``strict``: nothing (the sentence teaches nothing; rule ``"none"``).
    - ``fewest``: the candidates missing the fewest brackets (``"fewest-violations"``, Charniak
      and Johnson's convention of keeping the best candidates). A candidate that merely has an
      annotated span under another label counts as much as one that contradicts it.
    - ``compatible`` (Pereira and Schabes 1992): the candidates that cross no annotated bracket,
      whether or not the strict set is empty; a bracket a candidate lacks without crossing it is
      allowed (``"compatible"``, or ``"none"`` when every candidate crosses one).
    - ``strict-else-compatible``: the strict set, else the candidates with the fewest crossings
      (those crossing none when there are any; ``"fewest-crossing"``). Where the forest cannot
      hold the annotation, the target is the candidates that do not contradict it.
    - ``lexicographic``: the candidates with the fewest crossings, among them those missing the
      fewest brackets (``"lexicographic"`` when the strict set is empty); a strict candidate
      crosses and misses nothing, so this is the strict set whenever that is not empty.

    ``status`` always describes the strict set (empty, proper or all).
    """
    ok = [v == 0 for v in violations]
    n_ok = sum(ok)
    status = "empty" if n_ok == 0 else "all" if n_ok == len(ok) else "proper"
    if rule in CROSSING_RULES and (crossing is None or len(crossing) != len(violations)):
        raise StoreError(f"rule {rule!r} needs one crossing count per candidate of {sentence_id}")
    if rule == "compatible":
        keep = [c == 0 for c in crossing]
        return ConsistentSet(sentence_id, tuple(1.0 if k else 0.0 for k in keep), status,
                             "compatible" if any(keep) else "none", violations)
    if n_ok:
        return ConsistentSet(sentence_id, tuple(1.0 if o else 0.0 for o in ok), status, "consistent", violations)
    if rule == "fewest":
        best = min(violations)
        return ConsistentSet(sentence_id, tuple(1.0 if v == best else 0.0 for v in violations), status,
                             "fewest-violations", violations)
    if rule == "strict-else-compatible":
        best = min(crossing)
        return ConsistentSet(sentence_id, tuple(1.0 if c == best else 0.0 for c in crossing), status,
                             "fewest-crossing", violations)
    if rule == "lexicographic":
        pairs = list(zip(crossing, violations))
        best = min(pairs)
        return ConsistentSet(sentence_id, tuple(1.0 if p == best else 0.0 for p in pairs), status,
                             "lexicographic", violations)
    return ConsistentSet(sentence_id, tuple(0.0 for _ in violations), status, "none", violations)
