"""Black et al. (1991) erasures: the paper's worked examples, exactly."""
import pytest

from ranker.trees.black import black_erase, erased_words, remove_trivial_brackets
from ranker.trees.penn import parse_tree

# The candidate parse of "Miss Xydis was best when she did not need to be too probing." as the
# paper prints it (appendix, step 1); the final (? (FIN .)) is a child of the top S (the printed
# bracket counts were damaged in extraction).
XYDIS = ("(S (NP-s (PNP (PNP Miss) (PNP Xydis))) (VP (VPAST was) (ADJP (ADJ best))) "
         "(S (COMP (WHADVP (WHADV when))) (NP-s (PRO she)) (VP ((VPAST did) (NEG not) (V need)) "
         "(VP ((X to) (V be)) (ADJP (ADV too) (ADJ probing))))) (? (FIN .)))")


def test_miss_xydis_chain_gives_the_printed_reduced_tree():
    t = parse_tree(XYDIS)
    erased, _ = erased_words(t)
    assert sorted(t.words[i] for i in erased) == [".", "did", "not", "to"]
    assert black_erase(t).to_penn() == \
        "(S (NP-s Miss Xydis) (VP was best) (S when she (VP need (VP be (ADJP too probing)))))"


def test_treebank_version_has_the_printed_brackets():
    # A PTB-II analysis of the same sentence; the paper's reduced Treebank parse is
    # (S (NP Miss Xydis) (VP was best (SBAR when (S she (VP need (VP be (ADJP too probing)))))))
    ptb = parse_tree("(S (NP-SBJ-1 (NNP Miss) (NNP Xydis)) (VP (VBD was) (ADJP-PRD (JJS best)) "
                     "(SBAR-TMP (WHADVP-2 (WRB when)) (S (NP-SBJ-3 (PRP she)) (VP (VBD did) (RB not) "
                     "(VP (VB need) (S (NP-SBJ (-NONE- *-3)) (VP (TO to) (VP (VB be) "
                     "(ADJP-PRD (RB too) (JJ probing)))))))))) (. .))")
    paper = parse_tree("(S (NP Miss Xydis) (VP was best (SBAR when (S she (VP need (VP be "
                       "(ADJP too probing)))))))")
    got = black_erase(ptb)
    assert got.words == paper.words
    assert sorted(n.span for n in got.nodes()) == sorted(n.span for n in paper.nodes())


def test_stranded_adverb_joins_following_verb_constituent():
    t = parse_tree("(X (VG (MD will) (ADV probably) (V have)) (VP (V seen) (NP Milton)))")
    assert black_erase(t).to_penn() == "(X probably seen Milton)"
    ptb = parse_tree("(S (NP (PRP He)) (VP (MD will) (ADVP (RB probably)) (VP (VB have) "
                     "(VP (VBN seen) (NP (NNP Milton))))) (. .))")
    assert black_erase(ptb).to_penn() == "(S He (VP probably seen Milton))"


def test_section_one_examples():
    cases = {
        "(VP (MD would) (VP (VB go) (ADVP (RB there))))": "(VP go there)",
        "(VP (VBZ has) (VP (VBN been) (VP (VBG laughing) (ADVP (RB hard)))))": "(VP laughing hard)",
        "(VP (VBZ is) (NP (DT a) (NN cup)))": "(VP is (NP a cup))",
        "(VP (VBZ does) (NP (DT the) (NN laundry)))": "(VP does (NP the laundry))",
        "(S (NP (PRP she)) (VP (VBD opted) (S (VP (TO to) (VP (VB retire))))))": "(S she (VP opted retire))",
        "(PP (TO to) (NP (DT the) (NN store)))": "(PP to (NP the store))",
        "(NP (NP (NNP Lori) (POS 's)) (NN mother))": "(NP Lori mother)",
        "(S (NP (DT The) (`` ``) (JJ blue) (NN book) ('' '')) (VP (VBD was) (ADVP (RB there))))":
            "(S (NP The blue book) (VP was there))",
        "(NP (NP (CD 3,456)) (NNS people))": "(NP 3,456 people)",
    }
    for given, expected in cases.items():
        assert black_erase(parse_tree(given)).to_penn() == expected, given


def test_null_category_in_paper_notation():
    t = parse_tree("(NP (DET The) (N lawyer) (S-REL (PP (P with) (NP whom)) (NP I) "
                   "(VP (V studied) (NP (N law)) (PP 0))))")
    assert black_erase(t).to_penn() == "(NP The lawyer (S-REL (PP with whom) I (VP studied law)))"


def test_everything_erased_and_root_kept():
    assert black_erase(parse_tree("(S (. .))")) is None
    assert remove_trivial_brackets(parse_tree("(S (NP (NN dog)))")).to_penn() == "(S dog)"


@pytest.mark.slow
def test_wsj_never_crashes(wsj_trees):
    for t in wsj_trees[::4]:
        r = black_erase(t)
        assert r is None or all(len(n.children) != 1 or n is r.root for n in r.nodes())
