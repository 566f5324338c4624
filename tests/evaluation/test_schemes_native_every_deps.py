"""Every candidate of the BLLIP test lists scores under the deps scheme as the reference scores it.

One scheme a file, so that the workers share the schemes (:mod:`test_schemes_native_every`).
"""
import pytest
from test_schemes_native_every import every_candidate_scores_as_the_reference_scores_it


@pytest.mark.slow
def test_every_bllip_candidate_scores_as_the_reference_scores_it(every_bllip_pair):
    every_candidate_scores_as_the_reference_scores_it(every_bllip_pair, "deps")
