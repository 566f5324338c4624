"""numba's loops naming the properties of the Charniak-Johnson node families, straight into a model's columns.

Imported by :mod:`.compiled` when numba is installed (the ``fast`` extra). A property's name is
written as bytes into a buffer, token by token (a token is a literal of the families' templates, a
label, a word or a word class: :data:`LITERALS` first, the rest given per forest), hashed (FNV-1a,
64 bits) and looked up in the model's names by an open-addressing table whose hits are confirmed
byte for byte, so a property is kept exactly when its name, as the Python family would spell it,
is one of the model's. Each ``_family`` function here is the family of the same name in
:mod:`.families` or :mod:`.reranker_families` for the options :mod:`.compiled` accepts, and emits
the same multiset of names (every value 1.0); ``tests/features/test_compiled.py`` holds the two
against each other.

Nothing here allocates per property: names too long for the buffer, or more kept properties than
the output holds, are counted and :mod:`.compiled` runs the forest again with room for them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

#: The literal tokens of the families' names (token ``i`` is ``LITERALS[i]``); labels and words follow.
LITERALS = (
    "WORD", "None", "TOP", "<s>", "</s>", " ", "^", ":", "*", "(", ")", ">", "<", "=", "_", "..", "@", "/",
    "0", "1", "2", "3", "4", "3-4", "5-8", "9+", "5-6", "7-10", "11-20", "21+",
    "t", "w", "c", "edge:", ":first=", ":last=", "edgew:", "dep:", "depw:", "R2:", "->",
    "H1", "H1wt:", "H1tw:", "H2", "HT:", "NT:", "HV:", "E", "-", "P", "CP:", ":par", ":non",
    "W", "WP", "E2:", "NB:", "embed:", "W2", "W3", "W4",
)
_L = {s: i for i, s in enumerate(LITERALS)}
T_WORD, T_NONE, T_TOP, T_BOS, T_EOS = _L["WORD"], _L["None"], _L["TOP"], _L["<s>"], _L["</s>"]
T_SP, T_HAT, T_COLON, T_STAR, T_LP, T_RP = _L[" "], _L["^"], _L[":"], _L["*"], _L["("], _L[")"]
T_GT, T_LT, T_EQ, T_US, T_DOTS, T_AT, T_SLASH = _L[">"], _L["<"], _L["="], _L["_"], _L[".."], _L["@"], _L["/"]
T_0, T_1, T_2, T_3, T_4 = _L["0"], _L["1"], _L["2"], _L["3"], _L["4"]
T_3_4, T_5_8, T_9P, T_5_6, T_7_10, T_11_20, T_21P = (_L["3-4"], _L["5-8"], _L["9+"], _L["5-6"], _L["7-10"],
                                                     _L["11-20"], _L["21+"])
T_KIND = (_L["t"], _L["w"], _L["c"])   # a lexical kind's letter: tag, word, class
T_KT, T_KW, T_KC = T_KIND
T_EDGE, T_FIRST, T_LAST, T_EDGEW = _L["edge:"], _L[":first="], _L[":last="], _L["edgew:"]
T_DEP, T_DEPW, T_R2, T_ARROW = _L["dep:"], _L["depw:"], _L["R2:"], _L["->"]
T_H1, T_H1WT, T_H1TW, T_H2, T_HT, T_NT = _L["H1"], _L["H1wt:"], _L["H1tw:"], _L["H2"], _L["HT:"], _L["NT:"]
T_HV, T_E, T_DASH, T_P = _L["HV:"], _L["E"], _L["-"], _L["P"]
T_CP, T_PAR, T_NON = _L["CP:"], _L[":par"], _L[":non"]
T_WP, T_E2, T_NB, T_EMBED = _L["WP"], _L["E2:"], _L["NB:"], _L["embed:"]
T_W = _L["W"]   # a word's shape in copar/1
T_W2, T_W3, T_W4 = _L["W2"], _L["W3"], _L["W4"]

#: Which families a run computes (``on[F_...]``), in :data:`.compiled.COMPILED`'s order.
F_EDGES1, F_HEAD_DEPS, F_RULE, F_HEADS, F_HEAD_TREE, F_NGRAM_TREE, F_HEAVY, F_COPAR, F_WORD, F_WPROJ, \
    F_EDGES2, F_NEIGHBOURS, F_EMBEDDING = range(13)
N_FAMILIES = 13
#: The options read from ``opt``: edges/1 words, head_deps/1 words, heads/1 two levels, copar/1 depth,
#: neighbours/1 before.
O_EDGES1_WORDS, O_DEPS_WORDS, O_HEADS_TWO, O_COPAR_DEPTH, O_NB_BEFORE = range(5)

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(cache=True, nogil=True)
def fnv1a(data, a, b):
    """FNV-1a (64 bits) of ``data[a:b]``."""
    h = _FNV_OFFSET
    for i in range(a, b):
        h ^= np.uint64(data[i])
        h *= _FNV_PRIME
    return h


@njit(cache=True, nogil=True)
def index_table(blob, off, bits):
    """An open-addressing table of ``2**bits`` slots: each name's column at its hash's first free slot (-1 empty)."""
    size = 1 << bits
    mask = np.uint64(size - 1)
    table = np.full(size, -1, dtype=np.int32)
    for j in range(off.shape[0] - 1):
        s = fnv1a(blob, off[j], off[j + 1]) & mask
        while table[s] >= 0:
            s = (s + np.uint64(1)) & mask
        table[s] = j
    return table


@njit(cache=True, nogil=True, inline="always")
def _put(st, pos, tok):
    """Token ``tok``'s bytes written at ``pos`` of the name buffer (when they fit): the position after."""
    buf, blob, off = st[0], st[1], st[2]
    a = off[tok]
    n = off[tok + 1] - a
    if pos + n <= buf.shape[0]:
        for i in range(n):
            buf[pos + i] = blob[a + i]
    return pos + n


