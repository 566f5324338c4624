"""Every candidate of the BLLIP test lists scores under each native scheme as the reference scores it.

The work is five schemes over 20,000 pairs each, the suite's second longest: one file a scheme
(``test_schemes_native_every_<scheme>.py``, issue 47, item 5), so that pytest-xdist, which gives
each worker whole files, spreads the schemes over the workers instead of one worker running all
five while the others are done. This file holds the check they run and makes sure no scheme is
without its file.
"""
from pathlib import Path

from test_schemes_native import native_and_reference

from ranker.evaluation import schemes_native


def every_candidate_scores_as_the_reference_scores_it(every_bllip_pair, scheme: str) -> None:
    """Every candidate of every test list (the first three of each were a test of their own, which
    repeated this one's work: issue 35, item 8), scored natively and by the reference.

    Every pair, none left out: each candidate is over its gold's words (``_bllip_pairs`` keeps no
    other), and a pair over the same words is never refused, only skipped as EVALB skips it and
    counted in the figures compared. (The pairs were once filtered first by scoring them with the
    reference in runs of 50, which refused none and doubled the test's work: issue 47, item 5.)
    A scheme that came to refuse one of these pairs fails here."""
    g, t, pairs = every_bllip_pair(scheme != "parseval")
    native, reference = native_and_reference(g, t, scheme, pairs)
    assert native == reference
    assert native["sentences"] > 15_000 and native["matched"] > 0


def test_each_native_scheme_has_its_file():
    here = Path(__file__).parent
    for scheme in schemes_native.NATIVE_SCHEMES:
        path = here / f"test_schemes_native_every_{scheme}.py"
        assert path.is_file(), f"{path.name} is missing: scheme {scheme} would go unchecked"
        assert f'"{scheme}"' in path.read_text(), path.name
