"""The BLLIP held-out sweep's family ablation leaves out exactly the properties of the kinds named."""
import importlib.util
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ranker.models.compact import CompactMatrix
from ranker.models.narrow import split_columns
from ranker.pipeline.training import TrainingData


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
