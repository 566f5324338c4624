"""numba's compiled loops of the objective (:mod:`.kernels` says what they compute and why so).

Imported by :mod:`.kernels` when numba is installed (the ``fast`` extra); each loop is a module-level
function, so a test can call it directly and hold it against scipy's products and numpy's
log-sum-exps (``tests/models/test_numba_kernels.py``). The wrappers at the end take the parts of a
:class:`~.compact.CompactMatrix` (or a :class:`~.narrow.NarrowMatrix`'s two column ranges) and index
through unsigned views of the column ids (a signed index costs a negative-index test per entry).
The loops add in entry order without reassociation, so a result depends on the data alone; a change
that moves a result's bits must raise :data:`.kernels.ARITHMETIC`. The log-sum-exps take ``exp`` and
``log`` from :mod:`.fixed` (fdlibm's, in a written order), not from the C library, whose variants
differ between CPUs; no loop is compiled with fastmath (which would let LLVM reorder sums and fuse
multiply-adds by CPU).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .fixed_constants import (EXP_3HALF_LN2, EXP_HALF_LN2, EXP_INVLN2, EXP_LN2HI, EXP_LN2LO, EXP_O_THRESHOLD,
                              EXP_P1, EXP_P2, EXP_P3, EXP_P4, EXP_P5, EXP_TINY, EXP_TWOM1000,
                              EXP_U_THRESHOLD, LANES, LOG_LG1, LOG_LG2, LOG_LG3, LOG_LG4, LOG_LG5, LOG_LG6,
                              LOG_LG7, LOG_LN2_HI, LOG_LN2_LO)


# ------------------------------------------------------------------ arithmetic of :mod:`.fixed`
# Not the C library's exp and log (glibc's differ between CPUs with FMA and without) nor a
# vector library's: fdlibm's, in IEEE operations whose order is written here.
@njit(cache=True, nogil=True, inline="always")
def fixed_exp(x):
    # fdlibm's e_exp.c (:func:`.fixed.exp` is the same, vectorised)
    if x != x:
        return x + x
    if x > EXP_O_THRESHOLD:
        return np.inf
    if x < EXP_U_THRESHOLD:
        return 0.0
    ax = abs(x)
    if ax < EXP_TINY:
        return 1.0 + x
    if ax < EXP_HALF_LN2:
        k = 0
    elif ax < EXP_3HALF_LN2:
        k = 1 if x > 0 else -1
    else:
        k = int(EXP_INVLN2 * x + (0.5 if x > 0 else -0.5))
    t = np.float64(k)
    hi = x - t * EXP_LN2HI
    lo = t * EXP_LN2LO
    r = hi - lo
    tt = r * r
    c = r - tt * (EXP_P1 + tt * (EXP_P2 + tt * (EXP_P3 + tt * (EXP_P4 + tt * EXP_P5))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    # y 2^k, exact unless it underflows (then one rounding, in the last product); 2^k made from
    # its bits, where the C library's ldexp is a call (2.5 times the cost of the rest)
    if k < -1021:
        return y * pow2(k + 1000) * EXP_TWOM1000
    if k > 1023:
        return y * 2.0 * pow2(k - 1)
    return y * pow2(k)


@njit(cache=True, nogil=True, inline="always")
def pow2(k):
    # 2^k for -1022 <= k <= 1023, from its IEEE bits
    return np.int64((k + 1023) << 52).view(np.float64)


@njit(cache=True, nogil=True, inline="always")
def fixed_log(x):
    # fdlibm's e_log.c (:func:`.fixed.log` is the same, vectorised)
    if x != x or x == np.inf:
        return x + x
    if x == 0.0:
        return -np.inf
    if x < 0.0:
        return np.nan
    m, e = math.frexp(x)
    m1 = 2.0 * m
    hx = int((m1 - 1.0) * 1048576.0)
    if hx >= 0x6a09c:
        f = m - 1.0
        k = np.float64(e)
    else:
        f = m1 - 1.0
        k = np.float64(e - 1)
    if hx == 0 or hx >= 0xffffe:
        if f == 0.0:
            if k == 0.0:
                return 0.0
            return k * LOG_LN2_HI + k * LOG_LN2_LO
        rs = f * f * (0.5 - 0.33333333333333333 * f)
        if k == 0.0:
            return f - rs
        return k * LOG_LN2_HI - ((rs - k * LOG_LN2_LO) - f)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (LOG_LG2 + w * (LOG_LG4 + w * LOG_LG6))
    t2 = z * (LOG_LG1 + w * (LOG_LG3 + w * (LOG_LG5 + w * LOG_LG7)))
    r = t2 + t1
    if hx >= 0x6147a and hx <= 0x6b851:
        hfsq = 0.5 * f * f
        if k == 0.0:
            return f - (hfsq - s * (hfsq + r))
        return k * LOG_LN2_HI - ((hfsq - (s * (hfsq + r) + k * LOG_LN2_LO)) - f)
    if k == 0.0:
        return f - s * (f - r)
    return k * LOG_LN2_HI - ((s * (f - r) - k * LOG_LN2_LO) - f)


@njit(cache=True, nogil=True)
def fixed_exp_array(x, out):
    for i in range(len(x)):
        out[i] = fixed_exp(x[i])


@njit(cache=True, nogil=True)
def fixed_log_array(x, out):
    for i in range(len(x)):
        out[i] = fixed_log(x[i])


@njit(cache=True, nogil=True)
def fixed_dot(a, b):
    # :func:`.fixed.dot`: LANES running sums, lane j adding the products of i = j (mod LANES) in
    # index order, then the lanes added pairwise; every lane independent of the others, so the
    # vectoriser may run them in any width without changing a bit
    acc = np.zeros(LANES)
    n = len(a)
    full = n - n % LANES
    for i in range(0, full, LANES):
        for j in range(LANES):
            acc[j] += a[i + j] * b[i + j]
    for j in range(n - full):
        acc[j] += a[full + j] * b[full + j]
    h = LANES // 2
    while h > 0:
        for j in range(h):
            acc[j] += acc[j + h]
        h //= 2
    return acc[0]



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
    # in r until r replaces it. The exps in a loop of their own, before the sums (the same
    # operations in the same order): fused with the sums, fixed_exp took a quarter more time an
    # evaluation than the C library's exp on bench_train's rows; on its own, where the core
    # overlaps one exp's long chain of dependent operations with the next, it takes less.
    if expected_f:
        # Minimum risk (w = each candidate's gain g): value -ḡ, r = -p (g - ḡ).
        for i in range(a, b):
            r[i - a] = fixed_exp(s[i - a] - m)
        z = 0.0
        for i in range(a, b):
            z += r[i - a]
        inv_z = 1.0 / z
        g_bar = 0.0
        for i in range(a, b):
            g_bar += r[i - a] * inv_z * w[i]
        for i in range(a, b):
            r[i - a] = -(r[i - a] * inv_z) * (w[i] - g_bar)
        return -g_bar
    for i in range(a, b):
        r[i - a] = fixed_exp(s[i - a] - m)
    z = 0.0
    zc = 0.0
    for i in range(a, b):
        e = r[i - a]
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
                zc += w[i] * fixed_exp(s[i - a] - mc)
        inv_zc = 1.0 / zc
        for i in range(a, b):
            e = r[i - a]
            ri = e * inv_z
            if w[i] > 0:
                ri -= w[i] * fixed_exp(s[i - a] - mc) * inv_zc
            r[i - a] = ri
        return fixed_log(z) - (fixed_log(zc) + (mc - m))
    inv_zc = 1.0 / zc
    # no branch on w: a weight of 0 subtracts an exact 0.0, the same bits as not subtracting
    for i in range(a, b):
        e = r[i - a]
        r[i - a] = e * inv_z - w[i] * e * inv_zc
    return fixed_log(z) - fixed_log(zc)


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


# ------------------------------------------------------------------ the preconditioner's diagonal
@njit(cache=True, nogil=True, inline="always")


def square_sums(ip, ix, data, ones, r0, r1, k, out):
    # out[c] += f²/k over rows r0:r1's entries of one part, in entry order (f = 1 in the ones part)
    for i in range(r0, r1):
        for e in range(ip[i], ip[i + 1]):
            v = 1.0 if ones else np.float64(data[e])
            out[ix[e]] += v * v * k


@njit(cache=True, nogil=True, inline="always")


def column_sums(ip, ix, data, ones, r0, r1, acc, seen, touched, m):
    # acc[c] += f over rows r0:r1's entries of one part, in entry order; each column met for the
    # first time noted in touched[m:] (returns the new m)
    for i in range(r0, r1):
        for e in range(ip[i], ip[i + 1]):
            c = ix[e]
            if not seen[c]:
                seen[c] = True
                touched[m] = c
                m += 1
            acc[c] += 1.0 if ones else np.float64(data[e])
    return m


@njit(cache=True, nogil=True)


def diagonal_sums(ip0, ix0, ip1, ix1, d1, ip2, ix2, d2, offsets, inv_k, chunk, d):
    # ``Σ f²/k`` and ``(Σ_x f)²/k²`` per column, in the order of numpy's path in
    # :func:`ranker.models.precondition.hessian_diagonal` (its bits): sentences in chunks of
    # ``chunk``, each chunk's sums from zero added to the totals; within a chunk ``Σ f²/k`` part by
    # part, row by row; a sentence's column sums in entry order (parts, rows, entries), their
    # squares added to the chunk's sums sentence by sentence.
    n = len(offsets) - 1
    second = np.zeros(d)
    first = np.zeros(d)
    cs = np.zeros(d)
    cf = np.zeros(d)
    acc = np.zeros(d)
    seen = np.zeros(d, np.bool_)
    touched = np.empty(d, np.int64)
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        cs[:] = 0.0
        cf[:] = 0.0
        for j in range(a, b):
            square_sums(ip0, ix0, d1, True, offsets[j], offsets[j + 1], inv_k[j], cs)
        for j in range(a, b):
            square_sums(ip1, ix1, d1, False, offsets[j], offsets[j + 1], inv_k[j], cs)
        for j in range(a, b):
            square_sums(ip2, ix2, d2, False, offsets[j], offsets[j + 1], inv_k[j], cs)
        for j in range(a, b):
            k = inv_k[j]
            m = column_sums(ip0, ix0, d1, True, offsets[j], offsets[j + 1], acc, seen, touched, 0)
            m = column_sums(ip1, ix1, d1, False, offsets[j], offsets[j + 1], acc, seen, touched, m)
            m = column_sums(ip2, ix2, d2, False, offsets[j], offsets[j + 1], acc, seen, touched, m)
            for t in range(m):
                c = touched[t]
                s = acc[c]
                cf[c] += s * s * k * k
                acc[c] = 0.0
                seen[c] = False
        for c in range(d):
            second[c] += cs[c]
            first[c] += cf[c]
    return second, first


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


def hessian_sums(parts, offsets, inv_k, chunk, d):
    """The preconditioner's two sums per column (:func:`ranker.models.precondition.hessian_diagonal`)."""
    return diagonal_sums(*unsigned(parts), offsets, inv_k, chunk, d)
