"""Conflicts, agreement and the adjudicated training set of several annotators' work on one sentence."""
import itertools

import pytest

from ranker.sources.adjudication import (AnnotatorWork, agreement, cohen_kappa, resolve, sentence_agreement,
                                         work_by_annotator)
from ranker.sources.discriminants import decision
from ranker.store.records import Adjudication, Verdict

# four candidates of a 4-word sentence: NP over 0-2 or not, VP over 2-4 or 1-4
SPANS = [frozenset({("NP", 0, 2), ("VP", 2, 4), ("S", 0, 4)}),
         frozenset({("NP", 0, 2), ("VP", 1, 4), ("S", 0, 4)}),
         frozenset({("NP", 0, 1), ("VP", 2, 4), ("S", 0, 4)}),
         frozenset({("NP", 0, 1), ("VP", 1, 4), ("S", 0, 4)})]


def _work(**by_who):
    decisions = [decision(key, acc, who) for who, answers in by_who.items() for key, acc in answers]
    return work_by_annotator(decisions, [])


def test_one_annotator_is_no_agreement_and_teaches_their_decisions():
    work = _work(ann=[("NP:0-2", True)])
    assert sentence_agreement("s", work, SPANS) is None
    assert [d.label for d in resolve(work, False, None)] == ["NP"]


def test_compatible_work_agrees_and_teaches_the_union():
    # ann finished (candidate 0), bob only answered NP: compatible, not yet the same selection
    work = _work(ann=[("NP:0-2", True), ("VP:2-4", True)], bob=[("NP:0-2", True)])
    row = sentence_agreement("s", work, SPANS)
    assert not row.conflict and row.shared == 1 and row.agreed == 1 and not row.same_selection
    assert row.remaining == {"ann": 1, "bob": 2}
    assert sorted(f"{d.label}:{d.start}-{d.end}" for d in resolve(work, row.conflict, None)) == \
        ["NP:0-2", "VP:2-4"]


def test_a_span_answered_both_ways_is_a_conflict_that_teaches_nothing_until_adjudicated():
    work = _work(ann=[("NP:0-2", True)], bob=[("NP:0-2", False)])
    row = sentence_agreement("s", work, SPANS)
    assert row.conflict and row.contradicted == ("NP:0-2",) and row.agreed == 0 and row.shared == 1
    assert resolve(work, True, None) is None
    picked = resolve(work, True, Adjudication("s", "bob", "boss", "2026-01-01T00:00:00Z"))
    assert [(d.label, d.accept, d.who) for d in picked] == [("NP", False, "bob")]


def test_different_spans_that_together_leave_nothing_conflict():
    # no span answered by both, yet ann keeps only candidate 0 and bob only candidate 3
    work = _work(ann=[("NP:0-2", True), ("VP:2-4", True)], bob=[("NP:0-1", True), ("VP:1-4", True)])
    row = sentence_agreement("s", work, SPANS)
    assert row.shared == 0 and row.conflict and "leave no candidate" in row.why


def test_no_correct_candidate_against_a_selection_conflicts_and_alone_teaches_nothing():
    none = Verdict(True, "", "bob", "2026-01-01T00:00:00Z")
    work = work_by_annotator([decision("NP:0-2", True, "ann")], [none])
    row = sentence_agreement("s", work, SPANS)
    assert row.conflict and row.remaining["bob"] is None
    both = work_by_annotator([], [none, none._replace(who="ann")])
    row = sentence_agreement("s", both, SPANS)
    assert not row.conflict and row.same_selection
    assert resolve(both, False, None) is None
    # a comment alone selects nothing: the annotator is not counted
    remark = work_by_annotator([decision("NP:0-2", True, "ann")], [Verdict(False, "hard one", "bob", "x")])
    assert sentence_agreement("s", remark, SPANS) is None


def test_a_stale_adjudication_is_ignored():
    work = _work(ann=[("NP:0-2", True)], bob=[("NP:0-2", False)])
    assert resolve(work, True, Adjudication("s", "carl", "boss", "x")) is None


def _kappa_by_hand(pairs):
    n = len(pairs)
    po = sum(a == b for a, b in pairs) / n
    pa, pb = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    pe = pa * pb + (1 - pa) * (1 - pb)
    return (po - pe) / (1 - pe)


@pytest.mark.parametrize("pairs", [
    [(True, True), (True, False), (False, False), (False, False), (True, True)],
    [(True, False), (False, True), (True, True), (False, False)],
    list(itertools.product([True, False], repeat=2)) * 3 + [(True, True)],
])
def test_cohens_kappa_is_the_textbook_formula_and_scikit_learns(pairs):
    from sklearn.metrics import cohen_kappa_score

    assert cohen_kappa(pairs) == pytest.approx(_kappa_by_hand(pairs))
    assert cohen_kappa(pairs) == pytest.approx(cohen_kappa_score([a for a, _ in pairs], [b for _, b in pairs]))


