"""The bits of one small fit, pinned to the arithmetic's version (``kernels.ARITHMETIC``, issue 24).

A store keeps fitted models under a key that holds :data:`ranker.matrices.kernels.ARITHMETIC`, so a
warm rerun reuses a model only when today's code would fit the same bits. A change to the kernels,
the difference rows or the solve loop that moves them must raise the version; this test notices the
move and fails until the version is raised and the new bits are recorded here.

The version names the arithmetic only if the bits do not depend on the machine (issue 35): the fits
are made again in subprocesses under OpenBLAS's Nehalem kernels (SSE2; there also with glibc's
``exp``, ``log`` and ``pow`` for CPUs without FMA and numpy's baseline loops, as on a CPU without
AVX) and under its Haswell kernels (AVX2 and FMA), and must give the bits of this process, whose
libraries use the CPU's own kernels (AVX-512 where it has them).
"""
import functools
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from ranker.matrices import kernels
from ranker.models import LogLinearRanker
from ranker.models.expected_f import ExpectedFRanker

#: The version the bits below were recorded under.
PINNED_VERSION = 2

#: (objective, solver, layout, max_iter) -> (iterations, float64 hex of the objective, hex of the
#: first three weights): early-stopped fits (their last digits depend on every rounding) and
#: converged ones, for both layouts of the training rows (numba's kernels) and both optimisers,
#: and early-stopped minimum-risk fits (the kernels' other exp and log, from a likelihood start).
PINNED = {
    ("likelihood", "cg", "delta", 4): (4, "0x1.e0f83bbbf5fe2p+3",
                                       ("0x1.80de32067feb3p-1", "-0x1.267f33a97eb50p-1", "-0x1.99737259e8828p-2")),
    ("likelihood", "cg", "delta", 300): (22, "0x1.bc4e0b14d6445p+3",
                                         ("0x1.d7c32d5b78f5dp-1", "-0x1.a4dd2201f0611p-1", "-0x1.bf3a9a4e516dfp-2")),
    ("likelihood", "cg", "plain", 4): (4, "0x1.e0f83bbbf5fe2p+3",
                                       ("0x1.80de32067fe86p-1", "-0x1.267f33a97eb33p-1", "-0x1.99737259e87c5p-2")),
    ("likelihood", "cg", "plain", 300): (22, "0x1.bc4e0b14d6446p+3",
                                         ("0x1.d7c32d59626f2p-1", "-0x1.a4dd2201b7256p-1", "-0x1.bf3a9a4d6161fp-2")),
    ("likelihood", "lbfgs", "delta", 4): (4, "0x1.dbd066eab0067p+3",
                                          ("0x1.d87c6022ed659p-1", "-0x1.616b60bd2e0c6p-1", "-0x1.a6adeb31d36a7p-2")),
    ("likelihood", "lbfgs", "delta", 300): (18, "0x1.bc4e0b147dca0p+3",
                                            ("0x1.d7c6b0b0e9df5p-1", "-0x1.a4e0365dae59cp-1", "-0x1.bf3e4ef95dc4ep-2")),
    ("likelihood", "lbfgs", "plain", 4): (4, "0x1.dbd066eab0066p+3",
                                          ("0x1.d87c6022ed658p-1", "-0x1.616b60bd2e0c4p-1", "-0x1.a6adeb31d369fp-2")),
    ("likelihood", "lbfgs", "plain", 300): (18, "0x1.bc4e0b147dca0p+3",
                                            ("0x1.d7c6b0b0e982ep-1", "-0x1.a4e0365daefa2p-1", "-0x1.bf3e4ef95cf6ap-2")),
    ("minimum risk", "cg", "delta", 8): (8, "-0x1.77dcbdbcecf49p+4",
                                         ("0x1.22021b96f7aa8p-3", "0x1.29b1afaeeaa63p-2", "0x1.3d81e1ae41ce6p-4")),
    ("minimum risk", "cg", "plain", 8): (8, "-0x1.77dcbdbcecf4ep+4",
                                         ("0x1.22021b96f7772p-3", "0x1.29b1afaeeaad7p-2", "0x1.3d81e1ae41a38p-4")),
}


def tiny_problem():
    """40 sentences of 2-8 candidates over 24 count-valued properties, one consistent candidate each."""
    rng = np.random.default_rng(2024)
    sizes = rng.integers(2, 9, size=40)
    n = int(sizes.sum())
    X = sp.random(n, 24, density=0.3, random_state=2024, format="csr")
    X.data = np.round(X.data * 3) + 1
    groups = np.repeat(np.arange(40), sizes)
    s = X @ rng.normal(size=24) + rng.normal(size=n)
    y = np.zeros(n)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    for j in range(40):
        y[offsets[j] + np.argmax(s[offsets[j]:offsets[j + 1]])] = 1
    return X, y, groups


