"""Arithmetic whose bits do not depend on the CPU: a dot product, ``exp`` and ``log``.

A fit's last digits depend on every rounding on its path, and three kinds of library arithmetic
round differently on different CPUs of the same architecture:

* a dot product of float64 vectors in numpy (``np.dot``, ``@``, ``np.linalg.norm``) is OpenBLAS's
  ``ddot``, whose kernel, and so its summation order, OpenBLAS picks by CPU (Nehalem's SSE2
  kernel, Haswell's AVX2, SkylakeX's AVX-512 add in three different orders: three different fits
  of one training set on one version of the code, issue 35);
* numpy's ``np.exp`` and ``np.log`` of float64 run numpy's own AVX-512 code where the CPU has
  AVX-512 and the C library's elsewhere, and the two differ in last bits;
* the C library's ``exp`` and ``log`` (what numba's ``np.exp`` calls) have a variant for CPUs with
  FMA and one without (glibc chooses at load time), which differ in last bits too.

So the reductions and functions that decide a fit are our own, in a written order of IEEE
additions, multiplications and divisions only (each correctly rounded on every x86-64 CPU, in
SSE2, AVX2 or AVX-512 registers alike) and exact operations (``frexp``, ``ldexp``, comparisons):

* :func:`dot`: ``LANES`` running sums, lane ``j`` adding the products ``a[i] b[i]`` of ``i ≡ j``
  (mod ``LANES``) in index order, then the lanes added pairwise (lane ``j`` and lane ``j + h`` for
  ``h`` = ``LANES``/2, /4, ..., 1). The lanes are independent, so a compiler may run them in any
  vector width without changing a bit; numba's loop (:func:`.numba_kernels.fixed_dot`, compiled
  without fastmath: no reassociation, no fused multiply-add) and the numpy loop here (blocks of
  ``LANES`` elementwise products and additions, never a numpy reduction) do the same operations
  in the same order and agree to the bit (``tests/models/test_fixed_arithmetic.py``).
* :func:`exp` and :func:`log`: fdlibm's ``e_exp.c`` and ``e_log.c`` (Sun Microsystems, 1993;
  error below one unit in the last place), vectorised here with numpy for the scipy kernels'
  objective and written as scalar numba functions for the numba kernels'
  (:func:`.numba_kernels.fixed_exp`, :func:`.numba_kernels.fixed_log`), the same bits either way.

numpy's own sums (``np.add.reduce``, ``reduceat``, which the scipy kernels' objective uses per
sentence) are pairwise in an order written in numpy's source for every SIMD target, and scipy's
sparse products are plain C++ loops compiled for the baseline: neither depends on the CPU (checked
with ``NPY_DISABLE_CPU_FEATURES``; the pinning test, ``tests/models/test_arithmetic.py``, fits
under the CPU's own kernels and, in subprocesses, under OpenBLAS's Nehalem and Haswell kernels).
A change here that moves a result's bits must raise :data:`.kernels.ARITHMETIC`.
"""
from __future__ import annotations

import numpy as np

from .fixed_constants import (EXP_3HALF_LN2, EXP_HALF_LN2, EXP_INVLN2, EXP_LN2HI, EXP_LN2LO, EXP_O_THRESHOLD,
                              EXP_P1, EXP_P2, EXP_P3, EXP_P4, EXP_P5, EXP_TINY, EXP_TWOM1000,
                              EXP_U_THRESHOLD, LANES, LOG_LG1, LOG_LG2, LOG_LG3, LOG_LG4, LOG_LG5, LOG_LG6,
                              LOG_LG7, LOG_LN2_HI, LOG_LN2_LO)

_NUMBA: list = []     # numba's loops (:mod:`.numba_kernels`) or None, looked up at the first dot


def _numba():
    """numba's loops, or None without numba (whatever ``RANKER_KERNELS`` says: both give the same bits).

    Looked up at the first use, not at import: importing numba takes half a second that a command
    which fits nothing need not wait for.
    """
    if not _NUMBA:
        try:
            from . import numba_kernels
        except ModuleNotFoundError as e:
            if e.name != "numba":
                raise
            numba_kernels = None
        _NUMBA.append(numba_kernels)
    return _NUMBA[0]


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """``Σ a_i b_i`` of two float64 vectors in the fixed order of the module (numba's loop if installed)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"dot needs two vectors of one length, not shapes {a.shape} and {b.shape}")
    nk = _numba()
    if nk is not None:
        return float(nk.fixed_dot(a, b))
    return dot_numpy(a, b)


def dot_numpy(a: np.ndarray, b: np.ndarray) -> float:
    """:func:`dot` with numpy alone: blocks of ``LANES`` elementwise products added into the lanes."""
    n, lanes = len(a), LANES
    acc = np.zeros(lanes)
    tmp = np.empty(lanes)
    full = n - n % lanes
    for i in range(0, full, lanes):
        np.multiply(a[i:i + lanes], b[i:i + lanes], out=tmp)
        acc += tmp
    if full < n:
        acc[:n - full] += a[full:] * b[full:]
    h = lanes // 2
    while h:
        acc[:h] += acc[h:2 * h]
        h //= 2
    return float(acc[0])


def norm(a: np.ndarray) -> float:
    """The Euclidean norm of ``a``: ``sqrt`` (correctly rounded everywhere) of :func:`dot`."""
    return float(np.sqrt(dot(a, a)))


#: Elements :func:`exp` and :func:`log` take at a time: their temporaries stay in the core's cache.
CHUNK = 1 << 14


def _by_chunks(f, x) -> np.ndarray:
    """``f`` over the float64 elements of ``x``, :data:`CHUNK` at a time, in ``x``'s shape."""
    x = np.asarray(x, dtype=np.float64)
    flat = x.ravel()
    out = np.empty_like(flat)
    with np.errstate(all="ignore"):
        for a in range(0, len(flat), CHUNK):
            out[a:a + CHUNK] = f(flat[a:a + CHUNK])
    return out.reshape(x.shape)[()]


