"""The conditional log-likelihood of consistent parses, Crouch et al. (2002) section 3.2, vectorised.

For sentences ``j`` with candidates ``X(y_j)`` and consistency weights ``w_x >= 0`` (1 on the parses
consistent with the partial annotation ``z_j``, 0 elsewhere; fractional for best-F ties or EM-style
partial labels)::

    P(λ) = - Σ_j log Σ_{x ∈ X(y_j)} w_x e^{λ·f(x)} + Σ_j log Σ_{x ∈ X(y_j)} e^{λ·f(x)} + Σ_i (λ_i - μ_i)² / 2σ_i²
    ∂P/∂λ_i = Σ_j E_p[f_i | y_j] - Σ_j E_q[f_i | y_j, z_j] + (λ_i - μ_i) / σ_i²

where ``p`` is the model's distribution over all parses of a sentence and ``q`` the same
distribution restricted to (and reweighted by) the consistent set. With 0/1 weights and the prior
mean ``μ = 0`` this is exactly the paper's formula; a prior centred on a trained model's weights
(MAP adaptation, Chelba and Acero 2004) lets a few new annotations move it only as far as they
demand (:mod:`ranker.pipeline.retrain`). All candidates sit in one compact matrix, so one evaluation is
``X λ``, segment-wise log-sum-exp over the sentence offsets, and ``Xᵀ (p - q)``, which yields both
expectations at once. With numba's kernels the three run sentence by sentence in one pass
(:func:`ranker.matrices.kernels.block_objective`): a sentence's entries are read from memory once and scattered
into the gradient while still in the core's cache, where two products read the matrix twice.
"""
from __future__ import annotations

import numpy as np

from ..matrices import fixed, kernels
from ..settings import LogLinearSection, choices
from . import delta
from ..matrices.compact import CompactMatrix, Part, _masked, as_compact
from .delta import DeltaMatrix
from .groups import segment_logsumexp
from .narrow import NarrowMatrix


def _constant_entries(part: Part, offsets: np.ndarray, d: int) -> np.ndarray:
    """Mask of ``part``'s entries whose column takes one value (in this part) on a whole sentence."""
    indptr, indices, data = part.indptr, part.indices, part.data
    drop = np.zeros(len(indices), dtype=bool)
    first = np.zeros(d) if data is not None else None
    for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        s, e = int(indptr[a]), int(indptr[b])
        if e == s:
            continue
        cols, size = indices[s:e], b - a
        # present in every candidate (one entry per row and column)
        full = np.bincount(cols, minlength=d)[cols] == size
        if not full.any():
            continue
        if data is None:
            drop[s:e] = full
            continue
        # a column present in every row is present in the first: compare each value with that one
        vals = data[s:e]
        first_end = int(indptr[a + 1])
        first[indices[s:first_end]] = data[s:first_end]
        differs = np.zeros(d, dtype=bool)
        differs[cols[full & (vals != first[cols])]] = True
        drop[s:e] = full & ~differs[cols]
    return drop


def drop_sentence_constants(X, offsets: np.ndarray):
    """``X`` without the entries of properties that take one value on every candidate of a sentence.

    Such a property adds the same ``λ_i v`` to every score of the sentence, so it cancels from
    both ``p`` and ``q``: ``P(λ)`` and its gradient are unchanged (up to rounding), while each
    evaluation streams fewer nonzeros (18% fewer on the WSJ sample's Link Grammar forests).
    Charniak and Johnson's reranker discards such "pseudo-constant" features the same way.
    ``X`` is a :class:`~.compact.CompactMatrix` (returned as one) or scipy sparse, canonical (one
    entry per row and column; returned as a CompactMatrix too), or a
    :class:`~.narrow.NarrowMatrix` (each column range on its own: a column lies in one). Only kept
    entries are copied.
    """
    if isinstance(X, NarrowMatrix):
        return NarrowMatrix(drop_sentence_constants(X.low, offsets), drop_sentence_constants(X.high, offsets))
    X = as_compact(X)
    offsets = np.asarray(offsets, dtype=np.int64)
    parts = []
    for p in X.parts:
        drop = _constant_entries(p, offsets, X.shape[1])
        parts.append(_masked(p, ~drop) if drop.any() else p)
    return CompactMatrix(X.shape, parts)


