"""The BLLIP held-out sweep's family ablation leaves out exactly the properties of the kinds named."""
import importlib.util
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ranker.matrices.compact import CompactMatrix
from ranker.models.narrow import split_columns
from ranker.pipeline.training_rows import TrainingData


def _sweep():
    path = Path(__file__).resolve().parents[2] / "experiments" / "wsj-sample-bllip" / "heldout_sweep.py"
    spec = importlib.util.spec_from_file_location("heldout_sweep", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_drop_removes_the_named_kinds_columns_and_keeps_the_rest():
    names = ("R2:NP->DT NN", "HT:x", "R20:y", "rule:NP", "H1w:a", "HV:NP:5")
    dense = np.arange(1, 4 * len(names) + 1, dtype=float).reshape(4, len(names))
    dense[1, 2] = 0.0
    X = split_columns(CompactMatrix.from_csr(sp.csr_matrix(dense)), len(names))
    data = TrainingData(X, np.array([1.0, 0, 1, 0]), np.array([0, 0, 1, 1]), np.ones(4, bool), names,
                        None)
    out = _sweep().without_kinds(data, ["^R[0-9]+$", "^HT$"])
    assert out.names == ("rule:NP", "H1w:a", "HV:NP:5")       # "rule" is another kind than "R2"
    np.testing.assert_array_equal(out.X.toarray(), dense[:, [3, 4, 5]])
    assert np.array_equal(out.y, data.y) and np.array_equal(out.groups, data.groups)


def _rows(dense, offsets, weights, names):
    """The training rows ``ranker run`` would fit on (cut-off 0, sentence constants dropped)."""
    from ranker.features.vectorizer import CandidateMatrix
    from ranker.models import LogLinearRanker
    from ranker.pipeline.training_rows import training_data

    ids = tuple(f"s{k}" for k in range(len(offsets) - 1))
    m = CandidateMatrix(CompactMatrix.from_csr(sp.csr_matrix(dense)), np.asarray(offsets), names, ids)
    qualities = {sid: ("full",) * int(b - a) for sid, a, b in zip(ids, offsets, offsets[1:])}
    return training_data([m], [np.asarray(weights, float)], 0, qualities, LogLinearRanker())


def test_varying_sentences_counts_the_sentences_a_property_tells_apart():
    names = ("a", "b", "c", "d", "e")
    dense = np.array([
        # sentence 0: a on every candidate (constant), b varies, c 2 vs 1 (varies), d absent
        [1, 1, 2, 0, 0],
        [1, 0, 1, 0, 0],
        [1, 1, 2, 0, 0],
        # sentence 1: a varies, b constant 1, c constant 3, e only on the wrong parse
        [1, 1, 3, 0, 0],
        [0, 1, 3, 0, 1],
        # sentence 2: everything constant but d (on the best parse only) and e
        [0, 0, 0, 1, 0],
        [0, 0, 0, 0, 1],
    ], dtype=float)
    data = _rows(dense, [0, 3, 5, 7], [1, 0, 0, 1, 0, 1, 0], names)
    got = dict(zip(data.names, _sweep().varying_sentences(data)))
    assert got == {"a": 1, "b": 1, "c": 1, "d": 1, "e": 2}
    # The cut-off counted today (entries in best-F candidates) keeps neither d nor e at 2, and
    # never keeps e, which fires on wrong parses only; varying in >= 2 sentences keeps e alone.
    kept = _sweep().kept_columns(data, _sweep().varying_sentences(data) >= 2)
    assert kept.names == ("e",)
    np.testing.assert_array_equal(kept.X.toarray()[:, 0], data.X.toarray()[:, data.names.index("e")])


def test_a_missing_config_is_a_one_line_error_with_exit_2(tmp_path):
    """Regression: the sweep printed a traceback for a config path that does not exist."""
    import subprocess
    import sys

    path = Path(__file__).resolve().parents[2] / "experiments" / "wsj-sample-bllip" / "heldout_sweep.py"
    out = subprocess.run([sys.executable, str(path), str(tmp_path / "nope.toml")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip() == f"heldout_sweep: error: {tmp_path / 'nope.toml'}: no such config file"


def test_each_row_reports_the_further_metrics_of_the_fit_it_scores(capsys):
    """``--metric A B``: every row keeps A's held-out F and adds B's, of the same choice."""
    import argparse
    import json

    from ranker.evaluation.bounds import ForestCounts
    from ranker.features.vectorizer import CandidateMatrix

    names = ("good", "bad")
    # two training sentences, the first candidate of each the consistent one
    train = _rows(np.array([[1, 0], [0, 1], [1, 0], [0, 1]], float), [0, 2, 4], [1, 0, 1, 0], names)
    # held-out: sentence 0's "good" candidate is its second, sentence 1's its first
    held_X = np.array([[0, 1], [1, 0], [1, 0], [0, 1]], float)
    heldout = CandidateMatrix(CompactMatrix.from_csr(sp.csr_matrix(held_X)), np.array([0, 2, 4]), names,
                              ("h0", "h1"))
    offs = np.array([0, 2, 4])
    # counts (gold, test, matched, crossing): the "good" candidates match 2 of 2 under metric A
    # and 1 of 2 under metric B; the others match nothing under either
    a = ForestCounts.from_lists([[(2, 2, 0, 0), (2, 2, 2, 0)], [(2, 2, 2, 0), (2, 2, 0, 0)]], [2, 2])
    b = ForestCounts.from_lists([[(2, 2, 0, 0), (2, 2, 1, 0)], [(2, 2, 1, 0), (2, 2, 0, 0)]], [2, 2])
    args = argparse.Namespace(objective=["loglik"], sigma2=[1.0], unregularised=[])
    ll = argparse.Namespace(optimizer="cg", max_iter=100, tol=1e-8)
    best: list = []
    qa = np.array([0.0, 100.0, 100.0, 0.0])
    _sweep().fit_variant(args, "full set", 0, train, None, heldout, a, qa, offs, "evalb_unlabeled", ll,
                         best, {"mph": b})
    row = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert row["metric"] == "evalb_unlabeled" and row["heldout_f"] == 100.0
    assert row["heldout_also"] == {"mph": 50.0}
    assert row["heldout_mean_sentence_f"] == 100.0 and best[0] == 100.0
