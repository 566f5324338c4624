"""Our grouped candidates written as the training file of BLLIP's ``cvlm-lbfgs``, and read back.

The format is the one the reranker's ``extract-spfeatures`` writes and ``lmdata.c``
(``read_corpus``) reads, as the usage text of ``second-stage/programs/wlle/cvlm-lbfgs.cc`` gives it::

    <Data>     --> [S=<NS>] <Sentence>*
    <Sentence> --> [G=<G>] N=<N> <Parse>*
    <Parse>    --> [P=<P>] [W=<W>] <FC>*,
    <FC>       --> <F>[=<C>]

``G``, ``P`` and ``C`` default to 1, ``W`` to 0. A feature whose count is 1 costs the peer 4 bytes
(its id), any other count 8 (id and float32 count), so only counts other than 1 are written.

Consistency weights become winners. cvlm-lbfgs scores parse ``x`` of a sentence by the f-score
``2 W_x / (P_x + G)`` and, with ``-F 1``, gives every parse tying the best f-score the same target
probability ``1 / n_winners`` (and 0 to the others); with ``-l 1`` it minimises the EM-style log
loss ``- Σ_j (log Σ_x Pyx e^{λ·f(x)} - log Σ_x e^{λ·f(x)})``. Writing ``W=1`` on the parses with a
positive weight (``P`` and ``G`` left at 1: f-score 1 there, 0 elsewhere) makes that our
:class:`~ranker.models.objective.ConditionalObjective` for weights that are equal on a sentence's
positive entries (the 0/1 weights of partial bracketings, the ``1/k`` of best-F ties). The peer
normalises the target to sum 1 where we do not, so its value is ours plus the data constant
``Σ_j log Σ_x w_x`` (:func:`value_offset`); gradients are equal. A sentence with no winner is
skipped by the peer (and dropped by our trainer's filters first).
"""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

#: Rows formatted per block: bounds the memory of the text pieces (about 50 bytes a nonzero).
_BLOCK_NONZEROS = 4_000_000


def check_weights(weights: np.ndarray, offsets: np.ndarray) -> None:
    """Raise ValueError unless every sentence has equal weights on its positive entries.

    Those are the weights cvlm-lbfgs can represent (``-F 1``: tied winners share the target).
    """
    w = np.asarray(weights, dtype=np.float64)
    starts = np.asarray(offsets[:-1])
    if np.any(w < 0):
        raise ValueError("consistency weights must be >= 0")
    pos = w > 0
    hi = np.maximum.reduceat(np.where(pos, w, -np.inf), starts) if len(starts) else np.zeros(0)
    lo = np.minimum.reduceat(np.where(pos, w, np.inf), starts) if len(starts) else np.zeros(0)
    bad = np.flatnonzero(np.isfinite(hi) & (hi != lo))
    if len(bad):
        j = int(bad[0])
        raise ValueError(f"sentence {j} has unequal positive weights ({lo[j]:g} to {hi[j]:g}): "
                         "cvlm-lbfgs -F 1 gives tied winners equal targets only")


def value_offset(weights: np.ndarray, offsets: np.ndarray) -> float:
    """``Σ_j log Σ_x w_x`` over sentences with a positive weight: the peer's value minus ours."""
    sums = np.add.reduceat(np.asarray(weights, dtype=np.float64), np.asarray(offsets[:-1]))
    return float(np.sum(np.log(sums[sums > 0])))


def _ids(n: int) -> np.ndarray:
    """``b"0 "``, ``b"1 "``, ... as an object array, so a fancy index picks a row's pieces."""
    return np.array([b"%d " % i for i in range(n)], dtype=object)


