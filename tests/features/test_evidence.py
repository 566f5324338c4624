"""Evidence from a second parser (features/evidence.py), on a forest pair built and worked by hand.

Sentence "John saw the dog" (tokens 0-3). The candidate ranked is

    C  = (S (NP (NNP John)) (VP (VBD saw) (NP (DT the) (NN dog))))
         brackets that count: VP [1,4), NP [2,4); Collins head pairs (0,1) (1,3) (2,3)

and the second parser's two analyses (Link Grammar-like: links, no log-probability) are

    E1 = the same tree as C;  links Wd(wall, John) Ss(John, saw) Os(saw, dog) Ds(the, dog)
    E2 = (S (NP (NNP John) (VBD saw)) (NP (DT the) (NN dog)))
         brackets NP [0,2), NP [2,4);  links Ss(John, saw) Os(saw, the) D(the, dog)

Uniform weights 1/2: span shares [1,4) .5, [2,4) 1, [0,2) .5, two brackets each (mean 2); pair
shares (0,1) 1, (2,3) 1, (1,3) .5, (1,2) .5, three pairs each (mean 3; the wall's link dropped).
"""
import contextlib
import dataclasses
import math

import pytest

from ranker.features import FeatureConfigError, extract, make_family
from ranker.features.evidence import (candidate_pairs, evidence_weights, level, summarise,
                                      text_spans, tree_spans)
from ranker.store import Store
from ranker.store.records import Candidate, Forest, Link, Sentence
from ranker.trees.penn import parse_tree

WORDS = ("John", "saw", "the", "dog")
SENT = Sentence("t/0", "treebank", "t.mrg", 0, WORDS, ("NNP", "VBD", "DT", "NN"))
C_TEXT = "(S (NP (NNP John)) (VP (VBD saw) (NP (DT the) (NN dog))))"
E2_TEXT = "(S (NP (NNP John) (VBD saw)) (NP (DT the) (NN dog)))"
LG_WORDS = ("LEFT-WALL", "John", "saw", "the", "dog")
LG_MAP = (-1, 0, 1, 2, 3)


def tree(text):
    return parse_tree(text)


def lg(rank, text, links, **scores):
    return Candidate("t/0", "link-grammar", rank, tree(text), "full", dict(scores),
                     tuple(Link(*x) for x in links), LG_WORDS, LG_MAP)


E1 = lg(0, C_TEXT, [(0, 1, "Wd"), (1, 2, "Ss"), (2, 4, "Os"), (3, 4, "Ds")])
E2 = lg(1, E2_TEXT, [(1, 2, "Ss"), (2, 3, "Os"), (3, 4, "D")])
C = Candidate("t/0", "bllip:x", 0, tree(C_TEXT), "full", {"logprob": -10.0})
# a bracket no analysis holds: VP [1,3)
C_ODD = Candidate("t/0", "bllip:x", 1, tree("(S (NP (NNP John)) (VP (VBD saw) (DT the)) (NN dog))"),
                  "full", {"logprob": -12.0})


@contextlib.contextmanager
def _two_sources(tmp_path):
    """A real store holding the sentence's BLLIP-like parses (C, C_ODD) and linkages (E1, E2)."""
    with Store.open(tmp_path / "s.sqlite") as st:
        st.add_sentences([SENT])
        st.add_candidates([C, C_ODD, E1, E2])
        yield st


def row(family, candidate, evidence):
    fam = make_family(family)
    fam.begin_forest(Forest(SENT, None, (candidate,), evidence))
    out = {}
    for k, v in fam(candidate):
        out[k] = out.get(k, 0.0) + v
    return out


def test_spans_leave_out_single_words_and_the_whole_sentence():
    spans, labelled = tree_spans(tree(C_TEXT))
    assert spans == {(1, 4), (2, 4)}
    assert labelled == {("VP", 1, 4), ("NP", 2, 4)}
    assert tree_spans(tree("(S (NP-SBJ-1 (NNP John) (VBD saw)) (NP (DT the) (NN dog)))"))[1] == \
        {("NP", 0, 2), ("NP", 2, 4)}   # base labels