def exp(x) -> np.ndarray:
    """``e^x`` elementwise, fdlibm's ``e_exp.c`` (the bits of :func:`.numba_kernels.fixed_exp`)."""
    return _by_chunks(_exp, x)


def log(x) -> np.ndarray:
    """``log x`` elementwise, fdlibm's ``e_log.c`` (the bits of :func:`.numba_kernels.fixed_log`)."""
    return _by_chunks(_log, x)


def _exp(x: np.ndarray) -> np.ndarray:
    """:func:`exp` of a 1-d float64 array: in place where it can be, the rare cases (|x| < 1.5 ln 2,
    tiny, subnormal, out of range) patched afterwards, each operation the scalar code's (``a + b``
    for its ``b + a``)."""
    ax = np.abs(x)
    bad = ~((x >= EXP_U_THRESHOLD) & (x <= EXP_O_THRESHOLD))      # out of range, or NaN
    # argument reduction x = k ln2 + r, |r| <= 0.5 ln2 (k = 0 leaves x as it is: hi = x, lo = 0)
    k = EXP_INVLN2 * x
    k += np.copysign(0.5, x)
    np.trunc(k, out=k)
    near = ax < EXP_3HALF_LN2
    if near.any():
        k[near] = np.where(ax[near] < EXP_HALF_LN2, 0.0, np.copysign(1.0, x[near]))
    if bad.any():
        k[bad] = 0.0
    hi = k * EXP_LN2HI
    np.subtract(x, hi, out=hi)
    lo = k * EXP_LN2LO
    r = hi - lo
    t = r * r
    c = t * EXP_P5
    for p in (EXP_P4, EXP_P3, EXP_P2, EXP_P1):
        c += p
        c *= t
    np.subtract(r, c, out=c)
    y = 2.0 - c
    np.multiply(r, c, out=c)
    np.divide(c, y, out=y)
    np.subtract(lo, y, out=y)
    y -= hi
    np.subtract(1.0, y, out=y)
    ki = k.astype(np.int64)
    out = np.ldexp(y, ki)
    low = ki < -1021
    if low.any():
        out[low] = np.ldexp(y[low], ki[low] + 1000) * EXP_TWOM1000
    tiny = ax < EXP_TINY
    if tiny.any():
        out[tiny] = 1.0 + x[tiny]
    if bad.any():
        xb = x[bad]
        out[bad] = np.where(xb > EXP_O_THRESHOLD, np.inf, np.where(xb < EXP_U_THRESHOLD, 0.0, xb + xb))
    return out


def _log(x: np.ndarray) -> np.ndarray:
    """:func:`log` of a 1-d float64 array."""
    m, e = np.frexp(x)                       # x = m 2^e, m in [0.5, 1), subnormals too
    m1 = 2.0 * m                             # x = m1 2^(e-1), m1 in [1, 2)
    hx = ((m1 - 1.0) * 1048576.0).astype(np.int64)     # fdlibm's 20 high mantissa bits
    halve = hx >= 0x6a09c                    # m1 >= sqrt(2): take m1 / 2, one more power of 2
    f = np.where(halve, m, m1) - 1.0         # exact (Sterbenz)
    k = (e - 1 + halve).astype(np.float64)
    nz = k != 0.0
    # |f| < 2**-20
    r_small = f * f * (0.5 - 0.33333333333333333 * f)
    small = np.where(f == 0.0, np.where(nz, k * LOG_LN2_HI + k * LOG_LN2_LO, 0.0),
                     np.where(nz, k * LOG_LN2_HI - ((r_small - k * LOG_LN2_LO) - f), f - r_small))
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (LOG_LG2 + w * (LOG_LG4 + w * LOG_LG6))
    t2 = z * (LOG_LG1 + w * (LOG_LG3 + w * (LOG_LG5 + w * LOG_LG7)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    with_hfsq = np.where(nz, k * LOG_LN2_HI - ((hfsq - (s * (hfsq + r) + k * LOG_LN2_LO)) - f),
                         f - (hfsq - s * (hfsq + r)))
    plain = np.where(nz, k * LOG_LN2_HI - ((s * (f - r) - k * LOG_LN2_LO) - f), f - s * (f - r))
    out = np.where((hx >= 0x6147a) & (hx <= 0x6b851), with_hfsq, plain)
    out = np.where((hx == 0) | (hx >= 0xffffe), small, out)
    out = np.where(x == 0.0, -np.inf, np.where(x < 0.0, np.nan, out))
    return np.where(np.isnan(x) | (x == np.inf), x + x, out)
