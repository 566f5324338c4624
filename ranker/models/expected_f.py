"""Minimum-risk training of the log-linear ranker: maximise the expected F-score of each sentence.

The conditional log-likelihood (:mod:`ranker.models.objective`) pulls the probability mass onto
each sentence's best-F set and treats every other candidate as equally wrong, however close it is
to the gold tree. Minimum-risk (expected-F) training uses the candidates' own scores ``g_x`` (the
sentence F of each candidate against gold, in ``[0, 1]``)::

    R(λ) = - Σ_j Σ_{x ∈ X(y_j)} p_λ(x | y_j) g_x + Σ_i λ_i² / 2σ_i²
    ∂R/∂λ_i = - Σ_j Σ_x p_λ(x | y_j) (g_x - ḡ_j) f_i(x) + λ_i / σ_i²,   ḡ_j = Σ_x p_λ(x | y_j) g_x

so a near-miss costs little and a bad parse much (Smith and Eisner 2006; Charniak and Johnson's
reranker as later distributed offers the same expected-F loss). ``R`` is not convex: the fit starts
from the conditional log-likelihood solution at the same σ² (or from ``coef_init``, the fit of a
neighbouring σ²), which is where expected-F training is usually begun.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.optimize
from sklearn.exceptions import ConvergenceWarning

from ..errors import RankerError
from ..parallel import current_executor
from ..pipeline.config import LogLinearSection
from .groups import group_offsets
from .loglinear import SOLVERS, LogLinearRanker, training_matrix
from .objective import ConditionalObjective


class ExpectedFObjective(ConditionalObjective):
    """``R(λ)`` and its gradient over a fixed training set.

    The conditional log-likelihood's objective with minimum risk's loss: the same row blocks,
    threads and one-pass kernel (:func:`.kernels.block_objective` with ``expected_f``), the
    same compact or narrow matrix, the same prior; the weights are the gains.

    Parameters
    ----------
    X : CompactMatrix, NarrowMatrix or scipy.sparse matrix, shape (n_candidates, n_features)
    gain : ndarray, shape (n_candidates,)
        Each candidate's sentence score in ``[0, 1]`` (EVALB labelled F / 100 for ``best_f``).
    offsets : ndarray of int64, shape (n_groups + 1,)
    sigma2 : float or ndarray of shape (n_features,)
        Prior variances; ``inf`` switches the prior off for a feature.
    n_jobs, backend, layout
        As for :class:`~.objective.ConditionalObjective`.
    """

    EXPECTED_F = True

    def __init__(self, X, gain, offsets, sigma2, n_jobs: int = 1, backend: str | None = None,
                 layout: str = LogLinearSection.layout):
        gain = np.asarray(gain, dtype=np.float64)
        if gain.shape != (X.shape[0],):
            raise ValueError(f"gain has shape {gain.shape}; expected ({X.shape[0]},)")
        super().__init__(X, gain, offsets, sigma2, n_jobs=n_jobs, backend=backend, layout=layout)


class ExpectedFRanker(LogLinearRanker):
    """The log-linear ranker trained for the expected F-score of its choice (minimum risk).

    Same model and parameters as :class:`~ranker.models.loglinear.LogLinearRanker` (the training
    filters read the consistency weights ``y``, the best-F set, as there); ``fit`` also needs each
    candidate's score ``gain``. The tolerance applies to the gradient of ``R(λ) / n_sentences``.

    Attributes
    ----------
    coef_, n_features_in_, n_iter_, n_evaluations_, converged_, n_training_sentences_, dropped_
        As for :class:`LogLinearRanker` (iterations and evaluations of the expected-F stage).
    objective_ : float
        ``R(λ)`` at the solution (unscaled): minus the summed expected F plus the prior.
    """

    def fit(self, X, y, groups, full=None, coef_init=None, gain=None) -> "ExpectedFRanker":
        """Estimate ``λ`` by minimising ``R(λ)``, starting from the log-likelihood fit.

        Parameters
        ----------
        X, y, groups, full
            As for :meth:`LogLinearRanker.fit` (``y``: consistency weights, used by the filters
            and by the log-likelihood start).
        coef_init : ndarray of shape (n_features,), optional
            Start here instead of at the log-likelihood solution.
        gain : array-like, shape (n_candidates,)
            Each candidate's sentence score in ``[0, 1]``.
        """
        if gain is None:
            raise RankerError("ExpectedFRanker.fit needs each candidate's score (gain)")
        gain = np.asarray(gain, dtype=np.float64)
        X = training_matrix(X, self.dtype)
        if gain.shape != (X.shape[0],):
            raise RankerError(f"gain has shape {gain.shape}; expected one score per candidate "
                              f"({X.shape[0]})")
        if not np.all(np.isfinite(gain)) or np.any(gain < 0) or np.any(gain > 1):
            raise RankerError("candidate scores (gain) must lie in [0, 1]")
        if coef_init is None:
            # the log-likelihood fit validates the arguments, applies the filters, gives the start
            super().fit(X, y, groups, full=full)
            start = self.coef_.copy()
        else:
            self._validate_params()
            start = np.array(coef_init, dtype=np.float64)
            if start.shape != (X.shape[1],):
                raise RankerError(f"coef_init has shape {start.shape}; expected ({X.shape[1]},)")
        from .training_set import select_training_rows

        offsets = group_offsets(groups, X.shape[0])
        y = np.asarray(y, dtype=np.float64)
        rows = select_training_rows(y, offsets, max_parses=self.max_parses,
                                    full=full if self.full_parses_only else None,
                                    proper_subset=self.proper_subset)
        n_kept = int(rows.group_mask.sum())
        if n_kept == 0:
            raise RankerError(f"no training sentence survives the filters (dropped: {rows.dropped})")
        if not rows.row_mask.all():
            keep = np.flatnonzero(rows.row_mask)
            X, gain = X.take_rows(keep), gain[keep]
            sizes = np.diff(offsets)[rows.group_mask]
            offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        d = X.shape[1]
        sigma2 = np.broadcast_to(np.asarray(self.sigma2, dtype=np.float64), (d,))
        # on the current executor, as the log-likelihood's: this process's threads or Dask's workers
        objective = current_executor().distribute(
            ExpectedFObjective(X, gain, offsets, sigma2, n_jobs=self._threads(), layout=self.layout))
        del X
        scale = 1.0 / n_kept

        def fun(lam):
            v, g = objective(lam)
            return v * scale, g * scale

        options = self._solver_options()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                res = scipy.optimize.minimize(fun, start, jac=True, method=SOLVERS[self.solver],
                                              options=options)
        finally:
            objective.close()
        self.coef_ = np.asarray(res.x, dtype=np.float64)
        self.n_features_in_ = d
        self.n_iter_ = int(res.nit)
        self.n_evaluations_ = int(objective.n_evaluations)
        self.objective_ = float(res.fun) / scale
        self.n_training_sentences_ = n_kept
        self.dropped_ = dict(rows.dropped)
        grad_max = float(np.max(np.abs(res.jac))) if d else 0.0
        self.converged_ = bool(res.success) or grad_max <= 10 * self.tol
        if not self.converged_:
            warnings.warn(f"ExpectedFRanker did not converge after {self.n_iter_} iterations: "
                          f"{res.message} (max |gradient| {grad_max:.3g} per sentence)",
                          ConvergenceWarning, stacklevel=2)
        return self
