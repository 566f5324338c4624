"""Plausibly wrong parses made from right ones, to exercise metrics in tests and benchmarks.

A metric test that only ever compares a tree with itself cannot fail in the interesting places, so
tests and ``benchmarks/bench_evaluate.py`` score gold trees against copies damaged the way parsers
err: a relabelled phrase, a missing bracket, an extra bracket over adjacent siblings (which may
cross a gold bracket), a wrong tag. Deterministic given the seed.
"""
from __future__ import annotations

import random

from ..trees.tree import Node, Tree, node

PHRASES = ("NP", "VP", "PP", "S", "SBAR", "ADJP", "ADVP", "PRT", "QP", "WHNP")
TAGS = ("NN", "NNS", "VB", "VBD", "JJ", "RB", "IN", "DT")
#: Tags left alone: changing them would change which words EVALB deletes (an error, not a misparse).
KEEP_TAGS = frozenset({"-NONE-", ",", ":", ".", "``", "''", "-LRB-", "-RRB-", "#", "$"})


def perturb_tree(tree: Tree, rng: random.Random, rate: float = 0.15) -> Tree:
    """Damage each bracket of ``tree`` with probability about ``rate``; words are never changed.

    Parameters
    ----------
    tree
        The tree to copy.
    rng
        Source of randomness (seed it for reproducible output).
    rate
        Per-node probability of each kind of damage.

    Returns
    -------
    Tree
        A tree over the same words.
    """

    def visit(n: Node, is_root: bool):
        if n.is_preterminal:
            if n.label not in KEEP_TAGS and rng.random() < rate / 3:
                return Node(rng.choice(TAGS), n.children, n.start, n.end)
            return n
        kids: list = []
        for c in n.children:
            if type(c) is int:
                kids.append(c)
                continue
            r = visit(c, False)
            if isinstance(r, Node):
                kids.append(r)
            else:
                kids.extend(r)
        if len(kids) >= 2 and rng.random() < rate / 2:
            # re-attach: the last child of a phrase joins its right sibling in a new bracket,
            # which crosses the phrase's gold bracket
            i = rng.randrange(len(kids) - 1)
            a = kids[i]
            if type(a) is not int and len(a.children) >= 2 and not a.is_preterminal:
                x = a.children[-1]
                kids[i:i + 2] = [node(a.label, a.children[:-1]),
                                 node(rng.choice(PHRASES), [x, kids[i + 1]])]
        if len(kids) >= 3 and rng.random() < rate:
            i = rng.randrange(len(kids) - 1)
            j = rng.randrange(i + 2, len(kids) + 1)
            if j - i < len(kids):
                kids[i:j] = [node(rng.choice(PHRASES), kids[i:j])]
        label = n.label
        if not is_root and rng.random() < rate:
            label = rng.choice(PHRASES)
        if not is_root and rng.random() < rate:
            return tuple(kids)  # bracket removed: children spliced into the parent
        return node(label, kids)

    return Tree(visit(tree.root, True), tree.words)
