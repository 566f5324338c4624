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

from ..matrices import kernels
from .rows_memo import RowsMemo

#: Sentences whose sums are added to the diagonal at once (their order fixes the diagonal's bits).
_CHUNK_SENTENCES = 512
#: Entries gathered at a time within a chunk (whole sentences; bounded temporaries).
_RUN_ENTRIES = 1 << 22


def _runs(entries_before: np.ndarray, a: int, b: int, most: int) -> list[tuple[int, int]]:
    """Sentences ``a:b`` in runs of whole sentences of about ``most`` entries (at least one sentence)."""
    bounds = [a]
    while bounds[-1] < b:
        nxt = int(np.searchsorted(entries_before, entries_before[bounds[-1]] + most, side="right")) - 1
        bounds.append(min(b, max(bounds[-1] + 1, nxt)))
    return list(zip(bounds, bounds[1:]))


def hessian_diagonal(X, offsets: np.ndarray, backend: str | None = None) -> np.ndarray:
    """``Σ_j Var_j(f_i)`` for every column ``i``: the likelihood's Hessian diagonal at λ = 0.

    ``X`` is a :class:`~ranker.matrices.compact.CompactMatrix` (its parts row-aligned) or a
    :class:`~.narrow.NarrowMatrix` (its two column ranges side by side), ``offsets`` the
    sentences' row offsets. Sentence by sentence chunk: ``Σ_x f²/k - (Σ_x f)²/k²``.

    A chunk's entries are gathered a run of about :data:`_RUN_ENTRIES` at a time (some 100 bytes
    of temporaries each: 512 GUM sentences of 200 candidates took 2 GB), each sum still adding
    its terms in the order one gather of the chunk would (``np.add.at`` into the chunk's sums,
    the parts one after another for ``Σ f²``), so the bits are those of the chunk at once.

    With numba (``backend`` None: :data:`ranker.matrices.kernels.BACKEND`) one compiled pass adds
    the same terms in the same order, a sentence's column sums in a scratch row instead of
    ``np.unique``'s sort of every entry (numpy's cost: ``benchmarks/bench_diagonal.py``), so both give
    the same bits.
    """
    from ..matrices.compact import as_compact
    from .narrow import NarrowMatrix

    if isinstance(X, NarrowMatrix):
        return np.concatenate([hessian_diagonal(X.low, offsets, backend), hessian_diagonal(X.high, offsets, backend)])
    X = as_compact(X)
    d = X.shape[1]
    offsets = np.asarray(offsets, dtype=np.int64)
    inv_k = 1.0 / np.maximum(np.diff(offsets), 1)
    if kernels.resolve(backend) == "numba":
        second, first = kernels.hessian_sums(X.parts, offsets, inv_k, _CHUNK_SENTENCES, d)
        return np.maximum(second - first, 0.0)
    second = np.zeros(d)
    first = np.zeros(d)
    n = len(offsets) - 1
    before = X.entries_before(offsets)     # entries before each sentence

    def gathered(parts, a: int, b: int):
        """Columns, sentence numbers and values of sentences ``a:b``'s entries in ``parts``, part after part."""
        r0, r1 = int(offsets[a]), int(offsets[b])
        sentence_of_row = np.repeat(np.arange(a, b, dtype=np.int64), np.diff(offsets[a:b + 1]))
        cols, sents, vals = [], [], []
        for p in parts:
            e0, e1 = int(p.indptr[r0]), int(p.indptr[r1])
            if e1 == e0:
                continue
            sents.append(np.repeat(sentence_of_row, np.diff(p.indptr[r0:r1 + 1])))
            cols.append(p.indices[e0:e1].astype(np.int64))
            vals.append(np.ones(e1 - e0) if p.data is None else p.data[e0:e1].astype(np.float64))
        if not cols:
            return None
        return np.concatenate(cols), np.concatenate(sents), np.concatenate(vals)

    for a in range(0, n, _CHUNK_SENTENCES):
        b = min(n, a + _CHUNK_SENTENCES)
        runs = _runs(before, a, b, _RUN_ENTRIES)
        chunk_second, chunk_first = np.zeros(d), np.zeros(d)
        for p in X.parts:                   # Σ f²/k: part by part, as one gather's order
            for s0, s1 in runs:
                got = gathered([p], s0, s1)
                if got is not None:
                    col, sent, val = got
                    np.add.at(chunk_second, col, val * val * inv_k[sent])
        for s0, s1 in runs:                 # (Σ_x f)²/k²: a sentence's terms lie in its run
            got = gathered(X.parts, s0, s1)
            if got is None:
                continue
            col, sent, val = got
            key, inverse = np.unique((sent - s0) * d + col, return_inverse=True)
            sums = np.bincount(inverse, weights=val, minlength=len(key))
            k_of = inv_k[key // d + s0]
            np.add.at(chunk_first, key % d, sums * sums * k_of * k_of)
        second += chunk_second
        first += chunk_first
    return np.maximum(second - first, 0.0)


#: Hessian diagonals computed, while the rows they came from live (see :func:`hessian_diagonal_once`).
_DIAGONALS = RowsMemo()


def hessian_diagonal_once(X, offsets: np.ndarray) -> np.ndarray:
    """:func:`hessian_diagonal` of ``X``, computed once while ``X`` lives unchanged (read only).

    The diagonal is the objective's at λ = 0, whatever σ²: every fit of a σ² grid on the same rows
    needs the same one. Rows that are neither compact nor narrow (a scipy matrix, whose compact
    copy is new at each call) are computed each time.
    """
    from ..matrices.compact import CompactMatrix
    from .narrow import NarrowMatrix

    if not isinstance(X, (CompactMatrix, NarrowMatrix)):
        return hessian_diagonal(X, offsets)
    return _DIAGONALS.get(X, offsets, lambda: hessian_diagonal(X, offsets))


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
        h = hessian_diagonal_once(X, offsets) + inverse
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

