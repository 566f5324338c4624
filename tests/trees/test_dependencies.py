"""Head dependencies from trees and from NLTK's dependency_treebank (Malt format)."""
import pytest

from ranker.errors import RankerError
from ranker.trees.dependencies import (Dependency, RelationLabels, conll_words, dependencies_from_conll,
                                       tree_to_dependencies, untyped_agreement)
from ranker.trees.heads import HeadRules
from ranker.trees.penn import parse_tree
from ranker.trees.transforms import remove_empty_elements

MALT = "John\tNNP\t2\nsaw\tVBD\t0\nMary\tNNP\t2\n.\t.\t2\n"


def test_malt_text_reads_zero_based_without_labels():
    assert dependencies_from_conll(MALT) == (Dependency(1, 0, ""), Dependency(-1, 1, ""),
                                             Dependency(1, 2, ""), Dependency(1, 3, ""))
    assert conll_words(MALT) == ("John", "saw", "Mary", ".")


def test_relations_from_function_tags_and_configuration():
    t = remove_empty_elements(parse_tree(
        "(S (NP-SBJ-1 (DT The) (NN man)) (VP (VBD gave) (NP (PRP her)) (NP (DT a) (NN book)) "
        "(PP-TMP (IN on) (NP (NNP Monday))) (S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB read))))) (. .))"))
    deps = tree_to_dependencies(t, HeadRules.load("collins"), RelationLabels.load("labels"))
    got = {(t.words[d.dependent], t.words[d.head] if d.head >= 0 else None, d.relation) for d in deps}
    assert got == {("The", "man", "detmod"), ("man", "gave", "subj"), ("gave", None, "root"),
                   ("her", "gave", "dobj"), ("book", "gave", "obj2"), ("a", "book", "detmod"),
                   ("on", "gave", "mod"), ("Monday", "on", "pobj"), ("to", "gave", "xcomp"),
                   ("read", "to", "vc"), (".", "gave", "punct")}


def test_coordination_labels():
    t = parse_tree("(NP (NNS cars) (, ,) (NNS trucks) (CC and) (NNS buses))")
    deps = tree_to_dependencies(t, HeadRules.load("collins"), RelationLabels.load("labels"))
    # Collins' coordination rule: NNS 'buses' is found first, then moved two left past 'and'
    assert [d.relation for d in deps] == ["conj", "punct", "root", "cc", "conj"]


@pytest.mark.parametrize("line, message", [("subj * *", "expected RELATION"),
                                           ("dobj VP * NP sideways", "unknown condition"),
                                           ("dobj VP * NP nth=2", "needs 'before' or 'after'"),
                                           ("dobj VP * NP|", "empty alternative")])
def test_malformed_label_files(tmp_path, line, message):
    f = tmp_path / "labels.txt"
    f.write_text("# c\n" + line + "\n")
    with pytest.raises(RankerError, match=f"{f}:2: .*{message}"):
        RelationLabels.load(f)


@pytest.mark.slow
def test_agreement_with_dependency_treebank_on_a_sample(wsj_trees):
    # Both NLTK corpora hold the same 3,914 sentences; after empty elements are removed the
    # tokens line up exactly. Collins' heads agree with the Malt conversion on ~85% of words over
    # the whole sample (84.6%); a sample of every 10th sentence must stay above 80%.
    from nltk.corpus import dependency_treebank

    graphs = dependency_treebank.parsed_sents()
    assert len(graphs) == len(wsj_trees)
    rules, labels = HeadRules.load("collins"), RelationLabels.load("labels")
    same = total = 0
    for t, g in list(zip(wsj_trees, graphs))[::10]:
        e = remove_empty_elements(t)
        assert e.words == conll_words(g)
        s, n = untyped_agreement(dependencies_from_conll(g), tree_to_dependencies(e, rules, labels))
        same, total = same + s, total + n
    assert same / total > 0.80


@pytest.mark.slow
def test_subtrees_shared_between_candidates_convert_as_each_tree_alone():
    # the scorer converts a sentence's candidates with one memo of converted subtrees (parsed with
    # shared subtrees): every tree must come out as it does alone, function tags and subjects too
    import random

    from nltk.corpus import treebank

    from ranker.evaluation.perturb import perturb_tree
    from ranker.trees.penn import format_tree
    from ranker.trees.tree import Tree

    rules, labels = HeadRules.load("collins"), RelationLabels.load("labels")
    rng = random.Random(5)
    pasted = 0
    for g in treebank.parsed_sents()[:60]:
        gold = remove_empty_elements(Tree.from_nltk(g))
        texts = [format_tree(gold)] + [format_tree(perturb_tree(gold, rng, rate=0.2)) for _ in range(6)]
        shared, memo = {}, {}
        for text in texts:
            t = parse_tree(text, shared=shared)
            before = len(memo)
            assert tree_to_dependencies(t, rules, labels, memo) == tree_to_dependencies(
                parse_tree(text), rules, labels)
            pasted += before and len(memo) - before < sum(1 for _ in t.nodes())
    assert pasted > 100   # later candidates really reused converted subtrees
