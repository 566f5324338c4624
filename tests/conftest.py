"""Where the shared real data lives for every test: the BLLIP n-best lists of the WSJ sample."""
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def bllip_lists() -> Path:
    """``../shared/nbest/bllip-wsj-sample``: the shared data sit beside the project folder."""
    p = _ROOT.parent / "shared" / "nbest" / "bllip-wsj-sample"
    if (p / "nbest-test.txt.gz").is_file():
        return p
    raise FileNotFoundError("the BLLIP lists of the WSJ sample are not in ../shared/nbest/bllip-wsj-sample")
