"""The tokens numba's loops write a property's name with, and the model's names they look it up in.

Imported by the loops (:mod:`.name_node_loops`, :mod:`.name_tree_loops`) and, through
:mod:`.name_kernels`, by :mod:`.compiled`. A property's name is written as bytes into a buffer,
token by token (a token is a literal of the families' templates, a label, a word or a word class:
:data:`LITERALS` first, the rest given per forest), hashed (FNV-1a, 64 bits) and looked up in the
model's names by an open-addressing table (:func:`index_table`) whose hits are confirmed byte for
byte (:func:`emit_name`), so a property is kept exactly when its name, as the Python family would
spell it, is one of the model's. Kept apart from the loops because every family shares this one
way to spell and look up a name, and a change to it must be made once.

Nothing here allocates per property: names too long for the buffer, or more kept properties than
the output holds, are counted and :mod:`.compiled` runs the forest again with room for them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

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
def put_token(st, pos, tok):
    """Token ``tok``'s bytes written at ``pos`` of the name buffer (when they fit): the position after."""
    buf, blob, off = st[0], st[1], st[2]
    a = off[tok]
    n = off[tok + 1] - a
    if pos + n <= buf.shape[0]:
        for i in range(n):
            buf[pos + i] = blob[a + i]
    return pos + n


@njit(cache=True, nogil=True)
def emit_name(st, md, out, k, n, need):
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
    s = fnv1a(buf, np.int64(0), n) & mask   # int64 as index_table passes: one compiled fnv1a
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
def length_bin_token(n):
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
def heavy_bin_token(n):
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


@njit(cache=True, nogil=True, inline="always")
def tag_or_word(tags, i):
    """Word ``i``'s tag token, or ``WORD`` when it has none."""
    t = tags[i]
    return T_WORD if t < 0 else t


@njit(cache=True, nogil=True, inline="always")
def tag_or_none(tags, i):
    """Word ``i``'s tag token, or ``None`` when it has none."""
    t = tags[i]
    return T_NONE if t < 0 else t


@njit(cache=True, nogil=True, inline="always")
def form_token(kind, tags, lower, wclass, i):
    """Word ``i`` by lexical kind (0 tag or ``WORD``, 1 lower-cased word, 2 class)."""
    if kind == 0:
        return tag_or_word(tags, i)
    if kind == 1:
        return lower[i]
    return wclass[i]


@njit(cache=True, nogil=True, inline="always")
def child_label_token(c, tags, ncat):
    # families.child_label: a word's tag (or WORD), a node's category
    return tag_or_word(tags, -c - 1) if c < 0 else ncat[c]
