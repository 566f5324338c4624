"""The sentence list: a corpus split filtered by parse quality, forest size, disagreement and status.

Sizes and qualities come from one store query at start (no tree is read); a sentence's
annotation status from its stored decisions; whether the rankers disagree from their choices,
computed per sentence and model (the disagreement filter over a large split reads and scores every
forest of it: slow the first time on Link Grammar forests).
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


def ranker_choices(served, sentence_id: str) -> dict[str, int]:
    """Each ranker's choice (native, heidorn, loglinear) for one sentence."""
    import numpy as np

    if not served.sizes.get(sentence_id):
        return {}
    got = {"native": 0}
    heidorn = served.heidorn_choice(sentence_id)
    if heidorn is not None:
        got["heidorn"] = heidorn
    scores = served.model_scores(served.model, sentence_id)
    if scores is not None:
        got["loglinear"] = int(np.argmax(scores))
    return got


def list_rows(store, served, f: Filters, who: str | None = None) -> tuple[list[ListRow], int, int, int]:
    """The filtered page of rows, how many match, how many of the selection are done, and its size.

    With ``who``, decisions and statuses are that annotator's own (each annotator's work is kept
    apart); a sentence they said has no correct candidate is done.
    """
    from ..store.splits import document_filter

    keep = document_filter(f.corpus, f.split) if f.split else None
    sentences = [s for s in served.corpora.get(f.corpus, ()) if keep is None or keep(s.document)]
    rows, done = [], 0
    decided: dict[str, list] = {}
    for sid, d in store.decisions():   # one query for the whole store
        if who is None or d.who == who:
            decided.setdefault(sid, []).append(d)
    no_correct = {sid for sid, v in store.verdicts() if v.no_correct and (who is None or v.who == who)}
    for s in sentences:
        n_dec, status = sentence_status(store, served, s.id, decided.get(s.id, ()))
        if s.id in no_correct:
            status = "done"   # the annotator's answer is that no candidate is right
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
            disagree = len(set(ranker_choices(served, s.id).values())) > 1
            if disagree != f.disagree:
                continue
        rows.append(ListRow(s.id, " ".join(s.tokens), len(s.tokens), size, quality, n_dec, status, disagree))
    return rows[f.page * PAGE:(f.page + 1) * PAGE], len(rows), done, len(sentences)
