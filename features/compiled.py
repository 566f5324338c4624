"""The Charniak-Johnson families' properties named by numba's loops for ``ranker apply`` (the ``fast`` extra).

Applying a model, most of a sentence's time went to the families naming properties in Python:
about 11,000 names a sentence made as strings and looked up in the model's index, a microsecond
each. :class:`CompiledFamilies` hands the families it knows (:data:`COMPILED`, with the options
:func:`compiled_slot` accepts) to :mod:`.name_kernels`, which writes each name as bytes and looks
it up in the model's names (:class:`ModelIndex`) without making a string; a forest's trees go
there as arrays (:class:`ForestArrays`: its distinct nodes, each tree's tags, the words' forms).
The columns are those the Python families give, name for name (``tests/features/test_compiled.py``);
training still names properties in Python, so the features and the model file are unchanged.

Without numba, or with ``RANKER_KERNELS=scipy`` (as the objective's kernels), :func:`kernels` is
None and every family runs in Python.
"""
from __future__ import annotations

import os

import numpy as np

from .base import CATEGORY, facts
from .wordclass import is_punctuation

#: The families the loops compute, in the kernels' order (``name_kernels.F_...``).
COMPILED = ("edges/1", "head_deps/1", "rule/1", "heads/1", "head_tree/1", "ngram_tree/1", "heavy/1",
            "copar/1", "word/1", "wproj/1", "edges/2", "neighbours/1", "embedding/1")

_KINDS = {"tag": 0, "word": 1, "class": 2}


def kernels():
    """:mod:`.name_kernels`, or None without numba or with ``RANKER_KERNELS=scipy``."""
    if os.environ.get("RANKER_KERNELS", "") == "scipy":
        return None
    try:
        from . import name_kernels
    except ModuleNotFoundError as e:
        if e.name != "numba":
            raise
        return None
    return name_kernels


def compiled_slot(fam, rules: str | None) -> int | None:
    """The kernels' number for family ``fam`` when they compute it with its options (heads by ``rules``), else None."""
    from . import families as F
    from . import reranker_families as R

    kind = type(fam)
    if kind is F.Edges:
        return 0
    if kind is F.HeadDependencies and fam.rules == rules:
        return 1
    if kind is R.Rule and fam.levels == (2,) and not fam.lexical:
        return 2
    if kind is R.Heads and fam.rules == rules and set(fam.lexical) <= set(_KINDS):
        return 3
    if kind is R.HeadTree and fam.rules == rules and set(fam.lexical) <= set(_KINDS):
        return 4
    if kind is R.NGramTree and not fam.words:
        return 5
    if kind is R.Heavy:
        return 6
    if kind is R.CoPar and 1 <= fam.depth <= 4:
        return 7
    if kind is R.Word and set(fam.lexical) <= set(_KINDS):
        return 8
    if kind is R.WProj and fam.rules == rules and set(fam.lexical) <= set(_KINDS):
        return 9
    if kind is R.EdgesOutside and set(fam.lexical) <= set(_KINDS):
        return 10
    if kind is R.Neighbours:
        return 11
    if kind is F.Embedding:
        return 12
    return None


class ModelIndex:
    """The model's names as UTF-8 bytes with an open-addressing table of their hashes (built once a model)."""

    def __init__(self, names, nk):
        enc = [n.encode("utf-8") for n in names]
        self.blob = np.frombuffer(b"".join(enc), dtype=np.uint8) if enc else np.zeros(0, np.uint8)
        self.off = np.zeros(len(enc) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, enc), dtype=np.int64, count=len(enc)), out=self.off[1:])
        bits = max(4, int(2 * len(enc)).bit_length() + 1)   # at most a quarter of the slots taken
        self.table = nk.index_table(self.blob, self.off, bits)

    def arrays(self) -> tuple:
        return (self.table, self.blob, self.off)


class Tokens:
    """Labels (and the kernels' literals) as token numbers, their bytes kept for the loops; grows as labels are met."""

    def __init__(self, literals):
        self.ids: dict[str, int] = {}
        self.chunks: list[bytes] = []
        for s in literals:
            self.get(s)
        self._arrays = None

    def get(self, s: str) -> int:
        got = self.ids.get(s)
        if got is None:
            got = self.ids[s] = len(self.chunks)
            self.chunks.append(s.encode("utf-8"))
            self._arrays = None
        return got

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._arrays is None:
            blob = np.frombuffer(b"".join(self.chunks), dtype=np.uint8).copy()
            off = np.zeros(len(self.chunks) + 1, dtype=np.int64)
            np.cumsum([len(c) for c in self.chunks], out=off[1:])
            self._arrays = (blob, off)
        return self._arrays


