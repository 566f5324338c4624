"""The log-linear objective with its row blocks held by Dask workers.

A :class:`~ranker.models.objective.ConditionalObjective` is a sum over fixed row blocks
(``obj.blocks``, picklable callables ``blk(λ) -> (data term, gradient)``) plus the Gaussian prior.
The blocks are the bulk of training's memory traffic and never change during a fit, so they are
scattered to the workers once; each evaluation sends only ``λ`` (once per worker) and brings back
one value and one gradient per block. They are added in block order, after the prior, exactly as
the local objective adds them, so the fitted model is bit-identical to the local one.
"""
from __future__ import annotations

import numpy as np


def _evaluate(block, lam: np.ndarray):
    return block(lam)


class DistributedObjective:
    """``P(λ)`` and its gradient, the blocks evaluated where they live.

    Parameters
    ----------
    objective : ConditionalObjective
        The local objective: its blocks are sent away, its prior (``inv_sigma2``) stays here.
    client : distributed.Client
        The cluster to hold the blocks.
    """

    def __init__(self, objective, client):
        self.objective = objective
        self.client = client
        self.inv_sigma2 = objective.inv_sigma2
        # one future per block, spread over the workers; tasks on a block run where it lives
        self._blocks = client.scatter(list(objective.blocks), hash=False)
        self.n_evaluations = 0

    @property
    def nnz(self) -> int:
        return self.objective.nnz

    def __call__(self, lam: np.ndarray) -> tuple[float, np.ndarray]:
        """Return ``(P(λ), ∇P(λ))``, equal bit for bit to the local objective's."""
        self.n_evaluations += 1
        lam = np.asarray(lam, dtype=np.float64)
        shared = self.client.scatter(lam, broadcast=True, hash=False)
        try:
            parts = self.client.gather([self.client.submit(_evaluate, b, shared, pure=False)
                                        for b in self._blocks])
        finally:
            shared.release()
        value = 0.5 * float(lam @ (lam * self.inv_sigma2))
        grad = lam * self.inv_sigma2
        for v, g in parts:          # block order, as the local objective adds them
            value += v
            grad += g
        return value, grad

    def close(self) -> None:
        """Free the blocks on the workers (and the local objective's threads)."""
        for b in self._blocks:
            b.release()
        self._blocks = []
        self.objective.close()
