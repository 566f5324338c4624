"""What every property-function family is made of: the base classes and the facts they share.

:class:`Family` and :class:`NodeFamily` are the classes a family derives from; :func:`named` gives
a family class its versioned name (``"local_trees/1"``); :func:`facts` is one tree's
:class:`TreeFacts` (nodes, tags, heads), computed once and read by every family; :func:`head_rules`
is a head-rule table by name, loaded once. The family modules import this module and nothing of
:mod:`ranker.features.registry`, whose table of entries (:data:`~ranker.features.registry.FAMILIES`)
names them: the registry imports the families, never the reverse.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Iterable

from ranker.errors import RankerError
from ranker.trees.transforms import base_label
from ranker.trees.tree import Node, Tree


class FeatureConfigError(RankerError):
    """An unknown family or option in a feature configuration."""


def named(name: str) -> Callable[[type], type]:
    """Class decorator giving a family its name (``"family/version"``); the registry's table lists it."""
    if "/" not in name:
        raise ValueError(f"family name {name!r} needs a version, as 'name/1'")

    def deco(cls: type) -> type:
        cls.name = name
        return cls

    return deco


@lru_cache(maxsize=4)
def head_rules(name: str):
    """The head-rule table ``name`` (:class:`ranker.trees.heads.HeadRules`), loaded once."""
    from ranker.trees.heads import HeadRules

    return HeadRules.load(name)


class _Categories(dict):
    """label -> category, filled on first use: one C-level lookup per node in the hot loops."""

    def __missing__(self, label: str) -> str:
        c = self[label] = base_label(label) or "ROOT"
        return c


CATEGORY = _Categories()


def cat(n: Node) -> str:
    return CATEGORY[n.label]


class TreeFacts:
    """What several families need from one tree, computed once and shared between them.

    Extraction runs every family over the same candidate in turn; each used to walk the tree,
    collect its tags and (for three families) find every head again. :func:`facts` hands them one
    shared object instead.
    """

    __slots__ = ("tree", "nodes", "phrases", "tags", "walk", "_heads", "_lexical")

    def __init__(self, tree: Tree):
        self.tree = tree
        nodes: list = []    # every node, pre-order
        walk: list = []     # ``(node, parent's category)`` of every node, pre-order, ``"TOP"`` above the root
        phrases: list = []
        tags: list = [None] * len(tree.words)
        stack = [(tree.root, "TOP")]
        # one pass, the preterminal test inline: this runs for every distinct tree of every forest
        while stack:
            n, up = stack.pop()
            nodes.append(n)
            walk.append((n, up))
            c = n.children
            if len(c) == 1 and type(c[0]) is int:
                tags[c[0]] = n.label
            else:
                phrases.append(n)
                k = CATEGORY[n.label]
                stack.extend([(x, k) for x in reversed(c) if type(x) is not int])
        self.nodes = nodes
        self.walk = walk
        self.phrases = phrases
        self.tags = tags
        self._heads: dict = {}
        self._lexical: dict | None = None

    def lexical(self) -> dict[str, list[str]]:
        """What lexical properties name word ``i`` by, as lists over the words: ``"tag"`` (its tag,
        ``WORD`` where it has none), ``"word"`` (lower-cased) and ``"class"`` (:func:`~.wordclass.word_class`).

        The lexical families name a word by each of these several times a node; looked up in a
        list made once per tree (the words' forms once per sentence: :func:`word_forms`), not
        computed at every property.
        """
        got = self._lexical
        if got is None:
            lower, classes = word_forms(self.tree.words)
            got = self._lexical = {"tag": [x or "WORD" for x in self.tags], "word": lower, "class": classes}
        return got

    def heads(self, rules: str) -> tuple[dict[int, int], dict[int, int]]:
        """``(id(node) -> head child index, id(node) -> head word)`` under head-rule table ``rules``."""
        got = self._heads.get(rules)
        if got is None:
            global _HEADS, _HELD
            if len(_HELD) > _HEADS_LIMIT:
                _HEADS, _HELD = {}, []   # new dicts: trees asked about before keep their own
            child, word = _HEADS.setdefault(rules, ({}, {}))
            held = _HELD
            hr = head_rules(rules)
            for n in reversed(self.nodes):  # reversed pre-order: children before parents
                if id(n) in word:           # a subtree met before: all of it is there
                    continue
                k = hr.head_child(n)
                c = n.children[k]
                child[id(n)] = k
                word[id(n)] = c if type(c) is int else word[id(c)]
                held.append(n)
            got = self._heads[rules] = (child, word)
        return got


#: Heads of the subtrees met so far, per head-rule table: ``(id(node) -> head child index,
#: id(node) -> head word)``. They depend on the subtree alone, and the store makes the equal
#: subtrees of a forest one object (11.7 node occurrences per distinct subtree on WSJ), so each
#: is found once. ``_HELD`` keeps those nodes alive, so that no other node takes their ``id``.
_HEADS: dict[str, tuple[dict[int, int], dict[int, int]]] = {}
_HELD: list = []
_HEADS_LIMIT = 100_000   # a forest holds tens of thousands: ~35 MB a worker at most