@njit(cache=True, nogil=True)
def _emit(st, md, out, k, n, need):
    """Look the name ``buf[:n]`` up in the model: its column appended to ``out`` at ``k`` when known; the next ``k``.

    ``need[0]`` keeps the longest name, ``k`` counts past ``out``'s end, so the caller can see
    that it must run again with more room.
    """
    buf = st[0]
    if n > need[0]:
        need[0] = n
    if n > buf.shape[0]:
        return k
    table, mblob, moff = md
    mask = np.uint64(table.shape[0] - 1)
    s = fnv1a(buf, 0, n) & mask
    while True:
        j = table[s]
        if j < 0:
            return k
        a = moff[j]
        if moff[j + 1] - a == n:
            same = True
            for i in range(n):
                if mblob[a + i] != buf[i]:
                    same = False
                    break
            if same:
                if k < out.shape[0]:
                    out[k] = j
                return k + 1
        s = (s + np.uint64(1)) & mask


@njit(cache=True, nogil=True, inline="always")
def _length_bin(n):
    # families.length_bin: 1, 2, 3-4, 5-8, 9+ ("1" for 0 and below)
    if n <= 1:
        return T_1
    if n == 2:
        return T_2
    if n <= 4:
        return T_3_4
    if n <= 8:
        return T_5_8
    return T_9P


