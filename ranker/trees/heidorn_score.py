"""Heidorn's (1982) easily computed metric for ranking alternative parses: the score of a tree.

Heidorn views every phrase flatly as a head word with pre- and post-modifying phrases (a sentence
is a big verb phrase), and scores it as ``score(phrase) = Σ_mods K_mod · (score(mod) + 1)``, a word
scoring 0; the lowest score wins. On a Penn-style tree the head child's own modifiers belong to the
same flat phrase, so ``score(node) = score(head child) + Σ_{other children c} K_c · (score(c) + 1)``.

Expanding the recursion gives the paper's top-down, regrouped form: the score is the sum, over
every modifier, of the product of the K's on the path of modifiers from the top down to it (with
K = 0.1 the decimal digits count modifiers per level: 0.122 = one modifier at level 1, two at
levels 2 and 3). Both forms are computed here and must agree; the regrouped form also compiles a
whole forest into arrays (:class:`CompiledTrees`) so K tables can be tuned quickly.

Heads come from a ``*`` at the end of the head child's label (the notation of the paper's Figure 1)
or from a head-rule table (:mod:`.heads`). With ``pp_as_np`` a PP is read as Heidorn's parser
built it: a noun phrase whose head is the object's, with the preposition a premodifier.

The score is a property of a tree under a K table (:mod:`.ktable`), so it lives with the trees:
both the ranker that chooses by it (:class:`ranker.models.heidorn.HeidornRanker`) and the feature
family that reports it (``heidorn/1`` in :mod:`ranker.features.families`) build on this module,
and neither reaches into the other's layer.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

import numpy as np

from ..errors import RankerError
from .heads import HeadRules
from .ktable import KTable
from .transforms import base_label
from .tree import Node, Tree

HeadFinder = Callable[[Node], int]
WORD = "-WORD-"   # category of a bare word standing beside its head without a tag


class HeadError(RankerError):
    """A phrase whose head child cannot be determined."""


def category(label: str) -> str:
    """A node's category for K lookups: its label without a head mark ``*`` or function tags."""
    return base_label(label.rstrip("*")) if label.rstrip("*") else label


def star_head(n: Node) -> int:
    """The head child marked by a label ending in ``*`` (Heidorn's Figure 1 notation).

    Raises
    ------
    HeadError
        If no child or more than one child is marked.
    """
    marked = [i for i, c in enumerate(n.children) if type(c) is not int and c.label.endswith("*")]
    if len(marked) != 1:
        what = "no child" if not marked else f"{len(marked)} children"
        raise HeadError(f"phrase {n.label!r} over words {n.start}-{n.end} has {what} marked as head "
                        "with '*'")
    return marked[0]


def head_finder(heads: str) -> HeadFinder:
    """``"star"`` for ``*``-marked heads, otherwise the name or path of a head-rule table."""
    if heads == "star":
        return star_head
    rules = HeadRules.load(heads)
    return rules.head_child


def _head_index(n: Node, find: HeadFinder, pp_as_np: bool) -> int:
    kids = n.children
    if len(kids) == 1:
        return 0
    h = find(n)
    if pp_as_np and category(n.label) == "PP":
        # The object becomes the head, the preposition (and anything before it) premodifiers.
        for i in range(h + 1, len(kids)):
            c = kids[i]
            if type(c) is not int and not c.is_preterminal:
                return i
    return h


def _side(i: int, h: int) -> str:
    return "pre" if i < h else "post"


def _is_word(n) -> bool:
    return type(n) is int or n.is_preterminal


def score_bottom_up(tree: Tree, table: KTable, find: HeadFinder = star_head, pp_as_np: bool = False,
                    memo: dict | None = None, shapes: dict | None = None) -> float:
    """Heidorn's score by the recursive formula, as modifiers are picked up bottom-up.

    Parameters
    ----------
    tree : Tree
    table : KTable
    find : callable
        Head child index of a node.
    pp_as_np : bool
    memo : dict, optional
        Scores of subtrees already seen, by node identity, for scoring many trees that share
        subtree objects (a forest read from the store) under the same table, ``find`` and
        ``pp_as_np``: each distinct subtree is scored once.
    shapes : dict, optional
        The head and each child's K of the node shapes already met (a node's label with each
        child's label and whether it is a preterminal, all that the head and the K's depend on),
        for scoring many trees under the same table, ``find`` and ``pp_as_np``: the K table is
        read once per shape, not once per modifier. The sums are the same either way.

    Returns
    -------
    float
    """
    if shapes is None:
        shapes = {}

    def score(n: Node) -> float:
        if _is_word(n):
            return 0.0
        if memo is not None:
            hit = memo.get(id(n))
            if hit is not None and hit[0] is n:   # the node is kept alive: its id is not reused
                return hit[1]
            value = memo[id(n)] = (n, scored(n))
            return value[1]
        return scored(n)

    def scored(n: Node) -> float:
        kids = n.children
        key = (n.label, *[None if type(c) is int else (c.label, len(c.children) == 1 and type(c.children[0]) is int)
                          for c in kids])
        ks = shapes.get(key)
        if ks is None:
            ks = shapes[key] = _modifier_ks(n, table, find, pp_as_np)
        total = 0.0
        for c, k in zip(kids, ks):
            if k is None:   # the head
                total += 0.0 if type(c) is int else score(c)
            else:
                total += k * ((0.0 if type(c) is int else score(c)) + 1.0)
        return total

    return score(tree.root)


