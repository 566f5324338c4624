"""The training rows of ranker run: filters, cut-off and stacking give the objective the naive rows give."""
import numpy as np
import scipy.sparse as sp

from features.vectorizer import CandidateMatrix
from ranker.models import LogLinearRanker
from ranker.models.groups import group_offsets
from ranker.models.objective import ConditionalObjective
from ranker.pipeline.training import training_data


def _block(seed, n_sent, prefix):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, size=n_sent)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    names = tuple(sorted(f"f{j:02d}" for j in rng.choice(30, size=12, replace=False)))
    dense = sp.random(int(offsets[-1]), len(names), density=0.5, random_state=seed).toarray()
    dense = np.where(dense > 0, np.round(dense * 3) + 1, 0.0)
    dense[:, 0] = 2.0        # one property constant over every sentence's candidates
    X = sp.csr_matrix(dense)
    ids = tuple(f"{prefix}{j}" for j in range(n_sent))
    y = (rng.random(int(offsets[-1])) < 0.4).astype(float)
    return CandidateMatrix(X, offsets, names, ids), y


def test_rows_are_the_filtered_stack_without_sentence_constants():
    (a, ya), (b, yb) = _block(1, 30, "a"), _block(2, 20, "b")
    qualities = {sid: ("full",) * int(n) for m in (a, b)
                 for sid, n in zip(m.sentence_ids, np.diff(m.offsets))}
    data = training_data([a, b], [ya, yb], 1, qualities, LogLinearRanker())
    # the naive way: stack everything, restrict, then drop the filtered sentences' rows
    names = list(data.names)
    X = sp.vstack([a.restrict(names).tocsr(), b.restrict(names).tocsr()]).tocsr()
    y = np.concatenate([ya, yb])
    keep = data.survivors.row_mask
    assert 0 < keep.sum() < len(keep)
    Xn, yn = X[np.flatnonzero(keep)], y[keep]
    assert data.X.shape == Xn.shape and np.array_equal(data.y, yn)
    offsets = group_offsets(data.groups, len(data.y))
    assert data.X.nnz < Xn.nnz     # the constant column (at least) is gone
    lam = np.random.default_rng(0).normal(size=len(names))
    v1, g1 = ConditionalObjective(data.X, data.y, offsets, 1.0)(lam)
    v2, g2 = ConditionalObjective(Xn, yn, offsets, 1.0)(lam)
    assert abs(v1 - v2) < 1e-9 * max(1.0, abs(v2))
    np.testing.assert_allclose(g1, g2, rtol=1e-12, atol=1e-12)


def test_no_surviving_sentence_gives_empty_rows():
    a, _ = _block(3, 5, "a")
    qualities = {sid: ("full",) * int(n) for sid, n in zip(a.sentence_ids, np.diff(a.offsets))}
    data = training_data([a], [np.zeros(a.X.shape[0])], 1, qualities, LogLinearRanker())
    assert data.X.shape[0] == 0 and not data.survivors.group_mask.any()