@njit(cache=True, nogil=True, inline="always")
def _heavy_bin(n):
    # reranker_families.heavy_bin: 1-4 exactly (0 and below as the number: not met), then 5-6 .. 21+
    if n <= 0:
        return T_0
    if n <= 4:
        return T_0 + n
    if n <= 6:
        return T_5_6
    if n <= 10:
        return T_7_10
    if n <= 20:
        return T_11_20
    return T_21P


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
def forest_columns(jobs_node, jobs_up, jobs_tree, trees_root, tree_tags, ncat, npre, nstart, nend, nroot_base,
                   cptr, child, hc, hw, lower, wclass, punct, content_end, conj, punct_tag,
                   on, opt, lex, st, md, out, starts, need, scratch, stack):
    """The model's columns of every job (a distinct node under its parent's category) then of every tree.

    ``starts[i]`` is where job ``i``'s columns begin in ``out`` (the trees' after the jobs'); the
    total is returned (more than ``out`` holds: run again with that much room). Children are
    ``child[cptr[k]:cptr[k + 1]]``, a node's index or ``-(word + 1)``; ``tree_tags[t, i]`` is word
    ``i``'s tag token in tree ``t`` (-1: none); ``lower``/``wclass`` a word's tokens; ``lex`` holds
    each family's lexical kinds (0 tag, 1 word, 2 class) as ``lex[family, :]``, -1 padded.
    """
    k = 0
    nw = lower.shape[0]
    nj = jobs_node.shape[0]
    for job in range(nj):
        starts[job] = k
        n = jobs_node[job]
        up = jobs_up[job]
        tags = tree_tags[jobs_tree[job]]
        if npre[n]:
            if on[F_WORD]:
                k = _word(n, up, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need)
            continue
        if on[F_EDGES1]:
            k = _edges1(n, up, tags, ncat, nstart, nend, nroot_base, lower, opt, st, md, out, k, need)
        if on[F_HEAD_DEPS]:
            k = _head_deps(n, tags, ncat, cptr, child, hw, lower, opt, st, md, out, k, need)
        if on[F_RULE]:
            k = _rule(n, up, tags, ncat, npre, cptr, child, st, md, out, k, need)
        if on[F_HEADS]:
            k = _heads(n, tags, npre, cptr, child, hc, hw, lower, wclass, opt, lex, st, md, out, k, need)
        if on[F_HEAD_TREE]:
            k = _head_tree(n, up, tags, ncat, npre, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need)
        if on[F_NGRAM_TREE]:
            k = _ngram_tree(n, ncat, cptr, child, st, md, out, k, need)
        if on[F_HEAVY] and up != T_TOP:
            k = _heavy(n, ncat, nstart, nend, punct, content_end, nw, st, md, out, k, need)
        if on[F_COPAR]:
            k = _copar(n, tags, ncat, npre, cptr, child, conj, punct_tag, opt, st, md, out, k, need, scratch, stack)
        if on[F_WORD]:
            k = _word(n, up, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need)
        if on[F_WPROJ]:
            k = _wproj(n, up, tags, ncat, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need)
        if on[F_EDGES2] and up != T_TOP:
            k = _edges2(n, tags, ncat, nstart, nend, lower, wclass, nw, lex, st, md, out, k, need)
    for t in range(trees_root.shape[0]):
        starts[nj + t] = k
        tags = tree_tags[t]
        if on[F_NEIGHBOURS]:
            k = _neighbours(trees_root[t], tags, ncat, npre, nstart, nend, cptr, child, opt, st, md, out, k,
                            need, scratch)
        if on[F_EMBEDDING]:
            k = _embedding(trees_root[t], ncat, npre, nstart, nend, cptr, child, st, md, out, k, need, scratch)
    starts[nj + trees_root.shape[0]] = k
    return k


@njit(cache=True, nogil=True, inline="always")
def _tag_w(tags, i):
    t = tags[i]
    return T_WORD if t < 0 else t


@njit(cache=True, nogil=True, inline="always")
def _tag_n(tags, i):
    t = tags[i]
    return T_NONE if t < 0 else t


@njit(cache=True, nogil=True, inline="always")
def _form(kind, tags, lower, wclass, i):
    """Word ``i`` by lexical kind (0 tag or ``WORD``, 1 lower-cased word, 2 class)."""
    if kind == 0:
        return _tag_w(tags, i)
    if kind == 1:
        return lower[i]
    return wclass[i]


@njit(cache=True, nogil=True, inline="always")
def _child_label(c, tags, ncat):
    # families.child_label: a word's tag (or WORD), a node's category
    return _tag_w(tags, -c - 1) if c < 0 else ncat[c]