def write_cvlm(path: str | Path, X, weights: np.ndarray, offsets: np.ndarray) -> int:
    """Write the candidates as a cvlm training file (gzipped if ``path`` ends in ``.gz``).

    Parameters
    ----------
    X : sparse matrix, shape (n_candidates, n_features)
        Feature values; explicit zeros are left out.
    weights : ndarray, shape (n_candidates,)
        Consistency weights (see :func:`check_weights`).
    offsets : ndarray, shape (n_sentences + 1,)

    Returns
    -------
    int
        The number of features the peer will see: the largest column written, plus one.
    """
    X = sp.csr_matrix(X)
    X.sum_duplicates()
    offsets = np.asarray(offsets, dtype=np.int64)
    check_weights(weights, offsets)
    if np.any(np.diff(offsets) <= 0):
        raise ValueError("every sentence needs a candidate (cvlm's N=0 sentences are not written)")
    winner = np.asarray(weights) > 0
    sizes = np.diff(offsets)
    ids = _ids(X.shape[1])
    opener = gzip.open if str(path).endswith(".gz") else open
    kwargs = {"compresslevel": 1} if str(path).endswith(".gz") else {}
    n_features = 0
    with opener(path, "wb", **kwargs) as out:
        out.write(b"S=%d\n" % (len(offsets) - 1))
        j = 0
        while j < len(sizes):
            # whole sentences, about _BLOCK_NONZEROS at a time
            k = int(np.searchsorted(X.indptr[offsets[1:]], X.indptr[offsets[j]] + _BLOCK_NONZEROS,
                                    side="right"))
            k = max(k, j + 1)
            ra, rb = int(offsets[j]), int(offsets[k])
            s, e = int(X.indptr[ra]), int(X.indptr[rb])
            cols, vals = X.indices[s:e], X.data[s:e]
            nz = vals != 0
            if len(cols) and nz.any():
                n_features = max(n_features, int(cols[nz].max()) + 1)
            pieces = ids[cols]
            counted = np.flatnonzero(nz & (vals != 1))
            pieces[counted] = [b"%d=%.9g " % (c, v) for c, v in zip(cols[counted].tolist(),
                                                                     vals[counted].tolist())]
            pieces[~nz] = b""
            # Each row: its "W=1 " or "" prefix, its nonzeros, ",\n"; each sentence: "N=<n>\n" first.
            row_nnz = np.diff(X.indptr[ra:rb + 1])
            sent_of_row = np.repeat(np.arange(k - j), sizes[j:k])
            first_row = np.zeros(rb - ra, dtype=bool)
            first_row[offsets[j:k] - ra] = True
            starts = np.concatenate(([0], np.cumsum(row_nnz + 2)))[:-1] + sent_of_row + 1
            body = np.empty(len(pieces) + 2 * (rb - ra) + (k - j), dtype=object)
            body[starts[first_row] - 1] = [b"N=%d\n" % n for n in sizes[j:k].tolist()]
            body[starts] = np.where(winner[ra:rb], b"W=1 ", b"")
            body[starts + row_nnz + 1] = b",\n"
            feat_pos = np.ones(len(body), dtype=bool)
            feat_pos[starts[first_row] - 1] = False
            feat_pos[starts] = False
            feat_pos[starts + row_nnz + 1] = False
            body[feat_pos] = pieces
            out.write(b"".join(body.tolist()))
            j = k
    return n_features


def write_feature_classes(path: str | Path, n_features: int) -> None:
    """One regulariser class for every feature: cvlm-lbfgs's ``-f`` file (it needs one line each)."""
    with open(path, "wb") as out:
        out.write(b"".join(b"%d all\n" % i for i in range(n_features)))


_TOKEN = re.compile(rb"([SGNPW])\s*=\s*([^\s,]+)|(\d+)(?:\s*=\s*([^\s,]+))?|(,)")


def read_cvlm(path: str | Path) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray, np.ndarray]:
    """Parse a cvlm training file back: ``(X, W, P, offsets)`` with ``G`` ignored (it must be 1).

    A reference reader of the grammar above for tests and checks, not a fast one.
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        text = f.read()
    rows: list[dict[int, float]] = []
    w_list: list[float] = []
    p_list: list[float] = []
    sizes: list[int] = []
    cur: dict[int, float] = {}
    cur_w, cur_p = 0.0, 1.0
    pos = 0
    for m in _TOKEN.finditer(text):
        if text[pos:m.start()].strip():
            raise ValueError(f"{path}: unexpected {text[pos:m.start()].strip()[:20]!r} at byte {pos}")
        pos = m.end()
        key, val, feat, count, comma = m.groups()
        if key == b"S":
            continue
        if key == b"G":
            if float(val) != 1:
                raise ValueError(f"{path}: G={val.decode()} (only the default 1 is read back)")
        elif key == b"N":
            sizes.append(int(val))
        elif key == b"P":
            cur_p = float(val)
        elif key == b"W":
            cur_w = float(val)
        elif feat is not None:
            f = int(feat)
            cur[f] = cur.get(f, 0.0) + (float(count) if count is not None else 1.0)
        elif comma:
            rows.append(cur)
            w_list.append(cur_w)
            p_list.append(cur_p)
            cur, cur_w, cur_p = {}, 0.0, 1.0
    if text[pos:].strip():
        raise ValueError(f"{path}: unexpected {text[pos:].strip()[:20]!r} at byte {pos}")
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    if offsets[-1] != len(rows):
        raise ValueError(f"{path}: N= counts {offsets[-1]} parses but {len(rows)} were read")
    d = max((max(r) + 1 for r in rows if r), default=0)
    indptr = np.concatenate(([0], np.cumsum([len(r) for r in rows]))).astype(np.int64)
    cols = np.array([c for r in rows for c in sorted(r)], dtype=np.int64)
    vals = np.array([r[c] for r in rows for c in sorted(r)], dtype=np.float64)
    X = sp.csr_matrix((vals, cols, indptr), shape=(len(rows), d))
    return X, np.array(w_list), np.array(p_list), offsets
