"""The sentence list: a corpus split filtered by parse quality, forest size, disagreement and status.

Sizes and qualities come from one store query at start (no tree is read); a sentence's
annotation status from its stored decisions; whether the rankers disagree from their choices,
computed once per model and kept in the store (:mod:`.choices`: the first disagreement filter over
a large split under a new model reads and scores every forest of it; later ones read a table).
The progress counts the sentences with a forest: one without has nothing to disambiguate.
"""
from __future__ import annotations

from typing import NamedTuple

QUALITIES = ("full", "fragment", "timeout", "no parse")
STATUSES = ("untouched", "started", "done")
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


def splits_of(corpus: str) -> list[str]:
    """The named splits of a corpus (:data:`ranker.store.splits.SPLITS`)."""
    from ..store.splits import SPLITS

    return [name for c, name in SPLITS if c == corpus]


def sentence_status(store, served, sentence_id: str, decisions) -> tuple[int, str]:
    """How many decisions a sentence has, and ``untouched``, ``started`` or ``done`` (no discriminant left)."""
    if not decisions:
        return 0, "untouched"
    from .sentence import disambiguated

    key = (sentence_id, tuple(decisions))   # kept per answer set: a list page reads no forest twice
    done = served.statuses.get(key, lambda: disambiguated(served.forest_data(sentence_id).spans, decisions))
    return len(decisions), "done" if done else "started"


def ranker_choices(served, sentence_id: str, model=None) -> dict[str, int]:
    """Each ranker's choice (native, heidorn, loglinear) for one sentence (``model``: default the served one)."""
    import numpy as np

    if not served.sizes.get(sentence_id):
        return {}
    got = {"native": 0}
    heidorn = served.heidorn_choice(sentence_id)
    if heidorn is not None:
        got["heidorn"] = heidorn
    scores = served.model_scores(served.model if model is None else model, sentence_id)
    if scores is not None:
        got["loglinear"] = int(np.argmax(scores))
    return got


def list_rows(store, served, f: Filters, who: str | None = None) -> tuple[list[ListRow], int, int, int]:
    """The filtered page of rows, how many match, how many of the selection are done, and its size.

    With ``who``, decisions and statuses are that annotator's own (each annotator's work is kept
    apart); a sentence they said has no correct candidate, or whose one bracketing left they
    confirmed, is done.
    """
    rows, done, with_forest = matching_rows(store, served, f, who)
    return rows[f.page * PAGE:(f.page + 1) * PAGE], len(rows), done, with_forest


def filtered_neighbours(store, served, f: Filters, sentence, who: str | None = None) -> tuple[str | None, str | None] | None:
    """The previous and next sentence of the list ``f`` around ``sentence`` (corpus order), or None
    when ``sentence`` is not of the list's corpus and split.

    The sentence itself need not match any more (answering an "untouched" one makes it "started"):
    its neighbours are the matching sentences before and after its place. ``who`` as in
    :func:`list_rows`.
    """
    from ..store.splits import document_filter

    if sentence.corpus != f.corpus or (f.split and not document_filter(f.corpus, f.split)(sentence.document)):
        return None
    order = {s.id: k for k, s in enumerate(served.corpora.get(f.corpus, ()))}
    here = order.get(sentence.id)
    if here is None:
        return None
    ids = [r.id for r in matching_rows(store, served, f, who)[0] if r.size]
    before = [sid for sid in ids if order[sid] < here]
    after = [sid for sid in ids if order[sid] > here]
    return (before[-1] if before else None), (after[0] if after else None)


def matching_rows(store, served, f: Filters, who: str | None = None) -> tuple[list[ListRow], int, int]:
    """Every row matching the filters (corpus order), how many of the selection are done, and how
    many of it have a forest (the progress counts those). ``who`` as in :func:`list_rows`."""
    from ..store.splits import document_filter

    keep = document_filter(f.corpus, f.split) if f.split else None
    sentences = [s for s in served.corpora.get(f.corpus, ()) if keep is None or keep(s.document)]
    rows, done = [], 0
    decided: dict[str, list] = {}
    for sid, d in store.decisions():   # one query for the whole store
        if who is None or d.who == who:
            decided.setdefault(sid, []).append(d)
    # "no correct candidate", or the one bracketing left confirmed: the annotator's work is done
    verdicts = store.verdicts()
    said_done = {sid for sid, v in verdicts if (v.no_correct or v.confirmed) and (who is None or v.who == who)}
    comments: dict[str, int] = {}   # everyone's: a remark is for the whole team
    for sid, v in verdicts:
        if v.comment:
            comments[sid] = comments.get(sid, 0) + 1
    disagree_of = served.choices.disagree(store, [s.id for s in sentences]) if f.disagree is not None else {}
    for s in sentences:
        n_dec, status = sentence_status(store, served, s.id, decided.get(s.id, ()))
        if s.id in said_done:
            status = "done"   # no candidate is right, or the only bracketing is
        done += status == "done"   # the progress count is the whole selection's
        size = served.sizes.get(s.id, 0)
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
        rows.append(ListRow(s.id, " ".join(s.tokens), len(s.tokens), size, quality, n_dec, status, disagree,
                            comments.get(s.id, 0)))
    with_forest = sum(1 for s in sentences if served.sizes.get(s.id))
    return rows, done, with_forest
