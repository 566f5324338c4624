"""The one solve loop of every log-linear fit: likelihood, minimum risk, a warm-started retrain.

Each estimator builds its objective (:class:`~.objective.ConditionalObjective` or
:class:`~.expected_f.ExpectedFObjective`, the prior centred where it says) and hands it here with a
start; :func:`solve` minimises it and says what came of it. Keeping the loop in one place keeps its
choices in one place: the per-sentence scaling of the tolerance, the stop on the gradient alone,
the progress callback, and when a fit counts as converged.

The two optimisers are written here, not taken from ``scipy.optimize.minimize``, so that a fit's
bits do not depend on the CPU (issue 35): scipy's CG and L-BFGS-B take their inner products from
OpenBLAS (``ddot``, and ``dgemv`` in a line search's cubic step), whose kernel, and so its order
of summation, OpenBLAS picks by CPU, and L-BFGS-B's compiled loop calls BLAS throughout. Here
every inner product is :func:`ranker.matrices.fixed.dot` (a fixed order of IEEE operations) and
the line searches are :mod:`.linesearch` (scipy's, every power a product):

* ``cg``: scipy's ``_minimize_cg`` step for step: Polak-Ribière+ with the sufficient-descent test
  of Gilbert and Nocedal, MINPACK-2's line search (c1 = 1e-4, c2 = 0.4) with the Nocedal-Wright
  search as its fallback, the first trial step as if the decrease were half the gradient's norm.
* ``lbfgs``: limited-memory BFGS (Nocedal and Wright, algorithm 7.4: the two-loop recursion, the
  last ten pairs, the scaling ``sᵀy / yᵀy``; a pair with ``sᵀy <= ε yᵀy`` is not kept, as in
  L-BFGS-B) with the same line searches (c1 = 1e-4, c2 = 0.9), a unit first trial step after the
  first iteration; when the search fails the memory is dropped and the steepest descent tried
  once more. The fits are unbounded, so nothing of L-BFGS-B's bounds is missed.

Both stop when the largest gradient component falls to ``tol`` (the infinity norm, as scipy's CG
with ``norm=inf`` and L-BFGS-B's ``pgtol``), at ``max_iter`` iterations, or when the line search
finds no step.
"""
from __future__ import annotations

import itertools
import warnings
from typing import Callable, NamedTuple

import numpy as np

from ..matrices import fixed
from . import linesearch

#: The optimiser of each ``[loglinear] optimizer`` (the config lists the names; a test holds the two
#: equal), filled in below.
SOLVERS: dict = {}

#: L-BFGS's memory: the (s, y) pairs kept (scipy's ``maxcor`` default).
LBFGS_MEMORY = 10


class Solution(NamedTuple):
    """What a solve found: the weights and how the optimiser got there."""

    coef: np.ndarray          # the weights at the end
    objective: float          # the objective there (unscaled: summed over sentences)
    n_iter: int               # optimiser iterations
    n_evaluations: int        # evaluations of the objective and gradient
    converged: bool
    grad_max: float           # largest |gradient| component per sentence at the end
    message: str              # the optimiser's own word on how it stopped


class _Result(NamedTuple):
    x: np.ndarray
    fun: float
    jac: np.ndarray
    nit: int
    status: int               # a key of MESSAGES: 0 converged, 1 out of iterations, 2 precision loss, 3 NaN
    message: str

    @property
    def success(self) -> bool:
        return self.status == 0


MESSAGES = {0: "Optimization terminated successfully.",
            1: "Maximum number of iterations has been exceeded.",
            2: "Desired error not necessarily achieved due to precision loss.",
            3: "NaN result encountered."}


class _Memo:
    """The objective at the last point asked for: a line search asks for the value and then the
    gradient at one point, one evaluation (as scipy's ``ScalarFunction``)."""

    def __init__(self, fun):
        self.fun = fun
        self.x = None

    def _at(self, x):
        if self.x is None or not np.array_equal(x, self.x):
            self.f, self.g = self.fun(x)
            self.x = np.array(x, dtype=np.float64)

    def value(self, x) -> float:
        self._at(x)
        return self.f

    def grad(self, x) -> np.ndarray:
        self._at(x)
        return self.g


def _gmax(g: np.ndarray) -> float:
    """The infinity norm (no rounding: the same on every machine)."""
    return float(np.max(np.abs(g))) if len(g) else 0.0


class _LineSearchError(RuntimeError):
    pass


