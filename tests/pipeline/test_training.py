"""The training rows of ranker run: filters, cut-off and stacking give the objective the naive rows give."""
import numpy as np
import pytest
import scipy.sparse as sp

from ranker.features.vectorizer import CandidateMatrix
from ranker.models import LogLinearRanker
from ranker.models.groups import group_offsets
from ranker.models.objective import ConditionalObjective
from ranker.pipeline.training_rows import training_data


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


def _real_blocks(tmp_path, bllip_lists):
    """Default-feature matrices of two real BLLIP documents, first candidate consistent."""
    from bllip_documents import load_documents

    from ranker.features import load_feature_set
    from ranker.features.vectorizer import extract
    from ranker.store import Store

    out = []
    with Store.open(tmp_path / "s.sqlite") as st:
        load_documents(st, tmp_path, bllip_lists)
        forests = list(st.forests("treebank"))
    families = load_feature_set("default").build()
    half = len(forests) // 2
    for part in (forests[:half], forests[half:]):
        m = extract(part, families)
        y = np.zeros(m.X.shape[0])
        y[m.offsets[:-1]] = 1.0            # the parser's first parse: a proper consistent subset
        out.append((m, y))
    return out


@pytest.mark.slow
def test_slabs_and_consume_give_the_rows_of_one_pass(tmp_path, bllip_lists):
    # issue 13: the training rows are restricted slab by slab and the blocks released as used;
    # the result must be the rows of restricting each whole block at once, array for array
    (a, ya), (b, yb) = _real_blocks(tmp_path, bllip_lists)
    qualities = {sid: ("full",) * int(n) for m in (a, b)
                 for sid, n in zip(m.sentence_ids, np.diff(m.offsets))}
    whole = training_data([a, b], [ya, yb], 2, qualities, LogLinearRanker(), slab=1 << 40)
    blocks = [a, b]
    small = training_data(blocks, [ya, yb], 2, qualities, LogLinearRanker(), consume=True, slab=500)
    assert blocks == []
    assert a.X.nnz > 20 * 500      # many slabs per block
    # no kept array is a view of a block's, so a consumed block's memory (a stored matrix is one
    # buffer) can be released: one slab of sentences that all survive, on every property
    from ranker.features.vectorizer import select_sentences

    two = select_sentences(a, [s for s, n in zip(a.sentence_ids, np.diff(a.offsets)) if n > 1])
    y2 = np.zeros(two.X.shape[0])
    y2[two.offsets[:-1]] = 1.0
    every = training_data([two], [y2], 0, qualities, LogLinearRanker())
    assert every.survivors.row_mask.all() and len(every.names) == len(two.names)
    assert two.X.parts[2].nnz and every.X.parts[2].nnz == two.X.parts[2].nnz   # kept whole
    assert not any(np.shares_memory(x, k) for x in two.X.arrays()[1:] for k in every.X.arrays()[1:])
    assert small.names == whole.names and small.X.shape == whole.X.shape
    for p, q in zip(small.X.arrays(), whole.X.arrays()):
        assert p.dtype == q.dtype and np.array_equal(p, q)
    for f in ("y", "groups", "full"):
        assert np.array_equal(getattr(small, f), getattr(whole, f))
    # and both are the naive stack: restrict, filter rows, objective unchanged
    names = list(whole.names)
    Xn = sp.vstack([a.restrict(names).tocsr(), b.restrict(names).tocsr()]).tocsr()
    keep = whole.survivors.row_mask
    Xn, yn = Xn[np.flatnonzero(keep)], np.concatenate([ya, yb])[keep]
    offsets = group_offsets(whole.groups, len(whole.y))
    lam = np.random.default_rng(1).normal(size=len(names)) * 0.1
    v1, g1 = ConditionalObjective(small.X, small.y, offsets, 1.0)(lam)
    v2, g2 = ConditionalObjective(Xn, yn, offsets, 1.0)(lam)
    assert abs(v1 - v2) < 1e-9 * max(1.0, abs(v2))
    np.testing.assert_allclose(g1, g2, rtol=1e-9, atol=1e-9)


@pytest.mark.slow
def test_rows_are_narrow_with_the_most_frequent_properties_first(tmp_path, bllip_lists):
    # issue 13: the training matrix numbers its properties by descending entries in the kept rows
    # and stores the first 65,536 as 16-bit ids (here all of them), each name keeping its column
    from ranker.models.narrow import NarrowMatrix

    (a, ya), (b, yb) = _real_blocks(tmp_path, bllip_lists)
    qualities = {sid: ("full",) * int(n) for m in (a, b)
                 for sid, n in zip(m.sentence_ids, np.diff(m.offsets))}
    data = training_data([a, b], [ya, yb], 2, qualities, LogLinearRanker())
    assert isinstance(data.X, NarrowMatrix) and data.X.n_low == len(data.names)
    assert all(p.indices.dtype == np.uint16 for p in data.X.low.parts)
    keep = data.survivors.row_mask
    kept = sp.vstack([a.restrict(list(data.names)).tocsr(), b.restrict(list(data.names)).tocsr()]).tocsr()
    kept = kept[np.flatnonzero(keep)]
    counts = np.diff(kept.tocsc().indptr)       # entries of each name in the kept rows
    assert np.all(np.diff(counts) <= 0) and counts[0] > counts[-1]
    # the same columns as the naive rows, constants aside: every stored entry is one of theirs
    got = data.X.tocsr()
    assert got.shape == kept.shape and abs(got - kept.multiply(got != 0)).max() == 0


def test_a_stored_models_key_changes_with_the_objectives_arithmetic(monkeypatch):
    # a kernel change that moves a fit's bits must not let a warm rerun report the old code's model
    from ranker.matrices import kernels
    from ranker.pipeline.cache import fit_params

    before = fit_params(LogLinearRanker(n_jobs=1))
    assert fit_params(LogLinearRanker(n_jobs=2)) == before        # threads change no bit
    monkeypatch.setattr(kernels, "ARITHMETIC", kernels.ARITHMETIC + 1)     # a raised version
    assert fit_params(LogLinearRanker(n_jobs=1)) != before


def test_difference_rows_are_asked_for_only_where_numbas_kernels_fit(monkeypatch):
    """Regression (session 24): with ``RANKER_KERNELS=scipy`` and numba installed, ``fit_rows`` built
    difference rows that scipy's kernels cannot stream, and every fit of ``layout = "delta"`` (the
    default) failed with "difference rows need numba's kernels": ``ranker run`` of the quickstart
    stopped at its first fit. The plain rows now go to a scipy fit, and it fits."""
    from ranker.matrices import kernels
    from ranker.pipeline.training import fit_rows

    (a, ya), (b, yb) = _block(4, 30, "a"), _block(5, 20, "b")
    qualities = {sid: ("full",) * int(n) for m in (a, b)
                 for sid, n in zip(m.sentence_ids, np.diff(m.offsets))}
    template = LogLinearRanker(sigma2=1.0, layout="delta")
    data = training_data([a, b], [ya, yb], 1, qualities, template)
    monkeypatch.setattr(kernels, "BACKEND", "scipy")
    rows = fit_rows(template, data, len(data.y))
    assert rows.shape == data.X.shape and type(rows) is type(data.X)   # the plain rows, not differences
    model = template.fit(rows, data.y, data.groups)
    assert np.all(np.isfinite(model.coef_))
