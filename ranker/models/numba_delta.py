"""numba's compiled loops that build difference rows (:mod:`.delta` says what they are and why).

Imported by :mod:`.delta` when numba is installed (the ``fast`` extra): each sentence's spanning
tree under the Hamming distance (:func:`tree`, Prim's algorithm), a row's difference from its
parent (:func:`diff_row`), a slab of sentences turned into difference rows (:func:`slab`), and the
sorting of a compact or narrow matrix's rows into one CSR array (:func:`scatter_part`,
:func:`sort_rows`). Module-level functions, so a test calls each directly and holds it against
numpy and scipy (``tests/models/test_numba_kernels.py``). A change that moves the rows they build
moves a fit's bits and must raise :data:`.kernels.ARITHMETIC`.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def tree(indptr, indices, data, a, b, where, A, m, order, parent):
    # Prim's minimum spanning tree over rows a:b (sorted column ids) under the Hamming
    # distance, counted through each column's minority: with M_c the rows whose value in
    # column c differs from a reference value v_c (0, or the common value of a column present
    # with one value in most rows), rows i and j disagree on c iff exactly one of them is in
    # M_c, or both are with different values: d(i, j) = m_i + m_j - A_ij, where m_i counts
    # the columns whose M_c holds i and A_ij adds 2 (same value) or 1 per column holding both.
    n = b - a
    s, e = indptr[a], indptr[b]
    # local column numbers
    n_loc = 0
    cols = np.empty(e - s, np.int64)
    for k in range(s, e):
        c = indices[k]
        if where[c] < 0:
            where[c] = n_loc
            cols[n_loc] = c
            n_loc += 1
    count = np.zeros(n_loc, np.int64)
    same = np.ones(n_loc, np.bool_)
    first = np.zeros(n_loc)
    for k in range(s, e):
        lc = where[indices[k]]
        if count[lc] == 0:
            first[lc] = data[k]
        elif data[k] != first[lc]:
            same[lc] = False
        count[lc] += 1
    # each column's minority rows: present ones, or absent ones where that is fewer
    flip = np.zeros(n_loc, np.bool_)
    size = np.empty(n_loc, np.int64)
    for lc in range(n_loc):
        flip[lc] = same[lc] and 2 * count[lc] > n
        size[lc] = n - count[lc] if flip[lc] else count[lc]
    start = np.zeros(n_loc + 1, np.int64)
    for lc in range(n_loc):
        start[lc + 1] = start[lc] + size[lc]
    rows = np.empty(start[n_loc], np.int64)
    vals = np.empty(start[n_loc])
    fill = start[:-1].copy()
    present = np.zeros(n, np.bool_)
    for i in range(n):
        for k in range(indptr[a + i], indptr[a + i + 1]):
            lc = where[indices[k]]
            if not flip[lc]:
                rows[fill[lc]] = i
                vals[fill[lc]] = data[k]
                fill[lc] += 1
    # absent rows of the flipped columns: one pass per column over its present rows
    by_col_start = np.zeros(n_loc + 1, np.int64)
    for lc in range(n_loc):
        by_col_start[lc + 1] = by_col_start[lc] + (count[lc] if flip[lc] else 0)
    pres = np.empty(by_col_start[n_loc], np.int64)
    pfill = by_col_start[:-1].copy()
    for i in range(n):
        for k in range(indptr[a + i], indptr[a + i + 1]):
            lc = where[indices[k]]
            if flip[lc]:
                pres[pfill[lc]] = i
                pfill[lc] += 1
    for lc in range(n_loc):
        if not flip[lc]:
            continue
        for q in range(by_col_start[lc], by_col_start[lc + 1]):
            present[pres[q]] = True
        for i in range(n):
            if not present[i]:
                rows[fill[lc]] = i
                vals[fill[lc]] = 0.0
                fill[lc] += 1
        for q in range(by_col_start[lc], by_col_start[lc + 1]):
            present[pres[q]] = False
    for q in range(n_loc):
        where[cols[q]] = -1
    # m_i and A (upper triangle, A[i, j] with i < j), a row of A at a time so that the row
    # being counted stays in the core's first-level cache: each row's minority entries
    # (positions in ``rows``), each with its column
    xcol = np.empty(start[n_loc], np.int64)
    for lc in range(n_loc):
        for x in range(start[lc], start[lc + 1]):
            xcol[x] = lc
    rstart = np.zeros(n + 1, np.int64)
    for x in range(start[n_loc]):
        rstart[rows[x] + 1] += 1
    for i in range(n):
        rstart[i + 1] += rstart[i]
    rpos = np.empty(start[n_loc], np.int64)
    rfill = rstart[:-1].copy()
    for x in range(start[n_loc]):
        rpos[rfill[rows[x]]] = x
        rfill[rows[x]] += 1
    urows = rows.view(np.uint64)    # unsigned indices: no negative-index test in the pair loop
    one = np.uint64(1)
    for i in range(n):
        m[i] = rstart[i + 1] - rstart[i]
        Ai = A[i]
        for j in range(n):
            Ai[j] = 0
        for q in range(rstart[i], rstart[i + 1]):
            x = rpos[q]
            lc = xcol[x]
            y, end = np.uint64(x + 1), np.uint64(start[lc + 1])
            if same[lc]:
                # one value (or absence) throughout the minority: every pair agrees
                while y < end:
                    Ai[urows[y]] += 2
                    y += one
            else:
                while y < end:
                    Ai[urows[y]] += 2 if vals[x] == vals[y] else 1
                    y += one
    # the lower triangle mirrored in 64 x 64 tiles, so that Prim's loop reads the row of A of
    # the row it adds (contiguous) instead of a column (a cache miss an element)
    for bi in range(0, n, 64):
        for bj in range(bi, n, 64):
            for i in range(bi, min(bi + 64, n)):
                for j in range(max(i + 1, bj), min(bj + 64, n)):
                    A[j, i] = A[i, j]
    # Prim from the empty row: a row whose nearest neighbour is further than its own entries
    # keeps them (a tree of its own: ``parent`` -1), so no row takes more than it did
    best = np.empty(n, np.int64)
    done = np.zeros(n, np.bool_)
    for i in range(n):
        best[i] = indptr[a + i + 1] - indptr[a + i]
        parent[i] = -1
    for t in range(n):
        pick, d = -1, np.int64(1) << 62
        for i in range(n):
            if not done[i] and best[i] < d:
                pick, d = i, best[i]
        done[pick] = True
        order[t] = pick
        Ap = A[pick]
        for i in range(n):
            if not done[i]:
                dd = m[i] + m[pick] - Ap[i]
                if dd < best[i]:
                    best[i] = dd
                    parent[i] = pick


@njit(cache=True, nogil=True)
def diff_row(indptr, indices, data, i, p, out_idx, out_val, at):
    # entries of row i minus row p (sorted columns), written from ``at``; returns the new end
    ki, ei = indptr[i], indptr[i + 1]
    kp, ep = indptr[p], indptr[p + 1]
    while ki < ei or kp < ep:
        if kp >= ep or (ki < ei and indices[ki] < indices[kp]):
            out_idx[at] = indices[ki]
            out_val[at] = data[ki]
            at += 1
            ki += 1
        elif ki >= ei or indices[kp] < indices[ki]:
            out_idx[at] = indices[kp]
            out_val[at] = -data[kp]
            at += 1
            kp += 1
        else:
            v = data[ki] - data[kp]
            if v != 0.0:
                out_idx[at] = indices[ki]
                out_val[at] = v
                at += 1
            ki += 1
            kp += 1
    return at


@njit(cache=True, nogil=True)
def slab(indptr, indices, data, offsets, n_cols):
    # every sentence's tree, then its difference rows in the tree's order
    n_rows = offsets[-1]
    biggest = 1
    for j in range(len(offsets) - 1):
        biggest = max(biggest, offsets[j + 1] - offsets[j])
    where = np.full(n_cols, -1, np.int64)
    A = np.zeros((biggest, biggest), np.int32)
    m = np.zeros(biggest, np.int64)
    order = np.empty(n_rows, np.int64)        # new row -> old row
    back = np.zeros(n_rows, np.int32)         # new row - its parent's new row (0: a root)
    par = np.empty(biggest, np.int64)
    local_order = np.empty(biggest, np.int64)
    pos = np.empty(biggest, np.int64)
    for j in range(len(offsets) - 1):
        a, b = offsets[j], offsets[j + 1]
        n = b - a
        tree(indptr, indices, data, a, b, where, A, m, local_order, par)
        for t in range(n):
            pos[local_order[t]] = t
        for t in range(n):
            i = local_order[t]
            order[a + t] = a + i
            back[a + t] = 0 if par[i] < 0 else t - pos[par[i]]
    # lengths, then entries
    lens = np.zeros(n_rows, np.int64)
    cap = 0
    for r in range(n_rows):
        cap = max(cap, indptr[r + 1] - indptr[r])
    scratch_i = np.empty(2 * cap + 1, np.int64)
    scratch_v = np.empty(2 * cap + 1)
    for r in range(n_rows):
        if back[r] > 0:
            lens[r] = diff_row(indptr, indices, data, order[r], order[r - back[r]], scratch_i, scratch_v, 0)
        else:
            lens[r] = indptr[order[r] + 1] - indptr[order[r]]
    out_ptr = np.zeros(n_rows + 1, np.int64)
    for r in range(n_rows):
        out_ptr[r + 1] = out_ptr[r] + lens[r]
    out_idx = np.empty(out_ptr[-1], np.int32)
    out_val = np.empty(out_ptr[-1])
    for r in range(n_rows):
        at = out_ptr[r]
        if back[r] > 0:
            end = diff_row(indptr, indices, data, order[r], order[r - back[r]], scratch_i, scratch_v, 0)
            for q in range(end):
                out_idx[at + q] = scratch_i[q]
                out_val[at + q] = scratch_v[q]
        else:
            k0 = indptr[order[r]]
            for q in range(lens[r]):
                out_idx[at + q] = indices[k0 + q]
                out_val[at + q] = data[k0 + q]
    return order, back, out_ptr, out_idx, out_val


@njit(cache=True, nogil=True)
def scatter_part(indptr, ids, data, has_data, col_off, a, b, out_ptr, fill, out_idx, out_val):
    # rows a:b of one part into the slab's rows (after the entries of earlier parts)
    for i in range(a, b):
        at = out_ptr[i - a] + fill[i - a]
        for k in range(indptr[i], indptr[i + 1]):
            out_idx[at] = np.int64(ids[k]) + col_off
            out_val[at] = np.float64(data[k]) if has_data else 1.0
            at += 1
        fill[i - a] = at - out_ptr[i - a]


@njit(cache=True, nogil=True)
def sort_rows(out_ptr, out_idx, out_val):
    for i in range(len(out_ptr) - 1):
        s, e = out_ptr[i], out_ptr[i + 1]
        if e - s > 1:
            o = np.argsort(out_idx[s:e], kind="mergesort")
            out_idx[s:e] = out_idx[s:e][o]
            out_val[s:e] = out_val[s:e][o]
