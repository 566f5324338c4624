"""numba's walk over a forest naming the Charniak-Johnson families' properties, straight into a model's columns.

Imported by :mod:`.compiled` when numba is installed (the ``fast`` extra), as the one module it
reads: the tokens and the model's table from :mod:`.name_tokens`, and :func:`forest_columns`, which
runs the families' loops (:mod:`.name_node_loops` for each distinct node, :mod:`.name_tree_loops`
for each tree) in :data:`.compiled.COMPILED`'s order. The loops emit the names the Python families
(:mod:`.families`, :mod:`.reranker_families`) would, and ``tests/features/test_compiled.py`` holds
the two against each other. Split in four (issue 47: no module over 600 lines) along those jobs: a
name's spelling and look-up, a node's families, a tree's families, and this walk over them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .name_node_loops import (
    copar_names, edges1_names, edges2_names, head_deps_names, head_tree_names, heads_names, heavy_names,
    ngram_tree_names, rule_names, word_names, wproj_names,
)
from .name_tokens import (
    F_COPAR, F_EDGES1, F_EDGES2, F_EMBEDDING, F_HEADS, F_HEAD_DEPS, F_HEAD_TREE, F_HEAVY, F_NEIGHBOURS,
    F_NGRAM_TREE, F_RULE, F_WORD, F_WPROJ, LITERALS, N_FAMILIES, O_COPAR_DEPTH, O_DEPS_WORDS, O_EDGES1_WORDS,
    O_HEADS_TWO, O_NB_BEFORE, T_TOP, index_table,
)
from .name_tree_loops import (
    embedding_names, neighbours_names,
)

#: What :mod:`.compiled` reads here: the tokens, the table and the walk.
__all__ = [
    "F_COPAR", "F_EDGES1", "F_EDGES2", "F_EMBEDDING", "F_HEADS", "F_HEAD_DEPS", "F_HEAD_TREE", "F_HEAVY",
    "F_NEIGHBOURS", "F_NGRAM_TREE", "F_RULE", "F_WORD", "F_WPROJ", "LITERALS", "N_FAMILIES", "O_COPAR_DEPTH",
    "O_DEPS_WORDS", "O_EDGES1_WORDS", "O_HEADS_TWO", "O_NB_BEFORE", "T_TOP", "forest_columns", "index_table",
]


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
    k = np.int64(0)   # not the literal 0: a callee typed for Literal[int](0) too was compiled twice
    nw = lower.shape[0]
    nj = jobs_node.shape[0]
    for job in range(nj):
        starts[job] = k
        n = jobs_node[job]
        up = jobs_up[job]
        tags = tree_tags[jobs_tree[job]]
        if npre[n]:
            if on[F_WORD]:
                k = word_names(n, up, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need)
            continue
        if on[F_EDGES1]:
            k = edges1_names(n, up, tags, ncat, nstart, nend, nroot_base, lower, opt, st, md, out, k, need)
        if on[F_HEAD_DEPS]:
            k = head_deps_names(n, tags, ncat, cptr, child, hw, lower, opt, st, md, out, k, need)
        if on[F_RULE]:
            k = rule_names(n, up, tags, ncat, npre, cptr, child, st, md, out, k, need)
        if on[F_HEADS]:
            k = heads_names(n, tags, npre, cptr, child, hc, hw, lower, wclass, opt, lex, st, md, out, k, need)
        if on[F_HEAD_TREE]:
            k = head_tree_names(n, up, tags, ncat, npre, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need)
        if on[F_NGRAM_TREE]:
            k = ngram_tree_names(n, ncat, cptr, child, st, md, out, k, need)
        if on[F_HEAVY] and up != T_TOP:
            k = heavy_names(n, ncat, nstart, nend, punct, content_end, nw, st, md, out, k, need)
        if on[F_COPAR]:
            k = copar_names(n, tags, ncat, npre, cptr, child, conj, punct_tag, opt, st, md, out, k, need, scratch, stack)
        if on[F_WORD]:
            k = word_names(n, up, tags, ncat, cptr, child, lower, wclass, lex, st, md, out, k, need)
        if on[F_WPROJ]:
            k = wproj_names(n, up, tags, ncat, cptr, child, hc, hw, lower, wclass, lex, st, md, out, k, need)
        if on[F_EDGES2] and up != T_TOP:
            k = edges2_names(n, tags, ncat, nstart, nend, lower, wclass, nw, lex, st, md, out, k, need)
    for t in range(trees_root.shape[0]):
        starts[nj + t] = k
        tags = tree_tags[t]
        if on[F_NEIGHBOURS]:
            k = neighbours_names(trees_root[t], tags, ncat, npre, nstart, nend, cptr, child, opt, st, md, out, k,
                            need, scratch)
        if on[F_EMBEDDING]:
            k = embedding_names(trees_root[t], ncat, npre, nstart, nend, cptr, child, st, md, out, k, need, scratch)
    starts[nj + trees_root.shape[0]] = k
    return k
