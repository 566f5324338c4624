"""Feature matrices and fitted family tables kept in the store, keyed by what they are made of.

A matrix depends on the feature configuration (its version digest), on what the fitted families
learned, and on the candidates themselves. The key covers all three (the candidates by a digest
of each sentence's id and its candidates' stored texts), never a split's name, so a store that
gained sentences or re-imported a forest extracts again instead of reading a stale matrix. A
selection whose every forest is held, unchanged, by stored matrices is assembled from their rows
(a cross-validation fold after the main run) instead of being extracted again. Families that
learn from training data (the auxiliary distribution) keep their fitted table under their options
and a digest of the training sentences.
"""
from __future__ import annotations

import hashlib

from ..store import Store
from .splits import SplitSelection
from .stored_rows import stored_matrix

#: Store kind of matrices keyed by content.
MATRIX_KIND = "feature-matrix"
#: Store kind of the index of extracted matrices: which forests (by sentence digest) each holds.
INDEX_KIND = "feature-matrix-index"
#: Store kind of a matrix's further pieces (``<key>/<n>``): SQLite holds blobs of at most 1 GB.
PIECE_KIND = "feature-matrix-piece"
#: Bytes of one stored piece of a matrix.
PIECE_BYTES = 256 * 2**20
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


def _sentence_digests(store: Store, sentence_ids, source: str | None,
                      evidence: str | None = None) -> dict[str, str]:
    """Each sentence's digest of its candidates' texts (and of the evidence source's, when read).

    Kept while the store is unchanged (:meth:`ranker.store.Store.memoised`): a run keys a split's
    matrix more than once (the held-out split's as it is extracted and as its rows are made), each
    a read of every candidate's text.
    """
    from .cache import text_digest

    known = store.memoised("candidate digests", (source, evidence), dict)   # grows while the store is unchanged
    for sid in sentence_ids:
        if sid not in known:
            known[sid] = text_digest(store.candidate_texts(sid, source)) if evidence is None else \
                text_digest(store.candidate_texts(sid, source)) + "+" + text_digest(store.candidate_texts(sid, evidence))
    return {sid: known[sid] for sid in sentence_ids}


def _prefix(feature_set, families: list, source: str | None, evidence: str | None = None) -> str:
    learned = "".join(f"+{f.fingerprint()}" for f in families if f.fingerprint())
    read = f"+evidence:{evidence}" if evidence is not None else ""
    return f"{feature_set.version}{learned}/{source or '*'}{read}"


def matrix_key(prefix: str, digests: dict[str, str]) -> str:
    """The store key of a matrix: feature version, learned tables, and its forests' digest."""
    from .cache import text_digest

    digest = text_digest(sid + "\x01" + d for sid, d in digests.items())
    return f"{prefix}/{digest}"


def _from_stored_rows(store: Store, prefix: str, digests: dict[str, str]):
    """The matrix assembled from the rows of stored ones holding these very forests, or None.

    After ``ranker run`` has extracted its train, held-out and test matrices, any other selection
    of those sentences (a cross-validation fold) is made of their rows instead of being extracted
    again, provided each sentence's forest is still the one its stored rows came from.
    """
    from ..features import select_sentences, stack_rows

    got = store.get_artifact(INDEX_KIND, prefix)
    if got is None:
        return None
    owner: dict[str, str] = {}
    for key, held in got[1].items():
        for sid, d in held.items():
            if digests.get(sid) == d:
                owner.setdefault(sid, key)
    wanted = list(digests)
    if not wanted or any(sid not in owner for sid in wanted):
        return None
    loaded: dict = {}
    parts = []
    run: list[str] = []
    for k, sid in enumerate(wanted):   # consecutive sentences of one stored matrix form a part
        run.append(sid)
        if k + 1 == len(wanted) or owner[wanted[k + 1]] != owner[sid]:
            key = owner[sid]
            if key not in loaded:
                loaded[key] = _read_matrix(store, key)
            parts.append(select_sentences(loaded[key], run))
            run = []
    return stack_rows(parts)


def forget_matrices(store: Store, sentence_ids) -> int:
    """Delete every stored matrix holding rows of any of ``sentence_ids`` (their forests changed).

    A matrix is keyed by its forests' tree texts; a forest parsed again can keep its trees and
    change what else the features read (its quality, Link Grammar's costs and links), so the
    matrices of a replaced forest go, with their pieces and index entries. Returns how many went.
    """
    ids = set(sentence_ids)
    gone = 0
    with store.batch():
        for prefix in store.artifact_keys(INDEX_KIND):
            held = store.get_artifact(INDEX_KIND, prefix)[1]
            stale = [key for key, digests in held.items() if ids & digests.keys()]
            for key in stale:
                got = store.get_artifact(MATRIX_KIND, key)
                for i in range(1, (got[1].get("pieces", 1) if got else 1)):
                    store.delete_artifact(PIECE_KIND, f"{key}/{i}")
                store.delete_artifact(MATRIX_KIND, key)
                del held[key]
                gone += 1
            if stale and held:
                store.put_artifact(INDEX_KIND, prefix, b"", held)
            elif stale:
                store.delete_artifact(INDEX_KIND, prefix)
    return gone


def _pieces(views: list, size: int):
    """The concatenated bytes of ``views`` cut into runs of ``size`` bytes, made one at a time."""
    buf = bytearray()
    for v in views:
        v = memoryview(v).cast("B")
        while len(v):
            take = min(size - len(buf), len(v))
            buf += v[:take]
            v = v[take:]
            if len(buf) == size:
                yield bytes(buf)
                buf = bytearray()
    if buf or size == 0:
        yield bytes(buf)


