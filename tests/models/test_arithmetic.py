"""The bits of one small fit, pinned to the arithmetic's version (``kernels.ARITHMETIC``, issue 24).

A store keeps fitted models under a key that holds :data:`ranker.matrices.kernels.ARITHMETIC`, so a
warm rerun reuses a model only when today's code would fit the same bits. A change to the kernels,
the difference rows or the solve loop that moves them must raise the version; this test notices the
move and fails until the version is raised and the new bits are recorded here.
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from ranker.matrices import kernels
from ranker.models import LogLinearRanker

#: The version the bits below were recorded under.
PINNED_VERSION = 1

#: (layout, max_iter) -> (iterations, float64 hex of the objective, hex of the first three weights):
#: an early-stopped fit (its last digits depend on every rounding) and a converged one, for both
#: layouts of the training rows (numba's kernels).
PINNED = {
    ("delta", 4): (4, "0x1.e0f83bbbf5fdbp+3",
                   ("0x1.80de32067fdadp-1", "-0x1.267f33a97eaa1p-1", "-0x1.99737259e85bbp-2")),
    ("delta", 300): (22, "0x1.bc4e0b14d6445p+3",
                     ("0x1.d7c32d56c7ddep-1", "-0x1.a4dd22008b0f0p-1", "-0x1.bf3a9a4d262bfp-2")),
    ("plain", 4): (4, "0x1.e0f83bbbf5fe2p+3",
                   ("0x1.80de32067fe1cp-1", "-0x1.267f33a97eaecp-1", "-0x1.99737259e86d5p-2")),
    ("plain", 300): (22, "0x1.bc4e0b14d6445p+3",
                     ("0x1.d7c32d5b7cc29p-1", "-0x1.a4dd2201aca88p-1", "-0x1.bf3a9a4dd9f58p-2")),
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


@pytest.mark.parametrize("layout, max_iter", sorted(PINNED))
def test_a_small_fits_bits_are_those_of_its_arithmetic_version(layout, max_iter):
    if kernels.BACKEND != "numba":
        pytest.fail("numba is not installed: pip install -e '.[test]' installs the fast extra")
    X, y, groups = tiny_problem()
    fits = {}
    for n_jobs in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # the early-stopped fit warns that it stopped
            m = LogLinearRanker(sigma2=1.0, layout=layout, max_iter=max_iter, n_jobs=n_jobs).fit(X, y, groups)
        fits[n_jobs] = (m.n_iter_, m.objective_.hex(), tuple(c.hex() for c in m.coef_[:3]))
    assert fits[1] == fits[2], "the threads changed a fit's bits: the objective's block order is broken"
    want = PINNED[layout, max_iter]
    if kernels.ARITHMETIC == PINNED_VERSION:
        assert fits[1] == want, (
            f"the bits of a small fit moved ({layout} rows, max_iter {max_iter}: {fits[1]} instead of "
            f"{want}): a change to the kernels, the difference rows or the solve loop that moves a fit's "
            f"bits must raise ranker.matrices.kernels.ARITHMETIC (now {kernels.ARITHMETIC}), so that "
            "stored models are fitted again; then record the new bits and version in this test")
    else:
        pytest.fail(f"ranker.matrices.kernels.ARITHMETIC is {kernels.ARITHMETIC} but the bits here were "
                    f"recorded under version {PINNED_VERSION}: record today's bits ({layout}, {max_iter}: "
                    f"{fits[1]}) and set PINNED_VERSION = {kernels.ARITHMETIC}")


def test_the_arithmetic_is_a_version_number():
    assert isinstance(kernels.ARITHMETIC, int) and not isinstance(kernels.ARITHMETIC, bool)
    assert kernels.ARITHMETIC >= PINNED_VERSION
