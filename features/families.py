"""The built-in property-function families (Crouch et al. 2002 section 3.1; Johnson et al. 1999).

Each family yields ``(property name, value)`` pairs for one candidate; repeated names add up. Names
start with the family's short name so that families never collide. Categories are base labels
(function tags and indices dropped), words are lower-cased.
"""
from __future__ import annotations

import math
from functools import lru_cache

from ranker.trees.transforms import base_label
from ranker.trees.tree import Node, Tree

from .registry import Family, NodeFamily, register


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

    __slots__ = ("tree", "nodes", "phrases", "tags", "_heads", "_walk")

    def __init__(self, tree: Tree):
        self.tree = tree
        self._walk = None
        self.nodes = nodes = list(tree.root.subtrees())
        phrases: list = []
        tags: list = [None] * len(tree.words)
        for n in nodes:   # one pass, the preterminal test inline: this runs for every distinct tree
            c = n.children
            if len(c) == 1 and type(c[0]) is int:
                tags[c[0]] = n.label
            else:
                phrases.append(n)
        self.phrases = phrases
        self.tags = tags
        self._heads: dict = {}

    @property
    def walk(self) -> list:
        """``(node, parent's category)`` of every node in pre-order, ``"TOP"`` above the root."""
        if self._walk is None:
            out = []
            stack = [(self.tree.root, "TOP")]
            while stack:
                n, up = stack.pop()
                out.append((n, up))
                k = CATEGORY[n.label]
                stack.extend((c, k) for c in reversed(n.children) if type(c) is not int)
            self._walk = out
        return self._walk

    def heads(self, rules: str) -> tuple[dict[int, int], dict[int, int]]:
        """``(id(node) -> head child index, id(node) -> head word)`` under head-rule table ``rules``."""
        got = self._heads.get(rules)
        if got is None:
            global _HEADS, _HELD
            if len(_HELD) > _HEADS_LIMIT:
                _HEADS, _HELD = {}, []   # new dicts: trees asked about before keep their own
            child, word = _HEADS.setdefault(rules, ({}, {}))
            held = _HELD
            hr = _head_rules(rules)
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


def phrases(tree: Tree):
    """Every node that is not a preterminal, pre-order."""
    return facts(tree).phrases


def length_bin(n: int) -> str:
    """Binned length: 1, 2, 3-4, 5-8, 9+ (heavy constituents)."""
    return _BINS[n] if 0 <= n < 9 else "9+" if n > 0 else "1"


_BINS = ("1", "1", "2", "3-4", "3-4", "5-8", "5-8", "5-8", "5-8")


def child_label(c, tags) -> str:
    return tags[c] or "WORD" if type(c) is int else CATEGORY[c.label]


@lru_cache(maxsize=4)
def _head_rules(name: str):
    from ranker.trees.heads import HeadRules

    return HeadRules.load(name)


@register("local_trees/1")
class LocalTrees(NodeFamily):
    """Local trees (rules) ``X -> Y Z``, optionally with the parent's category: attachment sites."""

    def __init__(self, parent: bool = False, preterminals: bool = False):
        self.parent = parent
        self.preterminals = preterminals

    def node_properties(self, n, up, t):
        if n.is_preterminal and not self.preterminals:
            return
        tags = facts(t).tags
        rhs = " ".join(child_label(k, tags) for k in n.children)
        yield (f"rule:{CATEGORY[n.label]}->{rhs}" + (f"^{up}" if self.parent else ""), 1.0)


@register("embedding/1")
class Embedding(Family):
    """How deeply phrases of one category nest inside the same category (high vs low attachment)."""

    per_tree = True

    def __call__(self, c):
        stack = [(c.tree.root, {})]
        while stack:
            n, depth = stack.pop()
            if n.is_preterminal:
                continue
            k = CATEGORY[n.label]
            d = depth.get(k, 0)
            if d:
                yield (f"embed:{k}", 1.0)
                yield (f"embed:{k}:{min(d, 4)}", 1.0)
            inner = {**depth, k: d + 1}
            stack.extend((ch, inner) for ch in n.children if type(ch) is not int)


