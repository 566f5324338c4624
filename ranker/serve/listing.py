"""The sentence list: a corpus split filtered by parse quality, forest size, disagreement and status.

Sizes and qualities come from one store query at start (no tree is read); a sentence's
annotation status from its stored decisions; whether the rankers disagree from their choices,
computed once per model and kept in the store (:mod:`.choices`: the first disagreement filter over
a large split under a new model reads and scores every forest of it; later ones read a table).
The progress counts the sentences with a forest: one without has nothing to disambiguate. An
annotator's list shows the sentences assigned to them first (:mod:`.assignment`), with their own
progress on them, so the job they were given is what they see.
"""
from __future__ import annotations

from typing import NamedTuple

QUALITIES = ("full", "fragment", "timeout", "no parse")
STATUSES = ("untouched", "started", "done", "conflict")
#: Which sentences the list shows by their candidates: ``with`` (the default: a sentence without
#: has nothing to disambiguate), ``without``, or ``any``.
CANDIDATES = ("with", "without", "any")
PAGE = 100


class ListRow(NamedTuple):
    """One sentence of the list."""

    id: str
    text: str
    words: int
    size: int
    quality: str
    decisions: int
    status: str
    disagree: bool | None          # None: not computed (no disagreement filter asked)
    comments: int = 0              # verdicts with a comment on the sentence, anyone's
    assigned: tuple = ()           # the annotators it is assigned to


class Filters(NamedTuple):
    """The list's filters, each None for "any"."""

    corpus: str
    split: str | None
    quality: str | None = None
    min_size: int | None = None
    max_size: int | None = None
    disagree: bool | None = None
    status: str | None = None
    page: int = 0
    mine: bool | None = None       # only (True) or none (False) of the annotator's assignment
    candidates: str | None = None  # one of CANDIDATES (None: "with")


def splits_of(corpus: str) -> list[str]:
    """The named splits of a corpus (:data:`ranker.store.splits.SPLITS`)."""
    from ..store.splits import SPLITS

    return [name for c, name in SPLITS if c == corpus]


def ranker_choices(served, sentence_id: str, model=None) -> dict[str, int]:
    """Each ranker's choice (native, heidorn, loglinear) for one sentence (``model``: default the served one)."""
    import numpy as np

    from ..pipeline.stages import rank, ranker_inputs, ready_ranker

    n = served.sizes.get(sentence_id)
    if not n:
        return {}
    groups = np.zeros(n, dtype=np.int64)
    model = served.model if model is None else model
    # the choices ranker run and ranker select make, through the same functions (stages.rank)
    rankers = {"native": ready_ranker("native")}
    if model is not None:
        rankers["loglinear"] = model.saved.ranker
    picked = rank(rankers, ranker_inputs(groups, features=lambda: (served.model_matrix(model, sentence_id), groups)))
    got = {"native": int(picked["native"][0])}
    heidorn = served.heidorn_choice(sentence_id)
    if heidorn is not None:
        got["heidorn"] = heidorn
    if model is not None:
        got["loglinear"] = int(picked["loglinear"][0])
    return got


class Listing(NamedTuple):
    """Every row of a list (list order), and the progress counts over its selection."""

    rows: list                     # ListRow, the annotator's assignment first, then corpus order
    done: int                      # sentences of the selection done
    with_forest: int               # sentences of the selection with a forest (the progress counts those)
    mine_done: int = 0             # of the annotator's assignment in the selection: done
    mine: int = 0                  # the annotator's assignment in the selection (with a forest)
    hidden: int = 0                # sentences without candidates the default filter leaves out
    mine_conflicts: int = 0        # of the annotator's assignment in the selection: in conflict


