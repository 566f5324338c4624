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


@pytest.fixture(scope="session")
def gum_sentence():
    """A function giving sentence ``index`` of a GUM document (``../shared/gum/const``) with its gold tags."""
    from ranker.sources.penn_files import file_trees
    from ranker.store.records import Sentence

    def get(document: str, index: int) -> Sentence:
        tree = list(file_trees(_ROOT.parent / "shared" / "gum" / "const" / f"{document}.ptb"))[index]
        return Sentence(f"gum/{document}/{index}", "gum", document, index, tuple(tree.words), tuple(tree.tags()))

    return get
