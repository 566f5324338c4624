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

    Made once per run, shared by its workers (:func:`run_once.built_once`), and by the ``ranker apply``
    test files (none writes into it).
    """
    from run_once import built_once

    def build(work):
        for split, docs in DOCS.items():
            cut_lists(bllip_lists, split, docs, work / f"{split}.nbest")
        files = [work / f"{split}.nbest" for split in DOCS]
        store = work / "s.sqlite"
        _ok("import", "--store", store, "--format", "bllip", "--source", "bllip", "--corpus", "treebank", *files)
        _ok("annotate", "--store", store, "--kind", "riezler")
        _ok("counts", "--store", store, "--split", RANGES["heldout"], "--workers", "1")
        _ok("train", "--store", store, "--split", RANGES["train"], "--heldout", RANGES["heldout"],
            "--sigma2-grid", "0.1", "1", "--workers", "1", "--no-progress", "--out", work / "model.json")
        _ok("select", "--store", store, "--split", RANGES["test"], "--ranker", "loglinear",
            "--model", work / "model.json", "--out", work / "selected.mrg")

    work = built_once(tmp_path_factory, "apply-bllip", build)
    return work, work / "s.sqlite", {split: work / f"{split}.nbest" for split in DOCS}