def test_pairs_are_links_mapped_to_tokens_or_head_dependencies():
    assert candidate_pairs(E1) == {(0, 1), (1, 3), (2, 3)}   # the wall's link is dropped
    assert candidate_pairs(E2) == {(0, 1), (1, 2), (2, 3)}
    assert candidate_pairs(C) == {(0, 1), (1, 3), (2, 3)}    # Collins heads: saw, saw, dog


def test_the_summary_by_hand():
    ev = summarise((E1, E2))
    assert ev.spans == pytest.approx({(1, 4): 0.5, (2, 4): 1.0, (0, 2): 0.5})
    assert ev.labelled == pytest.approx({("VP", 1, 4): 0.5, ("NP", 2, 4): 1.0, ("NP", 0, 2): 0.5})
    assert ev.pairs == pytest.approx({(0, 1): 1.0, (1, 3): 0.5, (2, 3): 1.0, (1, 2): 0.5})
    assert (ev.mean_spans, ev.mean_labelled, ev.mean_pairs, ev.candidates) == (2.0, 2.0, 3.0, 2)


def test_span_support_of_a_candidate_by_hand():
    got = row("evidence_spans/1", C, (E1, E2))
    assert got == pytest.approx({
        "evs:support": 1.5, "evs:precision": 0.75, "evs:recall": 0.75, "evs:f": 0.75,
        "evs:support:VP:3-4": 0.5, "evs:support:NP:2": 1.0,
        "evs:level:<=.5": 1.0, "evs:level:<=1": 1.0,
        "evl:support": 1.5, "evl:precision": 0.75, "evl:recall": 0.75, "evl:f": 0.75})


def test_a_bracket_no_analysis_holds_is_counted_unheld():
    got = row("evidence_spans/1", C_ODD, (E1, E2))
    # VP [1,3) is held by neither analysis: no support at all, one unheld bracket
    assert got == {"evs:unheld": 1.0, "evs:level:0": 1.0, "evs:unheld:VP": 1.0, "evl:unheld": 1.0}


def test_dependency_support_of_a_candidate_by_hand():
    got = row("evidence_deps/1", C, (E1, E2))
    assert got == pytest.approx({"evd:support": 2.5, "evd:precision": 2.5 / 3, "evd:recall": 2.5 / 3,
                                 "evd:f": 2 * 2.5 / 6, "evd:support:1": 2.0, "evd:support:2": 0.5})


def test_posterior_weights_follow_the_parsers_probabilities():
    # log-probabilities 1 and ln 3 apart: posteriors 3/4 and 1/4
    b1 = Candidate("t/0", "bllip:x", 0, tree(C_TEXT), "full", {"logprob": -20.0})
    b2 = Candidate("t/0", "bllip:x", 1, tree(E2_TEXT), "full", {"logprob": -20.0 - math.log(3)})
    assert evidence_weights((b1, b2)) == pytest.approx([0.75, 0.25])
    assert evidence_weights((b1, b2), "uniform") == pytest.approx([0.5, 0.5])
    assert evidence_weights((E1, E2)) == pytest.approx([0.5, 0.5])      # no log-probabilities
    with pytest.raises(FeatureConfigError, match="posterior"):
        evidence_weights((E1, E2), "posterior")
    ev = summarise((b1, b2))
    assert ev.spans == pytest.approx({(1, 4): 0.75, (2, 4): 1.0, (0, 2): 0.25})
    lg_cand = E2
    got = row("evidence_spans/1", lg_cand, (b1, b2))
    # E2's brackets [0,2) .25 and [2,4) 1: the BLLIP list's view of a Link Grammar linkage
    assert got["evs:support"] == pytest.approx(1.25) and got["evs:f"] == pytest.approx(2 * 1.25 / 4)


def test_a_sentence_the_second_parser_has_nothing_for():
    assert row("evidence_spans/1", C, ()) == {"evs:none": 1.0}
    assert row("evidence_deps/1", C, ()) == {"evd:none": 1.0}