class Statuses:
    """Each sentence's status for an annotator (or for everyone's work together), from one read of
    the store's decisions, verdicts and adjudications.

    The statuses are :func:`ranker.sources.finished.work_status` (one annotator's) and
    :func:`~ranker.sources.finished.team_status` (everyone's, as the export writes it: finished and
    "no correct candidate" show as ``done``): one definition of done for the page, the list, the
    assignment's progress, ``ranker store stats`` and the export.
    """

    def __init__(self, store, served, blinds=None):
        from ..sources.adjudication import store_team_work

        self.store, self.served = store, served
        self.team = store_team_work(store)
        # blind double annotation (serve/blind.py): a sentence's conflict is not the annotator's to
        # see until everyone on it is done; None: the lead's view (assignments, store stats)
        self.blinds = blinds
        self.comments: dict[str, int] = {}   # everyone's: a remark is for the whole team
        for sid, work in self.team.by_sentence.items():
            n = sum(1 for w in work.values() if w.verdict is not None and w.verdict.comment)
            if n:
                self.comments[sid] = n

    def _spans(self, sentence_id: str):
        return self.served.forest_data(sentence_id).spans

    def of(self, sentence_id: str, who: str | None = None) -> tuple[int, str]:
        """``(decisions, status)`` of ``who``'s work on a sentence (None: everyone's together)."""
        from ..sources.finished import team_status, work_status

        work = self.team.by_sentence.get(sentence_id, {})
        if who is not None:
            mine = work.get(who)
            if mine is None or not mine.present:
                return (len(mine.decisions) if mine else 0), "untouched"
            status = self.served.statuses.get(("who", sentence_id, mine),
                                              lambda: work_status(mine, self._spans(sentence_id)))
            if sum(w.present for w in work.values()) >= 2 and self._team(sentence_id, work) == "conflict" \
                    and not self.hidden(sentence_id):
                status = "conflict"   # their work and another's cannot both stand: not done
            return len(mine.decisions), status
        n_dec = sum(len(w.decisions) for w in work.values())
        if not any(w.present for w in work.values()):
            return n_dec, "untouched"
        got = self._team(sentence_id, work)
        if got == "conflict" and self.hidden(sentence_id):
            got = "started"   # blind: that two people's work differs is theirs to learn when both are done
        return n_dec, _LISTED.get(got, got)

    def hidden(self, sentence_id: str) -> bool:
        """Whether blind double annotation hides the others' work on a sentence from this reader."""
        return self.blinds is not None and self.blinds.hidden(sentence_id)

    def _team(self, sentence_id: str, work) -> str:
        """The team's status on a sentence (:func:`~ranker.sources.finished.team_status`), cached."""
        from ..sources.finished import team_status

        adj = self.team.adjudications.get(sentence_id)
        return self.served.statuses.get(("team", sentence_id, tuple(sorted(work.items())), adj),
                                        lambda: team_status(work, adj, self._spans(sentence_id)).status)


#: The export's statuses (:func:`ranker.sources.finished.team_status`) as the list names them.
_LISTED = {"finished": "done", "no correct candidate": "done", "no candidates": "untouched"}


def list_rows(store, served, f: Filters, who: str | None = None) -> tuple[list[ListRow], Listing]:
    """The filtered page of rows, and the whole :class:`Listing` (how many match: its rows' length).

    With ``who``, decisions and statuses are that annotator's own (each annotator's work is kept
    apart), and the sentences assigned to them come first; a sentence they said has no correct
    candidate, or whose one bracketing left they confirmed, is done.
    """
    listing = matching_rows(store, served, f, who)
    return listing.rows[f.page * PAGE:(f.page + 1) * PAGE], listing


def filtered_neighbours(store, served, f: Filters, sentence, who: str | None = None) -> tuple[str | None, str | None] | None:
    """The previous and next sentence of the list ``f`` around ``sentence`` (list order), or None
    when ``sentence`` is not of the list's corpus and split.

    The sentence itself need not match any more (answering an "untouched" one makes it "started"):
    its neighbours are the matching sentences before and after its place. ``who`` as in
    :func:`list_rows`: an annotator's "next" walks their assignment first.
    """
    from ..store.splits import document_filter

    if sentence.corpus != f.corpus or (f.split and not document_filter(f.corpus, f.split)(sentence.document)):
        return None
    order = {s.id: k for k, s in enumerate(served.corpora.get(f.corpus, ()))}
    if sentence.id not in order:
        return None
    mine = _assigned_to(store, who)
    key = _list_order(order, mine)
    here = key(sentence.id)
    ids = [r.id for r in matching_rows(store, served, f, who).rows if r.size]
    before = [sid for sid in ids if key(sid) < here]
    after = [sid for sid in ids if key(sid) > here]
    return (before[-1] if before else None), (after[0] if after else None)


