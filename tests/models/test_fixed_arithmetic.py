"""The arithmetic a fit is made of that does not depend on the CPU (issue 35): ranker.matrices.fixed,
its numba twins, the line searches and the two optimisers of ranker.models.solve.

numba's loops and numpy's must give the same bits (either may run a fit's reductions), the
functions must be as accurate as the C library's, and the optimisers must take scipy's decisions
(the same algorithm, every inner product in our order instead of OpenBLAS's).
"""
import math

import numpy as np
import pytest
import scipy.optimize

from ranker.matrices import fixed
from ranker.models import solve

nk = pytest.importorskip("ranker.matrices.numba_kernels")


def bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


@pytest.mark.parametrize("n", [0, 1, 7, 24, fixed.LANES - 1, fixed.LANES, fixed.LANES + 1, 3 * fixed.LANES + 5,
                               133_497])
def test_numba_and_numpy_add_a_dot_product_in_one_order(n):
    rng = np.random.default_rng(n)
    a, b = rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, size=n), rng.normal(size=n)
    got = fixed.dot(a, b)
    assert bits(got) == bits(fixed.dot_numpy(a, b))
    assert bits(got) == bits(float(nk.fixed_dot(a, b)))
    exact = math.fsum((a.astype(object) * b.astype(object)).tolist()) if n else 0.0
    assert abs(got - exact) <= 1e-14 * max(1.0, float(np.abs(a * b).sum()))


def test_a_dot_product_depends_on_the_data_alone():
    # the same numbers in views of other strides and dtypes: the same bits
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=20_001), rng.normal(size=20_001)
    wide = np.empty(40_002)
    wide[::2] = a
    assert bits(fixed.dot(wide[::2], b)) == bits(fixed.dot(a, b))
    assert bits(fixed.dot(a.astype(np.float32), b)) == bits(fixed.dot(a.astype(np.float32).astype(np.float64), b))
    assert fixed.norm(np.array([3.0, 4.0])) == 5.0
    with pytest.raises(ValueError):
        fixed.dot(a, b[:-1])


def _exp_inputs():
    rng = np.random.default_rng(2)
    return np.concatenate([
        -rng.exponential(5.0, 200_000), rng.uniform(-750, 720, 100_000), rng.normal(0, 1e-3, 10_000),
        rng.normal(0, 1e-10, 1_000),
        [0.0, -0.0, np.inf, -np.inf, np.nan, 709.78, 709.79, 7.09782712893383973096e+02, -745.13, -745.14,
         -708.4, -730.0, -1070.0, 1e-300, -1e-300, 0.34657359027997264, 0.3465735902799727, 1.0397207708399179,
         -1.0397207708399179, 1.0, -1.0]])


def _log_inputs():
    rng = np.random.default_rng(3)
    return np.concatenate([
        1 + rng.exponential(20.0, 200_000), rng.uniform(0, 2, 100_000), np.exp(rng.uniform(-700, 700, 100_000)),
        1 + rng.normal(0, 1e-7, 10_000),
        [0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 1.0, 2.0, 0.5, 5e-324, 1e-310, 1.7976931348623157e308,
         math.sqrt(2), math.sqrt(0.5), 1.38, 1.42, 0.69, 0.71]])


@pytest.mark.parametrize("name", ["exp", "log"])
def test_numba_and_numpy_compute_exp_and_log_alike(name):
    x = _exp_inputs() if name == "exp" else _log_inputs()
    ours = getattr(fixed, name)(x)
    theirs = np.empty_like(x)
    getattr(nk, f"fixed_{name}_array")(x, theirs)
    same = (bits(ours) == bits(theirs)) | (np.isnan(ours) & np.isnan(theirs))
    assert same.all(), x[~same][:5]


@pytest.mark.parametrize("name", ["exp", "log"])
def test_exp_and_log_are_within_an_ulp(name):
    x = _exp_inputs() if name == "exp" else _log_inputs()
    got = getattr(fixed, name)(x)
    with np.errstate(all="ignore"):
        ref = getattr(np, name)(x.astype(np.longdouble))     # 64-bit mantissa: 11 bits to spare
    normal = np.isfinite(ref) & (np.abs(ref) > np.finfo(np.float64).tiny) & (np.abs(ref) < np.finfo(np.float64).max)
    ulp = np.abs((got[normal] - ref[normal]) / np.spacing(np.abs(got[normal])))
    assert ulp.max() < 1.0
    # the special values as the C library has them
    special = ~normal
    with np.errstate(all="ignore"):
        lib = getattr(np, name)(x[special])
    assert np.array_equal(got[special], lib, equal_nan=True) or np.allclose(got[special], lib, rtol=0,
                                                                            atol=5e-324, equal_nan=True)