def test_levels():
    assert [level(x) for x in (0.0, 0.05, 0.1, 0.3, 0.9, 0.95, 1.0)] == \
        ["0", "<=.1", "<=.1", "<=.5", "<=.9", "<=1", "<=1"]


def test_extraction_puts_the_hand_worked_values_in_the_matrix():
    forest = Forest(SENT, None, (C, C_ODD), (E1, E2))
    m = extract([forest], [make_family("evidence_spans/1"), make_family("evidence_deps/1")])
    X = m.X.tocsr().toarray()
    col = {n: i for i, n in enumerate(m.names)}
    assert X[0, col["evs:support"]] == pytest.approx(1.5) and X[1, col["evs:support"]] == 0.0
    assert X[1, col["evs:unheld"]] == 1.0 and X[0, col["evs:unheld"]] == 0.0
    assert X[0, col["evd:support"]] == pytest.approx(2.5)


def test_a_forest_without_evidence_is_refused_not_scored_as_empty():
    with pytest.raises(FeatureConfigError, match=r"\[evidence\] source"):
        extract([Forest(SENT, None, (C,))], [make_family("evidence_spans/1")])


def test_unknown_weighting_is_a_config_error():
    with pytest.raises(FeatureConfigError, match="weighting"):
        make_family("evidence_deps/1", {"weighting": "learned"})


def test_the_store_gives_a_forest_the_other_sources_candidates(tmp_path):
    with _two_sources(tmp_path) as st:
        f = st.forest("t/0", "bllip:x", "link-grammar")
        assert [c.rank for c in f.candidates] == [0, 1] and {c.source for c in f.candidates} == {"bllip:x"}
        assert [c.rank for c in f.evidence] == [0, 1] and f.evidence[0].tree == C_TEXT
        assert st.forest("t/0", "bllip:x").evidence is None
        # the store's undecoded records summarise exactly as the candidates themselves
        assert summarise(f.evidence) == summarise((E1, E2))
        bl = st.forest("t/0", "link-grammar", "bllip:x").evidence
        assert summarise(bl) == summarise((C, C_ODD))   # no links: head dependencies of the trees
        from ranker.features import extract_stored

        fams = [make_family("evidence_spans/1")]
        m = extract_stored(st, ["t/0"], "bllip:x", fams, evidence="link-grammar")
        col = {n: i for i, n in enumerate(m.names)}
        assert m.X.tocsr().toarray()[0, col["evs:support"]] == pytest.approx(1.5)
        with pytest.raises(FeatureConfigError, match="evidence_spans/1"):
            extract_stored(st, ["t/0"], "bllip:x", fams)


def test_matrices_with_and_without_evidence_are_kept_apart(tmp_path):
    from ranker.features import feature_set_from_dict
    from ranker.pipeline.feature_cache import cached_matrix
    from ranker.pipeline.splits import SplitSelection

    with _two_sources(tmp_path) as st:
        sel = SplitSelection("all", "treebank", None, None, (SENT,))
        fs = feature_set_from_dict({"name": "ev", "family": [{"name": "evidence_spans/1"}]})
        a = cached_matrix(st, fs, sel, "bllip:x", evidence="link-grammar")
        # the other way round: the Link Grammar linkages scored by the BLLIP list's posteriors
        b = cached_matrix(st, fs, sel, "link-grammar", evidence="bllip:x")
        assert a.X.shape[0] == 2 and b.X.shape[0] == 2
        col = {n: i for i, n in enumerate(b.names)}
        # posteriors of -10 and -12: e^2/(1+e^2) on C's tree (= E1's), 1/(1+e^2) on C_ODD's
        p = math.exp(2) / (1 + math.exp(2))
        assert b.X.tocsr().toarray()[0, col["evs:support"]] == pytest.approx(p + p)   # VP[1,4), NP[2,4)
        with pytest.raises(FeatureConfigError):
            cached_matrix(st, fs, sel, "bllip:x")
        plain = feature_set_from_dict({"name": "p", "family": [{"name": "parser_rank/1"}]})
        # a set without evidence families ignores the evidence source: the same matrix either way
        x = cached_matrix(st, plain, sel, "bllip:x", evidence="link-grammar")
        y = cached_matrix(st, plain, sel, "bllip:x")
        assert x.names == y.names and (x.X.tocsr() != y.X.tocsr()).nnz == 0


