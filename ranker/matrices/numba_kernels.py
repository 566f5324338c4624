"""numba's compiled loops of the objective (:mod:`.kernels` says what they compute and why so).

Imported by :mod:`.kernels` when numba is installed (the ``fast`` extra); each loop is a module-level
function, so a test can call it directly and hold it against scipy's products and numpy's
log-sum-exps (``tests/models/test_numba_kernels.py``). The wrappers at the end take the parts of a
:class:`~.compact.CompactMatrix` (or a :class:`~.narrow.NarrowMatrix`'s two column ranges) and index
through unsigned views of the column ids (a signed index costs a negative-index test per entry).
The loops add in entry order without reassociation, so a result depends on the data alone; a change
that moves a result's bits must raise :data:`.kernels.ARITHMETIC`.
"""
from __future__ import annotations

import numpy as np
from numba import njit



@njit(cache=True, nogil=True)


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


@njit(cache=True, nogil=True, inline="always")


def add_row(ip0, ix0, ip1, ix1, d1, ip2, ix2, d2, ri, i, out):
    # out += ri * row i, entry by entry in storage order (Xᵀ r and the fused gradient alike)
    for k in range(ip0[i], ip0[i + 1]):
        out[ix0[k]] += ri
    for k in range(ip1[i], ip1[i + 1]):
        out[ix1[k]] += ri * np.float64(d1[k])
    for k in range(ip2[i], ip2[i + 1]):
        out[ix2[k]] += ri * d2[k]


@njit(cache=True, nogil=True)


def rdot3(ip0, ix0, ip1, ix1, d1, ip2, ix2, d2, r, out):
    out[:] = 0.0
    for i in range(len(ip0) - 1):
        add_row(ip0, ix0, ip1, ix1, d1, ip2, ix2, d2, r[i], i, out)


@njit(cache=True, nogil=True, inline="always")


def score(ip0, ix0, ip1, ix1, d1, ip2, ix2, d2, lam, i):
    # Four running sums in a fixed order: one sum's add latency (4 cycles) no longer paces
    # every entry, and the order still depends on the data alone.
    s0 = s1 = s2 = s3 = 0.0
    u1, u2, u3, u4 = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)   # unsigned stays unsigned
    k, end = ip0[i], ip0[i + 1]
    while k + u4 <= end:
        s0 += lam[ix0[k]]
        s1 += lam[ix0[k + u1]]
        s2 += lam[ix0[k + u2]]
        s3 += lam[ix0[k + u3]]
        k += u4
    while k < end:
        s0 += lam[ix0[k]]
        k += u1
    k, end = ip1[i], ip1[i + 1]
    while k + u2 <= end:
        s1 += lam[ix1[k]] * np.float64(d1[k])
        s3 += lam[ix1[k + u1]] * np.float64(d1[k + u1])
        k += u2
    while k < end:
        s1 += lam[ix1[k]] * np.float64(d1[k])
        k += u1
    for k in range(ip2[i], ip2[i + 1]):
        s2 += lam[ix2[k]] * d2[k]
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, nogil=True, inline="always")


def score_values(ip1, ix1, d1, ip2, ix2, d2, lam, i):
    # A difference row (:mod:`.delta`): every entry has its value, ±1 too, so one float32 loop
    # over four running sums (not a loop for each of the +1s, the -1s and the counts, whose
    # short lengths and unpredictable exits cost more than their entries), then the float64s.
    s0 = s1 = s2 = s3 = 0.0
    u1, u2, u3, u4 = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    k, end = ip1[i], ip1[i + 1]
    while k + u4 <= end:
        s0 += lam[ix1[k]] * np.float64(d1[k])
        s1 += lam[ix1[k + u1]] * np.float64(d1[k + u1])
        s2 += lam[ix1[k + u2]] * np.float64(d1[k + u2])
        s3 += lam[ix1[k + u3]] * np.float64(d1[k + u3])
        k += u4
    while k < end:
        s0 += lam[ix1[k]] * np.float64(d1[k])
        k += u1
    for k in range(ip2[i], ip2[i + 1]):
        s1 += lam[ix2[k]] * d2[k]
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, nogil=True, inline="always")


def sentence_r(s, r, w, a, b, m, expected_f, tiny):
    # A sentence's loss from its scores ``s`` (maximum ``m``) and ``r``, written into ``r``:
    # p - q (conditional likelihood) or -p (g - ḡ) (minimum risk). Each e^(s - m) once, kept
    # in r until r replaces it.
    if expected_f:
        # Minimum risk (w = each candidate's gain g): value -ḡ, r = -p (g - ḡ).
        z = 0.0
        for i in range(a, b):
            e = np.exp(s[i - a] - m)
            r[i - a] = e
            z += e
        inv_z = 1.0 / z
        g_bar = 0.0
        for i in range(a, b):
            g_bar += r[i - a] * inv_z * w[i]
        for i in range(a, b):
            r[i - a] = -(r[i - a] * inv_z) * (w[i] - g_bar)
        return -g_bar
    z = 0.0
    zc = 0.0
    for i in range(a, b):
        e = np.exp(s[i - a] - m)
        r[i - a] = e
        z += e
        zc += w[i] * e
    inv_z = 1.0 / z
    if zc < tiny:
        # The consistent parses far below the best: their sum under its own shift.
        mc = -np.inf
        for i in range(a, b):
            if w[i] > 0:
                mc = max(mc, s[i - a])
        zc = 0.0
        for i in range(a, b):
            if w[i] > 0:
                zc += w[i] * np.exp(s[i - a] - mc)
        inv_zc = 1.0 / zc
        for i in range(a, b):
            e = r[i - a]
            ri = e * inv_z
            if w[i] > 0:
                ri -= w[i] * np.exp(s[i - a] - mc) * inv_zc
            r[i - a] = ri
        return np.log(z) - (np.log(zc) + (mc - m))
    inv_zc = 1.0 / zc
    # no branch on w: a weight of 0 subtracts an exact 0.0, the same bits as not subtracting
    for i in range(a, b):
        e = r[i - a]
        r[i - a] = e * inv_z - w[i] * e * inv_zc
    return np.log(z) - np.log(zc)