def _modifier_ks(n: Node, table: KTable, find: HeadFinder, pp_as_np: bool) -> tuple:
    """K of each child of ``n`` as a modifier of its head, ``None`` for the head itself."""
    h = _head_index(n, find, pp_as_np)
    parent = category(n.label)
    return tuple(None if i == h else table.lookup(table.type_of(WORD if type(c) is int else category(c.label),
                                                                parent, _side(i, h)))
                 for i, c in enumerate(n.children))


def score_top_down(tree: Tree, table: KTable, find: HeadFinder = star_head, pp_as_np: bool = False) -> float:
    """Heidorn's score in the regrouped form: Σ over modifiers of the product of K's above them.

    Parameters and result as :func:`score_bottom_up`.
    """
    total = 0.0
    stack: list[tuple[Node, float]] = [(tree.root, 1.0)]
    while stack:
        n, mult = stack.pop()
        if _is_word(n):
            continue
        h = _head_index(n, find, pp_as_np)
        parent = category(n.label)
        for i, c in enumerate(n.children):
            if i == h:
                if type(c) is not int:
                    stack.append((c, mult))
                continue
            mod = WORD if type(c) is int else category(c.label)
            m = mult * table.lookup(table.type_of(mod, parent, _side(i, h)))
            total += m
            if type(c) is not int:
                stack.append((c, m))
    return total


class CompiledTrees(NamedTuple):
    """The modifiers of many trees as arrays, for the regrouped score under any K table.

    Occurrences are numbered so that a modifier's enclosing modifier comes first; ``levels`` lists
    the occurrence indices of each depth below the top.
    """

    types: tuple[tuple[str, ...], ...]  # distinct modifier types (modifier, head, side)
    type_ids: np.ndarray                 # (n_occurrences,) index into ``types``
    parents: np.ndarray                  # (n_occurrences,) enclosing occurrence, -1 at the top
    tree_ids: np.ndarray                 # (n_occurrences,) which tree
    levels: tuple[np.ndarray, ...]       # occurrence indices by depth, top first
    n_trees: int                         # trees given (rows)
    rows: np.ndarray                     # (n_trees,) row -> compiled distinct tree (``tree_ids``)
    how: tuple = ()                      # (heads, pp_as_np) of HeidornRanker.compile, else ()

    def scores(self, table: KTable) -> np.ndarray:
        """Heidorn's score of every tree under ``table``."""
        k = np.array([table.lookup(table.type_of(*t)) for t in self.types], dtype=np.float64)
        return self.scores_from_k(k)

    def scores_from_k(self, k: np.ndarray) -> np.ndarray:
        """Scores given K of each entry of ``types`` (the fast path of K tuning)."""
        prod = k[self.type_ids] if len(self.type_ids) else np.zeros(0)
        for level in self.levels[1:]:
            prod[level] *= prod[self.parents[level]]
        return np.bincount(self.tree_ids, weights=prod, minlength=self.n_distinct)[self.rows]

    @property
    def n_distinct(self) -> int:
        return int(self.rows.max()) + 1 if len(self.rows) else 0


def compile_trees(trees: Sequence[Tree], find: HeadFinder = star_head, pp_as_np: bool = False) -> CompiledTrees:
    """Flatten every tree into its modifier occurrences (see :class:`CompiledTrees`).

    A tree object given more than once (the store shares one per distinct tree text of a
    sentence, ~2.75 candidates per tree on Link Grammar forests) is compiled once.
    """
    type_index: dict[tuple[str, str, str], int] = {}
    type_ids: list[int] = []
    parents: list[int] = []
    tree_ids: list[int] = []
    depths: list[int] = []
    distinct: dict[int, int] = {}
    rows = np.fromiter((distinct.setdefault(id(t), len(distinct)) for t in trees), dtype=np.int64,
                       count=len(trees))
    unique = list({id(t): t for t in trees}.values())   # first occurrences, in distinct order
    for t_id, tree in enumerate(unique):
        stack: list[tuple[Node, int, int]] = [(tree.root, -1, 0)]
        while stack:
            n, parent_occ, depth = stack.pop()
            if _is_word(n):
                continue
            h = _head_index(n, find, pp_as_np)
            parent = category(n.label)
            for i, c in enumerate(n.children):
                if i == h:
                    if type(c) is not int:
                        stack.append((c, parent_occ, depth))
                    continue
                key = (WORD if type(c) is int else category(c.label), parent, _side(i, h))
                occ = len(type_ids)
                type_ids.append(type_index.setdefault(key, len(type_index)))
                parents.append(parent_occ)
                tree_ids.append(t_id)
                depths.append(depth)
                if type(c) is not int:
                    stack.append((c, occ, depth + 1))
    d = np.asarray(depths, dtype=np.int64)
    levels = tuple(np.flatnonzero(d == k) for k in range(int(d.max()) + 1)) if len(d) else ()
    return CompiledTrees(tuple(type_index), np.asarray(type_ids, dtype=np.int64),
                         np.asarray(parents, dtype=np.int64), np.asarray(tree_ids, dtype=np.int64),
                         levels, len(trees), rows)