_LAST: list = [None, None]


def facts(tree: Tree) -> TreeFacts:
    """The shared :class:`TreeFacts` of ``tree`` (the last tree asked about is remembered).

    Keyed by identity; holding the tree keeps its ``id`` from being reused while remembered.
    """
    if _LAST[0] is not tree:
        _LAST[1] = TreeFacts(tree)
        _LAST[0] = tree
    return _LAST[1]



_FORMS: list = [None, None]


def word_forms(words: tuple) -> tuple[list[str], list[str]]:
    """``(lower-cased words, word classes)`` of a sentence's words (the last words asked about are remembered).

    Keyed by identity: the candidates of a forest share one words tuple, so they are made once a sentence.
    """
    if _FORMS[0] is not words:
        from .wordclass import word_class

        _FORMS[1] = ([w.lower() for w in words], [word_class(w) for w in words])
        _FORMS[0] = words
    return _FORMS[1]


def children_shape(n: Node, up: str) -> tuple:
    """What a :attr:`NodeFamily.children_only` family may read of ``n`` under ``up``, as one hashable key."""
    return (n.label, up, *[None if type(c) is int else
                           (c.label, len(c.children) == 1 and type(c.children[0]) is int, c.end - c.start)
                           for c in n.children])


class Family:
    """Base of property-function families: ``family(candidate) -> iterable of (name, value)``.

    Families that learn from training data (the smoothed head-argument family) override
    :meth:`fit`; the others ignore it.
    """

    name = "family/0"
    #: True when the output depends on ``candidate.tree`` alone, so extraction computes it once
    #: per distinct tree of a sentence (Link Grammar's linkages often share one constituent tree).
    per_tree = False
    #: True for families that must be fitted on training data before extraction.
    needs_fit = False
    #: For families that need fitting: whether :meth:`fit` has run (or a table was loaded).
    fitted = True
    #: True for families that read a second source's candidates of each sentence
    #: (:attr:`ranker.store.records.Forest.evidence`, config ``[evidence] source``).
    needs_evidence = False

    def fit(self, forests: Iterable) -> "Family":
        """Learn from training forests (the default family learns nothing)."""
        return self

    def begin_forest(self, forest) -> None:
        """See a forest before its candidates are extracted (the default looks at nothing).

        Per-candidate families that compare a candidate with the rest of its sentence's forest
        (the parser's log-probability relative to its best parse) read what they need here.
        """

    def fingerprint(self) -> str:
        """Digest of what the family learned in :meth:`fit` ("" when it learns nothing).

        Part of the store key of extracted matrices, so a refitted family never reads a stale one.
        """
        return ""

    def __call__(self, candidate) -> Iterable[tuple[str, float]]:
        raise NotImplementedError


class NodeFamily(Family):
    """A tree-only family whose properties are a sum over the tree's nodes (plus a tree-level rest).

    :meth:`node_properties` may look at the node's subtree, the parent's category and the tree's
    words and tags inside the node's span, nothing else, so its result is the same wherever an
    equal subtree stands under a parent of the same category. Extraction computes it once per
    distinct (subtree, parent category) of a forest (the store shares equal subtrees between a
    sentence's linkages); :meth:`__call__` adds it up over one tree, the definition the shared
    computation is tested against.
    """

    per_tree = True
    #: True when :meth:`node_properties` reads nothing but the node's label, its parent's category
    #: and, of each child, whether it is a word, else its label, whether it is a preterminal and
    #: its length in words (:func:`children_shape`). What it gives for one such shape is then the
    #: same in every sentence, so applying a model
    #: (:class:`~ranker.features.applying.ModelColumns`) keeps it per shape instead of naming it
    #: again in each sentence. A family that reads deeper (grandchildren, tags at the span's
    #: edges), words or what lies outside the node leaves it False. A wrong True gives wrong columns
    #: when a model is applied, silently: :func:`~ranker.features.applying.children_only_conflicts`
    #: tells, and ``tests/features/test_applying.py`` runs it on every registered family that sets it.
    children_only = False

    def node_properties(self, node, up: str, tree) -> Iterable[tuple[str, float]]:
        """Properties contributed by ``node`` whose parent's category is ``up`` (``"TOP"``)."""
        raise NotImplementedError

    def tree_properties(self, tree) -> Iterable[tuple[str, float]]:
        """Properties of the tree as a whole (none by default)."""
        return ()

    def __call__(self, candidate) -> Iterable[tuple[str, float]]:
        t = candidate.tree
        for n, up in facts(t).walk:
            yield from self.node_properties(n, up, t)
        yield from self.tree_properties(t)
