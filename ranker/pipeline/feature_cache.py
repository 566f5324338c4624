"""Feature matrices kept in the store, keyed by what they are made of, never by a split's name.

A matrix depends on the feature configuration (its version digest), on what the fitted families
learned, and on the candidates themselves. The key covers all three (the candidates by a digest
of the sentence ids and their candidates' stored texts, :func:`.cache.forest_digest`), so a store
that gained sentences or re-imported a forest extracts again instead of reading a stale matrix.
"""
from __future__ import annotations

from ..store import Store
from .cache import forest_digest
from .splits import SplitSelection

#: Store kind of matrices keyed by content (the older ``features`` kind is keyed by split name).
MATRIX_KIND = "feature-matrix"


def matrix_key(store: Store, feature_set, families: list, sentence_ids, source: str) -> str:
    """The store key of a matrix: feature version, learned tables and the forests' digest."""
    learned = "".join(f"+{f.fingerprint()}" for f in families if f.fingerprint())
    return f"{feature_set.version}{learned}/{source}/{forest_digest(store, sentence_ids, source)}"


def cached_matrix(store: Store, feature_set, sel: SplitSelection, source: str, workers: int = 1,
                  progress: str | None = None):
    """The selection's matrix from the store, extracting and storing it first when absent.

    Returns
    -------
    CandidateMatrix
    """
    from features import extract_stored, fit_families, from_bytes, to_bytes

    families = feature_set.build()
    fit_families(store, families)
    ids = [s.id for s in sel.sentences]
    key = matrix_key(store, feature_set, families, ids, source)
    got = store.get_artifact(MATRIX_KIND, key)
    if got is not None:
        return from_bytes(got[0])
    m = extract_stored(store, ids, source, families, workers, progress)
    store.put_artifact(MATRIX_KIND, key, to_bytes(m),
                       {"feature_set": feature_set.to_dict(), "rows": m.X.shape[0],
                        "columns": m.X.shape[1], "sentences": len(m.sentence_ids),
                        "corpus": sel.corpus, "selection": sel.name})
    return m
