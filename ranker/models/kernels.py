"""The two loops of every objective evaluation over the parts of a :class:`~.compact.CompactMatrix`.

``dot`` is ``X λ`` (one sum per row) and ``rdot`` is ``Xᵀ r`` (one sum per column) over the three
parts of a compact matrix: ones (column ids only), float32 values and float64 values. Both add in
float64 whatever the stored value type.

Two implementations: scipy's CSR products over a float64 copy of the matrix that the caller keeps
(:meth:`~.compact.CompactMatrix.dot` caches it; old speed, old memory: 12 bytes a nonzero),
always available, and numba's compiled loops over the compact parts themselves when the optional
``fast`` extra is installed (``pip install ranker[fast]``). A gather with ``np.add.reduceat`` and
``np.bincount`` with weights, the numpy-only way to walk the compact parts, measured 5 to 7 times
slower than scipy's product on the WSJ training matrix and was dropped. The numba loops walk each row once over all three parts,
read each entry once, allocate nothing and index through unsigned views of the column ids (a
signed index costs a negative-index test per entry: 2x on the loops). They add in entry order
without reassociation, so a result depends on the data alone, never on the machine; the two
implementations add in different orders and agree to rounding (the same model, to the
optimiser's tolerance: ``tests/models/test_compact.py``). ``RANKER_KERNELS=scipy`` forces scipy's.
``benchmarks/bench_compact.py`` measures both against scipy's CSR product.
"""
from __future__ import annotations

import os

import numpy as np


def _scipy_dot(csr, lam, out):
    out[:] = csr @ lam
    return out


def _scipy_rdot(csr, r, out):
    out[:] = csr.T @ r
    return out


def _load_numba():
    if os.environ.get("RANKER_KERNELS", "") == "scipy":
        return None
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(cache=True, nogil=True)
    def dot3(ip0, ix0, ip1, ix1, d1, ip2, ix2, d2, lam, out):
        for i in range(len(ip0) - 1):
            s = 0.0
            for k in range(ip0[i], ip0[i + 1]):
                s += lam[ix0[k]]
            for k in range(ip1[i], ip1[i + 1]):
                s += lam[ix1[k]] * np.float64(d1[k])
            for k in range(ip2[i], ip2[i + 1]):
                s += lam[ix2[k]] * d2[k]
            out[i] = s

    @numba.njit(cache=True, nogil=True)
    def rdot3(ip0, ix0, ip1, ix1, d1, ip2, ix2, d2, r, out):
        out[:] = 0.0
        for i in range(len(ip0) - 1):
            ri = r[i]
            for k in range(ip0[i], ip0[i + 1]):
                out[ix0[k]] += ri
            for k in range(ip1[i], ip1[i + 1]):
                out[ix1[k]] += ri * np.float64(d1[k])
            for k in range(ip2[i], ip2[i + 1]):
                out[ix2[k]] += ri * d2[k]

    def unsigned(parts):
        (p0, p1, p2) = parts
        return (p0.indptr.view(np.uint64), p0.indices.view(np.uint32),
                p1.indptr.view(np.uint64), p1.indices.view(np.uint32), p1.data,
                p2.indptr.view(np.uint64), p2.indices.view(np.uint32), p2.data)

    def dot(parts, lam, out):
        dot3(*unsigned(parts), lam, out)
        return out

    def rdot(parts, r, out):
        rdot3(*unsigned(parts), r, out)
        return out

    return dot, rdot


_NUMBA = _load_numba()

#: ``"numba"`` or ``"scipy"``: which implementation :func:`dot` and :func:`rdot` use by default.
BACKEND = "scipy" if _NUMBA is None else "numba"
BACKENDS = ("scipy", "numba")


def resolve(backend: str | None) -> str:
    """The backend to use: ``backend`` if given (checked), else :data:`BACKEND`."""
    b = backend or BACKEND
    if b not in BACKENDS:
        raise ValueError(f"kernel backend must be one of {BACKENDS}, not {b!r}")
    if b == "numba" and _NUMBA is None:
        raise ValueError("the numba kernels need numba: pip install 'ranker[fast]'")
    return b


def dot(parts, lam: np.ndarray, out: np.ndarray, backend: str = "numba", csr=None) -> np.ndarray:
    """``out[i] = Σ_k v_k λ[j_k]`` over row ``i``'s entries in every part (``v`` = 1 in the binary part).

    ``backend`` "scipy" multiplies ``csr`` (the same matrix as scipy CSR) instead of the parts.
    """
    if backend == "numba":
        return _NUMBA[0](parts, lam, out)
    return _scipy_dot(csr, lam, out)


def rdot(parts, r: np.ndarray, out: np.ndarray, backend: str = "numba", csr=None) -> np.ndarray:
    """``out[j] = Σ v_k r[i]`` over the entries ``k`` of column ``j`` in every row ``i`` and part."""
    if backend == "numba":
        return _NUMBA[1](parts, r, out)
    return _scipy_rdot(csr, r, out)
