"""Issue 43, item 2: diagonal preconditioning reaches the optimum where the raw fit stops short of it.

The features of a real training matrix (the BLLIP lists of a few WSJ documents, partial
bracketings from their gold trees) differ in scale by orders of magnitude. The stop holds the
largest gradient component to ``tol``, which a fit along the flat directions of rare features
meets far from the optimum; with each weight scaled by a power of two near the inverse square root
of its Hessian diagonal, CG stops at it. (On the whole WSJ sample it also takes fewer iterations:
930 against 412, ``experiments/gum/README.md``; on these 42 sentences it takes more, to go further.)
"""
import numpy as np
import pytest

from ranker.matrices.compact import as_compact
from ranker.models.loglinear import LogLinearRanker
from ranker.models.precondition import hessian_diagonal, jacobi_scales


def test_the_diagonal_is_the_summed_variance_over_each_sentence_s_candidates():
    rng = np.random.default_rng(0)
    dense = rng.integers(0, 4, size=(9, 5)).astype(float) * (rng.random((9, 5)) < 0.5)
    dense[:, 3] *= 0.25   # a value part
    offsets = np.array([0, 2, 6, 9])
    want = sum(dense[a:b].var(axis=0) for a, b in zip(offsets[:-1], offsets[1:]))
    import scipy.sparse as sp

    got = hessian_diagonal(as_compact(sp.csr_matrix(dense)), offsets)
    assert np.allclose(got, want, rtol=0, atol=1e-12)
    scales = jacobi_scales(as_compact(sp.csr_matrix(dense)), offsets, np.ones(5))
    assert np.all(np.log2(scales) == np.round(np.log2(scales)))   # powers of two: exact products


def test_every_fit_of_one_training_set_shares_one_diagonal_and_a_change_in_place_computes_anew():
    """Issue 45: each fit of GUM's σ² grid computed the same Hessian diagonal of the same rows (43 s
    a fit); it is computed once while the rows live, with the same bits, and again for rows changed
    in place or other rows."""
    import scipy.sparse as sp

    from ranker.models.precondition import hessian_diagonal_once

    rng = np.random.default_rng(1)
    dense = rng.integers(0, 4, size=(40, 7)).astype(float) * (rng.random((40, 7)) < 0.5)
    offsets = np.array([0, 5, 12, 20, 31, 40])
    X = as_compact(sp.csr_matrix(dense))
    first = hessian_diagonal_once(X, offsets)
    assert hessian_diagonal_once(X, offsets) is first
    np.testing.assert_array_equal(first, hessian_diagonal(X, offsets))
    assert hessian_diagonal_once(X, np.array([0, 20, 40])) is not first      # other sentence cuts
    np.testing.assert_array_equal(jacobi_scales(X, offsets, np.ones(7)), jacobi_scales(X, offsets, np.ones(7)))
    before = hessian_diagonal_once(X, offsets)
    X.parts[0].indices[0] = (X.parts[0].indices[0] + 1) % 7   # the rows changed in place: never the old one
    after = hessian_diagonal_once(X, offsets)
    assert after is not before
    np.testing.assert_array_equal(after, hessian_diagonal(X, offsets))


@pytest.fixture(scope="module")
def rows(bllip_lists, tmp_path_factory, treebank_store):
    """Training rows of four WSJ documents' BLLIP lists under the fewest rule (real features)."""
    import gzip
    import shutil

    from ranker.pipeline import stages
    from ranker.pipeline.config import FeaturesSection, LogLinearSection
    from ranker.pipeline.splits import select_split
    from ranker.store import Store

    tmp = tmp_path_factory.mktemp("precondition")
    text = gzip.open(bllip_lists / "nbest-train.txt.gz", "rt", encoding="utf-8").read()
    docs = ("wsj_0001", "wsj_0002", "wsj_0003", "wsj_0004")
    (tmp / "train.nbest").write_text("\n\n".join(b for b in text.split("\n\n")
                                                 if b.strip() and b.split()[1].split(".")[0] in docs) + "\n")
    import subprocess
    import sys

    store = shutil.copy(treebank_store, tmp / "s.sqlite")   # the corpus loaded: import reads the lists
    for argv in (["import", "--store", store, "--format", "bllip", "--corpus", "treebank", tmp / "train.nbest"],
                 ["annotate", "--store", store, "--kind", "riezler"]):
        got = subprocess.run([sys.executable, "-m", "ranker.cli.main", *map(str, argv)], capture_output=True,
                             text=True, env={**__import__("os").environ, "NLTK_DATA": "../shared/nltk_data"})
        assert got.returncode == 0, got.stderr
    with Store.open(store) as st:
        ctx = stages.StageContext(st, stages.stored_source(st, None), 1, False, "test")
        sel = select_split(st, "treebank", "wsj_0001-0004")
        ann = stages.AnnotationOutcome("riezler", "chunks", "fewest")
        return stages.training_set(ctx, ann, FeaturesSection(), stages.loglinear_template(LogLinearSection(), 1),
                                   [sel]).data.rows()   # (built while the store is open)


