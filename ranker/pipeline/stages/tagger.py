"""The ``train_tagger`` stage: the part-of-speech tagger a model carries, learned from the train split's gold tags."""
from __future__ import annotations

import json
from typing import Sequence

from .context import StageContext

#: The store's artifacts of trained taggers, keyed by a digest of their training sentences and settings.
TAGGER_KIND = "tagger"


def train_tagger(ctx: StageContext, selections: Sequence) -> object:
    """The tagger of the selections' gold-tagged sentences (:class:`ranker.sources.tagger.PosTagger`), or None.

    Trained once per content: kept in the store under a digest of the sentences' tokens and tags
    and of the tagger's settings, so a warm rerun reads it back (the same bytes: its training is
    deterministic). None when no sentence has every token tagged (a corpus of plain text); the
    models of such a run carry no tagger.
    """
    from ...sources.tagger import ITERATIONS, SEED, TAGGER_FORMAT, TAGGER_VERSION, PosTagger
    from ..cache import data_digest, text_digest

    sentences = [s for sel in selections for s in sel.sentences]
    key = data_digest([], {"tagger": [TAGGER_FORMAT, TAGGER_VERSION, ITERATIONS, SEED],
                           "sentences": text_digest("\x1f".join(s.tokens) + "\x1e" + "\x1f".join(s.tags)
                                                    for s in sentences)})
    got = ctx.store.get_artifact(TAGGER_KIND, key)
    if got is not None:
        return PosTagger.from_dict(json.loads(got[0]), f"{ctx.store.path}: tagger {key}") if got[0] else None
    tagger = PosTagger.train((s.tokens, s.tags) for s in sentences)
    payload = b"" if tagger is None else json.dumps(tagger.to_dict(), separators=(",", ":")).encode("utf-8")
    ctx.store.put_artifact(TAGGER_KIND, key, payload, {"sentences": 0 if tagger is None else tagger.sentences})
    return tagger