def frequency_order(counts: np.ndarray):
    """``(old_of_new, new_of_old as int32)``: columns by descending count, ties in their order; Nones if unchanged."""
    old_of_new = np.argsort(-np.asarray(counts), kind="stable")
    if np.array_equal(old_of_new, np.arange(len(counts))):
        return None, None
    new_of_old = np.empty(len(counts), dtype=np.int32)
    new_of_old[old_of_new] = np.arange(len(counts), dtype=np.int32)
    return old_of_new, new_of_old


def by_frequency(X: CompactMatrix, original=None, slab: int = 1 << 24):
    """``(X', old_of_new)``: ``X`` with its columns renumbered by descending number of entries.

    The products gather ``λ`` and scatter the gradient at every entry's column; with the most
    frequent properties numbered first, the weights most entries touch share cache lines instead
    of spreading over the whole weight vector. Ties keep their order, so the numbering depends on
    the data alone; entries keep their order in each row, so every sum adds the same terms in the
    same order and the objective's bits do not change, only its speed. The column ids are
    renumbered in place, a slab of ``slab`` entries at a time, so this costs no memory; when
    ``X`` shares an index array with ``original`` (the caller's matrix, which must not change),
    or the order is already that one, ``(X, None)`` is returned as it is. A narrow matrix is
    numbered by frequency when it is made
    (:func:`ranker.pipeline.training_rows.training_data`) and returned as it is.
    """
    if isinstance(X, NarrowMatrix):
        return X, None
    theirs = [p.indices for p in original.parts] if isinstance(original, CompactMatrix) else []
    if any(np.may_share_memory(p.indices, t) for p in X.parts for t in theirs) \
            or not all(p.indices.flags.writeable for p in X.parts):
        return X, None
    old_of_new, new_of_old = frequency_order(X.column_counts())
    if old_of_new is None:
        return X, None
    for p in X.parts:
        for a in range(0, len(p.indices), slab):
            p.indices[a:a + slab] = new_of_old[p.indices[a:a + slab]]
    return X, old_of_new


#: How the objective keeps its training rows (``[loglinear] layout``): ``"delta"``, each candidate
#: as its difference from a similar candidate of its sentence (:mod:`.delta`; needs numba, else the
#: plain rows), or ``"plain"``, each candidate's own properties.
LAYOUTS = choices(LogLinearSection, "layout")

#: Row blocks of every objective (fewer when there are fewer sentences). Fixed, not tied to the
#: number of threads, so that the gradient's floating-point sums, block by block, are the same on
#: any machine and for any ``n_jobs``: a model does not depend on how many cores trained it.
N_BLOCKS = 8


#: ``back`` of plain rows: no row has a parent.
_NO_PARENTS = np.zeros(0, np.int32)


