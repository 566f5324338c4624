"""The store's record of who works on what: each sentence an adjudicator gave to an annotator.

A treebanking job is planned before it is worked: documents or sentence ranges are given to
annotators, a share of them to two, so their agreement can be measured
(:func:`ranker.sources.assignment.plan_assignment` makes the plan). The plan is kept in the store,
beside the work it is about, so every server and command reading the store sees the same one. It
is a table of its own: a store written before it reads as one where nothing is assigned.

:class:`AssignmentTables` is a part of :class:`~ranker.store.Store` (a base class).
"""
from __future__ import annotations

from typing import Iterable

from .errors import StoreError
from .records import Assignment


class AssignmentTables:
    """Assignments on an open store (mixed into ``Store``)."""

    def assign(self, pairs: Iterable[tuple[str, str]], by: str, replace: Iterable[str] = (),
               at: str | None = None) -> int:
        """Give each ``(sentence_id, annotator)`` of ``pairs`` to that annotator, ``by`` assigning.

        The sentences of ``replace`` lose their earlier assignments first (in the same
        transaction): assigning a document again replaces its plan rather than adding to it.
        Returns the number of assignments written.

        Raises
        ------
        StoreError
            For a sentence not stored, or an empty annotator or assigner name.
        """
        from .team import now_utc

        pairs = list(pairs)
        if not by:
            raise StoreError(f"{self.path}: an assignment needs who assigns it")
        at = at or now_utc()
        with self.batch():
            self._conn.executemany("DELETE FROM assignments WHERE sentence_id=?", [(s,) for s in replace])
            for sid, who in pairs:
                self._tokens(sid)   # a StoreError naming the sentence when it is not stored
                if not who:
                    raise StoreError(f"{self.path}: an assignment of {sid} needs an annotator")
                self._conn.execute("INSERT OR REPLACE INTO assignments (sentence_id, who, assigned_by, at) "
                                   "VALUES (?,?,?,?)", (sid, who, by, at))
        return len(pairs)

    def unassign(self, sentence_ids: Iterable[str] | None = None, who: str | None = None) -> int:
        """Take assignments back: those of ``sentence_ids`` (all sentences when None), of ``who``
        (every annotator when None). Returns how many were removed."""
        where, args = [], []
        if who is not None:
            where.append("who=?")
            args.append(who)
        sql = "DELETE FROM assignments" + (" WHERE " + " AND ".join(where) if where else "")
        with self.batch():
            if sentence_ids is None:
                return self._conn.execute(sql, args).rowcount
            joiner = " AND " if where else " WHERE "
            return sum(self._conn.execute(sql + joiner + "sentence_id=?", (*args, sid)).rowcount
                       for sid in sentence_ids)

    def assignments(self, who: str | None = None, sentence_id: str | None = None) -> list[Assignment]:
        """The assignments (of ``who``, of ``sentence_id``, or all), ordered by sentence id and annotator."""
        if not self._has_table("assignments"):
            return []   # an older store opened read-only: nothing assigned
        where, args = [], []
        for column, value in (("who", who), ("sentence_id", sentence_id)):
            if value is not None:
                where.append(f"{column}=?")
                args.append(value)
        sql = "SELECT sentence_id, who, assigned_by, at FROM assignments" + \
            (" WHERE " + " AND ".join(where) if where else "")
        return [Assignment(*r) for r in self._conn.execute(sql + " ORDER BY sentence_id, who", args)]
