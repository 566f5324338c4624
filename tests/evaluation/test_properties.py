"""Metric invariants over random trees (Hypothesis) and the WSJ sample against itself, every scheme."""
import pytest
from hypothesis import given, settings, strategies as st
from nltk.corpus import treebank

from ranker.evaluation.dependencies import score_tree_dependencies
from ranker.evaluation.evalb import score_evalb
from ranker.evaluation.evalb_params import load_params
from ranker.evaluation.flat import FlatAccumulator, flat_key, score_flat
from ranker.evaluation.mph import score_mph
from ranker.evaluation.parseval import score_parseval
from ranker.evaluation.summary import BracketAccumulator
from ranker.trees.dependencies import RelationLabels
from ranker.trees.flatten import FlattenRules
from ranker.trees.heads import HeadRules
from ranker.trees.tree import Node, Tree, node

TAGS = ("DT", "NN", "NNS", "VB", "VBD", "MD", "IN", "JJ", "RB", "TO", "POS", ",", ".")
PHRASES = ("S", "NP", "VP", "PP", "ADJP", "ADVP", "SBAR", "NP-SBJ", "PP-LOC")
WORDS = {"MD": "will", "TO": "to", "POS": "'s", ",": ",", ".": ".", "VB": "have", "RB": "not"}

EVALB = load_params("COLLINS")
COLLINS = HeadRules.load("collins")
RINGGER = HeadRules.load("ringger-reassign")
LABELS = RelationLabels.load("labels")
FLAT = FlattenRules.load("ptb")


@st.composite
def tags(draw):
    return draw(st.lists(st.sampled_from(TAGS), min_size=1, max_size=12))


@st.composite
def bracketing(draw, tag_seq):
    """A random tree over the given tag sequence (words follow from the tags)."""
    words = tuple(WORDS.get(t, f"{t.lower()}{k}") for k, t in enumerate(tag_seq))

    def build(lo: int, hi: int, depth: int) -> Node:
        label = draw(st.sampled_from(PHRASES))
        if hi - lo == 1:
            pre = Node(tag_seq[lo], (lo,), lo, lo + 1)
            return pre if depth > 0 and draw(st.booleans()) else node(label, [pre])
        if depth >= 4:
            return node(label, [Node(tag_seq[k], (k,), k, k + 1) for k in range(lo, hi)])
        cuts = sorted(draw(st.sets(st.integers(lo + 1, hi - 1), min_size=1, max_size=min(3, hi - lo - 1))))
        bounds = [lo, *cuts, hi]
        return node(label, [build(a, b, depth + 1) for a, b in zip(bounds, bounds[1:])])

    root = build(0, len(tag_seq), 0)
    if draw(st.booleans()):
        root = node("", [root])                      # the treebank's empty root
    return Tree.build(root, words)


@st.composite
def tree_pairs(draw):
    t = draw(tags())
    return draw(bracketing(t)), draw(bracketing(t))


def _scores(gold: Tree, test: Tree):
    """(recall, precision, f1) of every scheme, plus flat conformance, for one pair."""
    out = {}
    s = score_evalb(gold, test, EVALB)
    assert s.status == 0 or (s.status == 2 and set(gold.tags()) <= {",", "."})  # all punctuation
    from ranker.evaluation.parseval import BracketCounts

    counts = {"evalb": BracketCounts(s.gold, s.test, s.matched, s.crossing),
              "parseval": score_parseval(gold, test),
              "mph": score_mph(gold, test, RINGGER)}
    d = score_tree_dependencies(gold, test, COLLINS, LABELS)
    counts["deps_untyped"], counts["deps_typed"] = d.untyped, d.typed
    for name, c in counts.items():
        acc = BracketAccumulator()
        acc.add(c)
        r = acc.result()
        out[name] = (r.recall, r.precision, r.f1)
    for name, key in (("flat_given", gold), ("flat_key", flat_key(gold, FLAT))):
        acc = FlatAccumulator()
        acc.add(score_flat(key, test))
        r = acc.result()
        out[name] = (r.recall, r.precision, r.f1, r.conformance)
    return out


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(tree_pairs())
def test_scores_are_percentages(pair):
    for name, values in _scores(*pair).items():
        assert all(0.0 <= v <= 100.0 for v in values), name


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(tree_pairs())
def test_a_tree_against_itself_scores_100_in_every_scheme(pair):
    tree = pair[0]
    for name, values in _scores(tree, tree).items():
        if name == "flat_key":       # a tree has at least its flat key's structure, maybe more
            assert values[0] == values[3] == 100.0
        else:
            assert values == (100.0,) * len(values), name


@pytest.fixture(scope="module")
def wsj_sample():
    """The trees of every 20th file of NLTK's treebank sample, as read (empty elements, function tags)."""
    return treebank.parsed_sents(treebank.fileids()[::20])


@pytest.mark.slow
def test_wsj_sample_against_itself_in_every_scheme(wsj_sample):
    assert len(wsj_sample) > 90
    for t in wsj_sample:
        tree = Tree.from_nltk(t)
        for name, values in _scores(tree, tree).items():
            if name == "flat_key":
                assert values[0] == values[3] == 100.0
            else:
                assert values == (100.0,) * len(values), (name, " ".join(tree.words))
