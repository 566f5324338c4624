"""The peer benchmark's converter: our candidates as cvlm-lbfgs's feature-count file, and back."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from ranker.models.objective import ConditionalObjective

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "cvlm_format.py"
_spec = importlib.util.spec_from_file_location("cvlm_format", _PATH)
cvlm_format = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cvlm_format)


def _data(seed=0):
    """Eight sentences of 2-9 candidates: binary properties, counts, real values, an explicit zero."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 10, size=8)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    X = sp.random(n, 40, density=0.25, random_state=seed, format="csr")
    X.data = rng.choice([1.0, 1.0, 1.0, 2.0, 3.0, 0.5, -1.25], size=X.nnz)
    X.data[0] = 0.0                       # stored but zero: not written
    w = np.zeros(n)
    for j, (a, b) in enumerate(zip(offsets[:-1], offsets[1:])):
        k = int(rng.integers(1, b - a))
        chosen = a + rng.choice(b - a, k, replace=False)
        w[chosen] = 1.0 if j % 2 else 1.0 / k     # 0/1 sets and best-F ties sharing the weight
    return X, w, offsets


@pytest.mark.parametrize("name", ["train.txt", "train.gz"])
def test_written_file_parses_back_to_the_same_candidates(tmp_path, name):
    X, w, offsets = _data()
    n_features = cvlm_format.write_cvlm(tmp_path / name, X, w, offsets)
    Y, W, P, got_offsets = cvlm_format.read_cvlm(tmp_path / name)
    Xc = sp.csr_matrix(X)
    Xc.eliminate_zeros()
    assert n_features == Xc.indices.max() + 1
    assert np.array_equal(got_offsets, offsets)
    assert Y.shape == (X.shape[0], n_features)
    assert abs(Y - Xc[:, :n_features]).max() == 0
    assert np.array_equal(W, (w > 0).astype(float))    # winners carry W=1, P and G stay 1
    assert np.all(P == 1)


def test_counts_of_one_are_written_as_bare_ids(tmp_path):
    X = sp.csr_matrix(np.array([[1.0, 0, 2.0], [0, 1.0, 0]]))
    cvlm_format.write_cvlm(tmp_path / "t.txt", X, np.array([1.0, 0.0]), np.array([0, 2]))
    assert (tmp_path / "t.txt").read_bytes() == b"S=1\nN=2\nW=1 0 2=2 ,\n1 ,\n"


def test_value_offset_is_what_normalising_the_weights_adds():
    # The peer normalises each sentence's targets to sum 1; our objective takes them as they are.
    X, w, offsets = _data(1)
    w = np.where(w > 0, 1.0, 0.0)
    sums = np.add.reduceat(w, offsets[:-1])
    normalised = w / np.repeat(sums, np.diff(offsets))
    lam = np.random.default_rng(2).normal(0, 0.5, X.shape[1])
    ours, g = ConditionalObjective(X, w, offsets, 1.0)(lam)
    peer_like, g2 = ConditionalObjective(X, normalised, offsets, 1.0)(lam)
    assert peer_like == pytest.approx(ours + cvlm_format.value_offset(w, offsets), rel=1e-12)
    assert np.allclose(g, g2, atol=1e-12)


def test_unequal_positive_weights_are_refused(tmp_path):
    X = sp.csr_matrix(np.eye(3))
    with pytest.raises(ValueError, match="sentence 0 has unequal positive weights"):
        cvlm_format.write_cvlm(tmp_path / "t.txt", X, np.array([0.5, 0.25, 0.0]), np.array([0, 3]))


def test_a_sentence_without_candidates_is_refused(tmp_path):
    X = sp.csr_matrix(np.eye(2))
    with pytest.raises(ValueError, match="every sentence needs a candidate"):
        cvlm_format.write_cvlm(tmp_path / "t.txt", X, np.array([1.0, 0.0]), np.array([0, 0, 2]))


def test_feature_classes_name_every_feature(tmp_path):
    cvlm_format.write_feature_classes(tmp_path / "c", 3)
    assert (tmp_path / "c").read_text() == "0 all\n1 all\n2 all\n"


def test_reader_names_the_byte_it_cannot_read(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"S=1\nN=1\n3 x ,\n")
    with pytest.raises(ValueError, match="bad.txt: unexpected b'x' at byte"):
        cvlm_format.read_cvlm(tmp_path / "bad.txt")