def test_kappa_is_undefined_without_pairs_or_with_one_answer_only():
    assert cohen_kappa([]) is None and cohen_kappa([(True, True)] * 4) is None
    assert cohen_kappa([(False, False)] * 3) is None


def test_overall_agreement_pools_the_shared_answers_of_every_sentence():
    team = {"s1": _work(ann=[("NP:0-2", True), ("VP:2-4", True)], bob=[("NP:0-2", True), ("VP:2-4", False)]),
            "s2": _work(ann=[("NP:0-1", False)], bob=[("NP:0-1", False)]),
            "s3": _work(ann=[("NP:0-1", False)])}
    a = agreement(team, lambda sid: SPANS, {"s1": Adjudication("s1", "ann", "boss", "x")})
    assert [r.sentence_id for r in a.sentences] == ["s1", "s2"]
    pairs = [(True, True), (True, False), (False, False)]
    assert a.answers == 3 and a.observed == pytest.approx(2 / 3)
    assert a.kappa == pytest.approx(_kappa_by_hand(pairs))
    # s2's two selections are equal but unfinished (two bracketings left): only s1 is compared
    assert a.exact_match == 0 and a.compared == 1 and (a.conflicts, a.adjudicated) == (1, 1)


def test_exact_match_compares_the_sentences_every_annotator_finished_only():
    """Regression (issue 37, item 9): two annotators with one compatible answer each counted as
    selections that differ (42.9% became 25%)."""
    team = {"started": _work(ann=[("NP:0-2", True)], bob=[("VP:2-4", True)]),
            "same": _work(ann=[("NP:0-2", True), ("VP:2-4", True)], bob=[("VP:2-4", True), ("NP:0-2", True)]),
            "differ": _work(ann=[("NP:0-2", True), ("VP:2-4", True)], bob=[("NP:0-2", False), ("VP:2-4", True)])}
    rows = {r.sentence_id: r for r in agreement(team, lambda sid: SPANS, {}).sentences}
    assert [rows[k].finished for k in ("started", "same", "differ")] == [False, True, True]
    assert not rows["started"].conflict and not rows["started"].same_selection
    a = agreement(team, lambda sid: SPANS, {})
    assert a.compared == 2 and a.exact_match == pytest.approx(1 / 2)
    assert agreement({"started": team["started"]}, lambda sid: SPANS, {}).exact_match is None
    none = work_by_annotator([], [Verdict(True, "", "ann", "x"), Verdict(True, "", "bob", "x")])
    assert sentence_agreement("s", none, SPANS).finished


def test_an_annotator_s_latest_answer_on_a_span_is_the_one_compared():
    ds = [decision("NP:0-2", True, "ann"), decision("NP:0-2", True, "bob")]
    row = sentence_agreement("s", work_by_annotator(ds, []), SPANS)
    assert (row.shared, row.agreed) == (1, 1)
    assert isinstance(next(iter(work_by_annotator(ds, []).values())), AnnotatorWork)


def test_kappa_takes_each_pairs_raters_in_name_order_whoever_answered_first():
    """Regression (issue 46, defect 2): the answer pairs were ordered by who answered a sentence
    first, so ann was rater 1 on some sentences and rater 2 on others: 7 shared answers, 5 agreeing,
    gave 0.000 where the fixed order gives -0.167."""
    team = {"s1": _work(ann=[("NP:0-2", True), ("VP:2-4", True)], bob=[("NP:0-2", True), ("VP:2-4", True)]),
            "s2": _work(ann=[("NP:0-2", True), ("VP:2-4", True), ("VP:1-4", True)],
                        bob=[("NP:0-2", True), ("VP:2-4", True), ("VP:1-4", False)]),
            # bob answered first here
            "s3": _work(bob=[("NP:0-1", True), ("S:0-4", True)], ann=[("NP:0-1", False), ("S:0-4", True)])}
    assert list(team["s3"]) == ["bob", "ann"]
    a = agreement(team, lambda sid: SPANS, {})
    # by hand: ann accepts 6 of 7, bob 6 of 7; p_o = 5/7, p_e = (6/7)(6/7) + (1/7)(1/7) = 37/49
    # kappa = (35/49 - 37/49) / (12/49) = -2/12
    assert a.answers == 7 and a.observed == pytest.approx(5 / 7)
    assert a.kappa == pytest.approx(-1 / 6) and f"{a.kappa:.3f}" == "-0.167"
    (pair,) = a.pairs
    assert (pair.first, pair.second, pair.sentences, pair.answers, pair.agreed) == ("ann", "bob", 3, 7, 5)
    assert (pair.both_accept, pair.first_only, pair.second_only, pair.both_reject) == (5, 1, 1, 0)
    assert pair.kappa == pytest.approx(-1 / 6)
