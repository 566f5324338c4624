"""The store's annotation tables: annotations, their checks against candidates, consistent sets, decisions.

The consistency rules themselves are :mod:`ranker.store.consistency`; verdicts and adjudications
are :mod:`ranker.store.team`. :class:`AnnotationTables` is a part of :class:`~ranker.store.Store`
(a base class).
"""
from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Iterable

from .consistency import CROSSING_RULES, RULES, choose_consistent
from .encoding import _encode_brackets, _loads
from .errors import StoreError
from .records import Annotation, Bracket, ConsistentSet, Decision


#: The kinds with stored checks: a walk down the primary key's first column (``SELECT DISTINCT``
#: would scan every check).
_CHECKED_KINDS = ("WITH RECURSIVE m(x) AS (SELECT MIN(kind) FROM annotation_checks UNION ALL "
                  "SELECT (SELECT MIN(kind) FROM annotation_checks WHERE kind > m.x) FROM m "
                  "WHERE m.x IS NOT NULL) SELECT x FROM m WHERE x IS NOT NULL")


class AnnotationTables:
    """Annotations, checks, consistent sets and discriminant decisions on an open store (mixed into ``Store``)."""

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

    def delete_annotation_checks(self, sentence_ids: Iterable[str], source: str) -> None:
        """Forget every kind's checks of these sentences' candidates from ``source`` (a new forest)."""
        sentence_ids = list(sentence_ids)
        with self.batch():
            # one delete per checked kind and sentence: a range of the primary key (kind first),
            # not a scan of the whole table per sentence
            kinds = [r[0] for r in self._conn.execute(_CHECKED_KINDS)]
            self._conn.executemany("DELETE FROM annotation_checks WHERE kind=? AND sentence_id=? AND source=?",
                                   ((k, sid, source) for sid in sentence_ids for k in kinds))

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
            from ..registries import ANNOTATIONS

            how = (f"--kind {kind}" if kind in ANNOTATIONS.names(bare=True)
                   else f"--kind file --file BRACKETS --name {kind}")
            first = ("make decisions in ranker serve, then " if kind in ANNOTATIONS.names(bare=True)
                     and ANNOTATIONS.get(kind)(kind).from_decisions else "")
            raise StoreError(f"{self.path}: no annotation {kind!r} is stored; {first}run: ranker annotate "
                             f"--store {self.path} {how}")
        annotated, checks = self._checks(kind, corpus, split, fileids, source)
        out: dict[str, ConsistentSet] = {}
        for sid, (missing, crossing) in checks.items():
            if rule in CROSSING_RULES and not all(b.accept for b in annotated[sid].brackets):
                raise StoreError(f"{self.path}: {sid} has rejected brackets of {kind!r}, which crossing "
                                 f"counts do not see; rule {rule!r} cannot use them (use strict or fewest)")
            out[sid] = choose_consistent(sid, missing, rule, crossing, annotated=len(annotated[sid].brackets))
        return out

    def _checks(self, kind: str, corpus: str | None, split: str | None, fileids, source: str | None) -> tuple:
        """``(annotations, checks)``: the annotations of the sentences selected, and for each one with
        candidates their ``(missing, crossing)`` counts in candidate order (``source``, rank).

        Read once and kept while the store is unchanged (:meth:`memoised`): a rule grid asks for
        the same checks under each rule (a warm rerun of GUM's six rules read them 19 times, 4 s each).
        """
        if fileids is not None and not isinstance(fileids, str):
            fileids = tuple(fileids)   # a list or a generator, read once, as the key and the selection
        return self.memoised("checks", (kind, corpus, split, fileids, source),
                              lambda: self._read_checks(kind, corpus, split, fileids, source))

    def _read_checks(self, kind: str, corpus: str | None, split: str | None, fileids, source: str | None) -> tuple:
        annotated = self.annotations(kind, corpus, split, fileids)
        checks: dict[str, tuple] = {}
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
            checks[sid] = (tuple(r[2] for r in rows), tuple(r[3] for r in rows))
        return annotated, checks

    # ---------------------------------------------------------------- discriminant decisions
    def add_decision(self, sentence_id: str, decision, adjudication: bool = False) -> int:
        """Append a person's answer to a discriminant of ``sentence_id``; returns its sequence number.

        One transaction (``BEGIN IMMEDIATE`` waits for other writers), so two browsers answering
        at once each get their own number and neither answer is lost. ``adjudication``: an
        adjudicator's answer on the adjudication page, kept apart (table ``adjudication_decisions``)
        so it is no annotator's work: it enters no agreement and no conflict, and stands only as
        the adjudication's decisions (:data:`~.records.ADJUDICATOR_DECIDED`).

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
        table = _decision_table(adjudication)
        with self.batch():
            seq = self._conn.execute(f"SELECT COALESCE(MAX(seq), 0) + 1 FROM {table} WHERE sentence_id=?",
                                     (sentence_id,)).fetchone()[0]
            self._conn.execute(f"INSERT INTO {table} VALUES (?,?,?,?,?,?,?,?)",
                               (sentence_id, seq, label, start, end, int(bool(accept)), who, at))
        return seq

    def decisions(self, sentence_id: str | None = None, adjudication: bool = False) -> list:
        """The decisions on ``sentence_id`` in the order they were made (all sentences' when None).

        Returns a list of :class:`~ranker.store.records.Decision`; with ``sentence_id``
        None, a list of ``(sentence_id, Decision)`` pairs ordered by sentence id, then answer.
        ``adjudication``: the adjudicators' answers instead (:meth:`add_decision`).
        """
        table = _decision_table(adjudication)
        sql = f"SELECT sentence_id, label, span_start, span_end, accept, who, at FROM {table}"
        args: tuple = ()
        if sentence_id is not None:
            sql += " WHERE sentence_id=?"
            args = (sentence_id,)
        try:
            rows = self._conn.execute(sql + " ORDER BY sentence_id, seq", args).fetchall()
        except sqlite3.OperationalError:
            if self._has_table(table):
                raise
            return []    # an older store opened read-only: no one has answered anything in it
        out = [(r[0], Decision(r[1], r[2], r[3], bool(r[4]), r[5], r[6])) for r in rows]
        return [d for _, d in out] if sentence_id is not None else out

    def undo_decision(self, sentence_id: str, who: str | None = None, adjudication: bool = False):
        """Remove the latest decision on ``sentence_id`` and return it (None when there is none).

        With ``who``, the latest of that person's decisions: when two people annotate one sentence
        at once, one's undo must not take back the other's answer. ``adjudication``: the latest
        of the adjudicators' answers (:meth:`add_decision`).
        """
        table = _decision_table(adjudication)
        with self.batch():
            by = "" if who is None else " AND who=?"
            r = self._conn.execute(f"SELECT seq, label, span_start, span_end, accept, who, at FROM {table} "
                                   f"WHERE sentence_id=?{by} ORDER BY seq DESC LIMIT 1",
                                   (sentence_id,) if who is None else (sentence_id, who)).fetchone()
            if r is None:
                return None
            self._conn.execute(f"DELETE FROM {table} WHERE sentence_id=? AND seq=?", (sentence_id, r[0]))
        return Decision(r[1], r[2], r[3], bool(r[4]), r[5], r[6])


def _decision_table(adjudication: bool) -> str:
    """The table of annotators' answers, or of the adjudicators' (never a name from outside)."""
    return "adjudication_decisions" if adjudication else "decisions"
