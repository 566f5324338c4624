"""Fixtures shared by the command-line tests."""
import pytest
from nbest_slices import cut_lists
from ranker_forked import run_forked

DOCS = {"train": ("wsj_0001", "wsj_0003"), "heldout": ("wsj_0140", "wsj_0141"), "test": ("wsj_0170", "wsj_0171")}
RANGES = {k: f"{a}-{b[-4:]}" for k, (a, b) in DOCS.items()}


def _ok(*argv):
    got = run_forked(argv)
    assert got.returncode == 0 and "Traceback" not in got.stderr, got.stderr
    return got


@pytest.fixture(scope="session")
def bllip(tmp_path_factory, bllip_lists):
    """A store of a few documents' BLLIP lists, a model trained on them, and the test lists as a file.

    Made once per test process and shared by the ``ranker apply`` test files (none writes into it).
    """
    work = tmp_path_factory.mktemp("apply-bllip")
    files = {}
    for split, docs in DOCS.items():
        files[split] = work / f"{split}.nbest"
        cut_lists(bllip_lists, split, docs, files[split])
    store = work / "s.sqlite"
    _ok("import", "--store", store, "--format", "bllip", "--source", "bllip", "--corpus", "treebank", *files.values())
    _ok("annotate", "--store", store, "--kind", "riezler")
    _ok("counts", "--store", store, "--split", RANGES["heldout"], "--workers", "1")
    _ok("train", "--store", store, "--split", RANGES["train"], "--heldout", RANGES["heldout"],
        "--sigma2-grid", "0.1", "1", "--workers", "1", "--no-progress", "--out", work / "model.json")
    _ok("select", "--store", store, "--split", RANGES["test"], "--ranker", "loglinear",
        "--model", work / "model.json", "--out", work / "selected.mrg")
    return work, store, files
