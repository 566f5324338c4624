"""numba's loops naming one node's properties, family by family, for :mod:`.name_kernels`'s walk.

Each ``*_names`` function here is the node family of the same name in :mod:`.families` or
:mod:`.reranker_families` for the options :mod:`.compiled` accepts, and emits the same multiset of
names (every value 1.0) through :func:`.name_tokens.emit_name`; ``tests/features/test_compiled.py``
holds the two against each other. A family that reads a whole tree (``neighbours/1``,
``embedding/1``) is in :mod:`.name_tree_loops`: the walk calls these once per distinct node
under its parent's category, those once per tree.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .name_tokens import (
    F_EDGES2, F_HEADS, F_HEAD_TREE, F_WORD, F_WPROJ, N_FAMILIES, O_COPAR_DEPTH, O_DEPS_WORDS, O_EDGES1_WORDS,
    O_HEADS_TWO, T_0, T_ARROW, T_AT, T_BOS, T_COLON, T_CP, T_DASH, T_DEP, T_DEPW, T_DOTS, T_E, T_E2, T_EDGE,
    T_EDGEW, T_EOS, T_EQ, T_FIRST, T_GT, T_H1, T_H1TW, T_H1WT, T_H2, T_HAT, T_HT, T_HV, T_KIND, T_LAST, T_LP,
    T_LT, T_NON, T_NT, T_P, T_PAR, T_R2, T_RP, T_SLASH, T_SP, T_STAR, T_TOP, T_W, T_W2, T_WORD, T_WP,
    child_label_token, emit_name, form_token, heavy_bin_token, length_bin_token, put_token, tag_or_none,
    tag_or_word,
)


@njit(cache=True, nogil=True)
def _shapes_equal(a, b, depth, ncat, npre, cptr, child, stack):
    """``_shape(a, depth) == _shape(b, depth)`` of copar/1 (children: >= 0 a node, < 0 a word), without recursion."""
    top = 0
    stack[0, 0], stack[0, 1], stack[0, 2] = a, b, depth
    top = 1
    while top:
        top -= 1
        x, y, d = stack[top, 0], stack[top, 1], stack[top, 2]
        xw, yw = x < 0, y < 0
        xs = xw or d == 1 or npre[x]     # a shape that is one string: "W" or the category
        ys = yw or d == 1 or npre[y]
        if xs != ys:
            return False
        if xs:
            tx = T_W if xw else ncat[x]
            ty = T_W if yw else ncat[y]
            if tx != ty:
                return False
            continue
        if ncat[x] != ncat[y] or cptr[x + 1] - cptr[x] != cptr[y + 1] - cptr[y]:
            return False
        for i in range(cptr[x + 1] - cptr[x]):
            stack[top, 0], stack[top, 1], stack[top, 2] = child[cptr[x] + i], child[cptr[y] + i], d - 1
            top += 1
    return True


@njit(cache=True, nogil=True)
def edges1_names(n, up, tags, ncat, nstart, nend, nroot_base, lower, opt, st, md, out, k, need):
    if up == T_TOP and nroot_base[n] == 0:
        return k
    a, b = nstart[n], nend[n]
    lb, cat = length_bin_token(b - a), ncat[n]
    p = put_token(st, 0, T_EDGE)
    p = put_token(st, p, cat)
    p = put_token(st, p, T_COLON)
    p = put_token(st, p, lb)
    q = p
    p = put_token(st, q, T_FIRST)
    p = put_token(st, p, tag_or_none(tags, a))
    k = emit_name(st, md, out, k, p, need)
    p = put_token(st, q, T_LAST)
    p = put_token(st, p, tag_or_none(tags, b - 1))
    k = emit_name(st, md, out, k, p, need)
    if opt[O_EDGES1_WORDS]:
        p = put_token(st, 0, T_EDGEW)
        p = put_token(st, p, cat)
        q = p
        p = put_token(st, q, T_FIRST)
        p = put_token(st, p, lower[a])
        k = emit_name(st, md, out, k, p, need)
        p = put_token(st, q, T_LAST)
        p = put_token(st, p, lower[b - 1])
        k = emit_name(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def head_deps_names(n, tags, ncat, cptr, child, hw, lower, opt, st, md, out, k, need):
    h = hw[n]
    for i in range(cptr[n], cptr[n + 1]):
        c = child[i]
        d = -c - 1 if c < 0 else hw[c]
        if d == h:
            continue
        p = put_token(st, 0, T_DEP)
        p = put_token(st, p, ncat[n])
        p = put_token(st, p, T_SLASH)
        p = put_token(st, p, T_WORD if c < 0 else ncat[c])
        q = p
        p = put_token(st, p, T_COLON)
        p = put_token(st, p, tag_or_none(tags, h))
        p = put_token(st, p, T_GT)
        p = put_token(st, p, tag_or_none(tags, d))
        k = emit_name(st, md, out, k, p, need)
        if opt[O_DEPS_WORDS]:
            # "depw:" + the same relation: write the prefix again, then the words
            p = put_token(st, 0, T_DEPW)
            p = put_token(st, p, ncat[n])
            p = put_token(st, p, T_SLASH)
            p = put_token(st, p, T_WORD if c < 0 else ncat[c])
            p = put_token(st, p, T_COLON)
            p = put_token(st, p, lower[h])
            p = put_token(st, p, T_GT)
            p = put_token(st, p, lower[d])
            k = emit_name(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def _rule_name(x, tags, ncat, cptr, child, st):
    # "R2:{cat x}->{child labels joined by spaces}"
    p = put_token(st, 0, T_R2)
    p = put_token(st, p, ncat[x])
    p = put_token(st, p, T_ARROW)
    for i in range(cptr[x], cptr[x + 1]):
        if i > cptr[x]:
            p = put_token(st, p, T_SP)
        p = put_token(st, p, child_label_token(child[i], tags, ncat))
    return p


@njit(cache=True, nogil=True)
def rule_names(n, up, tags, ncat, npre, cptr, child, st, md, out, k, need):
    # rule/1 with ancestors 2, no lexical: each phrase child of n with chain (cat n, up); at the root n itself with TOP
    for i in range(cptr[n], cptr[n + 1]):
        x = child[i]
        if x < 0 or npre[x]:
            continue
        p = _rule_name(x, tags, ncat, cptr, child, st)
        p = put_token(st, p, T_HAT)
        p = put_token(st, p, ncat[n])
        p = put_token(st, p, T_HAT)
        p = put_token(st, p, up)
        k = emit_name(st, md, out, k, p, need)
    if up == T_TOP:
        p = _rule_name(n, tags, ncat, cptr, child, st)
        p = put_token(st, p, T_HAT)
        p = put_token(st, p, T_TOP)
        k = emit_name(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def heads_names(n, tags, npre, cptr, child, hc, hw, lower, wclass, opt, lex, st, md, out, k, need):
    h, j = hw[n], hc[n]
    kinds = lex[F_HEADS]
    has_tag = has_word = False
    for kind in kinds:
        has_tag |= kind == 0
        has_word |= kind == 1
    for i in range(cptr[n + 1] - cptr[n]):
        if i == j:
            continue
        c = child[cptr[n] + i]
        d = -c - 1 if c < 0 else hw[c]
        a = T_LT if d < h else T_GT
        for kind in kinds:
            if kind < 0:
                break
            p = put_token(st, 0, T_H1)
            p = put_token(st, p, T_KIND[kind])
            p = put_token(st, p, T_COLON)
            p = put_token(st, p, form_token(kind, tags, lower, wclass, h))
            p = put_token(st, p, a)
            p = put_token(st, p, form_token(kind, tags, lower, wclass, d))
            k = emit_name(st, md, out, k, p, need)
        if has_tag and has_word:
            p = put_token(st, 0, T_H1WT)
            p = put_token(st, p, lower[h])
            p = put_token(st, p, a)
            p = put_token(st, p, tag_or_word(tags, d))
            k = emit_name(st, md, out, k, p, need)
            p = put_token(st, 0, T_H1TW)
            p = put_token(st, p, tag_or_word(tags, h))
            p = put_token(st, p, a)
            p = put_token(st, p, lower[d])
            k = emit_name(st, md, out, k, p, need)
        if opt[O_HEADS_TWO] and c >= 0:
            m = c   # _dependents: down m's head path, the head words of the other children
            while m >= 0 and not npre[m]:
                jm = hc[m]
                for ii in range(cptr[m + 1] - cptr[m]):
                    if ii == jm:
                        continue
                    cc = child[cptr[m] + ii]
                    e = -cc - 1 if cc < 0 else hw[cc]
                    b = T_LT if e < d else T_GT
                    for kind in kinds:
                        if kind < 0:
                            break
                        if kind == 1:   # two levels: words would be too sparse
                            continue
                        p = put_token(st, 0, T_H2)
                        p = put_token(st, p, T_KIND[kind])
                        p = put_token(st, p, T_COLON)
                        p = put_token(st, p, form_token(kind, tags, lower, wclass, h))
                        p = put_token(st, p, a)
                        p = put_token(st, p, form_token(kind, tags, lower, wclass, d))
                        p = put_token(st, p, b)
                        p = put_token(st, p, form_token(kind, tags, lower, wclass, e))
                        k = emit_name(st, md, out, k, p, need)
                m = child[cptr[m] + jm]
    return k


@njit(cache=True, nogil=True)
def _head_tree_one(m, tags, ncat, npre, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need):
    w = hw[m]
    p = put_token(st, 0, T_HT)
    first = True
    while m >= 0 and not npre[m]:
        jm = hc[m]
        if not first:
            p = put_token(st, p, T_SP)
        first = False
        p = put_token(st, p, ncat[m])
        p = put_token(st, p, T_LP)
        for i in range(cptr[m + 1] - cptr[m]):
            if i:
                p = put_token(st, p, T_SP)
            if i == jm:
                p = put_token(st, p, T_STAR)
            p = put_token(st, p, child_label_token(child[cptr[m] + i], tags, ncat))
        p = put_token(st, p, T_RP)
        m = child[cptr[m] + jm]
    k = emit_name(st, md, out, k, p, need)
    for kind in lex[F_HEAD_TREE]:
        if kind < 0:
            break
        q = put_token(st, p, T_AT)
        q = put_token(st, q, T_KIND[kind])
        q = put_token(st, q, T_EQ)
        q = put_token(st, q, form_token(kind, tags, lower, wclass, w))
        k = emit_name(st, md, out, k, q, need)
    return k


@njit(cache=True, nogil=True)
def head_tree_names(n, up, tags, ncat, npre, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need):
    # maximal_projections: the non-head phrase children, and the root itself
    j = hc[n]
    for i in range(cptr[n + 1] - cptr[n]):
        c = child[cptr[n] + i]
        if i == j or c < 0 or npre[c]:
            continue
        k = _head_tree_one(c, tags, ncat, npre, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need)
    if up == T_TOP:
        k = _head_tree_one(n, tags, ncat, npre, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need)
    return k


@njit(cache=True, nogil=True, inline="always")
def _spine(x, side, ncat, cptr, child, st, p):
    # categories from x down its first (side 0) or last (1) children to a word, joined by ">"; WORD for a word
    if x < 0:
        return put_token(st, p, T_WORD)
    first = True
    while x >= 0:
        if not first:
            p = put_token(st, p, T_GT)
        first = False
        p = put_token(st, p, ncat[x])
        x = child[cptr[x]] if side == 0 else child[cptr[x + 1] - 1]
    return p


@njit(cache=True, nogil=True)
def ngram_tree_names(n, ncat, cptr, child, st, md, out, k, need):
    for i in range(cptr[n], cptr[n + 1] - 1):
        p = put_token(st, 0, T_NT)
        p = put_token(st, p, ncat[n])
        p = put_token(st, p, T_LP)
        p = _spine(child[i], 1, ncat, cptr, child, st, p)
        p = put_token(st, p, T_SP)
        p = _spine(child[i + 1], 0, ncat, cptr, child, st, p)
        p = put_token(st, p, T_RP)
        k = emit_name(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def heavy_names(n, ncat, nstart, nend, punct, content_end, nw, st, md, out, k, need):
    b = nend[n]
    p = put_token(st, 0, T_HV)
    p = put_token(st, p, ncat[n])
    p = put_token(st, p, T_COLON)
    p = put_token(st, p, heavy_bin_token(b - nstart[n]))
    p = put_token(st, p, T_COLON)
    p = put_token(st, p, T_E if b >= content_end else T_DASH)
    p = put_token(st, p, T_P if b < nw and punct[b] else T_DASH)
    return emit_name(st, md, out, k, p, need)


@njit(cache=True, nogil=True)
def copar_names(n, tags, ncat, npre, cptr, child, conj, punct_tag, opt, st, md, out, k, need, scratch, stack):
    # conjuncts(): children other than conjunctions and punctuation preterminals, when a conjunction is among them
    any_conj = False
    for i in range(cptr[n], cptr[n + 1]):
        if conj[child_label_token(child[i], tags, ncat)]:
            any_conj = True
            break
    if not any_conj:
        return k
    m = 0
    for i in range(cptr[n], cptr[n + 1]):
        c = child[i]
        if c < 0:
            continue
        lab = ncat[c]
        if conj[lab] or (npre[c] and punct_tag[lab]):
            continue
        scratch[m] = c
        m += 1
    depth = opt[O_COPAR_DEPTH]
    for i in range(m - 1):
        a, b = scratch[i], scratch[i + 1]
        for d in range(1, depth + 1):
            same = _shapes_equal(a, b, d, ncat, npre, cptr, child, stack)
            p = put_token(st, 0, T_CP)
            p = put_token(st, p, T_0 + d)
            p = put_token(st, p, T_PAR if same else T_NON)
            k = emit_name(st, md, out, k, p, need)
            if not same:
                for e in range(d + 1, depth + 1):
                    p = put_token(st, 0, T_CP)
                    p = put_token(st, p, T_0 + e)
                    p = put_token(st, p, T_NON)
                    k = emit_name(st, md, out, k, p, need)
                break
    return k


@njit(cache=True, nogil=True)
def _word_emit(w, kk, chain, nchain, tags, lower, wclass, lex, st, md, out, k, need):
    # "W{k}{ch}:{form}^{chain joined by ^}" for each lexical kind
    for kind in lex[F_WORD]:
        if kind < 0:
            break
        p = put_token(st, 0, T_W2 + kk - 2)
        p = put_token(st, p, T_KIND[kind])
        p = put_token(st, p, T_COLON)
        p = put_token(st, p, form_token(kind, tags, lower, wclass, w))
        for i in range(nchain):
            p = put_token(st, p, T_HAT)
            p = put_token(st, p, chain[i])
        k = emit_name(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def _word_below(x, depth, kk, tail, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need):
    """The words ``depth`` levels below node ``x`` (1: its own word children), each with the categories
    from its parent up to ``x``, then ``tail``."""
    # an explicit walk: (node, level) on a stack; the path's categories kept by level
    path = np.empty(depth + 1, dtype=np.int64)
    sn = np.empty(64, dtype=np.int64)
    sl = np.empty(64, dtype=np.int64)
    sn[0], sl[0] = x, 0
    top = 1
    while top:
        top -= 1
        y, lv = sn[top], sl[top]
        # path[lv] is y's category; the chain written from the word's parent (level depth - 1) up to x
        path[depth - 1 - lv] = ncat[y]
        for i in range(cptr[y], cptr[y + 1]):
            c = child[i]
            if lv == depth - 1:
                if c < 0:
                    path[depth] = tail
                    k = _word_emit(-c - 1, kk, path, depth + 1, tags, lower, wclass, lex, st, md, out, k, need)
            elif c >= 0:
                if top >= sn.shape[0]:
                    sn2 = np.empty(2 * sn.shape[0], dtype=np.int64)
                    sl2 = np.empty(2 * sn.shape[0], dtype=np.int64)
                    sn2[:top], sl2[:top] = sn[:top], sl[:top]
                    sn, sl = sn2, sl2
                sn[top], sl[top] = c, lv + 1
                top += 1
    return k


@njit(cache=True, nogil=True)
def word_names(n, up, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need):
    # word/1: for each number of ancestors kk, the words kk-1 levels below n with chain ... ^ up;
    # at the root also the words with fewer ancestors, chain ending in TOP
    for kk in lex[N_FAMILIES]:   # the ancestors, -1 padded
        if kk < 0:
            break
        if kk - 1 >= 1:
            k = _word_below(n, kk - 1, kk, up, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need)
        if up == T_TOP:   # ``up`` (int64), not the constant: one compiled _word_below, not two
            for d in range(1, kk - 1):
                k = _word_below(n, d, kk, up, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need)
    return k


@njit(cache=True, nogil=True)
def _wproj_one(m, parent, tags, ncat, hw, lower, wclass, lex, st, md, out, k, need):
    w = hw[m]
    for kind in lex[F_WPROJ]:
        if kind < 0:
            break
        p = put_token(st, 0, T_WP)
        p = put_token(st, p, T_KIND[kind])
        p = put_token(st, p, T_COLON)
        p = put_token(st, p, form_token(kind, tags, lower, wclass, w))
        p = put_token(st, p, T_COLON)
        p = put_token(st, p, ncat[m])
        p = put_token(st, p, T_HAT)
        p = put_token(st, p, parent)
        k = emit_name(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def wproj_names(n, up, tags, ncat, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need):
    j = hc[n]
    for i in range(cptr[n + 1] - cptr[n]):
        c = child[cptr[n] + i]
        if i == j or c < 0:
            continue
        k = _wproj_one(c, ncat[n], tags, ncat, hw, lower, wclass, lex, st, md, out, k, need)
    if up == T_TOP:   # ``up`` (int64), not the constant: one compiled _wproj_one, not two
        k = _wproj_one(n, up, tags, ncat, hw, lower, wclass, lex, st, md, out, k, need)
    return k


@njit(cache=True, nogil=True)
def edges2_names(n, tags, ncat, nstart, nend, lower, wclass, nw, lex, st, md, out, k, need):
    a, b = nstart[n], nend[n]
    p = put_token(st, 0, T_E2)
    p = put_token(st, p, ncat[n])
    p = put_token(st, p, T_COLON)
    p = put_token(st, p, heavy_bin_token(b - a))
    p = put_token(st, p, T_COLON)
    q = p
    p = put_token(st, q, tag_or_word(tags, a))
    p = put_token(st, p, T_DOTS)
    p = put_token(st, p, tag_or_word(tags, b - 1))
    k = emit_name(st, md, out, k, p, need)
    for kind in lex[F_EDGES2]:
        if kind < 0:
            break
        p = put_token(st, q, T_KIND[kind])
        p = put_token(st, p, T_LT)
        p = put_token(st, p, form_token(kind, tags, lower, wclass, a - 1) if a > 0 else T_BOS)
        k = emit_name(st, md, out, k, p, need)
        p = put_token(st, q, T_KIND[kind])
        p = put_token(st, p, T_GT)
        p = put_token(st, p, form_token(kind, tags, lower, wclass, b) if b < nw else T_EOS)
        k = emit_name(st, md, out, k, p, need)
    return k
