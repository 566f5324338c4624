"""numba's loops naming the properties of a whole tree (``neighbours/1``, ``embedding/1``) for :mod:`.name_kernels`.

Apart from :mod:`.name_node_loops` because they are called once per tree, not once per distinct
node, and first list the tree's phrases (:func:`phrases_of`). Each emits the same multiset of names
as the Python family of the same name (``tests/features/test_compiled.py``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .name_tokens import (
    O_NB_BEFORE, T_0, T_BOS, T_COLON, T_EMBED, T_EOS, T_NB, T_SP, T_US, emit_name, heavy_bin_token, put_token,
    tag_or_word,
)


@njit(cache=True, nogil=True)
def phrases_of(root, npre, cptr, child, scratch):
    """The tree's phrases (nodes that are not preterminals) in pre-order into ``scratch``: how many."""
    m = 0
    stack = np.empty(64, dtype=np.int64)
    stack[0] = root
    top = 1
    while top:
        top -= 1
        x = stack[top]
        if npre[x]:
            continue
        scratch[m] = x
        m += 1
        need = top + cptr[x + 1] - cptr[x]
        if need > stack.shape[0]:
            s2 = np.empty(2 * need, dtype=np.int64)
            s2[:top] = stack[:top]
            stack = s2
        for i in range(cptr[x + 1] - 1, cptr[x] - 1, -1):
            c = child[i]
            if c >= 0:
                stack[top] = c
                top += 1
    return m


@njit(cache=True, nogil=True)
def neighbours_names(root, tags, ncat, npre, nstart, nend, cptr, child, opt, st, md, out, k, need, scratch):
    m = phrases_of(root, npre, cptr, child, scratch)
    size = tags.shape[0]
    for i in range(m):
        n = scratch[i]
        if n == root:
            continue
        a, b = nstart[n], nend[n]
        prev = tag_or_word(tags, a - 1) if a > 0 else T_BOS
        nxt = tag_or_word(tags, b) if b < size else T_EOS
        p = put_token(st, 0, T_NB)
        p = put_token(st, p, ncat[n])
        p = put_token(st, p, T_COLON)
        p = put_token(st, p, heavy_bin_token(b - a))
        p = put_token(st, p, T_COLON)
        q = p
        p = put_token(st, p, prev)
        p = put_token(st, p, T_US)
        p = put_token(st, p, nxt)
        k = emit_name(st, md, out, k, p, need)
        if opt[O_NB_BEFORE] == 2:
            p = put_token(st, q, tag_or_word(tags, a - 2) if a > 1 else T_BOS)
            p = put_token(st, p, T_SP)
            p = put_token(st, p, prev)
            p = put_token(st, p, T_US)
            p = put_token(st, p, nxt)
            k = emit_name(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def embedding_names(root, ncat, npre, nstart, nend, cptr, child, st, md, out, k, need, scratch):
    # embedding/1: for each phrase, how many phrases of its category are open above it
    m = phrases_of(root, npre, cptr, child, scratch)
    depth = np.zeros(st[2].shape[0], dtype=np.int64)    # by category token
    above_end = np.empty(m + 1, dtype=np.int64)
    above_cat = np.empty(m + 1, dtype=np.int64)
    top = 0
    for i in range(m):
        n = scratch[i]
        start = nstart[n]
        while top and above_end[top - 1] <= start:
            top -= 1
            depth[above_cat[top]] -= 1
        c = ncat[n]
        d = depth[c]
        if d:
            p = put_token(st, 0, T_EMBED)
            p = put_token(st, p, c)
            k = emit_name(st, md, out, k, p, need)
            p = put_token(st, p, T_COLON)
            p = put_token(st, p, T_0 + min(d, 4))
            k = emit_name(st, md, out, k, p, need)
        depth[c] = d + 1
        above_end[top], above_cat[top] = nend[n], c
        top += 1
    return k
