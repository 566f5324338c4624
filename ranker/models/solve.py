"""The one solve loop of every log-linear fit: likelihood, minimum risk, a warm-started retrain.

Each estimator builds its objective (:class:`~.objective.ConditionalObjective` or
:class:`~.expected_f.ExpectedFObjective`, the prior centred where it says) and hands it here with a
start; :func:`solve` minimises it with scipy's optimiser and says what came of it. Keeping the loop
in one place keeps its choices in one place: the per-sentence scaling of the tolerance, the stop on
the gradient alone, the progress callback, and when a fit counts as converged.
"""
from __future__ import annotations

import itertools
import warnings
from typing import Callable, NamedTuple

import numpy as np
import scipy.optimize

#: scipy's method of each ``[loglinear] optimizer`` (the config lists the names; a test holds the two equal).
SOLVERS = {"cg": "CG", "lbfgs": "L-BFGS-B"}


class Solution(NamedTuple):
    """What a solve found: the weights and how the optimiser got there."""

    coef: np.ndarray          # the weights at the end
    objective: float          # the objective there (unscaled: summed over sentences)
    n_iter: int               # optimiser iterations
    n_evaluations: int        # evaluations of the objective and gradient
    converged: bool
    grad_max: float           # largest |gradient| component per sentence at the end
    message: str              # the optimiser's own word on how it stopped


def solver_options(solver: str, max_iter: int, tol: float) -> dict:
    """``scipy.optimize.minimize`` options of ``solver``: iterations, and a stop on the gradient alone."""
    options = {"maxiter": int(max_iter), "gtol": float(tol)}
    if solver == "cg":
        options["norm"] = np.inf
    else:
        # L-BFGS-B also stops on a small relative decrease; make the gradient test decide.
        options["ftol"] = 10 * np.finfo(np.float64).eps
    return options


def solve(objective, start: np.ndarray, n_sentences: int, solver: str, max_iter: int, tol: float,
          callback: Callable[[int, int], None] | None = None) -> Solution:
    """Minimise ``objective`` from ``start``; the objective is closed when done, whatever happens.

    Parameters
    ----------
    objective : callable
        ``objective(λ) -> (value, gradient)``, summed over ``n_sentences`` sentences, with
        ``n_evaluations`` and ``close()`` (an objective of :mod:`.objective`, maybe distributed).
    start : ndarray of shape (n_features,)
    n_sentences : int
        The optimiser sees the objective divided by this, so that ``tol`` (on the largest
        gradient component) does not depend on the size of the corpus.
    solver : {"cg", "lbfgs"}
    max_iter : int
    tol : float
    callback : callable, optional
        Called as ``callback(iteration, max_iter)`` after each iteration (progress).
    """
    scale = 1.0 / n_sentences

    def fun(lam):
        v, g = objective(lam)
        return v * scale, g * scale

    step = None
    if callback is not None:
        done = itertools.count(1)

        def step(_):
            callback(next(done), int(max_iter))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = scipy.optimize.minimize(fun, start, jac=True, method=SOLVERS[solver],
                                          options=solver_options(solver, max_iter, tol), callback=step)
    finally:
        objective.close()
    grad_max = float(np.max(np.abs(res.jac))) if len(start) else 0.0
    # scipy's CG reports "precision loss" when the line search cannot improve further even
    # though the gradient is already at the tolerance's order; trust the gradient, not the flag.
    converged = bool(res.success) or grad_max <= 10 * tol
    return Solution(np.asarray(res.x, dtype=np.float64), float(res.fun) / scale, int(res.nit),
                    int(objective.n_evaluations), converged, grad_max, str(res.message))
