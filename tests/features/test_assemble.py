"""Chunks of extraction assembled chunk by chunk: the matrix one float64 matrix would give (issue 13)."""
import gzip

import numpy as np
import pytest
import scipy.sparse as sp

from ranker.features import load_feature_set
from ranker.features.vectorizer import _assemble, _canonical, _Chunk, _Compact, _extract_chunk, _spans
from ranker.matrices.compact import CompactMatrix
from ranker.sources.nbest import import_file
from ranker.sources.treebank import store_nltk_files
from ranker.store import Store


@pytest.fixture(scope="module")
def stored(tmp_path_factory, bllip_lists):
    """A store of one WSJ document's BLLIP lists."""
    tmp = tmp_path_factory.mktemp("asm")
    text = gzip.open(bllip_lists / "nbest-test.txt.gz", "rt", encoding="utf-8").read()
    kept = [b for b in text.split("\n\n") if b.strip() and b.split()[1].startswith("wsj_0175.")]
    (tmp / "doc.nbest").write_text("\n\n".join(kept) + "\n")
    with Store.open(tmp / "s.sqlite") as st:
        store_nltk_files(st, "treebank", "wsj_0175.mrg")
        assert import_file(st, tmp / "doc.nbest", "bllip").errors == ()
    return tmp / "s.sqlite"


@pytest.fixture(scope="module")
def forests(stored):
    with Store.open(stored, readonly=True) as st:
        return list(st.forests("treebank"))


def _one_matrix(chunks):
    """The former assembly: every chunk into one float64 CSR, made canonical, then compact."""
    vocab = sorted({n for c in chunks for n in c.names})
    pos = {n: i for i, n in enumerate(vocab)}
    cols = np.concatenate([np.array([pos[c.names[j]] for j in c.cols], dtype=np.int64) for c in chunks])
    data = np.concatenate([c.vals for c in chunks])
    lengths = np.concatenate([np.diff(c.indptr) for c in chunks])
    X = sp.csr_matrix((data, cols, np.concatenate(([0], np.cumsum(lengths)))),
                      shape=(len(lengths), len(vocab)))
    X.sum_duplicates()
    return CompactMatrix.from_csr(X), tuple(vocab)


@pytest.mark.slow
def test_chunk_by_chunk_is_the_one_float64_matrix(forests):
    families = load_feature_set("bllip").build()        # parser scores: real values beside ones
    runs = [forests[:3], forests[3:4], forests[4:9], forests[9:]]
    chunks = [_extract_chunk(r, families) for r in runs]
    # a row in which two parts gave one name: its values are added
    chunks.append(_Chunk(["zz:b", "zz:a"], np.array([0, 3, 4]), np.array([1, 0, 1, 0], dtype=np.int32),
                         np.array([1.0, 1.0, 1.0, 2.5]), [2], ["extra"]))
    want, names = _one_matrix(chunks)
    got = _assemble(iter(chunks))
    assert got.names == names and got.X.shape == want.shape
    assert want.parts[0].nnz and want.parts[1].nnz and want.parts[2].nnz
    for p, q in zip(got.X.arrays(), want.arrays()):
        assert p.dtype == q.dtype and np.array_equal(p, q)
    last = got.X.tocsr()[got.X.shape[0] - 2:].toarray()
    assert last[0, names.index("zz:a")] == 2.0 and last[1, names.index("zz:b")] == 2.5
    assert got.sentence_ids[-1] == "extra" and got.offsets[-1] == got.X.shape[0]


def test_no_chunk_gives_an_empty_matrix():
    m = _assemble(iter([]))
    assert m.X.shape == (0, 0) and m.names == () and list(m.offsets) == [0]


@pytest.mark.slow
def test_chunks_made_canonical_in_the_workers_and_runs_of_one_sentence_give_the_same_arrays(forests):
    # Issue 45: the workers sort their rows and send them compact, with their own column numbers;
    # the parent renumbers. Array for array the matrix of one chunk, however the runs are cut.
    families = load_feature_set("bllip").build()
    whole = _assemble([_extract_chunk(forests, families)])
    for cut in ([forests[:3], forests[3:4], forests[4:9], forests[9:]], [[f] for f in forests]):
        sent = [_canonical(_extract_chunk(r, families)) for r in cut]
        assert all(isinstance(c, _Compact) and list(c.names) == sorted(c.names) for c in sent)
        assert sum(c.X.nbytes for c in sent) < sum(c.cols.nbytes + c.vals.nbytes
                                                  for c in (_extract_chunk(r, families) for r in cut))
        for got in (_assemble(iter(sent)), _assemble([*sent[:1], *(_extract_chunk(r, families) for r in cut[1:])])):
            assert got.names == whole.names and got.sentence_ids == whole.sentence_ids
            assert got.offsets.tolist() == whole.offsets.tolist() and got.X.shape == whole.X.shape
            for p, q in zip(got.X.arrays(), whole.X.arrays()):
                assert p.dtype == q.dtype and np.array_equal(p, q)


def test_runs_cover_every_sentence_in_order_and_none_is_longer_than_the_cap():
    for n, workers, most in ((10_224, 2, 64), (100, 2, 64), (5, 2, 64), (1, 4, 64), (0, 2, 64), (1000, 2, 7)):
        runs = _spans(n, workers, most)
        assert [a for a, _ in runs] == [0, *(b for _, b in runs)][:len(runs)] and (not runs or runs[-1][1] == n)
        assert all(0 < b - a <= most for a, b in runs)
        assert len(runs) >= min(n, workers * 8)   # still several runs a worker, so long sentences even out


@pytest.mark.slow
def test_a_worker_run_leaves_no_reference_cycle_with_the_collector_paused(stored):
    # Issue 45: workers forked inside a stage inherit its paused collector; the cycles each run of
    # forests left were never freed (a worker grew by 9 MB every 64 GUM sentences).
    import gc

    from ranker.features.vectorizer import _work_on_store

    with Store.open(stored, readonly=True) as st:
        ids = [s.id for s in st.sentences("treebank", None)]
    state = {"path": str(stored), "source": None, "families": load_feature_set("default").build()}
    gc.collect()
    gc.disable()
    try:
        got = _work_on_store(state, ids)
        left = gc.collect()
    finally:
        gc.enable()
    assert got.X.shape[0] > 100 and left == 0