def _put_matrix(store: Store, key: str, m, meta: dict) -> None:
    """Store a matrix in pieces of :data:`PIECE_BYTES` (a WSJ training matrix is 1.2 GB raw).

    Each piece is cut from the matrix's own arrays when it is written, so storing takes one
    piece of memory beside the matrix, not a serialised copy of it (3.7 GB for conll2000).
    """
    from ..features.matrix_bytes import to_pieces

    views = to_pieces(m)
    total = sum(memoryview(v).nbytes for v in views)
    n = max(1, -(-total // PIECE_BYTES))
    with store.batch():
        for i, piece in enumerate(_pieces(views, PIECE_BYTES)):
            if i == 0:
                store.put_artifact(MATRIX_KIND, key, piece, {**meta, "pieces": n, "bytes": total})
            else:
                store.put_artifact(PIECE_KIND, f"{key}/{i}", piece)


def stored_bytes(store: Store, key: str):
    """``read(start, size)``: bytes of the matrix stored under ``key``, read across its pieces
    without the rest (every piece but the last holds :data:`PIECE_BYTES`)."""
    def read(start: int, size: int) -> bytes:
        out = []
        while size > 0:
            i, at = divmod(start, PIECE_BYTES)
            take = min(size, PIECE_BYTES - at)
            out.append(store.artifact_bytes(MATRIX_KIND, key, at, take) if i == 0 else
                       store.artifact_bytes(PIECE_KIND, f"{key}/{i}", at, take))
            start, size = start + take, size - take
        return b"".join(out)

    return read


def _read_matrix(store: Store, key: str, got=None):
    """The stored matrix under ``key``; one of the previous format is rewritten in the current one.

    The pieces are copied into one buffer of the matrix's size, which its arrays then view.
    Matrices stored before the compact format (deflated npz) are read once through a
    decompression; writing them back means every later run reads them in place.
    """
    from ..features.matrix_bytes import from_bytes, is_current_format

    payload, meta = got if got is not None else store.get_artifact(MATRIX_KIND, key)
    if meta.get("pieces", 1) > 1:
        buf = bytearray(meta["bytes"])
        buf[:len(payload)] = payload
        at = len(payload)
        del payload
        for i in range(1, meta["pieces"]):
            piece = store.get_artifact(PIECE_KIND, f"{key}/{i}")[0]
            buf[at:at + len(piece)] = piece
            at += len(piece)
            del piece
        payload = buf
    m = from_bytes(payload)
    if not is_current_format(payload):
        del payload
        _put_matrix(store, key, m, {k: v for k, v in meta.items() if k not in ("pieces", "bytes")})
    return m


def cached_matrix(store: Store, feature_set, sel: SplitSelection, source: str | None, workers: int = 1,
                  progress: str | None = None, refresh: bool = False, evidence: str | None = None,
                  on_demand: bool = False, keyed: bool = False):
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
        Extract again even if a matrix (or every row of it) is stored.
    evidence : str or None
        The second source the evidence families read (``[evidence] source``); it is part of the
        key only when the feature set has such a family, so other matrices keep their keys.
    on_demand : bool
        Give the stored matrix with its rows read from the store a run at a time
        (:func:`.stored_rows.stored_matrix`), never held whole: for training, which reads its
        matrix slab by slab. A matrix just extracted, or assembled from other stored matrices'
        rows (a selection of their sentences: the sentences some rule of a grid learns from), is stored
        first, then let go, so that the next read is a run of rows at a time too.
    keyed : bool
        Return ``(matrix, key)``: its key in the store, a digest of what it is made of (feature
        set, learned tables, forests), which names its content without reading it (the key of a
        training set's inputs, :func:`ranker.pipeline.training_rows.rows_key`).

    Returns
    -------
    CandidateMatrix, or (CandidateMatrix, str) with ``keyed``
    """
    from ..features import extract_stored

    from ..features.vectorizer import check_evidence

    families = feature_set.build()
    check_evidence(families, evidence)
    if not any(f.needs_evidence for f in families):
        evidence = None   # read by no family: the matrix is the one without it
    fit_families(store, families)
    digests = _sentence_digests(store, [s.id for s in sel.sentences], source, evidence)
    prefix = _prefix(feature_set, families, source, evidence)
    key = matrix_key(prefix, digests)

    def given(matrix):
        return (matrix, key) if keyed else matrix

    m = None
    if not refresh:
        if on_demand and store.artifact_meta(MATRIX_KIND, key) is not None:
            m = stored_matrix(stored_bytes(store, key))
            if m is not None:
                return given(m)
        got = store.get_artifact(MATRIX_KIND, key)
        if got is not None:
            return given(_read_matrix(store, key, got))
        m = _from_stored_rows(store, prefix, digests)
        if m is not None and not on_demand:
            return given(m)
    if m is None:   # (assembled from stored rows for training: stored as extracted ones are, below)
        m = extract_stored(store, list(digests), source, families, workers, progress, evidence)
    index = store.get_artifact(INDEX_KIND, prefix)
    with store.batch():
        _put_matrix(store, key, m,
                    {"feature_set": feature_set.to_dict(), "rows": m.X.shape[0],
                            "columns": m.X.shape[1], "sentences": len(m.sentence_ids),
                            "corpus": sel.corpus, "selection": sel.name})
        store.put_artifact(INDEX_KIND, prefix, b"", {**(index[1] if index else {}), key: digests})
    if on_demand:
        del m
        return given(stored_matrix(stored_bytes(store, key)))
    return given(m)