class CompiledFamilies:
    """The families of a feature set that numba's loops compute, and the loops' fixed inputs.

    Parameters
    ----------
    families : list of Family
        Built families; those :func:`compiled_slot` accepts are taken, each slot once.
    names : sequence of str
        The model's feature names (column ``j`` is ``names[j]``).
    nk : module
        :mod:`.name_kernels` (:func:`kernels`).
    """

    def __init__(self, families: list, names, nk):
        self.nk = nk
        rules = next((f.rules for f in families if hasattr(f, "rules") and compiled_slot(f, f.rules) is not None),
                     None)
        self.rules = rules
        self.taken: list = []
        on = np.zeros(nk.N_FAMILIES, dtype=np.bool_)
        opt = np.zeros(5, dtype=np.int64)
        lex = np.full((nk.N_FAMILIES + 1, 4), -1, dtype=np.int64)
        conjunctions: frozenset = frozenset()
        for f in families:
            slot = compiled_slot(f, rules)
            if slot is None or on[slot]:
                continue
            on[slot] = True
            self.taken.append(f)
            if slot == nk.F_EDGES1:
                opt[nk.O_EDGES1_WORDS] = bool(f.words)
            elif slot == nk.F_HEAD_DEPS:
                opt[nk.O_DEPS_WORDS] = bool(f.words)
            elif slot == nk.F_HEADS:
                opt[nk.O_HEADS_TWO] = bool(f.two_levels)
            elif slot == nk.F_COPAR:
                opt[nk.O_COPAR_DEPTH] = f.depth
                conjunctions = f.conjunctions
            elif slot == nk.F_NEIGHBOURS:
                opt[nk.O_NB_BEFORE] = f.before
            elif slot == nk.F_WORD:
                lex[nk.N_FAMILIES, :len(f.ancestors)] = f.ancestors
            if hasattr(f, "lexical"):
                lex[slot, :len(f.lexical)] = [_KINDS[k] for k in f.lexical]
        self.on, self.opt, self.lex = on, opt, lex
        self.headed = bool(on[nk.F_HEAD_DEPS] or on[nk.F_HEADS] or on[nk.F_HEAD_TREE] or on[nk.F_WPROJ])
        self.tokens = Tokens(nk.LITERALS)
        self.conjunctions = conjunctions
        self._flags = None
        self.index = ModelIndex(names, nk) if self.taken else None
        self.buf = np.empty(4096, dtype=np.uint8)
        self.out = np.empty(1 << 16, dtype=np.int32)
        self._cats: dict[str, int] = {}   # a label -> its category's token

    def cat_token(self, label: str) -> int:
        got = self._cats.get(label)
        if got is None:
            got = self._cats[label] = self.tokens.get(CATEGORY[label])
        return got

    def flags(self) -> tuple[np.ndarray, np.ndarray]:
        """Per token: whether it is one of copar/1's conjunctions, and one of the punctuation tags."""
        from .reranker_families import _PUNCT_TAGS

        n = len(self.tokens.chunks)
        if self._flags is None or len(self._flags[0]) != n:
            words = [c.decode("utf-8") for c in self.tokens.chunks]
            self._flags = (np.fromiter((w in self.conjunctions for w in words), dtype=np.bool_, count=n),
                           np.fromiter((w in _PUNCT_TAGS for w in words), dtype=np.bool_, count=n))
        return self._flags

    def forest(self, forest) -> "ForestArrays":
        return ForestArrays(self, forest)


