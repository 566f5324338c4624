"""Blind double annotation: an annotator sees nobody else's work on a sentence until everyone on it is done.

Two annotators who can read each other's answers (or know who else has the sentence) are not two
independent judgements: their agreement measures nothing, and the second tends to follow the
first. With the lead's setting on (kept in the store, :func:`set_blind`: the ``/assign`` page or
``ranker serve assign blind on``), a sentence's page, the sentence list and the adjudication
pages show an annotator of a sentence (assigned to it, or with work on it) only their own work
there: not who else has it, not their answers, comments, conflicts or the adjudication, until
every annotator of it is done or an adjudication stands
(:func:`ranker.sources.finished.everyone_done`). An adjudicator with no work on the sentence sees
everything, as does everyone once it is unblinded. Without accounts everyone is an adjudicator,
so the setting binds only a server with accounts (``--users``).
"""
from __future__ import annotations

from ..settings import ServeSection

#: The store's team setting (:meth:`ranker.store.Store.team_setting`) that holds it.
SETTING = "blind"


def blind_on(store) -> bool:
    """Whether the store's team annotates blind (:data:`ServeSection.blind` until the lead says)."""
    got = store.team_setting(SETTING)
    return ServeSection.blind if got is None else got == "on"


def set_blind(store, on: bool) -> None:
    """Turn blind double annotation on or off for every server on the store."""
    store.set_team_setting(SETTING, "on" if on else "off")


class Blinds:
    """Which sentences' other work the current reader may not see (:meth:`hidden`), read once a request.

    ``team`` is the store's :class:`~ranker.sources.adjudication.TeamWork` (read when None),
    ``who`` the current annotator (None: a reader not signed in), ``adjudicator`` whether they
    may adjudicate.
    """

    def __init__(self, store, served, who: str | None, adjudicator: bool, team=None, assignments=None):
        from ..sources.adjudication import store_team_work

        self.on = blind_on(store)
        self.served, self.who, self.adjudicator = served, who, adjudicator
        self.team = team if team is not None or not self.on else store_team_work(store)
        self.holders: dict[str, tuple] = {}
        if self.on:
            got: dict[str, list] = {}
            for a in store.assignments() if assignments is None else assignments:
                got.setdefault(a.sentence_id, []).append(a.who)
            self.holders = {sid: tuple(sorted(ws)) for sid, ws in got.items()}

    @classmethod
    def of_sentence(cls, store, served, sentence_id: str, who: str | None, adjudicator: bool) -> "Blinds":
        """The blinds of one sentence, reading that sentence's work only (a sentence page)."""
        from ..sources.adjudication import TeamWork, reopened, work_by_annotator

        work = work_by_annotator(store.decisions(sentence_id), store.verdicts(sentence_id))
        adj = store.adjudications().get(sentence_id)
        standing = {sentence_id: adj} if adj is not None and not reopened(adj, work) else {}
        return cls(store, served, who, adjudicator, TeamWork({sentence_id: work}, standing),
                   store.assignments(sentence_id=sentence_id))

    def hidden(self, sentence_id: str) -> bool:
        """Whether the others' work on ``sentence_id`` is hidden from this reader."""
        from ..sources.finished import everyone_done

        if not self.on:
            return False
        work = self.team.by_sentence.get(sentence_id, {})
        holders = self.holders.get(sentence_id, ())
        mine = work.get(self.who) if self.who is not None else None
        involved = self.who is not None and (self.who in holders or (mine is not None and mine.present))
        if self.adjudicator and not involved:
            return False
        adj = self.team.adjudications.get(sentence_id)
        if adj is None and not any(w.present for w in work.values()):
            return True   # nobody did anything yet: nobody is done (and no forest need be read)
        key = ("everyone done", sentence_id, tuple(sorted(work.items())), holders, adj)
        return not self.served.statuses.get(
            key, lambda: everyone_done(work, holders, adj, self.served.forest_data(sentence_id).spans))
