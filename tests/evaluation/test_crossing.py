"""Crossing brackets: the counting path agrees with the definition, pair by pair."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranker.evaluation.crossing import PAIRWISE_LIMIT, crossing_count

span = st.tuples(st.integers(0, 30), st.integers(0, 30)).map(lambda p: (min(p), max(p)))


def _by_definition(gold, test):
    return sum(1 for ts, te in test if any(gs < ts < ge < te or ts < gs < te < ge for gs, ge in gold))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(span, max_size=40), st.lists(span, max_size=40))
def test_crossing_count_is_the_pairwise_definition(gold, test):
    # small inputs take the per-position path the scorer uses on every candidate
    assert len(gold) * len(test) <= PAIRWISE_LIMIT
    assert crossing_count(set(gold), test) == _by_definition(gold, test)


def test_large_inputs_take_the_range_query_path_with_the_same_answer():
    gold = [(i, i + 3) for i in range(0, 400, 2)]
    test = [(i + 1, i + 5) for i in range(0, 400, 3)] + [(0, 2), (5, 5)]
    assert len(gold) * len(test) > PAIRWISE_LIMIT
    assert crossing_count(gold, test) == _by_definition(gold, test) > 0