@njit(cache=True, nogil=True)


def block4(lo0, lx0, lo1, lx1, ld1, lo2, lx2, ld2, hi0, hx0, hi1, hx1, hd1, hi2, hx2, hd2,
           back, n_low, w, offsets, lam, grad, expected_f, tiny):
    # One sentence at a time: its scores, its two log-sum-exps, then r scattered through the
    # same entries, which are still in the core's cache: the matrix streams in from memory
    # once per evaluation, not twice. A row's score is its low columns' sum plus its high
    # columns' (a compact matrix's high range is empty: its sum alone, as ever).
    # Difference rows (``back`` not empty, :mod:`.delta`; every value stored, the ones parts
    # empty): a row's score adds its parent's, and r is gathered into subtree sums from the
    # last row up, each scattered once through its row.
    grad[:] = 0.0
    lam_lo, lam_hi = lam[:n_low], lam[n_low:]
    grad_lo, grad_hi = grad[:n_low], grad[n_low:]
    tree = len(back) > 0
    # a range without entries in the whole block (the high columns of a training matrix
    # whose properties all fit 16-bit ids) is not looked at row by row
    has_hi = hi0[len(hi0) - 1] + hi1[len(hi1) - 1] + hi2[len(hi2) - 1] > 0
    n_sent = len(offsets) - 1
    biggest = 0
    for j in range(n_sent):
        biggest = max(biggest, offsets[j + 1] - offsets[j])
    s = np.empty(biggest)
    r = np.empty(biggest)
    value = 0.0
    for j in range(n_sent):
        a, b = offsets[j], offsets[j + 1]
        m = -np.inf
        if tree:
            for i in range(a, b):
                si = score_values(lo1, lx1, ld1, lo2, lx2, ld2, lam_lo, i)
                if has_hi and hi1[i + 1] + hi2[i + 1] > hi1[i] + hi2[i]:
                    si += score_values(hi1, hx1, hd1, hi2, hx2, hd2, lam_hi, i)
                if back[i] > 0:
                    si += s[i - a - back[i]]
                s[i - a] = si
                m = max(m, si)
        else:
            for i in range(a, b):
                si = score(lo0, lx0, lo1, lx1, ld1, lo2, lx2, ld2, lam_lo, i)
                if has_hi and hi0[i + 1] + hi1[i + 1] + hi2[i + 1] > hi0[i] + hi1[i] + hi2[i]:
                    si += score(hi0, hx0, hi1, hx1, hd1, hi2, hx2, hd2, lam_hi, i)
                s[i - a] = si
                m = max(m, si)
        value += sentence_r(s, r, w, a, b, m, expected_f, tiny)
        if not tree:
            for i in range(a, b):
                add_row(lo0, lx0, lo1, lx1, ld1, lo2, lx2, ld2, r[i - a], i, grad_lo)
                if has_hi:
                    add_row(hi0, hx0, hi1, hx1, hd1, hi2, hx2, hd2, r[i - a], i, grad_hi)
            continue
        for i in range(b - 1, a - 1, -1):
            ri = r[i - a]
            # add_row without its ids-only loop (empty in difference rows): add_row itself
            # measured 8% slower an evaluation on the WSJ training rows
            for k in range(lo1[i], lo1[i + 1]):
                grad_lo[lx1[k]] += ri * np.float64(ld1[k])
            for k in range(lo2[i], lo2[i + 1]):
                grad_lo[lx2[k]] += ri * ld2[k]
            if has_hi:
                add_row(hi0, hx0, hi1, hx1, hd1, hi2, hx2, hd2, ri, i, grad_hi)
            if back[i] > 0:
                r[i - a - back[i]] += ri
    return value


# ------------------------------------------------------------------ the parts of a compact matrix
def ids(a):
    """Column ids as the loops index them: 16-bit ids as they are, 32-bit ones unsigned."""
    return a if a.dtype == np.uint16 else a.view(np.uint32)


def unsigned(parts):
    """The arrays of a compact matrix's three parts (ones, float32, float64), indices unsigned."""
    (p0, p1, p2) = parts
    return (p0.indptr.view(np.uint64), ids(p0.indices),
            p1.indptr.view(np.uint64), ids(p1.indices), p1.data,
            p2.indptr.view(np.uint64), ids(p2.indices), p2.data)


def dot(parts, lam, out):
    """``out = X λ`` over the parts of ``X``."""
    dot3(*unsigned(parts), lam, out)
    return out


def rdot(parts, r, out):
    """``out = Xᵀ r`` over the parts of ``X``."""
    rdot3(*unsigned(parts), r, out)
    return out


def objective(low, high, back, n_low, w, offsets, lam, grad, expected_f, tiny):
    """One block's data term and gradient (:func:`.kernels.block_objective`)."""
    return block4(*unsigned(low), *unsigned(high), back, n_low, w, offsets, lam, grad, expected_f, tiny)
