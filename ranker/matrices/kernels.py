"""The two loops of every objective evaluation over the parts of a :class:`~.compact.CompactMatrix`.

``dot`` is ``X λ`` (one sum per row) and ``rdot`` is ``Xᵀ r`` (one sum per column) over the three
parts of a compact matrix: ones (column ids only), float32 values and float64 values. Both add in
float64 whatever the stored value type.

Two implementations: scipy's CSR products over a float64 copy of the matrix that the caller keeps
(:meth:`~.compact.CompactMatrix.dot` caches it; old speed, old memory: 12 bytes a nonzero),
always available, and numba's compiled loops over the compact parts themselves
(:mod:`.numba_kernels`) when the optional ``fast`` extra is installed (``pip install ranker[fast]``). A gather with ``np.add.reduceat`` and
``np.bincount`` with weights, the numpy-only way to walk the compact parts, measured 5 to 7 times
slower than scipy's product on the WSJ training matrix and was dropped. The numba loops walk each row once over all three parts,
read each entry once, allocate nothing and index through unsigned views of the column ids (a
signed index costs a negative-index test per entry: 2x on the loops). They add in entry order
without reassociation, so a result depends on the data alone, never on the machine; the two
implementations add in different orders and agree to rounding (the same model, to the
optimiser's tolerance: ``tests/models/test_compact.py``). ``RANKER_KERNELS=scipy`` forces scipy's.
``benchmarks/bench_compact.py`` measures both against scipy's CSR product.

The objective does not call the two products with numba: :func:`block_objective` fuses them with
the log-sum-exps, one sentence at a time, over a :class:`~.narrow.NarrowMatrix`'s two column
ranges (16-bit ids below column 65,536, the rest; a compact matrix is one range), so each entry comes from memory once per evaluation
instead of twice and no row-length float64 temporaries are made (on the WSJ training matrix, 193
million nonzeros: 0.26 s of CPU an evaluation against 0.34 s for the two products). A row's score
adds in four running sums (the ones spread over the four, the float32 values over two of them, then
``(s0 + s1) + (s2 + s3)``), a fixed order, then the high range's sum, if the row has entries
there, is added the same way: its result still depends on the data alone.
"""
from __future__ import annotations

import os

import numpy as np

from .parts import Part

#: The version of the objective's arithmetic, part of every stored model's key
#: (:func:`ranker.pipeline.cache.fit_params`). A store keeps fitted models under a digest of their
#: data and settings; a change to the kernels, the difference rows or the solve loop that moves a
#: fit's bits (an early-stopped fit's last digits) must raise it, so a warm rerun fits again instead
#: of reporting the model of the code before. ``tests/models/test_arithmetic.py`` pins the bits of a
#: small fit and fails, saying so, until it is raised, and that the bits are the same under other
#: CPUs' kernels of OpenBLAS. (Before version 1 it was a dated sentence. Version 2, issue 35: the
#: solver's and the prior's inner products, the line searches and the kernels' exp and log are our
#: own fixed-order arithmetic, :mod:`.fixed`, where version 1's went through OpenBLAS and the C
#: library and so differed between CPUs.)
ARITHMETIC = 2

#: Below this, a sentence's consistent sum under the shared shift is taken for an underflow.
TINY = 1e-300


def _scipy_dot(csr, lam, out):
    out[:] = csr @ lam
    return out


def _scipy_rdot(csr, r, out):
    out[:] = csr.T @ r
    return out


def _numba_wanted() -> bool:
    """Whether numba is installed and not refused by ``RANKER_KERNELS=scipy`` (without importing it)."""
    from importlib.util import find_spec

    return os.environ.get("RANKER_KERNELS", "") != "scipy" and find_spec("numba") is not None


_LOADED: list = []    # numba's loops (:mod:`.numba_kernels`), loaded at the first product


def _numba():
    """numba's loops, imported at the first use: importing numba takes half a second, which a
    command that multiplies no matrix (``ranker counts``, ``ranker gold``) need not wait for."""
    if not _LOADED:
        from . import numba_kernels

        _LOADED.append(numba_kernels)
    return _LOADED[0]


