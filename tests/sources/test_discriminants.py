"""Discriminants: spans, the order of the questions, the remaining set, keys, and the checks training uses."""
import itertools
import re

import numpy as np
import pytest

from ranker.errors import RankerError
from ranker.sources.annotations import LabelEquivalences, check_candidate
from ranker.sources.discriminants import (Decision, Discriminant, candidate_spans, decision, discriminants,
                                          parse_key, remaining_mask, span_key)
from ranker.sources.link_grammar import LinkGrammarOptions, LinkGrammarParser
from ranker.store.records import Bracket, Sentence
from ranker.trees.penn import parse_tree

TELESCOPE = "(PP (IN with) (NP (DT a) (NN telescope)))"
TREES = {   # "I saw the man with a telescope": the PP under the object NP, the VP, the S, a flat NP
    "A": f"(S (NP (PRP I)) (VP (VBD saw) (NP (NP (DT the) (NN man)) {TELESCOPE})))",
    "B": f"(S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) {TELESCOPE}))",
    "C": f"(S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man))) {TELESCOPE})",
    "D": f"(SINV (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) {TELESCOPE}))",
    "E": f"(S (NP-SBJ (PRP I)) (VP (VBD saw) (NP (DT the) (NN man) {TELESCOPE})))",
}
NAMES = list(TREES)
SPANS = [candidate_spans(parse_tree(t)) for t in TREES.values()]
EXACT = LabelEquivalences()


def _who(label, start, end, accept):
    return Decision(label, start, end, accept, "tester", "2026-11-23T16:00:00Z")


def test_candidate_spans_strip_function_tags_and_skip_preterminals_and_the_root_wrapper():
    t = parse_tree(f"( {TREES['E']} )")
    assert candidate_spans(t) == {("S", 0, 7), ("NP", 0, 1), ("VP", 1, 7), ("NP", 2, 7), ("PP", 4, 7),
                                  ("NP", 5, 7)}


def test_uniform_order_prefers_the_most_even_split_then_the_wider_span():
    ds = discriminants(SPANS)
    assert [(d.key, d.count, d.remaining) for d in ds] == [
        ("NP:2-7", 2, 5),    # A, E: expected left (2*2 + 3*3)/5 = 2.6
        ("VP:1-7", 4, 5),    # 4 of 5: 3.4, then by width
        ("VP:1-4", 1, 5),
        ("NP:2-4", 4, 5)]
    assert [d.expected for d in ds] == pytest.approx([2.6, 3.4, 3.4, 3.4])
    assert [d.mass for d in ds] == pytest.approx([0.4, 0.8, 0.2, 0.8])


def test_model_probabilities_change_the_order_to_what_the_model_expects_to_narrow_most():
    probs = np.array([0.025, 0.025, 0.9, 0.025, 0.025])          # the model believes C
    ds = discriminants(SPANS, probs=probs)
    assert [d.key for d in ds] == ["VP:1-7", "VP:1-4", "NP:2-7", "NP:2-4"]
    assert ds[0].mass == pytest.approx(0.1) and ds[0].expected == pytest.approx(0.1 * 4 + 0.9 * 1)
    # weights are renormalised over the remaining candidates
    ds2 = discriminants(SPANS, probs=probs * 7)
    assert [(d.key, round(d.mass, 12)) for d in ds2] == [(d.key, round(d.mass, 12)) for d in ds]


def test_equivalent_labels_are_one_answer_and_exact_labels_split_them():
    # S and SINV over the whole sentence are equivalent (the shipped table): not a discriminant
    assert all(d.start != 0 or d.end != 7 for d in discriminants(SPANS))
    exact = {d.key: d.count for d in discriminants(SPANS, eq=EXACT)}
    assert exact["S:0-7"] == 4 and exact["SINV:0-7"] == 1


def test_remaining_mask_accepts_and_rejects():
    assert remaining_mask(SPANS, []).tolist() == [True] * 5
    assert remaining_mask(SPANS, [_who("NP", 2, 7, True)]).tolist() == [True, False, False, False, True]
    assert remaining_mask(SPANS, [_who("VP", 1, 7, False)]).tolist() == [False, False, True, False, False]
    both = [_who("NP", 2, 7, True), _who("NP", 2, 4, True)]
    assert remaining_mask(SPANS, both).tolist() == [True, False, False, False, False]
    assert remaining_mask(SPANS, [_who("S", 0, 7, True)]).tolist() == [True] * 5          # SINV counts as S
    assert remaining_mask(SPANS, [_who("S", 0, 7, True)], EXACT).tolist() == [True, True, True, False, True]
    assert not remaining_mask(SPANS, [_who("NP", 2, 7, True), _who("NP", 2, 7, False)]).any()


def test_discriminants_of_a_narrowed_set_and_of_a_decided_forest():
    mask = remaining_mask(SPANS, [_who("NP", 2, 7, True)])
    ds = discriminants(SPANS, mask)
    assert [(d.key, d.count, d.remaining) for d in ds] == [("NP:2-4", 1, 2)]
    assert discriminants(SPANS, remaining_mask(SPANS, [_who("VP", 1, 4, True)])) == []
    assert discriminants([]) == []


