"""The built-in property-function families (Crouch et al. 2002 section 3.1; Johnson et al. 1999).

Each family yields ``(property name, value)`` pairs for one candidate; repeated names add up. Names
start with the family's short name so that families never collide. Categories are base labels
(function tags and indices dropped), words are lower-cased.
"""
from __future__ import annotations

import math

from ranker.trees.transforms import base_label
from ranker.trees.tree import Tree

# CATEGORY, cat, facts and TreeFacts were written here before features/base.py held them: still
# importable from here
from .base import CATEGORY, Family, NodeFamily, TreeFacts, cat, facts, head_rules, named  # noqa: F401


def phrases(tree: Tree):
    """Every node that is not a preterminal, pre-order."""
    return facts(tree).phrases


def length_bin(n: int) -> str:
    """Binned length: 1, 2, 3-4, 5-8, 9+ (heavy constituents)."""
    return _BINS[n] if 0 <= n < 9 else "9+" if n > 0 else "1"


_BINS = ("1", "1", "2", "3-4", "3-4", "5-8", "5-8", "5-8", "5-8")


def child_label(c, tags) -> str:
    return tags[c] or "WORD" if type(c) is int else CATEGORY[c.label]




@named("local_trees/1")
class LocalTrees(NodeFamily):
    """Local trees (rules) ``X -> Y Z``, optionally with the parent's category: attachment sites."""

    children_only = True

    def __init__(self, parent: bool = False, preterminals: bool = False):
        self.parent = parent
        self.preterminals = preterminals

    def node_properties(self, n, up, t):
        if n.is_preterminal and not self.preterminals:
            return
        tags = facts(t).tags
        rhs = " ".join(child_label(k, tags) for k in n.children)
        yield (f"rule:{CATEGORY[n.label]}->{rhs}" + (f"^{up}" if self.parent else ""), 1.0)


@named("embedding/1")
class Embedding(Family):
    """How deeply phrases of one category nest inside the same category (high vs low attachment)."""

    per_tree = True

    def __call__(self, c):
        # one count per category of the phrases open above a phrase: the tree's phrases in
        # pre-order (shared by every family, facts()), a phrase closed once one after it starts at
        # or past its end (a unary child has its parent's span and comes after it: still inside)
        depth: dict = {}
        above: list = []   # (end, category) of the phrases open above, innermost last
        for n in facts(c.tree).phrases:
            start = n.start
            while above and above[-1][0] <= start:
                depth[above.pop()[1]] -= 1
            k = CATEGORY[n.label]
            d = depth.get(k, 0)
            if d:
                yield (f"embed:{k}", 1.0)
                yield (f"embed:{k}:{min(d, 4)}", 1.0)
            depth[k] = d + 1
            above.append((n.end, k))


@named("right_branching/1")
class RightBranching(NodeFamily):
    """Right- versus left-branching: phrases whose last (first) child is itself a phrase."""

    children_only = True

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


@named("weight/1")
class ConstituentWeight(NodeFamily):
    """Constituent weight (binned length) by its position among siblings: heavy ones come late."""

    children_only = True

    def node_properties(self, n, up, t):
        if n.is_preterminal:
            return
        kids = [k for k in n.children if type(k) is not int and not k.is_preterminal]
        for i, k in enumerate(kids):
            pos = "last" if i == len(kids) - 1 else "first" if i == 0 else "mid"
            yield (f"weight:{CATEGORY[k.label]}:{length_bin(k.end - k.start)}:{pos}", 1.0)


@named("coordination/1")
class Coordination(NodeFamily):
    """Parallelism of conjuncts: same or different category, and their length difference."""

    children_only = True

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


@named("sibling_ngrams/1")
class SiblingNgrams(NodeFamily):
    """n-grams of sibling categories under their parent, with boundary markers."""

    children_only = True

    def __init__(self, n: int = 2):
        self.n = n

    def node_properties(self, p, up, t):
        if p.is_preterminal:
            return
        tags = facts(t).tags
        seq = ["<"] + [child_label(k, tags) for k in p.children] + [">"]
        for i in range(len(seq) - self.n + 1):
            yield (f"sib{self.n}:{CATEGORY[p.label]}:{' '.join(seq[i:i + self.n])}", 1.0)


@named("edges/1")
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


@named("head_deps/1")
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


@named("link_grammar/1")
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


@named("quality/1")
class Quality(Family):
    """Whether the parse is a fragment or was cut off by the time limit."""

    def __call__(self, c):
        if c.quality != "full":
            yield (f"quality:{c.quality}", 1.0)


@named("heidorn/1")
class HeidornScore(Family):
    """Heidorn's (1982) score of the candidate under a K table, heads from a head-rule table."""

    per_tree = True

    def __init__(self, k_table: str = "penn", heads: str = "collins", pp_as_np: bool = True):
        from ranker.trees.ktable import KTable

        self.table = KTable.load(k_table)
        self.heads = heads
        self.pp_as_np = pp_as_np
        self._memo: dict = {}   # subtree scores by node identity (a forest's candidates share subtrees)
        self._shapes: dict = {}   # each node shape's head and K's (see score_bottom_up), kept across forests

    def begin_forest(self, forest) -> None:
        # Subtrees are shared within a forest only: what the last forest's left is never met again,
        # and holding it kept up to 500,000 nodes with their trees alive (250 MB in a stream of lists)
        self._memo.clear()

    def __call__(self, c):
        from ranker.trees.heidorn_score import score_bottom_up

        if len(self._memo) > 500_000:   # it holds nodes; bound what it keeps alive
            self._memo.clear()
        if len(self._shapes) > 100_000:
            self._shapes.clear()
        yield ("heidorn", score_bottom_up(c.tree, self.table, head_rules(self.heads).head_child,
                                          self.pp_as_np, self._memo, self._shapes))


@named("source_rank/1")
class SourceRank(Family):
    """The candidate's rank in its source's own order (its first choice is rank 0)."""

    def __call__(self, c):
        yield ("rank:log1p", math.log1p(c.rank))
        if c.rank == 0:
            yield ("rank:first", 1.0)
        for k, v in c.scores.items():
            if k == "logprob":
                yield ("rank:logprob", float(v))
