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

import numpy as np

from ..errors import RankerError
from ..parallel import current_executor
from ..settings import LogLinearSection
from .loglinear import LogLinearRanker, training_matrix
from .objective import ConditionalObjective


class ExpectedFObjective(ConditionalObjective):
    """``R(λ)`` and its gradient over a fixed training set.

    The conditional log-likelihood's objective with minimum risk's loss: the same row blocks,
    threads and one-pass kernel (:func:`ranker.matrices.kernels.block_objective` with ``expected_f``), the
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
                 layout: str = LogLinearSection.layout, copies=None):
        gain = np.asarray(gain, dtype=np.float64)
        if gain.shape != (X.shape[0],):
            raise ValueError(f"gain has shape {gain.shape}; expected ({X.shape[0]},)")
        super().__init__(X, gain, offsets, sigma2, n_jobs=n_jobs, backend=backend, layout=layout, copies=copies)


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

    needs_gain = True

    def fit(self, X, y, groups, full=None, coef_init=None, gain=None, callback=None,
            copies=None) -> "ExpectedFRanker":
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
        callback : callable, optional
            As for :meth:`LogLinearRanker.fit` (the expected-F stage's iterations).
        copies : CorpusCopies, optional
            As for :meth:`LogLinearRanker.fit`.
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
            # the log-likelihood fit (the same filters, the same solve loop) gives the start
            coef_init = super().fit(X, y, groups, full=full, copies=copies).coef_.copy()
        rows = self._with_scales(self._training_rows(X, y, groups, full, coef_init, gain, copies))
        del X
        # on the current executor, as the log-likelihood's: this process's threads or Dask's workers
        objective = current_executor().distribute(
            ExpectedFObjective(rows.X, rows.gain, rows.offsets, self._sigma2(len(rows.start)),
                               n_jobs=self._threads(), layout=self.layout, copies=rows.copies))
        rows = rows._replace(X=None)
        return self._solve(objective, rows, callback)