def test_every_answer_narrows_and_accepting_leaves_count():
    for d in discriminants(SPANS):
        yes = remaining_mask(SPANS, [_who(d.label, d.start, d.end, True)])
        no = remaining_mask(SPANS, [_who(d.label, d.start, d.end, False)])
        assert yes.sum() == d.count and no.sum() == d.remaining - d.count
        assert not (yes & no).any() and (yes | no).all()


def test_remaining_set_is_exactly_the_consistent_set_training_uses():
    """What the page shows after some answers equals X(y, z) of those answers as a kind-user annotation."""
    eq = LabelEquivalences.load()
    trees = [parse_tree(t) for t in TREES.values()]
    options = [_who(d.label, d.start, d.end, a) for d in discriminants(SPANS, eq=EXACT) for a in (True, False)]
    for k in (1, 2):
        for ds in itertools.combinations(options, k):
            brackets = [Bracket(d.label, d.start, d.end, d.accept) for d in ds]
            consistent = [check_candidate(t, brackets, eq)[0] == 0 for t in trees]
            assert remaining_mask(SPANS, ds, eq).tolist() == consistent, ds


def test_keys_round_trip_and_bad_keys_are_one_line_errors():
    d = Discriminant("PRP$", 3, 7, 1, 2, 0.5)
    assert d.key == "PRP$:3-7" == span_key("PRP$", 3, 7)
    assert parse_key(d.key) == ("PRP$", 3, 7)
    assert parse_key("WHADVP:0-12") == ("WHADVP", 0, 12)
    for bad in ["", "NP", "NP:3", "NP:7-3", "NP:3-3", "NP:a-b", ":1-2", "NP:-1-2", " NP:1-2", "NP:1-2 ",
                "../etc:1-2", "NP:1-2;DROP TABLE", "N P:1-2", "NP:1-1234567890", "<b>:1-2", None, 7]:
        with pytest.raises(RankerError, match="bad discriminant key") as e:
            parse_key(bad)
        assert "\n" not in str(e.value)


def test_decision_from_a_key_names_who_and_when_in_utc():
    d = decision("NP:2-7", True, " ann ")
    assert d[:5] == ("NP", 2, 7, True, "ann")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", d.at)
    assert decision("VP:1-4", 0, "bob", at="2026-01-01T00:00:00Z").accept is False
    with pytest.raises(RankerError, match="who"):
        decision("NP:2-7", True, "  ")
    with pytest.raises(RankerError, match="bad discriminant key"):
        decision("NP:7-2", True, "ann")


def test_bad_mask_or_probabilities_are_refused():
    with pytest.raises(ValueError, match="mask"):
        discriminants(SPANS, np.ones(3, dtype=bool))
    for probs in ([1, 1, 1], [1, 1, 1, 1, float("nan")], [1, 1, 1, 1, -1]):
        with pytest.raises(ValueError, match="probs"):
            discriminants(SPANS, probs=probs)
    # all the remaining mass at zero: uniform, not NaN
    ds = discriminants(SPANS, probs=[0.0] * 5)
    assert [d.mass for d in ds] == pytest.approx([0.4, 0.8, 0.2, 0.8])


@pytest.mark.linkgrammar
def test_a_real_link_grammar_forest_is_decided_by_answering_the_first_discriminant():
    parser = LinkGrammarParser(LinkGrammarOptions(linkage_limit=50, max_parse_time=5))
    toks = tuple("I saw the man with a telescope in the park .".split())
    r = parser.parse(Sentence("x/y/0", "user", "y", 0, toks, ("",) * len(toks)))
    spans = [candidate_spans(c.tree) for c in r.candidates]
    target = 0                              # answer as if the source's first candidate were right
    decided: list[Decision] = []
    mask = remaining_mask(spans, decided)
    while True:
        ds = discriminants(spans, mask)
        if not ds:
            break
        d = ds[0]
        yes = bool(remaining_mask([spans[target]], [_who(d.label, d.start, d.end, True)])[0])
        decided.append(_who(d.label, d.start, d.end, yes))
        new = remaining_mask(spans, decided)
        assert new[target] and new.sum() < mask.sum()
        mask = new
    assert len(r.candidates) > 2 and mask[target]
    # what is left cannot be told apart by any span: the same spans up to label equivalence
    rest = [spans[i] for i in np.flatnonzero(mask)]
    assert all(remaining_mask(rest, [_who(l, s, e, True)]).all() for l, s, e in spans[target])
    assert len(decided) <= np.log2(len(r.candidates)) + 1


@pytest.mark.parametrize("label", ["NP&X", "<S>", "A/B", "C:D", "E%F", "G?H#I", "J\"K'L", "NP%26X", "ÄÖ", "$"])
def test_any_label_round_trips_through_its_key_and_the_key_is_safe_in_html_and_urls(label):
    """Regression: keys of labels with & < / : could not be parsed back, so their buttons always failed."""
    key = span_key(label, 2, 5)
    assert re.fullmatch(r"[A-Za-z0-9_.~$%-]+:2-5", key), key
    assert parse_key(key) == (label, 2, 5)
    assert Discriminant(label, 2, 5, 1, 2, 0.5).key == key


def test_decoded_labels_must_be_labels():
    for bad in ["%20NP:1-2", "N%0AP:1-2", "%FF:1-2", "%:1-2", "%2:1-2"]:
        with pytest.raises(RankerError, match="bad discriminant key"):
            parse_key(bad)
