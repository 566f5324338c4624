"""The store's record of a team's work beyond single answers: verdicts, adjudications, annotator names.

Several people annotate one store, each from their own browser (``ranker serve``). Their answers
are the ``decisions`` rows, each with who gave it; this module keeps what a person says about a
whole sentence (:class:`~.records.Verdict`: "no correct candidate" and a comment) and what an
adjudicator chose where two annotators conflict (:class:`~.records.Adjudication`). They are tables
of their own, so a store written before them reads as one where nobody said anything yet.

:class:`TeamRecords` is a part of :class:`~ranker.store.Store` (a base class), kept apart so the
decision-writing code and this one change independently.
"""
from __future__ import annotations

from datetime import datetime, timezone

from .errors import StoreError
from .records import Adjudication, Verdict

#: The longest comment kept (a paragraph; the page's field holds no more).
MAX_COMMENT = 2000


def now_utc() -> str:
    """The current time as the decisions table writes it (``2026-11-25T18:00:00Z``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class TeamRecords:
    """Verdicts, adjudications and annotator renaming on an open store (mixed into ``Store``)."""

    # ---------------------------------------------------------------- verdicts
    def set_verdict(self, sentence_id: str, who: str, no_correct: bool, comment: str = "",
                    at: str | None = None) -> Verdict | None:
        """Record ``who``'s verdict on a sentence, replacing theirs before; nothing said removes it.

        Returns the stored :class:`Verdict`, or None when ``no_correct`` is False and the comment
        empty (the row is deleted: there is nothing to keep).

        Raises
        ------
        StoreError
            For a sentence not stored, an empty ``who`` or a comment over :data:`MAX_COMMENT` characters.
        """
        self._tokens(sentence_id)   # a StoreError naming the sentence when it is not stored
        comment = (comment or "").strip()
        if not isinstance(who, str) or not who.strip():
            raise StoreError(f"{self.path}: a verdict needs who gave it")
        if len(comment) > MAX_COMMENT:
            raise StoreError(f"{self.path}: a comment holds at most {MAX_COMMENT} characters, "
                             f"found {len(comment)}")
        with self.batch():
            if not no_correct and not comment:
                self._conn.execute("DELETE FROM verdicts WHERE sentence_id=? AND who=?", (sentence_id, who))
                return None
            v = Verdict(bool(no_correct), comment, who, at or now_utc())
            self._conn.execute("INSERT OR REPLACE INTO verdicts VALUES (?,?,?,?,?)",
                               (sentence_id, who, int(v.no_correct), v.comment, v.at))
        return v

    def verdicts(self, sentence_id: str | None = None) -> list:
        """The verdicts on ``sentence_id`` (a list of :class:`Verdict`), or all as ``(sentence_id, Verdict)``."""
        if not self._has_table("verdicts"):
            return []    # an older store opened read-only
        sql, args = "SELECT sentence_id, no_correct, comment, who, at FROM verdicts", ()
        if sentence_id is not None:
            sql, args = sql + " WHERE sentence_id=?", (sentence_id,)
        rows = self._conn.execute(sql + " ORDER BY sentence_id, who", args).fetchall()
        out = [(r[0], Verdict(bool(r[1]), r[2], r[3], r[4])) for r in rows]
        return [v for _, v in out] if sentence_id is not None else out

    # ---------------------------------------------------------------- adjudications
    def adjudicate(self, sentence_id: str, chosen: str, who: str, at: str | None = None) -> Adjudication:
        """Record that ``who`` chose ``chosen``'s work on a sentence (replacing an earlier pick).

        Raises
        ------
        StoreError
            For a sentence not stored or an empty name.
        """
        self._tokens(sentence_id)
        if not chosen or not who:
            raise StoreError(f"{self.path}: an adjudication needs the chosen annotator and the adjudicator")
        a = Adjudication(sentence_id, chosen, who, at or now_utc())
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO adjudications VALUES (?,?,?,?)", tuple(a))
        return a

    def clear_adjudication(self, sentence_id: str) -> bool:
        """Forget the adjudication of a sentence; True if there was one."""
        with self.batch():
            cur = self._conn.execute("DELETE FROM adjudications WHERE sentence_id=?", (sentence_id,))
        return cur.rowcount > 0

    def adjudications(self) -> dict[str, Adjudication]:
        """Every adjudication, by sentence id."""
        if not self._has_table("adjudications"):
            return {}
        rows = self._conn.execute("SELECT sentence_id, chosen, who, at FROM adjudications ORDER BY sentence_id")
        return {r[0]: Adjudication(*r) for r in rows}

    # ---------------------------------------------------------------- names
    def rename_annotator(self, old: str, new: str) -> int:
        """Give ``old``'s decisions and verdicts to ``new`` (an anonymous session that set its name).

        A verdict ``new`` already gave on the same sentence is replaced by ``old``'s (the later
        word of the same person). Returns the number of decisions renamed.
        """
        if not old or not new or old == new:
            return 0
        with self.batch():
            n = self._conn.execute("UPDATE decisions SET who=? WHERE who=?", (new, old)).rowcount
            self._conn.execute("UPDATE OR REPLACE verdicts SET who=? WHERE who=?", (new, old))
        return n
