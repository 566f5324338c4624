"""The team's work on one sentence as the pages show it: the annotator's own decisions, the others'
work, whether it conflicts and the adjudication that stands.

Read by the sentence page (:mod:`.views`) and the adjudication pages (:mod:`.team`); it imports
neither, so the pages do not import each other in a circle.
"""
from __future__ import annotations

from typing import NamedTuple

from ..sources.adjudication import AnnotatorWork, reopened, sentence_agreement
from .accounts import current_annotator
from .cache import LRU


class SentenceTeam(NamedTuple):
    """What the sentence page shows of the team's work besides the annotator's own decisions."""

    who: str | None                  # the current annotator (None: a reader not signed in)
    verdict: object                  # their Verdict or None
    others: dict                     # other annotator -> number of decisions (or 'no correct candidate')
    conflict: bool                   # whether the sentence's annotators conflict (computed when others exist)
    adjudicated: object              # the Adjudication that stands, or None
    reopened: object = None          # an Adjudication whose chosen annotator changed their answers since
    comments: tuple = ()             # every annotator's comment on the sentence (Verdict records)
    blind: bool = False              # blind double annotation hides the others' work here (serve/blind.py)


def own_decisions(decisions) -> list:
    """The decisions of the current annotator among a sentence's (none for a reader not signed in)."""
    who = current_annotator()
    return [d for d in decisions if d.who == who]


def spans_of(served):
    """``sentence id -> its forest's spans`` (None for none) over the served forests."""
    def of(sentence_id: str):
        return served.forest_data(sentence_id).spans or None
    return of


def _agreement_cache(served):
    """Per-sentence agreement kept per (sentence, everyone's work): a list page reads no forest twice."""
    from flask import current_app

    return current_app.extensions.setdefault("ranker-agreement", LRU(100_000))


def sentence_agreement_of(served, sentence_id: str, work: dict[str, AnnotatorWork]):
    """The agreement of ``work`` on a sentence, cached per (sentence, everyone's work)."""
    key = (sentence_id, tuple(sorted(work.items())))
    return _agreement_cache(served).get(
        key, lambda: sentence_agreement(sentence_id, work, spans_of(served)(sentence_id)))


def own_work(store, sentence_id: str, who: str | None):
    """``who``'s :class:`~ranker.sources.adjudication.AnnotatorWork` on a sentence (None: nothing)."""
    from ..sources.adjudication import work_by_annotator

    if who is None:
        return None
    return work_by_annotator([d for d in store.decisions(sentence_id) if d.who == who],
                             [v for v in store.verdicts(sentence_id) if v.who == who]).get(who)


def undo_own(store, sentence_id: str, who: str, spans) -> bool:
    """Take back ``who``'s latest answer on a sentence and, when more than one bracketing is left
    after it, their confirmation of the bracketing left (it confirmed what is no longer the only
    one); one transaction. True when a confirmation was withdrawn."""
    from ..sources.finished import work_status

    with store.batch():
        if store.undo_decision(sentence_id, who) is None:
            return False
        work = own_work(store, sentence_id, who)
        if work is None or not work.confirmed or work_status(work, spans) == "done":
            return False
        store.set_verdict(sentence_id, who, False, work.verdict.comment, confirmed=False)
    return True


def sentence_team(served, store, sentence_id: str) -> SentenceTeam:
    """The team's work on a sentence as the current annotator's page shows it (``served``: the
    application's :class:`~.app.Served` state); under blind double annotation (:mod:`.blind`),
    their own only until everyone on it is done."""
    from ..sources.adjudication import work_by_annotator
    from .accounts import may_adjudicate
    from .blind import Blinds

    who = current_annotator()
    work = work_by_annotator(store.decisions(sentence_id), store.verdicts(sentence_id))
    mine = work.get(who)
    if Blinds.of_sentence(store, served, sentence_id, who, may_adjudicate()).hidden(sentence_id):
        return SentenceTeam(who, mine.verdict if mine else None, {}, False, None, None,
                            (mine.verdict,) if mine and mine.verdict and mine.verdict.comment else (), True)
    others = {w.who: ("no correct candidate" if w.no_correct else
                      f"{len(w.decisions)} decisions{', confirmed' if w.confirmed else ''}")
              for w in work.values() if w.who != who and w.present}
    row = sentence_agreement_of(served, sentence_id, work) if others else None
    adj = store.adjudications().get(sentence_id)
    stale = adj is not None and reopened(adj, work)
    return SentenceTeam(who, mine.verdict if mine else None, others, bool(row and row.conflict),
                        adj if others and not stale else None, adj if stale else None,
                        tuple(w.verdict for w in work.values() if w.verdict is not None and w.verdict.comment))