@register("right_branching/1")
class RightBranching(NodeFamily):
    """Right- versus left-branching: phrases whose last (first) child is itself a phrase."""

    def node_properties(self, n, up, t):
        kids = n.children
        if n.is_preterminal or len(kids) < 2:
            return
        last, first = kids[-1], kids[0]
        if type(last) is not int and not last.is_preterminal:
            yield ("branch:right", 1.0)
        if type(first) is not int and not first.is_preterminal:
            yield ("branch:left", 1.0)

    def tree_properties(self, t):
        # Length of the rightmost spine, a single number per parse.
        spine, n = 0, t.root
        while type(n) is not int and not n.is_preterminal:
            spine += 1
            n = n.children[-1]
        yield ("branch:spine", float(spine))


@register("weight/1")
class ConstituentWeight(NodeFamily):
    """Constituent weight (binned length) by its position among siblings: heavy ones come late."""

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        kids = [k for k in n.children if type(k) is not int and not k.is_preterminal]
        for i, k in enumerate(kids):
            pos = "last" if i == len(kids) - 1 else "first" if i == 0 else "mid"
            yield (f"weight:{CATEGORY[k.label]}:{length_bin(k.end - k.start)}:{pos}", 1.0)


@register("coordination/1")
class Coordination(NodeFamily):
    """Parallelism of conjuncts: same or different category, and their length difference."""

    def __init__(self, conjunctions: tuple = ("CC", "CONJP")):
        self.conjunctions = frozenset(conjunctions)

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        labels = [CATEGORY[k.label] if type(k) is not int else "" for k in n.children]
        if not any(lab in self.conjunctions for lab in labels):
            return
        conj = [k for k, lab in zip(n.children, labels)
                if type(k) is not int and lab not in self.conjunctions and lab not in (",", ":")]
        for a, b in zip(conj, conj[1:]):
            same = CATEGORY[a.label] == CATEGORY[b.label]
            yield (f"coord:{'same' if same else 'diff'}", 1.0)
            yield (f"coord:{CATEGORY[n.label]}:{CATEGORY[a.label]}+{CATEGORY[b.label]}", 1.0)
            yield (f"coord:lendiff:{length_bin(abs((a.end - a.start) - (b.end - b.start)) + 1)}", 1.0)


@register("sibling_ngrams/1")
class SiblingNgrams(NodeFamily):
    """n-grams of sibling categories under their parent, with boundary markers."""

    def __init__(self, n: int = 2):
        self.n = n

    def node_properties(self, p, up, t):
        if p.is_preterminal:
            return
        tags = facts(t).tags
        seq = ["<"] + [child_label(k, tags) for k in p.children] + [">"]
        for i in range(len(seq) - self.n + 1):
            yield (f"sib{self.n}:{CATEGORY[p.label]}:{' '.join(seq[i:i + self.n])}", 1.0)


@register("edges/1")
class Edges(NodeFamily):
    """Words and tags at constituent edges, with the constituent's binned length."""

    def __init__(self, words: bool = True):
        self.words = words

    def node_properties(self, n, up, t):
        if n.is_preterminal or (up == "TOP" and not base_label(n.label)):
            return
        tags = facts(t).tags
        lb, k = length_bin(n.end - n.start), CATEGORY[n.label]
        yield (f"edge:{k}:{lb}:first={tags[n.start]}", 1.0)
        yield (f"edge:{k}:{lb}:last={tags[n.end - 1]}", 1.0)
        if self.words:
            yield (f"edgew:{k}:first={t.words[n.start].lower()}", 1.0)
            yield (f"edgew:{k}:last={t.words[n.end - 1].lower()}", 1.0)


