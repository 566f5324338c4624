"""Shared inputs of the pipeline tests that run on GUM: a folder holding a few of its documents."""
import shutil
from pathlib import Path

import pytest

_GUM = Path(__file__).resolve().parents[2].parent / "shared" / "gum" / "const"

#: The GUM documents the two-treebank runs read (tests/pipeline/test_treebanks.py,
#: test_copies_fronts.py): the first of the news, bio and fiction genres, which their globs
#: (``GUM_news_*`` etc.) select with a limit under a document's length, in GUM's whole folder too.
GUM_DOCUMENTS = ("GUM_news_afghan", "GUM_bio_bernoulli", "GUM_fiction_beast")


@pytest.fixture(scope="session")
def gum_few(tmp_path_factory) -> Path:
    """A folder of :data:`GUM_DOCUMENTS` (copies of ``../shared/gum/const/*.ptb``), for ``[data]
    corpus = "penn"``: a run loads every file of its folder into the store, and loading all 237
    of GUM's (about 11,000 sentences, 15-25 s) to parse and train on three was most of a small
    run's corpus stage. The documents a run selects are the same files, so the same sentences.
    Read-only."""
    folder = tmp_path_factory.mktemp("gum-few")
    for name in GUM_DOCUMENTS:
        shutil.copy(_GUM / f"{name}.ptb", folder / f"{name}.ptb")
    return folder
