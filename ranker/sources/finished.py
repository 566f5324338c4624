"""The treebank a team made: each sentence its people narrowed to one bracketing, as a tree.

A sentence is *finished* when the decisions that stand for it (its adjudicated set,
:func:`ranker.sources.adjudication.resolve`: one annotator's, several agreeing annotators' together,
or the adjudicator's pick) leave candidates of one bracketing only (one *pack*,
:func:`ranker.sources.discriminants.packs`), or several no answer can split (:func:`settled`):
the tree is its first remaining candidate's text. The same test says when one annotator is
done (:func:`work_status`), so the page, the list, the assignment's progress, ``ranker store
stats`` and the export never differ on it. Every other sentence is listed with why it is not
finished (untouched, started with several bracketings left, a conflict not adjudicated, "no correct
candidate"), never dropped in silence.
"""
from __future__ import annotations

from typing import Iterable, NamedTuple

from ..store.records import Sentence


class SentenceOutcome(NamedTuple):
    """What the team's work on one sentence comes to."""

    sentence_id: str
    status: str              # finished, untouched, started, conflict, no correct candidate, no candidates
    tree: str | None         # the finished tree's Penn text (one line), else None
    left: int                # bracketings the standing decisions leave (0 without a forest)
    annotators: tuple[str, ...]
    adjudicator: str         # who picked whose work stands ("" when nobody)
    comments: tuple[str, ...]   # "who: comment" of every verdict that says something
    follows: tuple[str, ...] = ()   # whose work the outcome follows: the tree's decisions (finished), the
                                    # verdict (no correct candidate); () for the rest

    def row(self, line: int | None) -> list[str]:
        """A tab-separated listing's columns (``line``: the tree's line in the trees file, or None)."""
        return [self.sentence_id, self.status, "-" if line is None else str(line), str(self.left),
                ",".join(self.annotators), self.adjudicator, ",".join(self.follows),
                " | ".join(self.comments).replace("\t", " ").replace("\n", " ")]


#: The listing's column names, in :meth:`SentenceOutcome.row` order (``follows``: the annotator(s)
#: whose decisions the tree follows, the adjudicator's pick or every agreeing annotator; the
#: adjudicator where their own answers on the adjudication page stand).
COLUMNS = ("sentence", "status", "line", "bracketings_left", "annotators", "adjudicator", "follows", "comments")


def settled(spans, mask) -> bool:
    """Whether the candidates ``mask`` leaves are settled: some are left and no answer can narrow them.

    That is one bracketing left (one pack), or several that differ only in labels the equivalence
    table counts as one (``S`` and ``SINV`` on one span): no discriminant splits them, so nothing
    is left to ask. The one test of "done" (:func:`work_status`, :func:`team_status`).
    """
    import numpy as np

    from .discriminants import discriminants, packs

    mask = np.asarray(mask, dtype=bool)
    if not len(spans) or not mask.any():
        return False
    return len(packs(spans, mask)) == 1 or not discriminants(spans, mask)


def work_status(work, spans) -> str:
    """One annotator's status on a sentence: ``untouched``, ``started`` or ``done``.

    The one definition of an annotator's "done", read by the sentence page, the sentence list,
    ``ranker serve assign list``, ``ranker store stats`` and (through :func:`team_status`) the
    export: they said no candidate is correct, or their decisions (or the forest alone, which
    they confirmed) leave the candidates :func:`settled`. A confirmation whose bracketing is no
    longer the only one (an answer undone since) is no "done".

    Parameters
    ----------
    work
        Their :class:`~ranker.sources.adjudication.AnnotatorWork` (None: they did nothing).
    spans
        The forest's candidate spans (forest order; empty or None without candidates).
    """
    from .discriminants import remaining_mask

    if work is None or not work.present:
        return "untouched"
    if work.no_correct:
        return "done"
    if not spans:
        return "started"
    return "done" if settled(spans, remaining_mask(spans, work.decisions)) else "started"