def dependencies(tree: Tree, rules: str = "collins"):
    """``(head word, dependent word, relation)`` of a tree, relation = parent/dependent categories."""
    f = facts(tree)
    heads = f.heads(rules)[1]
    for n in f.phrases:
        h = heads[id(n)]
        for k in n.children:
            d = k if type(k) is int else heads[id(k)]
            if d != h:
                rel = f"{CATEGORY[n.label]}/{'WORD' if type(k) is int else CATEGORY[k.label]}"
                yield h, d, rel


@register("head_deps/1")
class HeadDependencies(NodeFamily):
    """Head-to-head dependencies: head word, dependent word and relation (and backed-off tags)."""

    def __init__(self, rules: str = "collins", words: bool = True):
        self.rules = rules
        self.words = words

    def node_properties(self, n, up, t):
        # The dependencies of ``dependencies(t)`` whose head phrase is ``n``.
        if n.is_preterminal:
            return
        f = facts(t)
        tags, words, heads = f.tags, t.words, f.heads(self.rules)[1]
        h = heads[id(n)]
        for k in n.children:
            d = k if type(k) is int else heads[id(k)]
            if d != h:
                rel = f"{CATEGORY[n.label]}/{'WORD' if type(k) is int else CATEGORY[k.label]}"
                yield (f"dep:{rel}:{tags[h]}>{tags[d]}", 1.0)
                if self.words:
                    yield (f"depw:{rel}:{words[h].lower()}>{words[d].lower()}", 1.0)


def link_type(label: str) -> str:
    """A link label's type without subscripts: its upper-case letters (``Ss*s`` -> ``S``, ``MVp`` -> ``MV``)."""
    return "".join(ch for ch in label if ch.isupper()) or label


@register("link_grammar/1")
class LinkGrammar(Family):
    """Link Grammar's own evidence: link labels, binned link lengths, and the cost vector."""

    COSTS = ("unused_words", "disjunct_cost", "link_cost")

    def __init__(self):
        self._names: dict = {}   # (label, length) -> the two property names, built once

    def _link_names(self, label: str, length: int) -> tuple[str, str]:
        base = label.rstrip("*").split("*")[0]
        kind = link_type(base)
        got = self._names[(label, length)] = (f"link:{base}", f"linklen:{kind}:{length_bin(length)}")
        return got

    def __call__(self, c):
        names = self._names
        for left, right, label in c.links:
            got = names.get((label, right - left)) or self._link_names(label, right - left)
            yield (got[0], 1.0)
            yield (got[1], 1.0)
        for k in self.COSTS:
            if k in c.scores:
                yield (f"lgcost:{k}", float(c.scores[k]))


@register("quality/1")
class Quality(Family):
    """Whether the parse is a fragment or was cut off by the time limit."""

    def __call__(self, c):
        if c.quality != "full":
            yield (f"quality:{c.quality}", 1.0)


@register("heidorn/1")
class HeidornScore(Family):
    """Heidorn's (1982) score of the candidate under a K table, heads from a head-rule table."""

    per_tree = True

    def __init__(self, k_table: str = "penn", heads: str = "collins", pp_as_np: bool = True):
        from ranker.trees.ktable import KTable

        self.table = KTable.load(k_table)
        self.heads = heads
        self.pp_as_np = pp_as_np
        self._memo: dict = {}   # subtree scores by node identity (the store shares subtrees)

    def __call__(self, c):
        from ranker.trees.heidorn_score import score_bottom_up

        if len(self._memo) > 500_000:   # it holds nodes; bound what it keeps alive
            self._memo.clear()
        yield ("heidorn", score_bottom_up(c.tree, self.table, _head_rules(self.heads).head_child,
                                          self.pp_as_np, self._memo))


@register("source_rank/1")
class SourceRank(Family):
    """The candidate's rank in its source's own order (its first choice is rank 0)."""

    def __call__(self, c):
        yield ("rank:log1p", math.log1p(c.rank))
        if c.rank == 0:
            yield ("rank:first", 1.0)
        for k, v in c.scores.items():
            if k == "logprob":
                yield ("rank:logprob", float(v))
