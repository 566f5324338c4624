"""The treebank a team made: each sentence its people narrowed to one bracketing, as a tree.

A sentence is *finished* when the decisions that stand for it (its adjudicated set,
:func:`ranker.sources.adjudication.resolve`: one annotator's, several agreeing annotators' together,
or the adjudicator's pick) leave candidates of one bracketing only (one *pack*,
:func:`ranker.sources.discriminants.packs`): that bracketing is the sentence's tree, its first
remaining candidate's text. Every other sentence is listed with why it is not finished (untouched,
started with several bracketings left, a conflict not adjudicated, "no correct candidate"),
never dropped in silence.
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

    def row(self, line: int | None) -> list[str]:
        """A tab-separated listing's columns (``line``: the tree's line in the trees file, or None)."""
        return [self.sentence_id, self.status, "-" if line is None else str(line), str(self.left),
                ",".join(self.annotators), self.adjudicator, " | ".join(self.comments).replace("\t", " ")
                .replace("\n", " ")]


#: The listing's column names, in :meth:`SentenceOutcome.row` order.
COLUMNS = ("sentence", "status", "line", "bracketings_left", "annotators", "adjudicator", "comments")


def finished_trees(store, sentences: Iterable[Sentence], source: str | None = None) -> list[SentenceOutcome]:
    """Each sentence's outcome (:class:`SentenceOutcome`) in the order given."""
    from .adjudication import resolve, sentence_agreement, store_team_work
    from .discriminants import forest_spans, packs, remaining_mask

    team = store_team_work(store)
    out = []
    for s in sentences:
        work = team.by_sentence.get(s.id, {})
        present = {w: aw for w, aw in work.items() if aw.present}
        adj = team.adjudications.get(s.id)
        comments = tuple(f"{aw.who}: {aw.verdict.comment}" for aw in work.values()
                         if aw.verdict is not None and aw.verdict.comment)
        who = tuple(present)
        adjudicator = adj.who if adj is not None and adj.chosen in present else ""
        forest = store.forest(s.id, source)
        if not forest.candidates:
            out.append(SentenceOutcome(s.id, "no candidates", None, 0, who, adjudicator, comments))
            continue
        spans = forest_spans(forest.candidates)
        if not present:
            out.append(SentenceOutcome(s.id, "untouched", None, len(packs(spans)), who, adjudicator, comments))
            continue
        row = sentence_agreement(s.id, work, spans) if len(present) >= 2 else None
        decisions = resolve(work, bool(row and row.conflict), adj)
        if decisions is None:
            status = "no correct candidate" if any(aw.no_correct for aw in present.values()) and \
                (row is None or not row.conflict or adjudicator) else "conflict"
            out.append(SentenceOutcome(s.id, status, None, 0, who, adjudicator, comments))
            continue
        mask = remaining_mask(spans, decisions)
        left = packs(spans, mask)
        if len(left) == 1:
            text = store.candidate_texts(s.id, source)[left[0][0]]
            out.append(SentenceOutcome(s.id, "finished", text, 1, who, adjudicator, comments))
        else:
            out.append(SentenceOutcome(s.id, "started", None, len(left), who, adjudicator, comments))
    return out