def _line_search(f, fprime, xk, pk, gfk, old_fval, old_old_fval, c1, c2, amax=1e100, amin=1e-100,
                 extra_condition=None):
    """scipy's ``_line_search_wolfe12``: ``(step, f there, f at xk, gradient there or None)``.

    MINPACK-2's search first; if it fails, or its step fails ``extra_condition(alpha, x, f, g)``,
    the Nocedal-Wright search. Raises :class:`_LineSearchError` when neither finds a step.
    """
    gval = [gfk]
    gval_alpha = [None]

    def phi(s):
        return f(xk + s * pk)

    def derphi(s):
        gval[0] = fprime(xk + s * pk)
        gval_alpha[0] = s
        return fixed.dot(gval[0], pk)

    derphi0 = fixed.dot(gfk, pk)
    stp, fval, old = linesearch.wolfe1(phi, derphi, old_fval, old_old_fval, derphi0, c1, c2, amax, amin)
    if stp is not None and extra_condition is not None and not extra_condition(stp, xk + stp * pk, fval,
                                                                                gval[0]):
        stp = None
    if stp is not None:
        return stp, fval, old, gval[0]
    gval[0] = gval_alpha[0] = None       # the fallback's own record, as scipy's line_search_wolfe2's
    extra2 = None
    if extra_condition is not None:
        def extra2(alpha, phi_alpha):
            if gval_alpha[0] != alpha:
                derphi(alpha)
            return extra_condition(alpha, xk + alpha * pk, phi_alpha, gval[0])
    stp, fval, old, dstar = linesearch.wolfe2(phi, derphi, old_fval, old_old_fval, derphi0, c1, c2, amax,
                                              extra2)
    if stp is None:
        raise _LineSearchError()
    return stp, fval, old, (None if dstar is None else gval[0])


def _exit(k: int, max_iter: int, warnflag: int, fval: float, gnorm: float, xk: np.ndarray) -> int:
    if warnflag == 2:
        return 2
    if k >= max_iter:
        return 1
    if np.isnan(gnorm) or np.isnan(fval) or np.isnan(xk).any():
        return 3
    return 0


def minimize_cg(fun, x0: np.ndarray, max_iter: int, tol: float, callback=None, gmax=_gmax) -> _Result:
    """Polak-Ribière+ CG from ``x0`` (scipy's ``_minimize_cg`` with ``norm=inf``, fixed-order dots).

    ``gmax(g)`` is the measure the stop holds to ``tol`` (a preconditioned fit's: the gradient's
    in the original weights)."""
    memo = _Memo(fun)
    f, fprime = memo.value, memo.grad
    xk = np.array(x0, dtype=np.float64).ravel()
    old_fval = f(xk)
    gfk = fprime(xk)
    k = 0
    old_old_fval = old_fval + fixed.norm(gfk) / 2     # a first step of about 1 / |g|
    pk = -gfk
    gnorm = gmax(gfk)
    sigma_3 = 0.01
    warnflag = 0
    while gnorm > tol and k < max_iter:
        deltak = fixed.dot(gfk, gfk)
        cached_step = [None]

        def polak_ribiere_powell_step(alpha, gfkp1=None):
            xkp1 = xk + alpha * pk
            if gfkp1 is None:
                gfkp1 = fprime(xkp1)
            yk = gfkp1 - gfk
            beta_k = max(0, fixed.dot(yk, gfkp1) / deltak)
            pkp1 = -gfkp1 + beta_k * pk
            return alpha, xkp1, pkp1, gfkp1, gmax(gfkp1)

        def descent_condition(alpha, xkp1, fp1, gfkp1):
            # Polak-Ribière+ needs sufficient descent, which strong Wolfe does not promise
            # (Gilbert and Nocedal 1992)
            cached_step[:] = polak_ribiere_powell_step(alpha, gfkp1)
            _, _, p1, g1, gn1 = cached_step
            if gn1 <= tol:
                return True
            return fixed.dot(p1, g1) <= -sigma_3 * fixed.dot(g1, g1)

        try:
            alpha_k, fval, prev, gfkp1 = _line_search(f, fprime, xk, pk, gfk, old_fval, old_old_fval,
                                                      c1=1e-4, c2=0.4, extra_condition=descent_condition)
        except _LineSearchError:
            warnflag = 2
            break
        old_fval, old_old_fval = fval, prev
        if alpha_k == cached_step[0]:
            alpha_k, xk, pk, gfk, gnorm = cached_step
        else:
            alpha_k, xk, pk, gfk, gnorm = polak_ribiere_powell_step(alpha_k, gfkp1)
        k += 1
        if callback is not None:
            callback(k)
    warnflag = _exit(k, max_iter, warnflag, old_fval, gnorm, xk)
    return _Result(xk, old_fval, gfk, k, warnflag, MESSAGES[warnflag])


