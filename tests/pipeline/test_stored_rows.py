"""Training matrices read from the store a run of rows at a time: the rows of the matrix read whole (issue 45)."""
import numpy as np
import pytest
from bllip_documents import load_documents

from ranker.features import load_feature_set
from ranker.models import LogLinearRanker
from ranker.pipeline import feature_cache, stored_rows
from ranker.pipeline.feature_cache import MATRIX_KIND, PIECE_KIND, _read_matrix, cached_matrix
from ranker.pipeline.splits import select_split
from ranker.pipeline.stored_rows import StoredRows
from ranker.pipeline.training_rows import training_data
from ranker.store import Store


@pytest.fixture()
def store(tmp_path, bllip_lists, monkeypatch):
    """Two WSJ documents' BLLIP lists, their matrix (parser scores: all three parts) stored in pieces of 64 KB."""
    monkeypatch.setattr(feature_cache, "PIECE_BYTES", 1 << 16)   # arrays straddle pieces
    with Store.open(tmp_path / "s.sqlite") as st:
        load_documents(st, tmp_path, bllip_lists)
        yield st


def _same(a, b):
    assert len(a) == len(b)
    for p, q in zip(a, b):
        assert p.dtype == q.dtype and np.array_equal(p, q)


@pytest.mark.slow
def test_rows_read_on_demand_are_the_stored_matrix_read_whole(store, monkeypatch):
    fs = load_feature_set("bllip")
    sel = select_split(store, "treebank", None)
    lazy = cached_matrix(store, fs, sel, None, on_demand=True)    # extracted, stored, let go
    assert isinstance(lazy.X, StoredRows)
    (key,) = store.artifact_keys(MATRIX_KIND)
    assert len(store.artifact_keys(PIECE_KIND)) > 3
    whole = _read_matrix(store, key)
    assert lazy.names == whole.names and lazy.sentence_ids == whole.sentence_ids
    assert lazy.X.shape == whole.X.shape and lazy.X.nnz == whole.X.nnz
    _same([lazy.offsets], [whole.offsets])
    assert all(p.nnz for p in whole.X.parts)
    n = whole.X.shape[0]
    for a, b in ((0, n), (0, 1), (n - 1, n), (7, 7), (n // 3, 2 * n // 3)):
        _same(lazy.X.row_range(a, b).arrays(), whole.X.row_range(a, b).arrays())
    rows = np.zeros(n, dtype=bool)
    rows[::5] = True
    monkeypatch.setattr(stored_rows, "SLAB_ENTRIES", 1000)   # many slabs
    _same([lazy.X.column_counts(), lazy.X.column_counts(rows)], [whole.X.column_counts(), whole.X.column_counts(rows)])
    _same([lazy.X.entries_before(lazy.offsets)], [whole.X.entries_before(whole.offsets)])
    again = cached_matrix(store, fs, sel, None, on_demand=True)    # stored: read on demand, not whole
    assert isinstance(again.X, StoredRows) and again.X.shape == whole.X.shape
    with pytest.raises(AttributeError):       # a selection of the whole is refused, not half answered
        again.X.select_columns([0])


@pytest.mark.slow
def test_rows_in_a_model_s_columns_made_a_slab_at_a_time_from_rows_read_on_demand_are_the_whole_one_s(
        store, monkeypatch):
    """Issue 45: a held-out or test split in a model's columns (with a copy per corpus or without)
    is made a slab of rows at a time, each slab read from the store when the matrix is read on
    demand: the arrays of the matrix read whole, put in the space and restricted at once."""
    from ranker.pipeline import domains
    from ranker.pipeline.domains import in_columns, in_space

    fs = load_feature_set("bllip")
    sel = select_split(store, "treebank", None)
    lazy = cached_matrix(store, fs, sel, None, on_demand=True)
    whole = _read_matrix(store, store.artifact_keys(MATRIX_KIND)[0])
    rng = np.random.default_rng(0)
    for space in ("shared", "per-corpus"):
        every = in_space(whole, "treebank", space).names
        names = [every[i] for i in rng.permutation(len(every))[:len(every) * 2 // 3]] + ["absent"]
        want = in_space(whole, "treebank", space).restrict(names).arrays()
        for slab in (1 << 24, 5000, 1):
            monkeypatch.setattr(domains, "_SLAB_ENTRIES", slab)
            _same(in_columns(lazy, "treebank", space, names).arrays(), want)
            _same(in_columns(whole, "treebank", space, names).arrays(), want)


@pytest.mark.slow
def test_a_selection_assembled_from_stored_rows_for_training_is_stored_and_read_on_demand_after(store):
    """Issue 45: a rule grid's training selection (some sentences of a stored matrix) was assembled
    whole from the stored rows at every read, the features stage's and again when the chosen rule's
    rows were built after the grid (6 GB on GUM); read for training, it is stored the first time,
    and every later read is a run of rows at a time: the same arrays."""
    fs = load_feature_set("bllip")
    sel = select_split(store, "treebank", None)
    cached_matrix(store, fs, sel, None, on_demand=True)              # the whole split, stored
    part = sel._replace(sentences=sel.sentences[1::2])
    want = cached_matrix(store, fs, part, None)                      # assembled from the stored rows
    assert len(store.artifact_keys(MATRIX_KIND)) == 1                # (not for training: not stored)
    first = cached_matrix(store, fs, part, None, on_demand=True)
    assert len(store.artifact_keys(MATRIX_KIND)) == 2 and isinstance(first.X, StoredRows)
    again = cached_matrix(store, fs, part, None, on_demand=True)
    assert len(store.artifact_keys(MATRIX_KIND)) == 2 and isinstance(again.X, StoredRows)
    for m in (first, again):
        assert m.names == want.names and m.sentence_ids == want.sentence_ids
        _same([m.offsets], [want.offsets])
        _same(m.X.row_range(0, m.X.shape[0]).arrays(), want.X.arrays())


@pytest.mark.slow
def test_training_rows_from_rows_read_on_demand_are_those_of_the_matrix_in_memory(store):
    fs = load_feature_set("default")
    sel = select_split(store, "treebank", None)
    lazy = cached_matrix(store, fs, sel, None, on_demand=True)
    whole = cached_matrix(store, fs, sel, None)
    qualities = {sid: ("full",) * int(n) for sid, n in zip(whole.sentence_ids, np.diff(whole.offsets))}
    y = np.zeros(whole.X.shape[0])
    y[whole.offsets[:-1]] = 1.0              # the parser's first parse
    y[5::7] = 1.0
    want = training_data([whole], [y], 2, qualities, LogLinearRanker(), slab=1 << 40)
    blocks = [lazy]
    got = training_data(blocks, [y], 2, qualities, LogLinearRanker(), consume=True, slab=3000)
    assert blocks == [] and got.names == want.names and got.X.shape == want.X.shape
    _same(got.X.arrays(), want.X.arrays())
    _same([got.y, got.groups, got.full], [want.y, want.groups, want.full])


def test_a_byte_range_past_a_blob_or_of_nothing_stored_is_refused(tmp_path):
    from ranker.store.errors import StoreError

    with Store.open(tmp_path / "s.sqlite") as st:
        st.put_artifact("k", "a", b"0123456789")
        assert st.artifact_bytes("k", "a", 3, 4) == b"3456" and st.artifact_meta("k", "a") == {}
        assert st.artifact_meta("k", "b") is None
        with pytest.raises(StoreError, match="holds 10 bytes"):
            st.artifact_bytes("k", "a", 8, 4)
        with pytest.raises(StoreError, match="no k 'b' stored"):
            st.artifact_bytes("k", "b", 0, 1)