def _assigned_to(store, who: str | None) -> set[str]:
    """The sentences assigned to ``who`` (none for None)."""
    return set() if who is None else {a.sentence_id for a in store.assignments(who)}


def _list_order(order: dict[str, int], mine: set[str]):
    """The list's sort key: the annotator's assignment first, each part in corpus order."""
    return lambda sid: (sid not in mine, order[sid])


def matching_rows(store, served, f: Filters, who: str | None = None) -> Listing:
    """Every row matching the filters (list order) and the progress counts (:class:`Listing`).
    ``who`` as in :func:`list_rows`."""
    from ..store.splits import document_filter

    keep = document_filter(f.corpus, f.split) if f.split else None
    sentences = [s for s in served.corpora.get(f.corpus, ()) if keep is None or keep(s.document)]
    from .accounts import may_adjudicate
    from .blind import Blinds

    assignments = store.assignments()
    statuses = Statuses(store, served)
    statuses.blinds = Blinds(store, served, who, may_adjudicate(), statuses.team, assignments)
    holders: dict[str, list] = {}
    for a in assignments:
        holders.setdefault(a.sentence_id, []).append(a.who)
    mine = {sid for sid, whos in holders.items() if who is not None and who in whos}
    rows, done, mine_done, mine_conflicts, hidden = [], 0, 0, 0, 0
    show = f.candidates or "with"
    disagree_of = served.choices.disagree(store, [s.id for s in sentences]) if f.disagree is not None else {}
    for s in sentences:
        n_dec, status = statuses.of(s.id, who)
        done += status == "done"   # the progress count is the whole selection's
        size = served.sizes.get(s.id, 0)
        mine_done += status == "done" and s.id in mine and bool(size)
        mine_conflicts += status == "conflict" and s.id in mine and bool(size)
        if f.mine is not None and (s.id in mine) != f.mine:
            continue
        if show != "any" and bool(size) != (show == "with"):
            hidden += not size
            continue
        quality = served.qualities.get(s.id, "no parse")
        if f.quality and quality != f.quality:
            continue
        if (f.min_size is not None and size < f.min_size) or (f.max_size is not None and size > f.max_size):
            continue
        if f.status and status != f.status:
            continue
        disagree = None
        if f.disagree is not None:
            disagree = disagree_of.get(s.id, False)
            if disagree != f.disagree:
                continue
        comments, assigned = statuses.comments.get(s.id, 0), tuple(holders.get(s.id, ()))
        if statuses.hidden(s.id):   # blind: their own comment and name only, and their own decisions
            mine_work = statuses.team.by_sentence.get(s.id, {}).get(who)
            own = mine_work.verdict if mine_work is not None else None
            comments, assigned = int(bool(own and own.comment)), tuple(w for w in assigned if w == who)
            n_dec = len(mine_work.decisions) if mine_work is not None else 0
        rows.append(ListRow(s.id, " ".join(s.tokens), len(s.tokens), size, quality, n_dec, status, disagree,
                            comments, assigned))
    order = {s.id: k for k, s in enumerate(sentences)}
    rows.sort(key=lambda r: _list_order(order, mine)(r.id))
    with_forest = sum(1 for s in sentences if served.sizes.get(s.id))
    n_mine = sum(1 for s in sentences if s.id in mine and served.sizes.get(s.id))
    return Listing(rows, done, with_forest, mine_done, n_mine, hidden, mine_conflicts)