def rosenbrock(x):
    v = float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2))
    g = np.zeros_like(x)
    g[:-1] = -400.0 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    g[1:] += 200.0 * (x[1:] - x[:-1] ** 2)
    return v, g


class Counting:
    def __init__(self, fun):
        self.fun, self.n = fun, 0

    def __call__(self, x):
        self.n += 1
        return self.fun(x)


def test_cg_takes_scipys_steps(monkeypatch):
    # with numpy's inner products (scipy's) in place of ours the loop and its line searches are
    # scipy's CG to the bit: the same decisions in the same order
    class NumpyDots:
        dot = staticmethod(lambda a, b: float(np.dot(a, b)))
        norm = staticmethod(lambda a: float(np.linalg.norm(a)))

    x0 = np.linspace(-1.2, 1.0, 10)
    ref = scipy.optimize.minimize(rosenbrock, x0, jac=True, method="CG",
                                  options={"gtol": 1e-6, "norm": np.inf, "maxiter": 500})
    with monkeypatch.context() as m:
        m.setattr(solve, "fixed", NumpyDots)
        ours = Counting(rosenbrock)
        got = solve.minimize_cg(ours, x0, max_iter=500, tol=1e-6)
    assert got.success and ref.success
    assert (got.nit, ours.n, got.fun) == (ref.nit, ref.nfev, ref.fun)
    assert np.array_equal(got.x, ref.x) and np.array_equal(got.jac, ref.jac)
    # with ours: the same minimum (Rosenbrock's valley turns a last bit into other iterations)
    got = solve.minimize_cg(rosenbrock, x0, max_iter=500, tol=1e-6)
    assert got.success
    np.testing.assert_allclose(got.x, np.ones(10), atol=1e-5)


def test_the_line_searches_match_scipys():
    # MINPACK-2's search and the bracketing one on a one-dimensional function of many shapes
    from scipy.optimize import _linesearch as theirs

    from ranker.models import linesearch

    def phi(a):
        return (a - 3.0) ** 4 - 2.0 * a + math.sin(5 * a)

    def derphi(a):
        return 4 * (a - 3.0) ** 3 - 2.0 + 5 * math.cos(5 * a)

    for c2 in (0.1, 0.4, 0.9):
        want = theirs.scalar_search_wolfe1(phi, derphi, phi(0.0), None, derphi(0.0), c1=1e-4, c2=c2,
                                           amax=1e100, amin=1e-100)
        got = linesearch.wolfe1(phi, derphi, phi(0.0), None, derphi(0.0), 1e-4, c2, 1e100, 1e-100)
        assert got[0] == pytest.approx(want[0], rel=1e-12) and got[1] == pytest.approx(want[1], rel=1e-12)
        want = theirs.scalar_search_wolfe2(phi, derphi, phi(0.0), None, derphi(0.0), 1e-4, c2, 1e100)
        got = linesearch.wolfe2(phi, derphi, phi(0.0), None, derphi(0.0), 1e-4, c2, 1e100)
        assert got[0] == pytest.approx(want[0], rel=1e-12) and got[3] == pytest.approx(want[3], rel=1e-9)


def test_lbfgs_finds_the_minimum():
    x0 = np.linspace(-1.2, 1.0, 10)
    got = solve.minimize_lbfgs(rosenbrock, x0, max_iter=500, tol=1e-7)
    assert got.success and got.nit < 200
    np.testing.assert_allclose(got.x, np.ones(10), atol=1e-6)
    # a convex quadratic: at most a few more iterations than its dimension
    rng = np.random.default_rng(4)
    A = rng.normal(size=(30, 30))
    A = A @ A.T + 30 * np.eye(30)
    b = rng.normal(size=30)
    got = solve.minimize_lbfgs(lambda x: (0.5 * x @ A @ x - b @ x, A @ x - b), np.zeros(30), max_iter=200, tol=1e-10)
    np.testing.assert_allclose(got.x, np.linalg.solve(A, b), atol=1e-9)


def test_a_solver_stops_at_max_iter_and_says_so():
    for minimize in (solve.minimize_cg, solve.minimize_lbfgs):
        got = minimize(rosenbrock, np.linspace(-1.2, 1.0, 10), max_iter=3, tol=1e-12)
        assert not got.success and got.nit == 3 and "iterations" in got.message