def _two_loop(g: np.ndarray, pairs: list) -> np.ndarray:
    """``H g`` of L-BFGS's two-loop recursion over ``pairs`` of ``(s, y, sᵀy, yᵀy)``, oldest first."""
    q = g.copy()
    alphas = []
    for s, y, sy, _ in reversed(pairs):
        a = fixed.dot(s, q) / sy
        alphas.append(a)
        q -= a * y
    _, _, sy, yy = pairs[-1]
    q *= sy / yy
    for (s, y, sy, _), a in zip(pairs, reversed(alphas)):
        b = fixed.dot(y, q) / sy
        q += (a - b) * s
    return q


def minimize_lbfgs(fun, x0: np.ndarray, max_iter: int, tol: float, callback=None,
                   memory: int = LBFGS_MEMORY, gmax=_gmax) -> _Result:
    """Limited-memory BFGS from ``x0`` (see the module), fixed-order dots; ``gmax`` as :func:`minimize_cg`'s."""
    memo = _Memo(fun)
    f, fprime = memo.value, memo.grad
    xk = np.array(x0, dtype=np.float64).ravel()
    fk = f(xk)
    gk = fprime(xk)
    pairs: list = []
    gnorm = gmax(gk)
    k = 0
    warnflag = 0
    eps = np.finfo(np.float64).eps
    while gnorm > tol and k < max_iter:
        pk = -_two_loop(gk, pairs) if pairs else -gk
        if pairs and not fixed.dot(gk, pk) < 0:
            pairs.clear()             # not a descent direction: start the memory again
            pk = -gk
        # the steepest descent direction's first trial step is CG's (about 1 / |g|); then 1
        old = fk + fixed.norm(gk) / 2 if not pairs else None
        try:
            alpha, f_new, _, g_new = _line_search(f, fprime, xk, pk, gk, fk, old, c1=1e-4, c2=0.9)
        except _LineSearchError:
            if not pairs:
                warnflag = 2
                break
            pairs.clear()             # once more from the steepest descent direction
            continue
        x_new = xk + alpha * pk
        if g_new is None:
            g_new = fprime(x_new)
        s = x_new - xk
        y = g_new - gk
        sy, yy = fixed.dot(s, y), fixed.dot(y, y)
        if sy > eps * yy:
            pairs.append((s, y, sy, yy))
            del pairs[:-memory]
        xk, fk, gk = x_new, f_new, g_new
        gnorm = gmax(gk)
        k += 1
        if callback is not None:
            callback(k)
    warnflag = _exit(k, max_iter, warnflag, fk, gnorm, xk)
    return _Result(xk, fk, gk, k, warnflag, MESSAGES[warnflag])


SOLVERS.update({"cg": minimize_cg, "lbfgs": minimize_lbfgs})


def solve(objective, start: np.ndarray, n_sentences: int, solver: str, max_iter: int, tol: float,
          callback: Callable[[int, int], None] | None = None, scales: np.ndarray | None = None) -> Solution:
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
    scales : ndarray of shape (n_features,), optional
        Powers of two ``s`` (:func:`.precondition.jacobi_scales`): the optimiser works on ``μ``
        with ``λ = s μ`` (diagonal preconditioning; exact, as every scale is a power of two), and
        stops on the gradient in ``λ``, as without them.
    """
    scale = 1.0 / n_sentences
    s = np.ones(len(start)) if scales is None else np.asarray(scales, dtype=np.float64)

    def fun(mu):
        v, g = objective(mu * s)
        return v * scale, g * (scale * s)

    def gmax(g):
        return _gmax(g / s)

    step = None
    if callback is not None:
        done = itertools.count(1)

        def step(_):
            callback(next(done), int(max_iter))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = SOLVERS[solver](fun, np.asarray(start, dtype=np.float64) / s, int(max_iter), float(tol),
                                  callback=step, gmax=gmax)
    finally:
        objective.close()
    res = res._replace(x=res.x * s, jac=res.jac / s)
    grad_max = _gmax(res.jac)
    # CG reports "precision loss" when the line search cannot improve further even though the
    # gradient is already at the tolerance's order; trust the gradient, not the flag. A fit that
    # ran out of iterations is not converged unless its gradient reached tol itself.
    capped = res.status == 1
    converged = bool(res.success) or grad_max <= (1 if capped else 10) * tol
    return Solution(np.asarray(res.x, dtype=np.float64), float(res.fun) / scale, int(res.nit),
                    int(objective.n_evaluations), converged, grad_max, str(res.message))
