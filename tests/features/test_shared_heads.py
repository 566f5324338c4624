"""Heads of subtrees found once per forest (ranker.features.base.TreeFacts.heads) equal each tree's own."""
import random

import pytest
from nltk.corpus import treebank

from ranker.evaluation.perturb import perturb_tree
from ranker.features import base
from ranker.features.base import TreeFacts
from ranker.trees.heads import HeadRules, head_map
from ranker.trees.penn import format_tree, parse_tree
from ranker.trees.transforms import remove_empty_elements
from ranker.trees.tree import Tree


@pytest.mark.slow
def test_heads_of_shared_subtrees_equal_each_trees_own(monkeypatch):
    # the candidates of a forest share subtree objects; a small limit also exercises the reset
    monkeypatch.setattr(base, "_HEADS_LIMIT", 300)
    rules = HeadRules.load("collins")
    rng = random.Random(11)
    reused = 0
    for g in treebank.parsed_sents()[:40]:
        gold = remove_empty_elements(Tree.from_nltk(g))
        shared: dict = {}
        for _ in range(5):
            t = parse_tree(format_tree(perturb_tree(gold, rng, rate=0.2)), shared=shared)
            held = len(base._HELD)
            child, word = TreeFacts(t).heads("collins")
            want = head_map(t, rules)
            for n in t.nodes():
                assert word[id(n)] == want[id(n)]
                assert child[id(n)] == rules.head_child(n)
            reused += 0 < len(base._HELD) - held < sum(1 for _ in t.nodes())
    assert reused > 20