def everyone_done(work, holders, adjudication, spans) -> bool:
    """Whether a sentence's annotators may see each other's work under blind double annotation.

    Every annotator of it (those with work on it and those it is assigned to, ``holders``) is
    done (:func:`work_status`), or an adjudication stands (``adjudication``, not reopened: the
    sentence is decided, nothing is left to sway). Until then each works alone: what they see of
    another's work could change their answers, and their agreement would measure nothing.
    """
    if adjudication is not None:
        return True
    people = set(holders) | {w for w, aw in work.items() if aw.present}
    return bool(people) and all(work_status(work.get(w), spans) == "done" for w in people)


class TeamStatus(NamedTuple):
    """What the team's work on one sentence comes to, before any tree is read (:func:`team_status`)."""

    status: str              # finished, untouched, started, conflict, no correct candidate, no candidates
    left: tuple = ()         # the packs (forest indices) the standing decisions leave
    adjudicator: str = ""    # who picked whose work stands ("" when nobody)
    follows: tuple = ()      # the annotators whose work the status follows (SentenceOutcome.follows)


def team_status(work, adjudication, spans) -> TeamStatus:
    """The team's status on a sentence: what ``store export --trees`` writes and the list shows
    for everyone's work together.

    ``work`` is the sentence's :func:`~ranker.sources.adjudication.work_by_annotator`,
    ``adjudication`` the one that stands (or None), ``spans`` its forest's candidate spans.
    Finished means the standing decisions (:func:`~ranker.sources.adjudication.resolve`) leave
    the candidates :func:`settled`, as :func:`work_status` says of one annotator.
    """
    from .adjudication import reopened, resolve, sentence_agreement
    from .discriminants import packs, remaining_mask

    present = {w: aw for w, aw in work.items() if aw.present}
    adjudicator = adjudication.who if adjudication is not None and (adjudication.chosen in present
                                                                    or adjudication.ruling) else ""
    if not spans:
        return TeamStatus("no candidates", (), adjudicator)
    if adjudication is not None and adjudication.none:   # the adjudicator ruled that none is right
        return TeamStatus("no correct candidate", (), adjudicator)
    if not present and not (adjudication is not None and adjudication.decided):
        return TeamStatus("untouched", tuple(tuple(p) for p in packs(spans)), adjudicator)
    row = sentence_agreement("", work, spans) if len(present) >= 2 else None
    decisions = resolve(work, bool(row and row.conflict), adjudication)
    # resolve's choice: the adjudicator's pick where one stands, else every annotator's work together
    picked = adjudicator and not reopened(adjudication, work)
    follows = ((adjudication.who,) if adjudication.decided else (adjudication.chosen,)) if picked else tuple(present)
    if decisions is None:
        status = "no correct candidate" if any(aw.no_correct for aw in present.values()) and \
            (row is None or not row.conflict or adjudicator) else "conflict"
        return TeamStatus(status, (), adjudicator, follows if status != "conflict" else ())
    mask = remaining_mask(spans, decisions)
    left = tuple(tuple(p) for p in packs(spans, mask))
    finished = settled(spans, mask)
    return TeamStatus("finished" if finished else "started", left, adjudicator, follows if finished else ())


def finished_trees(store, sentences: Iterable[Sentence], source: str | None = None) -> list[SentenceOutcome]:
    """Each sentence's outcome (:class:`SentenceOutcome`, :func:`team_status`) in the order given."""
    from .adjudication import store_team_work
    from .discriminants import forest_spans

    team = store_team_work(store)
    out = []
    for s in sentences:
        work = team.by_sentence.get(s.id, {})
        present = {w: aw for w, aw in work.items() if aw.present}
        comments = tuple(f"{aw.who}: {aw.verdict.comment}" for aw in work.values()
                         if aw.verdict is not None and aw.verdict.comment)
        adj = team.adjudications.get(s.id)
        if adj is not None and adj.comment:
            comments += (f"{adj.who} (adjudicator): {adj.comment}",)
        forest = store.forest(s.id, source)
        got = team_status(work, team.adjudications.get(s.id), forest_spans(forest.candidates))
        text = None
        if got.status == "finished":
            text = store.candidate_texts(s.id, source)[got.left[0][0]]
        out.append(SentenceOutcome(s.id, got.status, text, len(got.left), tuple(present), got.adjudicator,
                                   comments, got.follows))
    return out
