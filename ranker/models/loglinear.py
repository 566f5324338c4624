"""The conditional log-linear ranker trained from partial bracketings (Crouch et al. 2002, section 3).

``p_λ(x | y) = e^{λ·f(x)} / Σ_{x' ∈ X(y)} e^{λ·f(x')}``; training minimises ``P(λ)``, the negative
log probability of each sentence's consistent set plus a Gaussian prior (see
:mod:`ranker.models.objective` for the formula and its gradient), by conjugate gradient as in the
paper (scipy's Polak-Ribière CG with a Wolfe line search, rewritten in :mod:`ranker.models.solve` so
that a fit's bits do not depend on the CPU) or, as an option, L-BFGS.
"""
from __future__ import annotations

import os
import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ..errors import RankerError
from ..settings import LogLinearSection as _CONFIG, choices
from .base import GroupedRanker
from ..matrices.compact import CompactMatrix, as_compact
from .narrow import NarrowMatrix
from .groups import group_offsets
from ..parallel import current_executor
from .delta import DeltaMatrix
from .objective import LAYOUTS, ConditionalObjective
from .solve import SOLVERS, solve   # noqa: F401  (SOLVERS: the solver names' public home of old)
from .training_set import select_training_rows



class _Rows(NamedTuple):
    """The training data a fit streams, after the filters, and where its solve starts."""

    X: object                      # compact, narrow or difference rows (None once the objective has them)
    y: np.ndarray                  # consistency weights
    gain: np.ndarray | None        # minimum risk's per-candidate scores (:mod:`.expected_f`)
    offsets: np.ndarray            # sentence j is rows offsets[j]:offsets[j+1]
    n_sentences: int
    dropped: dict                  # sentences each filter removed
    start: np.ndarray
    scales: np.ndarray | None = None   # the preconditioner's powers of two (None: none)
    copies: object = None          # CorpusCopies of the rows (:mod:`.copies`), or None


def as_csr(X, dtype=None) -> sp.csr_matrix:
    """Candidates as a CSR matrix with int32 indices where they fit (half the index traffic)."""
    X = sp.csr_matrix(X, dtype=dtype)
    if X.nnz < np.iinfo(np.int32).max and X.shape[1] < np.iinfo(np.int32).max:
        X.indices = X.indices.astype(np.int32, copy=False)
        X.indptr = X.indptr.astype(np.int32 if X.nnz < np.iinfo(np.int32).max else np.int64, copy=False)
    return X


def training_matrix(X, dtype: str = "float64") -> CompactMatrix | NarrowMatrix:
    """``X`` as the objective streams it: compact (or narrow), values rounded to float32 if ``dtype`` says so.

    Difference rows (:class:`~ranker.models.delta.DeltaMatrix`) are taken as they are.
    """
    if isinstance(X, DeltaMatrix):
        return X
    if isinstance(X, NarrowMatrix):
        if dtype == "float32" and X.has_float64:
            return NarrowMatrix(training_matrix(X.low, dtype).with_ids(np.uint16),
                                training_matrix(X.high, dtype))
        return X
    if dtype == "float32" and (not isinstance(X, CompactMatrix) or X.parts[2].nnz):
        X = X.tocsr() if isinstance(X, CompactMatrix) else X
        return as_compact(as_csr(X, dtype=np.float32))
    return X if isinstance(X, CompactMatrix) else as_compact(as_csr(X))


