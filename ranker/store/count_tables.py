"""The store's count tables: per-candidate bracket counts against gold, and the scorings that made them.

:class:`CountTables` is a part of :class:`~ranker.store.Store` (a base class).
"""
from __future__ import annotations

from typing import Iterable

from .encoding import _dumps, _jsonable, _loads
from .records import BracketCounts, Scoring

#: The metric keys of every stored count: a walk down the primary key's first column, one index
#: lookup per key (``SELECT DISTINCT`` scans the whole table: 1.1 s on a 6-million-row store).
_STORED_METRICS = ("WITH RECURSIVE m(x) AS (SELECT MIN(metric) FROM bracket_counts UNION ALL "
                   "SELECT (SELECT MIN(metric) FROM bracket_counts WHERE metric > m.x) FROM m "
                   "WHERE m.x IS NOT NULL) SELECT x FROM m WHERE x IS NOT NULL")
#: One sentence's counts under one metric key: a range of the primary key.
_DELETE_COUNTS = "DELETE FROM bracket_counts WHERE metric=? AND sentence_id=? AND source=?"


class CountTables:
    """Bracket counts and scorings on an open store (mixed into ``Store``)."""

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