def fit_bits(case, n_jobs: int = 1) -> tuple:
    """``(iterations, objective hex, first three weights hex)`` of the fit of ``case``."""
    objective, solver, layout, max_iter = case
    X, y, groups = tiny_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the early-stopped fit warns that it stopped
        if objective == "likelihood":
            m = LogLinearRanker(sigma2=1.0, solver=solver, layout=layout, max_iter=max_iter,
                                n_jobs=n_jobs).fit(X, y, groups)
        else:
            gain = np.random.default_rng(7).uniform(size=X.shape[0])
            m = ExpectedFRanker(sigma2=1.0, solver=solver, layout=layout, max_iter=max_iter,
                                n_jobs=n_jobs).fit(X, y, groups, gain=gain)
    return (m.n_iter_, m.objective_.hex(), tuple(c.hex() for c in m.coef_[:3]))


@functools.lru_cache(maxsize=None)
def all_bits() -> dict:
    """Every pinned case's bits here, JSON's way (lists, string keys)."""
    return {json.dumps(case): json.loads(json.dumps(fit_bits(case))) for case in sorted(PINNED)}


@pytest.mark.parametrize("case", sorted(PINNED))
def test_a_small_fits_bits_are_those_of_its_arithmetic_version(case):
    if kernels.BACKEND != "numba":
        pytest.fail("numba is not installed: pip install -e '.[test]' installs the fast extra")
    fits = {n_jobs: fit_bits(case, n_jobs) for n_jobs in (1, 2)}
    assert fits[1] == fits[2], "the threads changed a fit's bits: the objective's block order is broken"
    want = PINNED[case]
    if kernels.ARITHMETIC == PINNED_VERSION:
        assert fits[1] == want, (
            f"the bits of a small fit moved ({case}: {fits[1]} instead of {want}): a change to the "
            f"kernels, the difference rows or the solve loop that moves a fit's bits must raise "
            f"ranker.matrices.kernels.ARITHMETIC (now {kernels.ARITHMETIC}), so that stored models are "
            "fitted again; then record the new bits and version in this test")
    else:
        pytest.fail(f"ranker.matrices.kernels.ARITHMETIC is {kernels.ARITHMETIC} but the bits here were "
                    f"recorded under version {PINNED_VERSION}: record today's bits ({case}: "
                    f"{fits[1]}) and set PINNED_VERSION = {kernels.ARITHMETIC}")


def test_the_arithmetic_is_a_version_number():
    assert isinstance(kernels.ARITHMETIC, int) and not isinstance(kernels.ARITHMETIC, bool)
    assert kernels.ARITHMETIC >= PINNED_VERSION


def _cpu_features() -> tuple[dict, list]:
    """numpy's view of the CPU: its features, and the SIMD targets it dispatches to beyond its baseline."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:                  # numpy 1
        from numpy.core import _multiarray_umath as umath
    return dict(umath.__cpu_features__), list(umath.__cpu_dispatch__)


def _without_avx(env: dict) -> dict:
    """``env`` with the C library's and numpy's code for CPUs without AVX2, FMA and AVX-512."""
    features, dispatch = _cpu_features()
    env = dict(env)
    masks = "glibc.cpu.hwcaps=-AVX512F,-AVX2,-FMA"
    env["GLIBC_TUNABLES"] = ":".join(t for t in (env.get("GLIBC_TUNABLES"), masks) if t)
    disable = [f for f in dispatch if features.get(f)]
    if disable:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disable)
    return env


@pytest.mark.slow   # quick tier under a minute (issue 35, item 8): seconds of real work, CI runs it
@pytest.mark.parametrize("kernel", ["Nehalem", "Haswell"])
def test_the_bits_do_not_depend_on_the_cpu(kernel):
    # Each fit again in a fresh interpreter whose OpenBLAS runs the kernel named (numba's loops
    # come from the same cache, compiled for this CPU: they keep their written order on any).
    if kernels.BACKEND != "numba":
        pytest.fail("numba is not installed: pip install -e '.[test]' installs the fast extra")
    features, _ = _cpu_features()
    if kernel == "Haswell" and not (features.get("AVX2") and features.get("FMA3")):
        pytest.skip("OpenBLAS's Haswell kernels need AVX2 and FMA, which this CPU has not")
    env = dict(os.environ, OPENBLAS_CORETYPE=kernel)
    if kernel == "Nehalem":
        env = _without_avx(env)
    script = ("import json, runpy, sys; "
              "print(json.dumps(runpy.run_path(sys.argv[1])['all_bits']()))")
    run = subprocess.run([sys.executable, "-c", script, __file__], env=env, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    theirs = json.loads(run.stdout.strip().splitlines()[-1])
    ours = all_bits()
    moved = {case: (ours[case], theirs.get(case)) for case in ours if ours[case] != theirs.get(case)}
    assert not moved, (f"under OpenBLAS's {kernel} kernels a fit has other bits than under this CPU's own "
                       f"(case: (here, there)): {moved}; some reduction on the fit's path depends on the "
                       "CPU (ranker/matrices/fixed.py says which are ours and why)")
