"""Feature matrices and fitted family tables kept in the store, keyed by what they are made of.

A matrix depends on the feature configuration (its version digest), on what the fitted families
learned, and on the candidates themselves. The key covers all three (the candidates by a digest
of the sentence ids and their candidates' stored texts, :func:`.cache.forest_digest`), never a
split's name, so a store that gained sentences or re-imported a forest extracts again instead of
reading a stale matrix. Families that learn from training data (the auxiliary distribution) keep
their fitted table under their options and a digest of the training sentences.
"""
from __future__ import annotations

import hashlib

from ..store import Store
from .cache import forest_digest
from .splits import SplitSelection

#: Store kind of matrices keyed by content.
MATRIX_KIND = "feature-matrix"
#: Store kind of fitted family tables (the auxiliary distribution).
TABLE_KIND = "feature-tables"


def fit_families(store: Store, families: list) -> None:
    """Fit the families that learn from training data, reusing tables fitted before.

    Each such family names its training data (``fit_corpus``, ``fit_split``); the fitted table is
    kept in the store under the family's options and a digest of the training sentence ids, so
    the same training data is never fitted twice and a grown training split is refitted.

    Raises
    ------
    FeatureConfigError
        If a family's training selection holds no usable sentence.
    """
    from ..store.records import Forest

    for fam in families:
        if not fam.needs_fit or fam.fitted:
            continue
        sents = store.sentences(fam.fit_corpus, fam.fit_split)
        digest = hashlib.sha256("\n".join(s.id for s in sents).encode()).hexdigest()[:12]
        key = f"{fam.name}/{fam.options_key()}/{fam.fit_corpus}/{fam.fit_split}/{digest}"
        got = store.get_artifact(TABLE_KIND, key)
        if got is not None:
            fam.load_table(got[0])
            continue
        if fam.fit_on == "gold":
            forests = (Forest(s, store.gold(s.id), ()) for s in sents)
        else:
            forests = (store.forest(s.id) for s in sents)
        fam.fit(forests)
        store.put_artifact(TABLE_KIND, key, fam.table_bytes(),
                           {"family": fam.name, "sentences": len(sents), "digest": fam.fingerprint()})


def matrix_key(store: Store, feature_set, families: list, sentence_ids, source: str | None) -> str:
    """The store key of a matrix: feature version, learned tables and the forests' digest."""
    learned = "".join(f"+{f.fingerprint()}" for f in families if f.fingerprint())
    return f"{feature_set.version}{learned}/{source or '*'}/{forest_digest(store, sentence_ids, source)}"


def cached_matrix(store: Store, feature_set, sel: SplitSelection, source: str | None, workers: int = 1,
                  progress: str | None = None, refresh: bool = False):
    """The selection's matrix from the store, extracting and storing it first when absent.

    Parameters
    ----------
    feature_set : FeatureSet
    sel : SplitSelection
        Its sentences, in order, are the matrix's (those without candidates give no rows).
    source : str or None
        Only this source's candidates (None: every source's).
    workers : int
        Extraction processes; the matrix is the same for any number.
    refresh : bool
        Extract again even if a matrix is stored.

    Returns
    -------
    CandidateMatrix
    """
    from features import extract_stored, from_bytes, to_bytes

    families = feature_set.build()
    fit_families(store, families)
    ids = [s.id for s in sel.sentences]
    key = matrix_key(store, feature_set, families, ids, source)
    got = None if refresh else store.get_artifact(MATRIX_KIND, key)
    if got is not None:
        return from_bytes(got[0])
    m = extract_stored(store, ids, source, families, workers, progress)
    store.put_artifact(MATRIX_KIND, key, to_bytes(m),
                       {"feature_set": feature_set.to_dict(), "rows": m.X.shape[0],
                        "columns": m.X.shape[1], "sentences": len(m.sentence_ids),
                        "corpus": sel.corpus, "selection": sel.name})
    return m