@njit(cache=True, nogil=True)
def _edges1(n, up, tags, ncat, nstart, nend, nroot_base, lower, opt, st, md, out, k, need):
    if up == T_TOP and nroot_base[n] == 0:
        return k
    a, b = nstart[n], nend[n]
    lb, cat = _length_bin(b - a), ncat[n]
    p = _put(st, 0, T_EDGE)
    p = _put(st, p, cat)
    p = _put(st, p, T_COLON)
    p = _put(st, p, lb)
    q = p
    p = _put(st, q, T_FIRST)
    p = _put(st, p, _tag_n(tags, a))
    k = _emit(st, md, out, k, p, need)
    p = _put(st, q, T_LAST)
    p = _put(st, p, _tag_n(tags, b - 1))
    k = _emit(st, md, out, k, p, need)
    if opt[O_EDGES1_WORDS]:
        p = _put(st, 0, T_EDGEW)
        p = _put(st, p, cat)
        q = p
        p = _put(st, q, T_FIRST)
        p = _put(st, p, lower[a])
        k = _emit(st, md, out, k, p, need)
        p = _put(st, q, T_LAST)
        p = _put(st, p, lower[b - 1])
        k = _emit(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def _head_deps(n, tags, ncat, cptr, child, hw, lower, opt, st, md, out, k, need):
    h = hw[n]
    for i in range(cptr[n], cptr[n + 1]):
        c = child[i]
        d = -c - 1 if c < 0 else hw[c]
        if d == h:
            continue
        p = _put(st, 0, T_DEP)
        p = _put(st, p, ncat[n])
        p = _put(st, p, T_SLASH)
        p = _put(st, p, T_WORD if c < 0 else ncat[c])
        q = p
        p = _put(st, p, T_COLON)
        p = _put(st, p, _tag_n(tags, h))
        p = _put(st, p, T_GT)
        p = _put(st, p, _tag_n(tags, d))
        k = _emit(st, md, out, k, p, need)
        if opt[O_DEPS_WORDS]:
            # "depw:" + the same relation: write the prefix again, then the words
            p = _put(st, 0, T_DEPW)
            p = _put(st, p, ncat[n])
            p = _put(st, p, T_SLASH)
            p = _put(st, p, T_WORD if c < 0 else ncat[c])
            p = _put(st, p, T_COLON)
            p = _put(st, p, lower[h])
            p = _put(st, p, T_GT)
            p = _put(st, p, lower[d])
            k = _emit(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def _rule_name(x, tags, ncat, cptr, child, st):
    # "R2:{cat x}->{child labels joined by spaces}"
    p = _put(st, 0, T_R2)
    p = _put(st, p, ncat[x])
    p = _put(st, p, T_ARROW)
    for i in range(cptr[x], cptr[x + 1]):
        if i > cptr[x]:
            p = _put(st, p, T_SP)
        p = _put(st, p, _child_label(child[i], tags, ncat))
    return p


@njit(cache=True, nogil=True)
def _rule(n, up, tags, ncat, npre, cptr, child, st, md, out, k, need):
    # rule/1 with ancestors 2, no lexical: each phrase child of n with chain (cat n, up); at the root n itself with TOP
    for i in range(cptr[n], cptr[n + 1]):
        x = child[i]
        if x < 0 or npre[x]:
            continue
        p = _rule_name(x, tags, ncat, cptr, child, st)
        p = _put(st, p, T_HAT)
        p = _put(st, p, ncat[n])
        p = _put(st, p, T_HAT)
        p = _put(st, p, up)
        k = _emit(st, md, out, k, p, need)
    if up == T_TOP:
        p = _rule_name(n, tags, ncat, cptr, child, st)
        p = _put(st, p, T_HAT)
        p = _put(st, p, T_TOP)
        k = _emit(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def _heads(n, tags, npre, cptr, child, hc, hw, lower, wclass, opt, lex, st, md, out, k, need):
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
            p = _put(st, 0, T_H1)
            p = _put(st, p, T_KIND[kind])
            p = _put(st, p, T_COLON)
            p = _put(st, p, _form(kind, tags, lower, wclass, h))
            p = _put(st, p, a)
            p = _put(st, p, _form(kind, tags, lower, wclass, d))
            k = _emit(st, md, out, k, p, need)
        if has_tag and has_word:
            p = _put(st, 0, T_H1WT)
            p = _put(st, p, lower[h])
            p = _put(st, p, a)
            p = _put(st, p, _tag_w(tags, d))
            k = _emit(st, md, out, k, p, need)
            p = _put(st, 0, T_H1TW)
            p = _put(st, p, _tag_w(tags, h))
            p = _put(st, p, a)
            p = _put(st, p, lower[d])
            k = _emit(st, md, out, k, p, need)
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
                        p = _put(st, 0, T_H2)
                        p = _put(st, p, T_KIND[kind])
                        p = _put(st, p, T_COLON)
                        p = _put(st, p, _form(kind, tags, lower, wclass, h))
                        p = _put(st, p, a)
                        p = _put(st, p, _form(kind, tags, lower, wclass, d))
                        p = _put(st, p, b)
                        p = _put(st, p, _form(kind, tags, lower, wclass, e))
                        k = _emit(st, md, out, k, p, need)
                m = child[cptr[m] + jm]
    return k


@njit(cache=True, nogil=True)
def _head_tree_one(m, tags, ncat, npre, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need):
    w = hw[m]
    p = _put(st, 0, T_HT)
    first = True
    while m >= 0 and not npre[m]:
        jm = hc[m]
        if not first:
            p = _put(st, p, T_SP)
        first = False
        p = _put(st, p, ncat[m])
        p = _put(st, p, T_LP)
        for i in range(cptr[m + 1] - cptr[m]):
            if i:
                p = _put(st, p, T_SP)
            if i == jm:
                p = _put(st, p, T_STAR)
            p = _put(st, p, _child_label(child[cptr[m] + i], tags, ncat))
        p = _put(st, p, T_RP)
        m = child[cptr[m] + jm]
    k = _emit(st, md, out, k, p, need)
    for kind in lex[F_HEAD_TREE]:
        if kind < 0:
            break
        q = _put(st, p, T_AT)
        q = _put(st, q, T_KIND[kind])
        q = _put(st, q, T_EQ)
        q = _put(st, q, _form(kind, tags, lower, wclass, w))
        k = _emit(st, md, out, k, q, need)
    return k


@njit(cache=True, nogil=True)
def _head_tree(n, up, tags, ncat, npre, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need):
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
        return _put(st, p, T_WORD)
    first = True
    while x >= 0:
        if not first:
            p = _put(st, p, T_GT)
        first = False
        p = _put(st, p, ncat[x])
        x = child[cptr[x]] if side == 0 else child[cptr[x + 1] - 1]
    return p


@njit(cache=True, nogil=True)
def _ngram_tree(n, ncat, cptr, child, st, md, out, k, need):
    for i in range(cptr[n], cptr[n + 1] - 1):
        p = _put(st, 0, T_NT)
        p = _put(st, p, ncat[n])
        p = _put(st, p, T_LP)
        p = _spine(child[i], 1, ncat, cptr, child, st, p)
        p = _put(st, p, T_SP)
        p = _spine(child[i + 1], 0, ncat, cptr, child, st, p)
        p = _put(st, p, T_RP)
        k = _emit(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def _heavy(n, ncat, nstart, nend, punct, content_end, nw, st, md, out, k, need):
    b = nend[n]
    p = _put(st, 0, T_HV)
    p = _put(st, p, ncat[n])
    p = _put(st, p, T_COLON)
    p = _put(st, p, _heavy_bin(b - nstart[n]))
    p = _put(st, p, T_COLON)
    p = _put(st, p, T_E if b >= content_end else T_DASH)
    p = _put(st, p, T_P if b < nw and punct[b] else T_DASH)
    return _emit(st, md, out, k, p, need)


@njit(cache=True, nogil=True)
def _copar(n, tags, ncat, npre, cptr, child, conj, punct_tag, opt, st, md, out, k, need, scratch, stack):
    # conjuncts(): children other than conjunctions and punctuation preterminals, when a conjunction is among them
    any_conj = False
    for i in range(cptr[n], cptr[n + 1]):
        if conj[_child_label(child[i], tags, ncat)]:
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
            p = _put(st, 0, T_CP)
            p = _put(st, p, T_0 + d)
            p = _put(st, p, T_PAR if same else T_NON)
            k = _emit(st, md, out, k, p, need)
            if not same:
                for e in range(d + 1, depth + 1):
                    p = _put(st, 0, T_CP)
                    p = _put(st, p, T_0 + e)
                    p = _put(st, p, T_NON)
                    k = _emit(st, md, out, k, p, need)
                break
    return k


@njit(cache=True, nogil=True)
def _word_emit(w, kk, chain, nchain, tags, lower, wclass, lex, st, md, out, k, need):
    # "W{k}{ch}:{form}^{chain joined by ^}" for each lexical kind
    for kind in lex[F_WORD]:
        if kind < 0:
            break
        p = _put(st, 0, T_W2 + kk - 2)
        p = _put(st, p, T_KIND[kind])
        p = _put(st, p, T_COLON)
        p = _put(st, p, _form(kind, tags, lower, wclass, w))
        for i in range(nchain):
            p = _put(st, p, T_HAT)
            p = _put(st, p, chain[i])
        k = _emit(st, md, out, k, p, need)
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
def _word(n, up, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need):
    # word/1: for each number of ancestors kk, the words kk-1 levels below n with chain ... ^ up;
    # at the root also the words with fewer ancestors, chain ending in TOP
    for kk in lex[N_FAMILIES]:   # the ancestors, -1 padded
        if kk < 0:
            break
        if kk - 1 >= 1:
            k = _word_below(n, kk - 1, kk, up, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need)
        if up == T_TOP:
            for d in range(1, kk - 1):
                k = _word_below(n, d, kk, T_TOP, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k,
                                need)
    return k


@njit(cache=True, nogil=True)
def _wproj_one(m, parent, tags, ncat, hw, lower, wclass, lex, st, md, out, k, need):
    w = hw[m]
    for kind in lex[F_WPROJ]:
        if kind < 0:
            break
        p = _put(st, 0, T_WP)
        p = _put(st, p, T_KIND[kind])
        p = _put(st, p, T_COLON)
        p = _put(st, p, _form(kind, tags, lower, wclass, w))
        p = _put(st, p, T_COLON)
        p = _put(st, p, ncat[m])
        p = _put(st, p, T_HAT)
        p = _put(st, p, parent)
        k = _emit(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def _wproj(n, up, tags, ncat, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need):
    j = hc[n]
    for i in range(cptr[n + 1] - cptr[n]):
        c = child[cptr[n] + i]
        if i == j or c < 0:
            continue
        k = _wproj_one(c, ncat[n], tags, ncat, hw, lower, wclass, lex, st, md, out, k, need)
    if up == T_TOP:
        k = _wproj_one(n, T_TOP, tags, ncat, hw, lower, wclass, lex, st, md, out, k, need)
    return k


@njit(cache=True, nogil=True)
def _edges2(n, tags, ncat, nstart, nend, lower, wclass, nw, lex, st, md, out, k, need):
    a, b = nstart[n], nend[n]
    p = _put(st, 0, T_E2)
    p = _put(st, p, ncat[n])
    p = _put(st, p, T_COLON)
    p = _put(st, p, _heavy_bin(b - a))
    p = _put(st, p, T_COLON)
    q = p
    p = _put(st, q, _tag_w(tags, a))
    p = _put(st, p, T_DOTS)
    p = _put(st, p, _tag_w(tags, b - 1))
    k = _emit(st, md, out, k, p, need)
    for kind in lex[F_EDGES2]:
        if kind < 0:
            break
        p = _put(st, q, T_KIND[kind])
        p = _put(st, p, T_LT)
        p = _put(st, p, _form(kind, tags, lower, wclass, a - 1) if a > 0 else T_BOS)
        k = _emit(st, md, out, k, p, need)
        p = _put(st, q, T_KIND[kind])
        p = _put(st, p, T_GT)
        p = _put(st, p, _form(kind, tags, lower, wclass, b) if b < nw else T_EOS)
        k = _emit(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def _phrases(root, npre, cptr, child, scratch):
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
def _neighbours(root, tags, ncat, npre, nstart, nend, cptr, child, opt, st, md, out, k, need, scratch):
    m = _phrases(root, npre, cptr, child, scratch)
    size = tags.shape[0]
    for i in range(m):
        n = scratch[i]
        if n == root:
            continue
        a, b = nstart[n], nend[n]
        prev = _tag_w(tags, a - 1) if a > 0 else T_BOS
        nxt = _tag_w(tags, b) if b < size else T_EOS
        p = _put(st, 0, T_NB)
        p = _put(st, p, ncat[n])
        p = _put(st, p, T_COLON)
        p = _put(st, p, _heavy_bin(b - a))
        p = _put(st, p, T_COLON)
        q = p
        p = _put(st, p, prev)
        p = _put(st, p, T_US)
        p = _put(st, p, nxt)
        k = _emit(st, md, out, k, p, need)
        if opt[O_NB_BEFORE] == 2:
            p = _put(st, q, _tag_w(tags, a - 2) if a > 1 else T_BOS)
            p = _put(st, p, T_SP)
            p = _put(st, p, prev)
            p = _put(st, p, T_US)
            p = _put(st, p, nxt)
            k = _emit(st, md, out, k, p, need)
    return k


@njit(cache=True, nogil=True)
def _embedding(root, ncat, npre, nstart, nend, cptr, child, st, md, out, k, need, scratch):
    # embedding/1: for each phrase, how many phrases of its category are open above it
    m = _phrases(root, npre, cptr, child, scratch)
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
            p = _put(st, 0, T_EMBED)
            p = _put(st, p, c)
            k = _emit(st, md, out, k, p, need)
            p = _put(st, p, T_COLON)
            p = _put(st, p, T_0 + min(d, 4))
            k = _emit(st, md, out, k, p, need)
        depth[c] = d + 1
        above_end[top], above_cat[top] = nend[n], c
        top += 1
    return k
