"""The log-linear objective with its row blocks held by Dask workers.

A :class:`~ranker.models.objective.ConditionalObjective` is a sum over fixed row blocks
(``obj.blocks``, picklable callables ``blk(λ') -> (data term, gradient)`` in the blocks' column
numbers, ``λ' = obj.block_weights(λ)``) plus the Gaussian prior.
The blocks are the bulk of training's memory traffic and never change during a fit, so they are
scattered to the workers once, a run of consecutive blocks to each, and held there by a Dask actor;
each evaluation sends only ``λ`` to each worker's actor and brings back one value and one gradient
per block. Actor calls go straight from this process to the worker, without a scheduler round
trip per task: an evaluation costs one message each way per worker, which matters because a fit
takes hundreds of evaluations. The parts are added by the local objective's own ``combine``, in
block order after the prior, so the fitted model is bit-identical to the local one.
"""
from __future__ import annotations

import numpy as np

from ..errors import RankerError


class BlockHolder:
    """A worker's run of consecutive blocks (a Dask actor): evaluates them in order."""

    def __init__(self, blocks: list):
        self.blocks = blocks

    def evaluate(self, lam: np.ndarray) -> list:
        return [blk(lam) for blk in self.blocks]


def _runs(n: int, k: int) -> list[tuple[int, int]]:
    """``n`` blocks cut into at most ``k`` runs of consecutive blocks, as even as can be."""
    k = max(1, min(n, k))
    bounds = [round(i * n / k) for i in range(k + 1)]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


class DistributedObjective:
    """``P(λ)`` and its gradient, the blocks evaluated on the workers that hold them.

    Parameters
    ----------
    objective : ConditionalObjective
        The local objective: its blocks are sent away; it adds their parts to its prior here.
    client : distributed.Client
        The cluster to hold the blocks: one actor per worker (at most one per block).
    """

    def __init__(self, objective, client):
        self.objective = objective
        self.client = client
        self._n_blocks = len(objective.blocks)
        self._holders: list = []
        self._futures: list = []
        self._place()
        self.n_evaluations = 0

    def _place(self) -> None:
        """Send the blocks to the workers alive now, a run of consecutive blocks to each."""
        self._release()
        blocks = list(self.objective.blocks)
        workers = sorted(self.client.nthreads())     # asks the scheduler, not a cached list
        for (a, b), addr in zip(_runs(len(blocks), len(workers)), workers):
            data = self.client.scatter(blocks[a:b], workers=[addr], hash=False)
            holder = self.client.submit(BlockHolder, data, actor=True, workers=[addr], pure=False)
            self._futures += [holder, *data]
            self._holders.append(holder.result())

    def _release(self) -> None:
        self._holders = []
        for f in self._futures:
            f.release()
        self._futures = []

    @property
    def nnz(self) -> int:
        return self.objective.nnz

    def __call__(self, lam: np.ndarray) -> tuple[float, np.ndarray]:
        """Return ``(P(λ), ∇P(λ))``, equal bit for bit to the local objective's.

        A worker lost since the last evaluation takes its blocks with it: they are sent again, from
        this process's objective, to the workers alive, and the evaluation is repeated once.
        """
        self.n_evaluations += 1
        lam_b = self.objective.block_weights(lam)
        try:
            parts = self._evaluate(lam_b)
        except Exception:   # the actor's worker died (the error's type depends on when)
            self._place()
            parts = self._evaluate(lam_b)
        return self.objective.combine(lam, parts)

    def _evaluate(self, lam: np.ndarray) -> list:
        calls = [h.evaluate(lam) for h in self._holders]     # all workers at once
        parts = [part for call in calls for part in call.result()]   # worker by worker: block order
        if len(parts) != self._n_blocks:
            raise RankerError(f"the Dask workers returned {len(parts)} of the objective's "
                              f"{self._n_blocks} blocks")
        return parts

    def close(self) -> None:
        """Free the blocks on the workers (and the local objective's threads)."""
        self._release()
        self.objective.close()
