"""The reranker families (Charniak and Johnson 2005; Toutanova et al. 2005) on small trees derived by hand."""
import pytest

from ranker.features import FeatureConfigError, extract, family_names, make_family
from ranker.features.registry import NodeFamily
from ranker.features.wordclass import is_punctuation, word_class
from ranker.store.records import Candidate, Forest, Sentence
from ranker.trees.penn import parse_tree

# Link Grammar's trees have no ROOT wrapper: S is the root, its parent category is TOP.
T1 = "(S (NP (DT the) (NN dog)) (VP (VBD saw) (NP (PRP me))) (. .))"
COORD = "(S (NP (NP (DT the) (NN man)) (CC and) (NP (DT a) (JJ big) (NN dog))) (VP (VBD ran)) (. .))"
LIST = "(NP (NP (NNS cats)) (, ,) (NP (NNS dogs)) (CC and) (NP (NNS birds)))"
HIGH = "(S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope)))) (. .))"
LOW = "(S (NP (PRP I)) (VP (VBD saw) (NP (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope))))) (. .))"
DEEP = ("( (S (NP (NP (DT the) (NN man)) (PP (IN in) (NP (DT the) (NN park)))) (VP (VBD said) (SBAR (S "
        "(NP (PRP he)) (VP (VBD ran) (ADVP (RB fast)))))) (. .)) )")


def cand(text, rank=0, sid="s"):
    return Candidate(sid, "test", rank, parse_tree(text, "<t>", 1), "full", {})


def props(name, text, **options):
    return sorted(make_family(name, options)(cand(text)))


def names(name, text, **options):
    return sorted(k for k, _ in make_family(name, options)(cand(text)))


def test_rule_with_parent_and_grandparent_and_head_word():
    assert names("rule/1", T1) == sorted([
        "R2:S->NP VP .^TOP", "R2:NP->DT NN^S^TOP", "R2:VP->VBD NP^S^TOP", "R2:NP->PRP^VP^S"])
    got = names("rule/1", T1, ancestors=1, lexical=["word"])
    assert "R1:VP->VBD NP^S@w=saw" in got and "R1:NP->DT NN^S@w=dog" in got and len(got) == 8
    assert names("rule/1", T1, ancestors=0)[0] == "R0:NP->DT NN"
    # the two attachments differ in their grandparented rules
    assert "R2:PP->IN NP^VP^S" in names("rule/1", HIGH)
    assert "R2:PP->IN NP^NP^VP" in names("rule/1", LOW)


def test_redwoods_rules_grandparent_every_level_up_to_three():
    got = names("redwoods_rules/1", T1)
    assert len(got) == 16   # 4 local trees x levels 0..3
    assert {g for g in got if g.startswith("R3:")} == {
        "R3:S->NP VP .^TOP", "R3:NP->DT NN^S^TOP", "R3:VP->VBD NP^S^TOP", "R3:NP->PRP^VP^S^TOP"}
    assert "R0:NP->PRP" in got and "R1:NP->PRP^VP" in got and "R2:NP->PRP^VP^S" in got


def test_every_node_gets_its_rule_once_however_deep():
    # With a ROOT wrapper and three ancestors: every phrase's rule appears once at each level.
    for k in range(4):
        got = names("rule/1", DEEP, ancestors=k)
        assert len(got) == sum(1 for n in parse_tree(DEEP, "<t>", 1).nodes() if not n.is_preterminal)
    assert "R3:VP->VBD ADVP^S^SBAR^VP" in names("rule/1", DEEP, ancestors=3)
    assert "R3:S->NP VP .^ROOT^TOP" in names("rule/1", DEEP, ancestors=3)


def test_ngram_marks_the_head_and_its_side():
    got = [k for k in names("ngram/1", T1) if k.startswith(("NG2:VP", "NG3:VP"))]
    assert got == sorted(["NG2:VP:H:< *VBD", "NG2:VP:H:*VBD NP", "NG2:VP:R:NP >",
                          "NG3:VP:H:< *VBD NP", "NG3:VP:H:*VBD NP >"])
    assert "NG2:S:L:< NP" in names("ngram/1", T1, n=[2])