#: ``"numba"`` or ``"scipy"``: which implementation :func:`dot` and :func:`rdot` use by default.
BACKEND = "numba" if _numba_wanted() else "scipy"
BACKENDS = ("scipy", "numba")


def resolve(backend: str | None) -> str:
    """The backend to use: ``backend`` if given (checked), else :data:`BACKEND`."""
    b = backend or BACKEND
    if b not in BACKENDS:
        raise ValueError(f"kernel backend must be one of {BACKENDS}, not {b!r}")
    if b == "numba" and BACKEND != "numba":
        raise ValueError("the numba kernels need numba: pip install 'ranker[fast]'")
    return b


def dot(parts, lam: np.ndarray, out: np.ndarray, backend: str = "numba", csr=None) -> np.ndarray:
    """``out[i] = Σ_k v_k λ[j_k]`` over row ``i``'s entries in every part (``v`` = 1 in the binary part).

    ``backend`` "scipy" multiplies ``csr`` (the same matrix as scipy CSR) instead of the parts.
    """
    if backend == "numba":
        return _numba().dot(parts, lam, out)
    return _scipy_dot(csr, lam, out)


def rdot(parts, r: np.ndarray, out: np.ndarray, backend: str = "numba", csr=None) -> np.ndarray:
    """``out[j] = Σ v_k r[i]`` over the entries ``k`` of column ``j`` in every row ``i`` and part."""
    if backend == "numba":
        return _numba().rdot(parts, r, out)
    return _scipy_rdot(csr, r, out)


def block_objective(low, high, n_low: int, w: np.ndarray, offsets: np.ndarray, lam: np.ndarray,
                    grad: np.ndarray, expected_f: bool, back: np.ndarray) -> float:
    """One block's data term of ``P(λ)``, its gradient written into ``grad``, in one pass (numba).

    ``low`` and ``high`` are the parts of two column ranges of the same rows: columns below
    ``n_low`` (``uint16`` or ``int32`` ids) and the rest (ids counted from ``n_low``), as a
    :class:`~.narrow.NarrowMatrix` holds them; a compact matrix is all ``low``, with empty
    ``high`` parts (:func:`empty_parts`). Per sentence ``j`` (rows ``offsets[j]:offsets[j+1]``):
    the scores, ``log Σ e^s - log Σ w e^s`` added to the value, and ``p - q`` added through the
    same entries into ``grad``. With ``expected_f``, ``w`` holds each candidate's gain ``g`` and
    the loss is minimum risk's (:mod:`.expected_f`): ``-ḡ`` added to the value and
    ``-p (g - ḡ)`` through the entries.

    ``back`` gives each row's distance to its parent row (0: none) for difference rows
    (:class:`~.delta.DeltaMatrix`, whose ones parts are empty: every value is stored; scores are
    summed down each sentence's tree and ``r`` up it); plain rows give an empty ``back``.
    """
    return _numba().objective(low, high, back, n_low, w, offsets, lam, grad, bool(expected_f), TINY)


def hessian_sums(parts, offsets: np.ndarray, inv_k: np.ndarray, chunk: int, d: int):
    """``(Σ_j Σ_x f²/k_j, Σ_j (Σ_x f)²/k_j²)`` per column over sentences ``offsets`` (numba).

    The preconditioner's diagonal (:func:`ranker.models.precondition.hessian_diagonal`), its terms
    added in the order of that function's numpy path: sentences in chunks of ``chunk``.
    """
    return _numba().hessian_sums(parts, offsets, inv_k, int(chunk), int(d))


def empty_parts(indptr: np.ndarray):
    """Three parts without entries over the rows of ``indptr`` (all zeros): an empty high range."""
    return (Part(indptr, np.zeros(0, np.int32), None), Part(indptr, np.zeros(0, np.int32), np.zeros(0, np.float32)),
            Part(indptr, np.zeros(0, np.int32), np.zeros(0, np.float64)))