class _Block:
    """The rows of a run of whole sentences; evaluates its share of ``P(λ)`` and of the gradient.

    Picklable (its arrays are views of the objective's matrix, pickled as their own bytes), so a
    block can live in another process and be called there with only ``λ`` sent over.
    """

    def __init__(self, X: CompactMatrix, weights: np.ndarray, offsets: np.ndarray,
                 backend: str | None = None, expected_f: bool = False, corpus: int = -1):
        self.X = X
        self.corpus = corpus    # its rows' corpus: which row of folded weights scores them (:mod:`.copies`)
        self.offsets = offsets
        self.starts = offsets[:-1]
        self.sizes = np.diff(offsets)
        self.w = weights
        self.backend = backend
        self._none = None       # empty parts over the block's rows (see ``_empty``), made on first use
        self.expected_f = expected_f    # minimum risk's loss, weights the gains (:mod:`.expected_f`)

    def __call__(self, lam: np.ndarray) -> tuple[float, np.ndarray]:
        """``(data term of P, its gradient)`` over this block's sentences.

        ``lam`` is the weights of the block's columns, or one row of them per corpus (corpus
        copies, :meth:`.copies.CorpusCopies.folded`), of which the block takes its corpus's.
        """
        lam = np.ascontiguousarray(lam if lam.ndim == 1 else lam[self.corpus], dtype=np.float64)
        if self.backend == "numba":
            grad = np.empty(self.X.shape[1])
            X, back = (self.X.rows, self.X.back) if isinstance(self.X, DeltaMatrix) else (self.X, _NO_PARENTS)
            (low, high), n_low = self._ranges(X), X.n_low if isinstance(X, NarrowMatrix) else X.shape[1]
            value = kernels.block_objective(low, high, n_low, self.w, self.offsets, lam, grad,
                                            self.expected_f, back)
            return value, grad
        s = self.X.dot(lam, backend=self.backend)
        starts, sizes = self.starts, self.sizes
        # exp and log are fdlibm's (:mod:`ranker.matrices.fixed`), not numpy's, whose float64
        # exp and log take numpy's own AVX-512 code on some CPUs and the C library's on others
        if self.expected_f:
            e = fixed.exp(s - np.repeat(np.maximum.reduceat(s, starts), sizes))
            p = e / np.repeat(np.add.reduceat(e, starts), sizes)
            g_bar = np.add.reduceat(p * self.w, starts)
            r = p * (self.w - np.repeat(g_bar, sizes))
            return -float(g_bar.sum()), -self.X.rdot(r, backend=self.backend)
        # One shift (the sentence maximum) serves both sums; it is exact for the full set and only
        # risks underflow in the consistent sum, handled below. np.repeat over the sentence sizes
        # broadcasts per-sentence values to rows three times faster than fancy indexing.
        m = np.maximum.reduceat(s, starts)
        e = fixed.exp(s - np.repeat(m, sizes))
        ew = e * self.w
        z = np.add.reduceat(e, starts)
        zc = np.add.reduceat(ew, starts)
        if np.any(zc < kernels.TINY):
            # Consistent parses far below the best parse: recompute their sum with its own shift.
            lse_c, q = segment_logsumexp(s, self.offsets, self.w)
            log_zc = lse_c - m
        else:
            log_zc = fixed.log(zc)
            np.multiply(ew, np.repeat(1.0 / zc, sizes), out=ew)
            q = ew
        value = float(np.sum(fixed.log(z)) - np.sum(log_zc))
        # r = p - q: one product Xᵀ r gives both expectations.
        np.multiply(e, np.repeat(1.0 / z, sizes), out=e)
        np.subtract(e, q, out=e)
        return value, self.X.rdot(e, backend=self.backend)

    def _empty(self):
        """Three parts without entries over the block's rows: a compact matrix's high column
        range. Made once, not at every evaluation."""
        if self._none is None:
            self._none = kernels.empty_parts(np.zeros(self.X.shape[0] + 1, np.int64))
        return self._none

    def _ranges(self, X):
        """The parts of ``X``'s two column ranges (a compact matrix's high range empty)."""
        if isinstance(X, NarrowMatrix):
            return X.low.parts, X.high.parts
        return X.parts, self._empty()


def _block_bounds(row_nnz: np.ndarray, offsets: np.ndarray, n_blocks: int) -> list[int]:
    """Sentence numbers that cut the rows into ``n_blocks`` runs of about equal nonzeros."""
    n_sent = len(offsets) - 1
    nnz_at = row_nnz[offsets]                 # nonzeros before each sentence
    targets = np.linspace(0, nnz_at[-1], n_blocks + 1)[1:-1]
    cuts = np.searchsorted(nnz_at, targets).tolist()
    return sorted({0, n_sent, *[c for c in cuts if 0 < c < n_sent]})


