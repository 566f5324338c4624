"""A diagonal preconditioner for the log-linear fits: each weight in the units of its curvature.

The fits' features differ in scale by orders of magnitude: a rare lexical property is present in
one candidate of a few sentences (its curvature is almost only the prior's 1/σ²), a count of
constituents varies by tens across every sentence's candidates. Conjugate gradient and L-BFGS on
the raw weights then crawl along the flat directions: on the WSJ sample's BLLIP lists under the
``fewest`` rule at σ² = 1, CG took 930 iterations to reach the tolerance and L-BFGS 599. With each
weight scaled by the inverse square root of its diagonal Hessian entry (Jacobi preconditioning),
the same optimisers see a problem whose directions curve alike.

The diagonal is the objective's at λ = 0, where every candidate of a sentence is equally likely:
``H_ii = Σ_j Var_j(f_i) + 1/σ_i²``, the variance of the feature over sentence j's candidates. The
scales are rounded to powers of two, so that multiplying by them is exact: a fit's bits stay the
same on every CPU (issue 35), as the sums here are sequential (``bincount``) and a power of two
hides the last bits of any of them.
"""
from __future__ import annotations

import numpy as np

#: Sentences whose entries are gathered at once (bounded memory: a row id per entry of the chunk).
_CHUNK_SENTENCES = 512


def hessian_diagonal(X, offsets: np.ndarray) -> np.ndarray:
    """``Σ_j Var_j(f_i)`` for every column ``i``: the likelihood's Hessian diagonal at λ = 0.

    ``X`` is a :class:`~ranker.matrices.compact.CompactMatrix` (its parts row-aligned) or a
    :class:`~.narrow.NarrowMatrix` (its two column ranges side by side), ``offsets`` the
    sentences' row offsets. Sentence by sentence chunk: ``Σ_x f²/k - (Σ_x f)²/k²``.
    """
    from ..matrices.compact import as_compact
    from .narrow import NarrowMatrix

    if isinstance(X, NarrowMatrix):
        return np.concatenate([hessian_diagonal(X.low, offsets), hessian_diagonal(X.high, offsets)])
    X = as_compact(X)
    d = X.shape[1]
    offsets = np.asarray(offsets, dtype=np.int64)
    second = np.zeros(d)
    first = np.zeros(d)
    n = len(offsets) - 1
    for a in range(0, n, _CHUNK_SENTENCES):
        b = min(n, a + _CHUNK_SENTENCES)
        r0, r1 = int(offsets[a]), int(offsets[b])
        sizes = np.diff(offsets[a:b + 1])
        sentence_of_row = np.repeat(np.arange(b - a, dtype=np.int64), sizes)
        inv_k = 1.0 / np.maximum(sizes, 1)
        cols, sents, vals = [], [], []
        for p in X.parts:
            e0, e1 = int(p.indptr[r0]), int(p.indptr[r1])
            if e1 == e0:
                continue
            rows = np.repeat(sentence_of_row, np.diff(p.indptr[r0:r1 + 1]))
            cols.append(p.indices[e0:e1].astype(np.int64))
            sents.append(rows)
            vals.append(np.ones(e1 - e0) if p.data is None else p.data[e0:e1].astype(np.float64))
        if not cols:
            continue
        col, sent, val = np.concatenate(cols), np.concatenate(sents), np.concatenate(vals)
        second += np.bincount(col, weights=val * val * inv_k[sent], minlength=d)
        key, inverse = np.unique(sent * d + col, return_inverse=True)
        sums = np.bincount(inverse, weights=val, minlength=len(key))
        k_of = inv_k[key // d]
        first += np.bincount(key % d, weights=sums * sums * k_of * k_of, minlength=d)
    return np.maximum(second - first, 0.0)


def jacobi_scales(X, offsets: np.ndarray, sigma2: np.ndarray, copies=None) -> np.ndarray | None:
    """Per-weight scales ``s_i``, powers of two near ``1 / sqrt(H_ii / n)``, for ``λ = s μ``.

    ``n`` is the number of sentences (the solver sees the objective per sentence); ``sigma2``
    each weight's prior variance (inf: no prior, the curvature only the data's). None for
    difference rows (:class:`~.delta.DeltaMatrix`, a learning curve's prefix), which do not hold
    the candidates' values: such a fit runs unscaled. With corpus ``copies``
    (:class:`~.copies.CorpusCopies`) the scales are of the objective's parameters ``θ``
    (:meth:`~.copies.CorpusCopies.curvature`), ``sigma2`` of the model's weights.
    """
    from .delta import DeltaMatrix

    if isinstance(X, DeltaMatrix):
        return None
    n = max(len(offsets) - 1, 1)
    inverse = 1.0 / np.asarray(sigma2, dtype=np.float64)
    if copies is None:
        h = hessian_diagonal(X, offsets) + inverse
    else:
        offsets = np.asarray(offsets, dtype=np.int64)
        runs = [(c, hessian_diagonal(X.row_range(int(offsets[a]), int(offsets[b])), offsets[a:b + 1] - offsets[a]))
                for a, b, c in copies.runs(offsets)]
        h = copies.curvature(runs, inverse, X.shape[1])
    h = h / n
    safe = h > 0
    out = np.ones(len(h))
    out[safe] = np.exp2(np.round(-0.5 * np.log2(h[safe])))
    return out