@pytest.mark.slow   # quick tier under a minute (issue 47, item 5): CI runs it
def test_a_preconditioned_fit_reaches_the_optimum_in_fewer_iterations(rows):
    import warnings

    fits = {}
    for pre in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[pre] = LogLinearRanker(sigma2=1.0, max_iter=2000, precondition=pre, n_jobs=1).fit(
                rows.X, rows.y, rows.groups, full=rows.full)
    optimum = LogLinearRanker(sigma2=1.0, max_iter=5000, tol=1e-8, precondition=True, solver="lbfgs",
                              n_jobs=1).fit(rows.X, rows.y, rows.groups, full=rows.full)   # once, not per fit
    raw, pre = fits[False], fits[True]
    assert raw.converged_ and pre.converged_ and pre.grad_max_ <= 1e-5
    n = pre.n_training_sentences_
    best = optimum.objective_ / n
    assert abs(pre.objective_ / n - best) < 1e-6                  # at the optimum
    assert raw.objective_ / n - best > 1e-3                       # "converged", short of it
    # both stop near one optimum: the models choose nearly alike
    a, b = raw.decision_function(rows.X), pre.decision_function(rows.X)
    assert np.corrcoef(a, b)[0, 1] > 0.99


def _diagonal_gathered_at_once(X, offsets, chunk=512):
    """The diagonal as computed before issue 45: each chunk of sentences' entries gathered at once."""
    X = as_compact(X)
    d = X.shape[1]
    offsets = np.asarray(offsets, dtype=np.int64)
    second, first = np.zeros(d), np.zeros(d)
    n = len(offsets) - 1
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        r0, r1 = int(offsets[a]), int(offsets[b])
        sizes = np.diff(offsets[a:b + 1])
        sentence_of_row = np.repeat(np.arange(b - a, dtype=np.int64), sizes)
        inv_k = 1.0 / np.maximum(sizes, 1)
        cols, sents, vals = [], [], []
        for p in X.parts:
            e0, e1 = int(p.indptr[r0]), int(p.indptr[r1])
            if e1 == e0:
                continue
            sents.append(np.repeat(sentence_of_row, np.diff(p.indptr[r0:r1 + 1])))
            cols.append(p.indices[e0:e1].astype(np.int64))
            vals.append(np.ones(e1 - e0) if p.data is None else p.data[e0:e1].astype(np.float64))
        if not cols:
            continue
        col, sent, val = np.concatenate(cols), np.concatenate(sents), np.concatenate(vals)
        second += np.bincount(col, weights=val * val * inv_k[sent], minlength=d)
        key, inverse = np.unique(sent * d + col, return_inverse=True)
        sums = np.bincount(inverse, weights=val, minlength=len(key))
        k_of = inv_k[key // d]
        first += np.bincount(key % d, weights=sums * sums * k_of * k_of, minlength=d)
    return np.maximum(second - first, 0.0)


@pytest.mark.slow
def test_the_diagonal_gathered_in_runs_has_the_bits_of_each_chunk_gathered_at_once(rows, monkeypatch):
    # Issue 45: 512 GUM sentences' entries gathered at once took 2 GB in the fit; gathered in
    # runs, every sum still adds its terms in the same order, so the scales (and fits) keep their bits.
    from ranker.models import precondition

    X = as_compact(rows.X.low)
    offsets = np.concatenate([[0], np.flatnonzero(np.diff(rows.groups)) + 1, [len(rows.groups)]])
    assert X.parts[0].nnz and X.parts[1].nnz          # ones and small counts: the parts interleave
    for chunk, run in ((512, 1 << 22), (7, 500), (40, 3000)):
        monkeypatch.setattr(precondition, "_CHUNK_SENTENCES", chunk)
        monkeypatch.setattr(precondition, "_RUN_ENTRIES", run)
        want = _diagonal_gathered_at_once(X, offsets, chunk)
        for backend in BACKENDS:
            got = hessian_diagonal(X, offsets, backend)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), backend


BACKENDS = ("scipy", "numba")   # numpy's sums, and numba's one pass (the fast extra, installed with the tests)


@pytest.mark.parametrize("chunk", [512, 7, 1])
def test_numba_s_diagonal_has_the_bits_of_numpy_s(monkeypatch, chunk):
    """Issue 45: numpy's diagonal took 43 s a GUM fit (``np.unique`` over every entry's sentence
    and column); numba's one pass adds the same terms in the same order, so the scales, and every
    fit preconditioned by them, keep their bits. Values of every part (ones, float32, float64),
    sentences of one candidate, empty rows, and a narrow matrix's two column ranges."""
    import scipy.sparse as sp

    from ranker.models import precondition
    from ranker.models.narrow import split_columns

    monkeypatch.setattr(precondition, "_CHUNK_SENTENCES", chunk)
    rng = np.random.default_rng(chunk)
    for trial in range(12):
        n_rows, d = int(rng.integers(1, 300)), int(rng.integers(1, 80))
        dense = rng.integers(0, 4, size=(n_rows, d)).astype(float) * (rng.random((n_rows, d)) < 0.3)
        dense[:, : d // 3] *= rng.random((n_rows, d // 3)) * 3.7          # float32 values
        dense[:, d // 3: d // 2] *= np.pi                                  # float64 values
        cuts = np.cumsum(rng.integers(1, 12, size=n_rows))
        offsets = np.concatenate([[0], cuts[cuts < n_rows], [n_rows]])
        X = as_compact(sp.csr_matrix(dense))
        assert trial or all(p.nnz for p in X.parts)
        want = hessian_diagonal(X, offsets, "scipy")
        assert np.allclose(want, sum(dense[a:b].var(axis=0) for a, b in zip(offsets[:-1], offsets[1:])),
                           rtol=1e-12, atol=1e-12)
        assert hessian_diagonal(X, offsets, "numba").tobytes() == want.tobytes()
        narrow = split_columns(X, max(1, d // 2))
        assert hessian_diagonal(narrow, offsets, "numba").tobytes() == hessian_diagonal(narrow, offsets, "scipy").tobytes()