def test_configs_name_their_evidence_source(tmp_path):
    from ranker.pipeline.config import ConfigError, config_from_dict
    from ranker.pipeline.validate import validate_config

    base = {"features": {"set": "bllip-rich-lg"}, "parse": {"source": "bllip", "forests": "x.nbest"}}
    (tmp_path / "x.nbest").write_text("")
    base["parse"]["forests"] = str(tmp_path / "x.nbest")
    with pytest.raises(ConfigError, match=r"\[evidence\] source"):
        validate_config(config_from_dict(base, "c.toml"))
    same = {**base, "evidence": {"source": "bllip", "forests": str(tmp_path / "x.nbest")}}
    with pytest.raises(ConfigError, match="second source"):
        validate_config(config_from_dict(same, "c.toml"))
    stray = {"evidence": {"forests": "y.nbest"}}
    with pytest.raises(ConfigError, match="source is not"):
        validate_config(config_from_dict(stray, "c.toml"))
    ok = config_from_dict({**base, "evidence": {"source": "link-grammar"}}, "c.toml")
    validate_config(ok)
    assert dataclasses.asdict(config_from_dict({}, "d.toml").evidence)["source"] == ""


def test_annotation_checks_leave_the_evidence_source_alone(tmp_path):
    # a run checks its own candidates against the partial bracketing, not the evidence source's
    from ranker.sources.annotations import DEFAULT_EQUIVALENCES, LabelEquivalences, check_store
    from ranker.store.records import Annotation, Bracket

    with _two_sources(tmp_path) as st:
        st.add_annotations([Annotation("t/0", "riezler", (Bracket("NP", 2, 4),))])
        eq = LabelEquivalences.load(DEFAULT_EQUIVALENCES)
        assert check_store(st, "riezler", eq, source="link-grammar").candidates == 2
        assert sorted(st.unchecked_candidates("riezler")) == [("t/0", "bllip:x", 0), ("t/0", "bllip:x", 1)]
        sets = st.consistent_sets("riezler", None, source="link-grammar", rule="strict")
        assert sets["t/0"].weights == (1.0, 1.0)      # both linkages hold NP [2,4)
        assert check_store(st, "riezler", eq).candidates == 4   # no source: the sentence's every candidate
        assert st.unchecked_candidates("riezler") == []


def test_spans_read_from_text_equal_the_trees_on_real_parses(tmp_path, bllip_lists):
    from nbest_slices import cut_lists

    from ranker.sources.nbest import import_file
    from ranker.sources.treebank import store_nltk_files
    from ranker.trees.penn import parse_tree

    assert cut_lists(bllip_lists, "test", ("wsj_0175", "wsj_0176"), tmp_path / "l.nbest") > 0
    with Store.open(tmp_path / "s.sqlite") as st:
        store_nltk_files(st, "treebank", ["wsj_0175.mrg", "wsj_0176.mrg"])
        assert import_file(st, tmp_path / "l.nbest", "bllip").errors == ()
        texts = [t for s in st.sentences("treebank") for t in st.candidate_texts(s.id)]
    assert len(texts) > 500
    for text in texts:
        assert text_spans(text) == tree_spans(parse_tree(text)), text
    # unlabelled roots and function tags
    assert text_spans("( (S (NP-SBJ (NNP John) (VBD saw)) (NP (DT the) (NN dog))) )") == \
        (frozenset({(0, 2), (2, 4)}), frozenset({("NP", 0, 2), ("NP", 2, 4)}))