def test_heads_one_and_two_levels_with_backoffs():
    got = names("heads/1", T1, lexical=["tag", "word"])
    for dep in ("NN<DT", "VBD<NN", "VBD>PRP", "VBD>."):
        assert f"H1t:{dep}" in got
    assert {"H1w:dog<the", "H1wt:dog<DT", "H1tw:NN<the", "H1w:saw>me"} <= set(got)
    assert [g for g in got if g.startswith("H2")] == ["H2t:VBD<NN<DT"]   # saw <- dog <- the
    got = names("heads/1", T1, lexical=["class"], two_levels=False)
    assert sorted(got) == sorted(["H1c:x<x", "H1c:x<x", "H1c:x>x", "H1c:x>."])


def test_head_tree_is_the_projection_path_of_each_maximal_projection():
    assert names("head_tree/1", T1, lexical=[]) == sorted([
        "HT:S(NP *VP .) VP(*VBD NP)", "HT:NP(DT *NN)", "HT:NP(*PRP)"])
    assert "HT:NP(DT *NN)@w=dog" in names("head_tree/1", T1)


def test_ngram_tree_joins_each_pair_of_adjacent_words_once():
    assert names("ngram_tree/1", T1) == sorted([
        "NT:NP(DT NN)", "NT:S(NP>NN VP>VBD)", "NT:VP(VBD NP>PRP)", "NT:S(VP>NP>PRP .)"])
    for text in (HIGH, LOW, DEEP, COORD):
        assert len(names("ngram_tree/1", text)) == len(parse_tree(text, "<t>", 1).words) - 1
    assert "NT:S(VP>NP>PRP .)@me_." in names("ngram_tree/1", T1, words=True)


def test_heavy_says_length_sentence_end_and_following_punctuation():
    assert names("heavy/1", T1) == sorted(["HV:NP:2:--", "HV:VP:2:EP", "HV:NP:1:EP"])


def test_neighbours_are_the_tags_around_a_phrase():
    assert names("neighbours/1", T1, before=1) == sorted([
        "NB:NP:2:<s>_VBD", "NB:VP:2:NN_.", "NB:NP:1:VBD_."])
    assert "NB:NP:1:NN VBD_." in names("neighbours/1", T1)
    with pytest.raises(FeatureConfigError, match="must be"):
        make_family("neighbours/1", {"before": 3})


def test_right_branch_counts_phrases_on_and_off_the_rightmost_path():
    assert props("right_branch/1", T1) == [("RB:off", 1.0), ("RB:on", 3.0)]   # S VP NP | NP
    high, low = dict(props("right_branch/1", HIGH)), dict(props("right_branch/1", LOW))
    assert (high["RB:on"], high["RB:off"]) == (4.0, 2.0)   # S VP PP NP | NP(I) NP(the man)
    assert (low["RB:on"], low["RB:off"]) == (5.0, 2.0)     # S VP NP PP NP | NP(I) NP(the man)


def test_coordination_parallelism_and_length():
    assert names("copar/1", COORD) == ["CP:1:par", "CP:2:non", "CP:3:non", "CP:4:non"]
    assert names("colenpar/1", COORD) == ["CL:1:last"]
    assert names("copar/1", LIST) == sorted([f"CP:{d}:par" for d in range(1, 5)] * 2)
    assert names("colenpar/1", LIST) == ["CL:0:last", "CL:0:mid"]
    assert names("copar/1", T1) == [] and names("colenpar/1", T1) == []


def test_word_with_two_and_three_ancestors():
    got = names("word/1", T1, lexical=["word"])
    assert got == sorted(["W2w:the^DT^NP", "W3w:the^DT^NP^S", "W2w:dog^NN^NP", "W3w:dog^NN^NP^S",
                          "W2w:saw^VBD^VP", "W3w:saw^VBD^VP^S", "W2w:me^PRP^NP", "W3w:me^PRP^NP^VP",
                          "W2w:.^.^S", "W3w:.^.^S^TOP"])
    assert "W3c:x~ope^NN^NP^PP" in names("word/1", HIGH)