class LogLinearRanker(GroupedRanker):
    """Conditional log-linear model over grouped candidates, trained on consistency weights.

    Parameters
    ----------
    sigma2 : float or array of shape (n_features,)
        Variance ``σ_i²`` of the Gaussian prior on each weight (``inf``: no prior).
    solver : {"cg", "lbfgs"}
        Conjugate gradient (the paper's choice) or L-BFGS.
    max_iter : int
        Iteration limit of the solver; reaching it raises a ConvergenceWarning.
    tol : float
        Stop when the largest gradient component of ``P(λ) / n_sentences`` falls below this
        (per-sentence scaling makes the tolerance independent of corpus size; with corpus
        copies, of the objective's parameters, :mod:`.copies`).
    max_parses : int or None
        Training filter: drop sentences with more candidates than this (the paper used 1,000);
        0 or None: no limit.
    full_parses_only : bool
        Training filter: drop sentences with a non-full candidate; ``fit`` then needs ``full``.
    proper_subset : bool
        Training filter: drop sentences whose every candidate is consistent. Sentences with no
        consistent candidate are always dropped.
    dtype : {"float64", "float32"}
        Precision of the stored feature values during training. Products add in float64 either
        way, and values exact in float32 (counts) are stored as float32 anyway (ones as column
        ids alone, :class:`~ranker.matrices.compact.CompactMatrix`); "float32" also rounds the rest.
    layout : {"delta", "plain"}
        How the objective keeps the training rows (:data:`~ranker.models.objective.LAYOUTS`):
        each candidate as its difference from a similar candidate of its sentence
        (:mod:`~ranker.models.delta`: on the WSJ sample's training rows 7 times fewer entries and
        a third of the time an evaluation, after a build of about 9 s on two threads, done once
        for every fit of the same rows), or as its own properties. The two give the same model to
        rounding; without numba, "plain". A :class:`~ranker.models.delta.DeltaMatrix` ``X`` is
        fitted as it is (its values as they are, whatever ``dtype``).
    n_jobs : int or None
        Threads evaluating the objective (``None``: 1, -1: every core). The fitted model is the
        same for any value: the objective's sums run in a fixed block order
        (:class:`~ranker.models.objective.ConditionalObjective`). Inside
        :func:`ranker.parallel.use_executor` with a Dask executor the blocks are evaluated on its
        workers instead, with the same result
        (:class:`~ranker.models.distributed_objective.DistributedObjective`).

    precondition : bool
        Scale each weight by a power of two near the inverse square root of its Hessian
        diagonal at zero (:mod:`.precondition`): the same optimum, reached in fewer iterations
        where features differ in scale by orders of magnitude.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights ``λ``.
    n_features_in_ : int
    n_iter_ : int
        Solver iterations.
    n_evaluations_ : int
        Evaluations of the objective and gradient.
    objective_ : float
        ``P(λ)`` at the solution (unscaled).
    converged_ : bool
    n_training_sentences_ : int
        Sentences left after the filters.
    dropped_ : dict
        Sentences each filter removed.
    grad_max_ : float
        The largest gradient component per sentence where the fit stopped (``tol`` is its target;
        None for a model read from a file written before it was kept).
    """

    reads = "features"
    needs_model = True

    # The defaults are the config's ([loglinear] of ranker/settings.py), written once there.
    def __init__(self, sigma2=1.0, solver: str = _CONFIG.optimizer, max_iter: int = _CONFIG.max_iter,
                 tol: float = _CONFIG.tol, max_parses: int | None = _CONFIG.max_parses,
                 full_parses_only: bool = _CONFIG.full_only, proper_subset: bool = _CONFIG.proper_subset,
                 dtype: str = "float64", layout: str = _CONFIG.layout, n_jobs: int | None = None,
                 precondition: bool = _CONFIG.precondition):
        self.sigma2 = sigma2
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.max_parses = max_parses
        self.full_parses_only = full_parses_only
        self.proper_subset = proper_subset
        self.dtype = dtype
        self.layout = layout
        self.n_jobs = n_jobs
        self.precondition = precondition

    @classmethod
    def from_config(cls, config) -> "LogLinearRanker":
        """The unfitted ranker of ``[loglinear]`` (σ² is chosen later), its threads ``[experiment] workers``."""
        ll = config.loglinear
        return cls(solver=ll.optimizer, max_iter=ll.max_iter, tol=ll.tol, max_parses=ll.max_parses,
                   full_parses_only=ll.full_only, proper_subset=ll.proper_subset, layout=ll.layout,
                   n_jobs=config.experiment.workers or os.cpu_count() or 1, precondition=ll.precondition)

    def _validate_params(self) -> None:
        if self.solver not in choices(_CONFIG, "optimizer"):
            raise RankerError(f"solver must be one of {list(choices(_CONFIG, 'optimizer'))}, not {self.solver!r}")
        if self.layout not in LAYOUTS:
            raise RankerError(f"layout must be one of {list(LAYOUTS)}, not {self.layout!r}")
        if self.dtype not in ("float64", "float32"):
            raise RankerError(f"dtype must be 'float64' or 'float32', not {self.dtype!r}")
        if self.n_jobs is not None and (not isinstance(self.n_jobs, (int, np.integer))
                                        or isinstance(self.n_jobs, bool)
                                        or not (self.n_jobs >= 1 or self.n_jobs == -1)):
            raise RankerError(f"n_jobs must be None, -1 or a positive integer, not {self.n_jobs!r}")
        s2 = np.asarray(self.sigma2, dtype=np.float64)
        if np.any(~(s2 > 0)):
            raise RankerError("sigma2 must be positive (inf for no prior)")

    def fit(self, X, y, groups, full=None, coef_init=None, prior_mean=None,
            callback=None, copies=None) -> "LogLinearRanker":
        """Estimate ``λ`` by minimising ``P(λ)``.

        Parameters
        ----------
        X : CompactMatrix, sparse or dense matrix, shape (n_candidates, n_features)
        y : array-like, shape (n_candidates,)
            Consistency weight of each candidate, >= 0 (1 consistent, 0 not, or fractional).
        groups : array-like, shape (n_candidates,)
            Sentence of each row; rows of a sentence adjacent.
        full : array-like of bool, shape (n_candidates,), optional
            Whether each candidate is a full parse (needed by ``full_parses_only``).
        coef_init : ndarray of shape (n_features,), optional
            Where the solver starts (zeros if not given), as in scikit-learn's ``SGDClassifier``.
            The objective is strictly convex, so a converged fit does not depend on it; a start
            near the solution (the fit of a neighbouring σ²) saves most of the iterations.
        prior_mean : ndarray of shape (n_features,), optional
            Centre of the Gaussian prior (zeros if not given): a trained model's weights make
            the fit an adaptation of that model to the new data (:mod:`ranker.pipeline.retrain`).
        callback : callable, optional
            Called as ``callback(iteration, max_iter)`` after each solver iteration (progress).
        copies : CorpusCopies, optional
            Each row's corpus and the columns copied per corpus (:mod:`.copies`, Daumé III 2007):
            ``X`` holds the shared columns alone, the model's weights are those then each
            corpus's copies (``n_features_in_`` counts them all), as if ``X`` had been doubled.

        Returns
        -------
        self
        """
        rows = self._training_rows(X, y, groups, full, coef_init, copies=copies)
        d = len(rows.start)
        if prior_mean is not None and np.shape(prior_mean) != (d,):
            raise RankerError(f"prior_mean has shape {np.shape(prior_mean)}; expected ({d},)")
        rows = self._with_scales(rows)
        # on the current executor: this process's threads, or a Dask cluster's workers
        objective = current_executor().distribute(
            ConditionalObjective(rows.X, rows.y, rows.offsets, self._sigma2(d), n_jobs=self._threads(),
                                 prior_mean=prior_mean, layout=self.layout, copies=rows.copies))
        rows = rows._replace(X=None)   # the objective keeps what it streams; a filtered copy is not needed
        return self._solve(objective, rows, callback)

    def _training_rows(self, X, y, groups, full, coef_init, gain=None, copies=None) -> "_Rows":
        """The checked parameters and data, the filters applied, and the start (see :meth:`fit`).

        ``gain`` (minimum risk's per-candidate scores) and ``copies`` (each row's corpus) are
        taken through the filters with ``y``.
        """
        self._validate_params()
        X = training_matrix(X, self.dtype)
        y = np.asarray(y, dtype=np.float64)
        if y.shape != (X.shape[0],):
            raise RankerError(f"y has shape {y.shape}; expected one weight per candidate ({X.shape[0]})")
        if not np.all(np.isfinite(y)) or np.any(y < 0):
            raise RankerError("consistency weights y must be finite and >= 0")
        if any(p.data is not None and not np.all(np.isfinite(p.data)) for p in X.parts):
            raise RankerError("feature values must be finite")
        offsets = group_offsets(groups, X.shape[0])
        if copies is not None:
            try:
                copies.check(X.shape[1], X.shape[0])
                copies.runs(offsets)
            except ValueError as e:
                raise RankerError(f"corpus copies: {e}") from None
        if self.full_parses_only and full is None:
            raise RankerError("full_parses_only needs the per-candidate 'full' flags")
        rows = select_training_rows(y, offsets, max_parses=self.max_parses,
                                    full=full if self.full_parses_only else None,
                                    proper_subset=self.proper_subset)
        n_kept = int(rows.group_mask.sum())
        if n_kept == 0:
            raise RankerError(f"no training sentence survives the filters (dropped: {rows.dropped})")
        if not rows.row_mask.all():
            keep_rows = np.flatnonzero(rows.row_mask)
            X = X.take_rows(keep_rows)
            y = y[keep_rows]
            gain = None if gain is None else gain[keep_rows]
            copies = None if copies is None else copies.take(keep_rows)
            sizes = np.diff(offsets)[rows.group_mask]
            offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        d = X.shape[1] + (0 if copies is None else copies.n_copies)
        if coef_init is None:
            start = np.zeros(d)
        else:
            start = np.array(coef_init, dtype=np.float64)
            if start.shape != (d,):
                raise RankerError(f"coef_init has shape {start.shape}; expected ({d},)")
        return _Rows(X, y, gain, offsets, n_kept, dict(rows.dropped), start, copies=copies)

    def _sigma2(self, d: int) -> np.ndarray:
        return np.broadcast_to(np.asarray(self.sigma2, dtype=np.float64), (d,))

    def _with_scales(self, rows: "_Rows") -> "_Rows":
        """``rows`` with the preconditioner's scales (:mod:`.precondition`) when ``precondition`` is on."""
        if not self.precondition:
            return rows
        from .precondition import jacobi_scales

        return rows._replace(scales=jacobi_scales(rows.X, rows.offsets, self._sigma2(len(rows.start)),
                                                  rows.copies))

    def _solve(self, objective, rows: "_Rows", callback=None) -> "LogLinearRanker":
        """Minimise ``objective`` from ``rows.start`` (:func:`.solve.solve`) and keep what came of it."""
        # with corpus copies the solver works on the objective's parameters (:mod:`.copies`)
        copies, d = rows.copies, len(rows.start) - (0 if rows.copies is None else rows.copies.n_copies)
        start = rows.start if copies is None else copies.to_theta(rows.start, d)
        got = solve(objective, start, rows.n_sentences, self.solver, self.max_iter, self.tol, callback,
                    scales=rows.scales)
        self.coef_ = got.coef if copies is None else copies.to_lambda(got.coef, d)
        self.n_features_in_ = len(got.coef)
        self.n_iter_ = got.n_iter
        self.n_evaluations_ = got.n_evaluations
        self.objective_ = got.objective
        self.n_training_sentences_ = rows.n_sentences
        self.dropped_ = rows.dropped
        self.converged_ = got.converged
        self.grad_max_ = got.grad_max
        if not self.converged_:
            warnings.warn(f"{type(self).__name__} did not converge after {self.n_iter_} iterations "
                          f"({self.n_evaluations_} evaluations): {got.message} "
                          f"(max |gradient| {got.grad_max:.3g} per sentence)", ConvergenceWarning,
                          stacklevel=3)
        return self

    def _threads(self) -> int:
        if self.n_jobs == -1:
            return os.cpu_count() or 1
        return self.n_jobs or 1

    def decision_function(self, X) -> np.ndarray:
        """``λ·f(x)`` of every candidate (higher is better).

        Parameters
        ----------
        X : CompactMatrix, sparse or dense matrix, shape (n_candidates, n_features)

        Returns
        -------
        ndarray of float64, shape (n_candidates,)
        """
        self._check_fitted("coef_")
        if not isinstance(X, (CompactMatrix, NarrowMatrix)):
            X = sp.csr_matrix(X)
        if X.shape[1] != self.n_features_in_:
            raise RankerError(f"X has {X.shape[1]} features but the model was trained on "
                              f"{self.n_features_in_}")
        return np.asarray(X @ self.coef_, dtype=np.float64)

    _STATE = ("coef_", "n_features_in_", "n_iter_", "n_evaluations_", "objective_", "converged_",
              "n_training_sentences_", "dropped_", "grad_max_")
    _STATE_SINCE = {"grad_max_": None}   # learned attributes older model files lack, and what they read as

    def _get_state(self) -> dict:
        """Learned attributes, for :func:`ranker.models.persistence.save_model`."""
        self._check_fitted("coef_")
        return {k: getattr(self, k) for k in self._STATE}

    def _set_state(self, state: dict) -> None:
        for k in self._STATE:
            setattr(self, k, state[k] if k in state or k not in self._STATE_SINCE else self._STATE_SINCE[k])
        self.coef_ = np.asarray(self.coef_, dtype=np.float64)
        if self.coef_.shape != (self.n_features_in_,):
            raise ValueError(f"{len(self.coef_)} weights for {self.n_features_in_} features")
