"""Every candidate of the BLLIP test lists scores under each native scheme as the reference scores it.

A file of its own (issue 35, item 8): five schemes over 20,000 pairs each, the suite's second
longest work, run by one worker while others run the rest of ``test_schemes_native.py``.
"""
import pytest
from test_schemes_native import _bllip_pairs, _scorable, native_and_reference

from ranker.evaluation import schemes_native


@pytest.mark.slow
@pytest.mark.parametrize("scheme", schemes_native.NATIVE_SCHEMES)
def test_every_bllip_candidate_scores_as_the_reference_scores_it(bllip_lists, tmp_path, scheme):
    # every candidate of every test list (the first three of each were a test of their own, which
    # repeated this one's work: issue 35, item 8)
    gold, test = _bllip_pairs(bllip_lists, per_sentence=50, traces=scheme != "parseval")
    g, t = _scorable(tmp_path, gold, test, scheme)
    native, reference = native_and_reference(g, t, scheme)
    assert native == reference
    assert native["sentences"] > 15_000 and native["matched"] > 0