# ---- evidence_heads/1: both sides' trees under one head-rule table --------------------------------
# Collins head pairs of the trees: C's (0,1) (1,3) (2,3); E2's (0,1) (0,3) (2,3) (S's head is its
# first NP under Collins, so dog depends on John). MPH brackets under ringger-reassign (Charniak's
# S takes its rightmost phrase when it has no VP): C's NP [2,4) only (VP heads S, John is one
# word); E2's NP [0,2) only (NP [2,4) heads S). With posteriors 3/4 (C's tree) and 1/4 (E2's),
# pair shares (0,1) 1, (2,3) 1, (1,3) .75, (0,3) .25, mean 3; MPH shares [2,4) .75, [0,2) .25, mean 1.

def _bllip_pair():
    b1 = Candidate("t/0", "bllip:x", 0, tree(C_TEXT), "full", {"logprob": -20.0})
    b2 = Candidate("t/0", "bllip:x", 1, tree(E2_TEXT), "full", {"logprob": -20.0 - math.log(3)})
    return b1, b2


def test_the_head_summary_by_hand():
    from ranker.features.evidence import summarise_heads

    ev = summarise_heads(_bllip_pair())
    assert ev.pairs == pytest.approx({(0, 1): 1.0, (2, 3): 1.0, (1, 3): 0.75, (0, 3): 0.25})
    assert ev.mph == pytest.approx({(2, 4): 0.75, (0, 2): 0.25})
    assert (ev.mean_pairs, ev.mean_mph, ev.candidates) == (pytest.approx(3.0), pytest.approx(1.0), 2)


def test_a_linkage_is_compared_by_its_trees_heads_not_its_links():
    got = row("evidence_heads/1", E2, _bllip_pair())
    assert got == pytest.approx({
        # tree pairs (0,1) 1, (2,3) 1, (0,3) .25: nothing unheld
        "evh:support": 2.25, "evh:precision": 0.75, "evh:recall": 0.75, "evh:f": 0.75,
        "evh:support:1": 2.0, "evh:support:3-4": 0.25,
        # its one MPH bracket [0,2), share .25
        "evm:support": 0.25, "evm:precision": 0.25, "evm:recall": 0.25, "evm:f": 0.25,
        "evm:level:<=.5": 1.0, "evm:support:2": 0.25})
    # evd reads the linkage's links: Os(saw, the) is the pair (1,2) no BLLIP tree holds
    assert row("evidence_deps/1", E2, _bllip_pair())["evd:unheld"] == 1.0


def test_head_support_of_a_parse_against_a_forest_by_hand():
    # evidence E1, E2 uniform: pairs (0,1) 1, (2,3) 1, (1,3) .5, (0,3) .5; MPH [2,4) .5, [0,2) .5.
    # C_ODD's tree: Collins pairs (0,1) (1,2) (1,3) (VP saw-the heads S; dog depends on saw), no
    # MPH bracket (VP [1,3) heads S, the rest are words)
    got = row("evidence_heads/1", C_ODD, (E1, E2))
    assert got == pytest.approx({"evh:support": 1.5, "evh:unheld": 1.0, "evh:precision": 0.5,
                                 "evh:recall": 0.5, "evh:f": 0.5, "evh:support:1": 1.0,
                                 "evh:support:2": 0.5})
    got = row("evidence_heads/1", C, (E1, E2))
    assert got["evm:support"] == pytest.approx(0.5) and got["evm:level:<=.5"] == 1.0
    assert got["evm:f"] == pytest.approx(2 * 0.5 / 2)


def test_head_evidence_for_nothing_and_a_bad_table():
    assert row("evidence_heads/1", C, ()) == {"evh:none": 1.0}
    with pytest.raises(FeatureConfigError, match="mph_rules 'nope'"):
        make_family("evidence_heads/1", {"mph_rules": "nope"})


def test_the_stores_records_give_the_same_head_summary(tmp_path):
    from ranker.features.evidence import summarise_heads

    with _two_sources(tmp_path) as st:
        assert summarise_heads(st.forest("t/0", "bllip:x", "link-grammar").evidence) == \
            summarise_heads((E1, E2))
        assert summarise_heads(st.forest("t/0", "link-grammar", "bllip:x").evidence) == \
            summarise_heads((C, C_ODD))