class ConditionalObjective:
    """``P(λ)`` and its gradient over a fixed training set, with buffers reused between calls.

    The rows are cut at sentence boundaries into :data:`N_BLOCKS` blocks of about equal nonzeros;
    each block's share (products, log-sum-exp, expectations) is independent of the others, and
    ``n_jobs`` threads evaluate blocks at once (numba's pass, scipy's sparse products and numpy's
    element-wise kernels release the GIL). The blocks' values and gradients are added in block order, so the
    result does not depend on ``n_jobs``.

    Parameters
    ----------
    X : CompactMatrix, NarrowMatrix or scipy.sparse matrix, shape (n_candidates, n_features)
        Property-function values of every candidate. A scipy matrix is taken apart into a
        :class:`~.compact.CompactMatrix` (ones as column ids, other values float32 where exact,
        float64 otherwise; float32 data stays float32); products always add in float64. A
        :class:`~.narrow.NarrowMatrix` (what the pipeline trains on) is streamed as it is.
    weights : ndarray, shape (n_candidates,)
        Consistency weight of each candidate (>= 0); every sentence needs some positive weight.
    offsets : ndarray of int64, shape (n_groups + 1,)
        Sentence ``j`` is rows ``offsets[j]:offsets[j+1]``.
    sigma2 : float or ndarray of shape (n_features,)
        Prior variances ``σ_i²``; ``inf`` switches the prior off for a feature.
    prior_mean : ndarray of shape (n_features,), optional
        Prior means ``μ_i`` (zeros if not given).
    backend : {"numba", "scipy"}, optional
        The kernels of :mod:`.kernels` (default: numba's when installed; scipy's multiply a
        float64 CSR copy of each block, made on the block's first call).
    layout : {"plain", "delta"}
        The rows as given, or as differences along a spanning tree of each sentence's candidates
        (:mod:`.delta`; numba's kernels only, else plain). A :class:`~.delta.DeltaMatrix` ``X``
        is streamed as it is, its rows in its tree order (``weights`` in the caller's order).
    copies : CorpusCopies, optional
        Each feature's copy per corpus beside the shared one (:mod:`.copies`): ``X`` holds the
        shared columns alone; ``sigma2`` and ``prior_mean`` are of the model's weights (the
        shared ones then each corpus's copies), the objective's argument and gradient of its
        parameters ``θ`` (:meth:`.copies.CorpusCopies.to_theta`); the blocks are also cut where
        the corpus changes.
    n_jobs : int
        Threads evaluating blocks at once. On the 2-core machine, one evaluation over the WSJ
        sample's training matrix (193 million nonzeros, numba's pass) costs 0.24 to 0.26 s of
        CPU (0.34 s with the two products); ``benchmarks/peer_compare.py`` has the figures.
    """

    _pool = None   # also for an instance whose __init__ raised, which __del__ still sees
    #: The loss of each sentence: the log-likelihood of its consistent set here; minimum risk's
    #: expected F in :class:`~.expected_f.ExpectedFObjective` (the weights are then the gains).
    EXPECTED_F = False

    def __init__(self, X, weights, offsets, sigma2, n_jobs: int = 1, prior_mean=None,
                 backend: str | None = None, layout: str = LogLinearSection.layout, copies=None):
        backend = kernels.resolve(backend)
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.old_of_new = None
        if isinstance(X, DeltaMatrix):
            if backend != "numba":
                raise ValueError("difference rows need numba's kernels (the fast extra)")
        elif layout == "delta" and delta.streamed(backend):
            # properties constant over a sentence leave no difference: nothing to drop first
            X = delta.delta_rows_once(X, self.offsets, n_jobs=n_jobs)
        else:
            X, self.old_of_new = by_frequency(drop_sentence_constants(X, self.offsets), X)
        self.X = X
        self.new_of_old = None if self.old_of_new is None else np.argsort(self.old_of_new).astype(np.int32)
        self.w = np.asarray(weights, dtype=np.float64)
        if isinstance(X, DeltaMatrix):
            if self.w.shape != (X.shape[0],):
                raise ValueError(f"{len(self.w)} weights for {X.shape[0]} rows")
            self.w = self.w[X.perm]     # the rows in each sentence's tree order
        starts = self.offsets[:-1]
        if not self.EXPECTED_F and len(self.offsets) > 1 and np.any(np.add.reduceat(self.w, starts) <= 0):
            # -log 0: such a sentence makes P infinite whatever λ is; callers filter it out first.
            raise ValueError("every sentence needs a candidate with positive consistency weight")
        self.has_fractional = bool(np.any((self.w != 0) & (self.w != 1)))
        n, self.d_shared = X.shape
        self.copies = copies
        if copies is not None:
            copies.check(self.d_shared, n)
        d = self.d_shared + (0 if copies is None else copies.n_copies)
        s2 = np.broadcast_to(np.asarray(sigma2, dtype=np.float64), (d,))
        self.inv_sigma2 = np.where(np.isinf(s2), 0.0, 1.0 / s2)
        self.mu = None
        if prior_mean is not None:
            self.mu = np.asarray(prior_mean, dtype=np.float64)
            if self.mu.shape != (d,) or not np.all(np.isfinite(self.mu)):
                raise ValueError(f"prior_mean must be {d} finite numbers")
        self.n_evaluations = 0
        self.blocks = []
        if len(self.offsets) > 1:
            row_nnz = sum(p.indptr for p in X.parts)
            bounds = _block_bounds(row_nnz, self.offsets, N_BLOCKS)
            runs = [(0, len(self.offsets) - 1, -1)] if copies is None else copies.runs(self.offsets)
            if copies is not None:   # a block's rows of one corpus: cut where the corpus changes
                bounds = sorted({*bounds, *(a for a, _, _ in runs)})
            for a, b in zip(bounds, bounds[1:]):
                ra, rb = int(self.offsets[a]), int(self.offsets[b])
                corpus = next(c for r0, r1, c in runs if r0 <= a < r1)
                # views of X's arrays, so the blocks cost no memory of their own
                self.blocks.append(_Block(X.row_range(ra, rb), self.w[ra:rb],
                                          self.offsets[a:b + 1] - ra, backend, self.EXPECTED_F, corpus))
        self.n_jobs = max(1, min(int(n_jobs), len(self.blocks)))
        if self.n_jobs > 1:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self.n_jobs, thread_name_prefix="objective")

    def close(self) -> None:
        """Stop the threads (also done when the objective is garbage-collected)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __del__(self):
        self.close()

    @property
    def nnz(self) -> int:
        return int(self.X.nnz)

    @property
    def dtype(self):
        """The widest stored value type (products add in float64 whatever it is)."""
        wide = self.X.has_float64 if isinstance(self.X, (NarrowMatrix, DeltaMatrix)) else self.X.parts[2].nnz
        return np.dtype(np.float64) if wide else np.dtype(np.float32)

    def block_weights(self, lam: np.ndarray) -> np.ndarray:
        """``λ`` in the blocks' column numbers (by descending frequency, see :func:`by_frequency`);
        with corpus copies, a row of them per corpus (:meth:`.copies.CorpusCopies.folded`)."""
        lam = np.asarray(lam, dtype=np.float64)
        if self.copies is not None:
            lam = self.copies.folded(lam, self.d_shared)
        return lam if self.old_of_new is None else lam[..., self.old_of_new]

    def combine(self, lam: np.ndarray, parts) -> tuple[float, np.ndarray]:
        """``(P(λ), ∇P(λ))`` from the blocks' ``(value, gradient)`` parts, added in block order.

        The prior first, then each block's share in block order, each gradient brought back to
        the caller's column numbers: the same sums whoever evaluated the blocks (threads or Dask).
        With corpus copies ``lam`` is the parameters ``θ`` (:mod:`.copies`): the prior is taken of
        the model's weights and its gradient pulled back, and a block's gradient goes to ``u`` and
        its corpus's ``w_c`` (:meth:`.copies.CorpusCopies.add_gradient`).
        """
        lam = np.asarray(lam, dtype=np.float64)
        weights = lam if self.copies is None else self.copies.to_lambda(lam, self.d_shared)
        off = weights if self.mu is None else weights - self.mu
        # fixed.dot, not ``@``: OpenBLAS's ddot adds in an order of the CPU's (issue 35)
        value = 0.5 * fixed.dot(off, off * self.inv_sigma2)
        grad = off * self.inv_sigma2
        if self.copies is not None:
            grad = self.copies.pull_back(grad, self.d_shared)
        for blk, (v, g) in zip(self.blocks, parts):
            value += v
            g = g if self.new_of_old is None else g[self.new_of_old]
            if self.copies is None:
                grad += g
            else:
                self.copies.add_gradient(grad, g, blk.corpus, self.d_shared)
        return value, grad

    def __call__(self, lam: np.ndarray) -> tuple[float, np.ndarray]:
        """Return ``(P(λ), ∇P(λ))``, what :func:`.solve.solve` minimises (scipy's ``jac=True`` shape)."""
        self.n_evaluations += 1
        lam_b = self.block_weights(lam)
        if self._pool is not None:
            parts = list(self._pool.map(lambda blk: blk(lam_b), self.blocks))
        else:
            parts = [blk(lam_b) for blk in self.blocks]
        return self.combine(lam, parts)
