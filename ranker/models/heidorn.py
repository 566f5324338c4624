"""Heidorn's (1982) easily computed metric for ranking alternative parses.

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
or from a head-rule table of :mod:`ranker.trees`. With ``pp_as_np`` a PP is read as Heidorn's
parser built it: a noun phrase whose head is the object's, with the preposition a premodifier.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

import numpy as np

from ..errors import RankerError
from ..pipeline.config import EvaluationSection as _EVALUATION, HeidornSection as _HEIDORN
from ..trees.transforms import base_label
from ..trees.tree import Node, Tree
from .base import GroupedRanker
from .ktable import KTable

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
    try:
        from ..trees.heads import HeadRules
    except ImportError:
        raise RankerError("head-rule tables are not available (ranker.trees.heads); mark heads "
                          "with '*' and use heads='star'") from None
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
                    memo: dict | None = None) -> float:
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

    Returns
    -------
    float
    """

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
        h = _head_index(n, find, pp_as_np)
        parent = category(n.label)
        total = 0.0
        for i, c in enumerate(n.children):
            if i == h:
                total += 0.0 if type(c) is int else score(c)
            else:
                mod = WORD if type(c) is int else category(c.label)
                k = table.lookup(table.type_of(mod, parent, _side(i, h)))
                total += k * ((0.0 if type(c) is int else score(c)) + 1.0)
        return total

    return score(tree.root)


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


def as_k_table(spec) -> KTable:
    """A K table from a KTable, a table dict (TOML shape), or a name/path of a TOML file."""
    if isinstance(spec, KTable):
        return spec
    if isinstance(spec, dict):
        return KTable.from_dict(spec)
    return KTable.load(spec)


class HeidornRanker(GroupedRanker):
    """Heidorn's metric as a ranker: the candidate with the lowest score wins, ties to source order.

    Parameters
    ----------
    k_table : str, Path, dict or KTable
        The K table, by name (``"default"``: K = 0.1 everywhere), path or value.
    heads : str
        ``"star"`` for ``*``-marked head children, else a head-rule table name or path.
    pp_as_np : bool
        Read a PP as a noun phrase with the preposition as premodifier.
    tune : bool
        ``fit`` runs the coordinate search over the K table on the data it is given.
    grid : sequence of float
        K values the coordinate search tries.
    max_rounds : int
        Passes of the coordinate search over all types.

    Attributes
    ----------
    k_table_ : KTable
        The table in use (the tuned one after ``fit(tune=True)``).
    tuning_history_ : tuple
        ``(round, type, K, held-out score)`` of every accepted change.
    """

    reads = "trees"

    # The defaults are the config's ([heidorn], and [evaluation] head_rules), written once there.
    def __init__(self, k_table=_HEIDORN.k_table, heads: str = _EVALUATION.head_rules,
                 pp_as_np: bool = _HEIDORN.pp_as_np, tune: bool = False,
                 grid=(0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0), max_rounds: int = _HEIDORN.tune_rounds):
        self.k_table = k_table
        self.heads = heads
        self.pp_as_np = pp_as_np
        self.tune = tune
        self.grid = grid
        self.max_rounds = max_rounds

    @classmethod
    def from_config(cls, config) -> "HeidornRanker":
        """The ranker of ``[heidorn]`` (untuned), with ``[evaluation] head_rules``."""
        h = config.heidorn
        return cls(k_table=h.k_table, heads=config.evaluation.head_rules, pp_as_np=h.pp_as_np,
                   max_rounds=h.tune_rounds)

    def get_params(self, deep=True):
        params = super().get_params(deep)
        if isinstance(params.get("k_table"), KTable):
            params["k_table"] = params["k_table"].to_dict()
        if isinstance(params.get("grid"), tuple):
            params["grid"] = list(params["grid"])
        return params

    def fit(self, X: Sequence[Tree] = (), y=None, groups=None) -> "HeidornRanker":
        """Load the K table and, with ``tune``, improve it on ``(X, y, groups)``.

        Parameters
        ----------
        X : sequence of Tree, or CompiledTrees from :meth:`compile`
            Candidate trees, groups adjacent.
        y : array-like, shape (n_candidates,), optional
            Per-candidate quality to maximise when tuning (sentence F or consistency).
        groups : array-like, shape (n_candidates,), optional

        Returns
        -------
        self
        """
        table = as_k_table(self.k_table)
        self.tuning_history_ = ()
        if self.tune:
            from .tuning import tune_k_table

            if y is None or groups is None:
                raise RankerError("tuning the K table needs per-candidate quality y and groups")
            compiled = self._compiled(X)
            table, history = tune_k_table(compiled, np.asarray(y, dtype=np.float64), groups, table,
                                          grid=self.grid, max_rounds=self.max_rounds)
            self.tuning_history_ = tuple(history)
        self.k_table_ = table
        return self

    def scores(self, X: Sequence[Tree]) -> np.ndarray:
        """Heidorn's score of every tree (lower is better).

        Parameters
        ----------
        X : sequence of Tree, or CompiledTrees from :meth:`compile`

        Returns
        -------
        ndarray of float64, shape (n_trees,)
        """
        self._check_fitted("k_table_")
        return self._compiled(X).scores(self.k_table_)

    def compile(self, X: Sequence[Tree]) -> CompiledTrees:
        """The trees' modifiers under this ranker's heads: ``X`` for ``fit`` and ``scores`` of any
        ranker with the same ``heads`` and ``pp_as_np`` (a stage tuning, then scoring, compiles once).
        """
        return compile_trees(X, head_finder(self.heads), self.pp_as_np)._replace(
            how=(self.heads, self.pp_as_np))

    def _compiled(self, X) -> CompiledTrees:
        if not isinstance(X, CompiledTrees):
            return compile_trees(X, head_finder(self.heads), self.pp_as_np)
        if X.how != (self.heads, self.pp_as_np):
            raise RankerError(f"trees compiled with heads and pp_as_np {X.how or 'unknown'} given to a "
                              f"Heidorn ranker with {(self.heads, self.pp_as_np)}")
        return X

    def decision_function(self, X: Sequence[Tree]) -> np.ndarray:
        """Minus Heidorn's score, so that higher is better as for every ranker."""
        return -self.scores(X)

    def _get_state(self) -> dict:
        self._check_fitted("k_table_")
        return {"k_table_": self.k_table_.to_dict(),
                "tuning_history_": [list(h) for h in self.tuning_history_]}

    def _set_state(self, state: dict) -> None:
        self.k_table_ = KTable.from_dict(state["k_table_"])
        self.tuning_history_ = tuple(tuple(h) for h in state.get("tuning_history_", ()))
