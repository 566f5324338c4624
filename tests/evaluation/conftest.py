"""Fixtures shared by the evaluation tests."""
import pytest


@pytest.fixture(scope="session")
def every_bllip_pair(bllip_lists, tmp_path_factory):
    """A function giving, for ``traces`` True or False, every candidate of the BLLIP test lists (the
    first 50 of each list) beside its gold tree: the two files and their pairs as ``ranker evaluate``
    reads them.

    Reading the 20,000 pairs is as much work as one scheme's reference scoring; the five files of
    ``test_schemes_native_every_<scheme>.py`` read the same two pairings (four schemes with the
    gold's traces, PARSEVAL without), so each test process reads each once (issue 47, item 5). The
    trees are immutable: no scheme can change what the next one scores.
    """
    from test_schemes_native import _args, _bllip_pairs, _write

    from ranker.cli.evaluate import _pairs

    made = {}

    def get(traces: bool):
        if traces not in made:
            gold, test = _bllip_pairs(bllip_lists, per_sentence=50, traces=traces)
            g, t = _write(tmp_path_factory.mktemp("every-traces" if traces else "every-no-traces"), gold, test)
            made[traces] = (g, t, _pairs(_args(g, t, "evalb")))
        return made[traces]

    return get
