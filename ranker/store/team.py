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
                    at: str | None = None, confirmed: bool = False) -> Verdict | None:
        """Record ``who``'s verdict on a sentence, replacing theirs before; nothing said removes it.

        ``confirmed``: the one bracketing left is correct (a forest of one bracketing has no
        discriminant, so this is how it is checked); it cannot go with ``no_correct``. Returns the
        stored :class:`Verdict`, or None when neither flag is set and the comment is empty (the row
        is deleted: there is nothing to keep).

        Raises
        ------
        StoreError
            For a sentence not stored, an empty ``who``, a comment over :data:`MAX_COMMENT`
            characters, or both ``no_correct`` and ``confirmed``.
        """
        self._tokens(sentence_id)   # a StoreError naming the sentence when it is not stored
        comment = (comment or "").strip()
        if not isinstance(who, str) or not who.strip():
            raise StoreError(f"{self.path}: a verdict needs who gave it")
        if len(comment) > MAX_COMMENT:
            raise StoreError(f"{self.path}: a comment holds at most {MAX_COMMENT} characters, "
                             f"found {len(comment)}")
        if no_correct and confirmed:
            raise StoreError(f"{self.path}: a verdict cannot both confirm the bracketing left and say "
                             "that no candidate is correct")
        with self.batch():
            if not no_correct and not confirmed and not comment:
                self._conn.execute("DELETE FROM verdicts WHERE sentence_id=? AND who=?", (sentence_id, who))
                return None
            v = Verdict(bool(no_correct), comment, who, at or now_utc(), bool(confirmed))
            self._conn.execute("INSERT OR REPLACE INTO verdicts (sentence_id, who, no_correct, comment, at, "
                               "confirmed) VALUES (?,?,?,?,?,?)",
                               (sentence_id, who, int(v.no_correct), v.comment, v.at, int(v.confirmed)))
        return v

    def sentences_with_work(self) -> set[str]:
        """Sentences carrying annotators' work: decisions, verdicts or an adjudication."""
        return {r[0] for table in ("decisions", "verdicts", "adjudications") if self._has_table(table)
                for r in self._conn.execute(f"SELECT DISTINCT sentence_id FROM {table}")}

    def verdicts(self, sentence_id: str | None = None) -> list:
        """The verdicts on ``sentence_id`` (a list of :class:`Verdict`), or all as ``(sentence_id, Verdict)``."""
        if not self._has_table("verdicts"):
            return []    # an older store opened read-only
        confirmed = "confirmed" if self._has_column("verdicts", "confirmed") else "0"
        sql, args = f"SELECT sentence_id, no_correct, comment, who, at, {confirmed} FROM verdicts", ()
        if sentence_id is not None:
            sql, args = sql + " WHERE sentence_id=?", (sentence_id,)
        rows = self._conn.execute(sql + " ORDER BY sentence_id, who", args).fetchall()
        out = [(r[0], Verdict(bool(r[1]), r[2], r[3], r[4], bool(r[5]))) for r in rows]
        return [v for _, v in out] if sentence_id is not None else out

    # ---------------------------------------------------------------- adjudications
    def adjudicate(self, sentence_id: str, chosen: str, who: str, at: str | None = None,
                   work: str = "", comment: str = "") -> Adjudication:
        """Record that ``who`` chose ``chosen``'s work on a sentence (replacing an earlier pick).

        ``work`` is the digest of ``chosen``'s work as reviewed
        (:func:`ranker.sources.adjudication.work_digest`); when it changes, the pick is reopened.
        ``chosen`` :data:`~.records.NONE_IS_RIGHT` rules that no candidate is right (the sentence
        is "no correct candidate"); it needs a ``comment`` saying why.
        :data:`~.records.ADJUDICATOR_DECIDED`: the adjudicators' own answers on the sentence
        (``add_decision(..., adjudication=True)``) stand; it needs at least one.

        Raises
        ------
        StoreError
            For a sentence not stored, an empty name, a comment over :data:`MAX_COMMENT`
            characters, or "none is right" without a comment.
        """
        from .records import ADJUDICATOR_DECIDED, NONE_IS_RIGHT

        self._tokens(sentence_id)
        comment = (comment or "").strip()
        if not chosen or not who:
            raise StoreError(f"{self.path}: an adjudication needs the chosen annotator and the adjudicator")
        if len(comment) > MAX_COMMENT:
            raise StoreError(f"{self.path}: a comment holds at most {MAX_COMMENT} characters, found {len(comment)}")
        if chosen == NONE_IS_RIGHT and not comment:
            raise StoreError(f"{self.path}: ruling that no candidate is right needs a comment saying why")
        if chosen == ADJUDICATOR_DECIDED and not self.decisions(sentence_id, adjudication=True):
            raise StoreError(f"{self.path}: {sentence_id}: the adjudicator's decisions cannot stand: there are none")
        a = Adjudication(sentence_id, chosen, who, at or now_utc(), work or "", comment)
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO adjudications (sentence_id, chosen, who, at, work, comment) "
                               "VALUES (?,?,?,?,?,?)", tuple(a)[:6])
        if chosen == ADJUDICATOR_DECIDED:
            a = a._replace(decisions=tuple(self.decisions(sentence_id, adjudication=True)))
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
        work = "work" if self._has_column("adjudications", "work") else "''"
        comment = "comment" if self._has_column("adjudications", "comment") else "''"
        rows = self._conn.execute(f"SELECT sentence_id, chosen, who, at, {work}, {comment} FROM adjudications "
                                  "ORDER BY sentence_id").fetchall()
        out = {r[0]: Adjudication(*r) for r in rows}
        if any(a.decided for a in out.values()):   # the adjudicators' own answers, with their adjudication
            own: dict[str, list] = {}
            for sid, d in self.decisions(adjudication=True):
                own.setdefault(sid, []).append(d)
            out = {sid: a._replace(decisions=tuple(own.get(sid, ()))) if a.decided else a for sid, a in out.items()}
        return out

    # ---------------------------------------------------------------- the lead's settings
    def team_setting(self, name: str) -> str | None:
        """A setting the lead keeps in the store for every server on it (None: never set).

        Kept in the ``meta`` table as ``team.NAME``, so a restart and a second server read the same
        plan (blind double annotation: :mod:`ranker.serve.blind`).
        """
        row = self._conn.execute("SELECT value FROM meta WHERE key=?", (f"team.{name}",)).fetchone()
        return None if row is None else row[0]

    def set_team_setting(self, name: str, value: str) -> None:
        """Keep the lead's setting ``name`` (:meth:`team_setting`)."""
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (f"team.{name}", str(value)))

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