def test_wproj_gives_every_word_its_maximal_projection():
    assert names("wproj/1", T1, lexical=["word"]) == sorted([
        "WPw:saw:S^TOP", "WPw:dog:NP^S", "WPw:.:.^S", "WPw:the:DT^NP", "WPw:me:NP^VP"])
    for text in (HIGH, LOW, DEEP):
        assert len(names("wproj/1", text, lexical=["tag"])) == len(parse_tree(text, "<t>", 1).words)
    assert "WPt:IN:PP^VP" in names("wproj/1", HIGH) and "WPt:IN:PP^NP" in names("wproj/1", LOW)


def test_edges_with_the_words_outside():
    got = names("edges/2", T1, lexical=["word"])
    assert got == sorted(["E2:NP:2:DT..NN", "E2:NP:2:w<<s>", "E2:NP:2:w>saw",
                          "E2:VP:2:VBD..PRP", "E2:VP:2:w<dog", "E2:VP:2:w>.",
                          "E2:NP:1:PRP..PRP", "E2:NP:1:w<saw", "E2:NP:1:w>."])
    assert "E2:NP:2:c>x~ope" not in names("edges/2", HIGH) and "E2:PP:3:c<x" in names("edges/2", HIGH)


def test_unknown_options_and_bad_values_are_refused():
    with pytest.raises(FeatureConfigError, match="must be"):
        make_family("rule/1", {"ancestors": 5})
    with pytest.raises(FeatureConfigError, match="must be"):
        make_family("heads/1", {"lexical": ["lemma"]})
    with pytest.raises(FeatureConfigError, match="must be"):
        make_family("word/1", {"ancestors": [1]})


def test_word_classes_and_punctuation():
    assert [word_class(w) for w in ("Smith", "telescope", "1,987", "U.S.", "well-known", "IBM", "dog")] == \
        ["Xx", "x~ope", "d,d", "X.X.", "x-x", "X", "x"]
    assert [is_punctuation(w) for w in (",", "--", "''", "-LRB-", ".", "$", "%", "dog", "3")] == \
        [True, True, True, True, True, False, False, False, False]


NODE_FAMILIES = [n for n in family_names() if isinstance(make_family(n), NodeFamily)]


@pytest.mark.parametrize("name", NODE_FAMILIES)
def test_node_families_shared_per_subtree_equal_the_sum_over_each_tree(name):
    # Extraction computes node properties once per distinct (subtree, parent category); the rows
    # must equal the family applied to each candidate alone.
    shared: dict = {}
    texts = [HIGH, LOW, HIGH.replace("(VBD saw)", "(VBZ saw)"), LOW.replace("(NN man)", "(NNS man)")]
    trees = [parse_tree(t, "<t>", 1, shared=shared) for t in texts]
    assert trees[0].root.children[0] is trees[1].root.children[0]   # NP I, one object
    sent = Sentence("s", "test", "d", 0, trees[0].words, ("",) * len(trees[0].words))
    fam = make_family(name)
    f = Forest(sent, None, tuple(Candidate("s", "test", r, t, "full", {}) for r, t in enumerate(trees)))
    m = extract([f], [fam])
    for r, c in enumerate(f.candidates):
        want: dict = {}
        for k, v in fam(c):
            want[k] = want.get(k, 0.0) + v
        row = m.X.tocsr()[r].toarray().ravel()
        assert {m.names[j]: row[j] for j in row.nonzero()[0]} == want


def test_pp_attach_tells_high_from_low_attachment():
    high = names("pp_attach/1", HIGH, lexical=["tag", "word"])
    low = names("pp_attach/1", LOW, lexical=["tag", "word"])
    # saw ... with a telescope: the VP is the site, "man" stands between head and PP
    assert {"PA:VP:with", "PA:VP:with:d2", "PAht:VP:VBD:with", "PAhw:VP:saw:with",
            "PAow:VP:with:telescope", "PAqw:VP:saw:with:telescope", "PAqt:VP:VBD:with:NN"} <= set(high)
    assert {"PA:NP:with", "PA:NP:with:d0", "PAhw:NP:man:with", "PAqw:NP:man:with:telescope"} <= set(low)
    assert not any(":VP:" in n for n in low) and not any(":NP:" in n for n in high)
    assert names("pp_attach/1", T1) == []                       # no PP, nothing
    assert {"PAhc:NP:x:in", "PAoc:NP:in:x"} <= set(names("pp_attach/1", DEEP, lexical=["class"]))