class ForestArrays:
    """One forest's distinct nodes, jobs (a distinct node under its parent's category) and trees, as the loops read them."""

    def __init__(self, comp: CompiledFamilies, forest):
        self.comp = comp
        self.words = forest.candidates[0].tree.words
        self.node_of: dict[int, int] = {}
        self.cat, self.pre, self.start, self.end, self.base = [], [], [], [], []
        self.cptr, self.child, self.hc, self.hw = [0], [], [], []
        self.jobs_node, self.jobs_up, self.jobs_tree = [], [], []
        self.roots, self.tags = [], []

    def tree(self, t) -> int:
        """Register tree ``t`` (its nodes not met before, its tags): its number."""
        from ranker.trees.transforms import base_label

        comp = self.comp
        f = facts(t)
        hcd, hwd = f.heads(comp.rules) if comp.headed else ({}, {})
        node_of = self.node_of
        cat_token, label = comp.cat_token, comp.tokens.get
        cat, pre, start, end, base = self.cat, self.pre, self.start, self.end, self.base
        cptr, child, hc, hw = self.cptr, self.child, self.hc, self.hw
        for n in reversed(f.nodes):   # children before parents
            if id(n) in node_of:
                continue
            node_of[id(n)] = len(cat)
            c = n.children
            cat.append(cat_token(n.label))
            pre.append(len(c) == 1 and type(c[0]) is int)
            start.append(n.start)
            end.append(n.end)
            base.append(bool(base_label(n.label)))
            child.extend([-x - 1 if type(x) is int else node_of[id(x)] for x in c])
            cptr.append(len(child))
            hc.append(hcd.get(id(n), 0))
            hw.append(hwd.get(id(n), 0))
        self.roots.append(node_of[id(t.root)])
        self.tags.append([-1 if x is None else label(x) for x in f.tags])
        return len(self.roots) - 1

    def job(self, n, up: str, tree: int) -> int:
        """A job for node ``n`` under ``up`` (in tree number ``tree``, registered): its number."""
        self.jobs_node.append(self.node_of[id(n)])
        self.jobs_up.append(self.comp.tokens.get(up))
        self.jobs_tree.append(tree)
        return len(self.jobs_node) - 1

    def run(self) -> tuple[np.ndarray, np.ndarray]:
        """``(columns, starts)``: job ``i``'s columns are ``columns[starts[i]:starts[i + 1]]``, then each tree's."""
        comp, nk = self.comp, self.comp.nk
        from .wordclass import word_class

        words = self.words
        lower = [w.lower() for w in words]
        forms = [x.encode("utf-8") for x in lower] + [word_class(w).encode("utf-8") for w in words]
        gblob, goff = comp.tokens.arrays()
        conj, punct_tag = comp.flags()
        g = len(goff) - 1
        nw = len(words)
        blob = np.concatenate((gblob, np.frombuffer(b"".join(forms), dtype=np.uint8)))
        off = np.empty(g + len(forms) + 1, dtype=np.int64)
        off[:g + 1] = goff
        np.cumsum(np.fromiter(map(len, forms), dtype=np.int64, count=len(forms)), out=off[g + 1:])
        off[g + 1:] += goff[-1]
        lower_t = np.arange(g, g + nw, dtype=np.int64)
        class_t = np.arange(g + nw, g + 2 * nw, dtype=np.int64)
        punct = np.fromiter(map(is_punctuation, words), dtype=np.bool_, count=nw)
        from .reranker_families import content_end

        cend = content_end(words)
        i64 = np.int64
        jobs_node = np.asarray(self.jobs_node, dtype=i64)
        jobs_up = np.asarray(self.jobs_up, dtype=i64)
        jobs_tree = np.asarray(self.jobs_tree, dtype=i64)
        roots = np.asarray(self.roots, dtype=i64)
        tags = np.asarray(self.tags, dtype=i64).reshape(len(self.roots), nw)
        ncat = np.asarray(self.cat, dtype=i64)
        npre = np.asarray(self.pre, dtype=np.bool_)
        nstart = np.asarray(self.start, dtype=i64)
        nend = np.asarray(self.end, dtype=i64)
        nbase = np.asarray(self.base, dtype=np.bool_)
        cptr = np.asarray(self.cptr, dtype=i64)
        child = np.asarray(self.child, dtype=i64)
        hc = np.asarray(self.hc, dtype=i64)
        hw = np.asarray(self.hw, dtype=i64)
        starts = np.empty(len(jobs_node) + len(roots) + 1, dtype=i64)
        scratch = np.empty(len(ncat) + 1, dtype=i64)
        stack = np.empty((len(child) + 1, 3), dtype=i64)
        need = np.zeros(1, dtype=i64)
        md = comp.index.arrays()
        while True:
            st = (comp.buf, blob, off)
            k = nk.forest_columns(jobs_node, jobs_up, jobs_tree, roots, tags, ncat, npre, nstart, nend, nbase,
                                  cptr, child, hc, hw, lower_t, class_t, punct, cend, conj, punct_tag,
                                  comp.on, comp.opt, comp.lex, st, md, comp.out, starts, need, scratch, stack)
            if k <= len(comp.out) and need[0] <= len(comp.buf):
                return comp.out[:k].copy(), starts
            if k > len(comp.out):   # more room, and the forest again
                comp.out = np.empty(2 * k, dtype=np.int32)
            if need[0] > len(comp.buf):
                comp.buf = np.empty(2 * int(need[0]), dtype=np.uint8)
            need[0] = 0
