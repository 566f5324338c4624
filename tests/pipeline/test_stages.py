"""The stages on their own: content-keyed caches, validation before work, models that carry their features."""
import dataclasses
import json

import pytest

from ranker.cli.main import main
from ranker.errors import RankerError
from ranker.models import LogLinearRanker, load_model, save_model
from ranker.models.persistence import ModelFileError
from ranker.pipeline import stages
from ranker.pipeline.config import ConfigError, EvaluationSection, load_config
from ranker.pipeline.experiment import run_experiment
from ranker.pipeline.feature_cache import MATRIX_KIND, cached_matrix
from ranker.pipeline.splits import select_split
from ranker.store import Candidate, Sentence, Store
from ranker.trees.penn import parse_tree

HIGH = "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN {n})) (PP (IN with) (NP (DT a) (NN telescope)))) (. .)))"
LOW = "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (NP (DT the) (NN {n})) (PP (IN with) (NP (DT a) (NN telescope))))) (. .)))"
FLAT = "(TOP (S (PRP I) (VBD saw) (DT the) (NN {n}) (IN with) (DT a) (NN telescope) (. .)))"
NOUNS = ["man", "dog", "cat", "bird"]
TINY = "tests/pipeline/configs/tiny.toml"


def add_sentence(st, doc, i, forest=(HIGH, LOW)):
    """A test-split sentence with its gold tree (the low attachment) and ``forest`` from source "test"."""
    noun = NOUNS[i % len(NOUNS)]
    sid = f"treebank/{doc}/{i}"
    gold = parse_tree(LOW.format(n=noun), "<gold>", 1)
    st.add_sentences([Sentence(sid, "treebank", doc, i, gold.words, gold.tags())])
    st.add_gold(sid, gold)
    st.replace_forest(sid, "test", [Candidate(sid, "test", r, parse_tree(t.format(n=noun), "<t>", 1), "full", {})
                                    for r, t in enumerate(forest)])
    return sid


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store.open(path) as st:
        for i in range(3):
            add_sentence(st, "wsj_0170.mrg", i)
    return path


def feature_set():
    from ranker.features import feature_set_from_dict
    return feature_set_from_dict({"name": "small", "family": [{"name": "local_trees/1"},
                                                               {"name": "embedding/1"}]}, "<test>")


def test_feature_matrix_is_keyed_by_content_not_by_split_name(store):
    fs = feature_set()
    with Store.open(store) as st:
        first = cached_matrix(st, fs, select_split(st, "treebank", "test"), "test")
        assert first.X.shape[0] == 6
        again = cached_matrix(st, fs, select_split(st, "treebank", "test"), "test")
        assert (again.X.tocsr() != first.X.tocsr()).nnz == 0 and len(st.artifact_keys(MATRIX_KIND)) == 1
        # the split gains a sentence: a name-keyed cache returned the old 6 rows
        add_sentence(st, "wsj_0171.mrg", 0)
        grown = cached_matrix(st, fs, select_split(st, "treebank", "test"), "test")
        assert grown.X.shape[0] == 8 and len(grown.sentence_ids) == 4
        # a forest imported again with another candidate
        add_sentence(st, "wsj_0170.mrg", 1, forest=(HIGH, LOW, FLAT))
        reimported = cached_matrix(st, fs, select_split(st, "treebank", "test"), "test")
        assert reimported.X.shape[0] == 9 and len(st.artifact_keys(MATRIX_KIND)) == 3


def test_a_matrix_stored_in_the_old_deflated_format_is_read_once_and_rewritten(store):
    """Stores written before the compact format keep working: read through a decompression once."""
    import io

    import numpy as np

    from ranker.features.matrix_bytes import is_current_format

    fs = feature_set()
    with Store.open(store) as st:
        first = cached_matrix(st, fs, select_split(st, "treebank", "test"), "test")
        (key,) = st.artifact_keys(MATRIX_KIND)
        payload, meta = st.get_artifact(MATRIX_KIND, key)
        assert is_current_format(payload)
        X = first.X.tocsr()
        buf = io.BytesIO()   # what to_bytes wrote until the compact format
        np.savez_compressed(buf, data=X.data, indices=X.indices, indptr=X.indptr, shape=np.array(X.shape),
                            offsets=first.offsets, names=np.array(json.dumps(first.names)),
                            ids=np.array(json.dumps(first.sentence_ids)))
        st.put_artifact(MATRIX_KIND, key, buf.getvalue(), meta)
        old = cached_matrix(st, fs, select_split(st, "treebank", "test"), "test")
        assert old.names == first.names and (old.X.tocsr() != X).nnz == 0
        assert is_current_format(st.get_artifact(MATRIX_KIND, key)[0])   # rewritten once
        assert st.artifact_keys(MATRIX_KIND) == [key]


def test_a_matrix_over_the_blob_limit_is_stored_in_pieces(store, monkeypatch):
    """Regression: SQLite refuses blobs over 1 GB, which the WSJ training matrix (1.2 GB raw) exceeds."""
    from ranker.pipeline import feature_cache

    monkeypatch.setattr(feature_cache, "PIECE_BYTES", 300)
    fs = feature_set()
    with Store.open(store) as st:
        first = cached_matrix(st, fs, select_split(st, "treebank", "test"), "test")
        (key,) = st.artifact_keys(MATRIX_KIND)
        meta = st.get_artifact(MATRIX_KIND, key)[1]
        assert meta["pieces"] > 2 and len(st.artifact_keys(feature_cache.PIECE_KIND)) == meta["pieces"] - 1
        # issue 13: the pieces are cut from the arrays as they are written; joined, they are to_bytes
        from ranker.features.matrix_bytes import to_bytes

        stored = [st.get_artifact(MATRIX_KIND, key)[0]] + [
            st.get_artifact(feature_cache.PIECE_KIND, f"{key}/{i}")[0] for i in range(1, meta["pieces"])]
        assert all(len(b) == 300 for b in stored[:-1]) and 0 < len(stored[-1]) <= 300
        assert b"".join(stored) == to_bytes(first) and meta["bytes"] == len(to_bytes(first))
        again = cached_matrix(st, fs, select_split(st, "treebank", "test"), "test")
        assert again.names == first.names and (again.X.tocsr() != first.X.tocsr()).nnz == 0
        assert again.offsets.tolist() == first.offsets.tolist()


def test_a_selection_is_assembled_from_stored_rows_only_while_their_forests_stay(store):
    fs = feature_set()
    with Store.open(store) as st:
        add_sentence(st, "wsj_0171.mrg", 0)
        cached_matrix(st, fs, select_split(st, "treebank", "test"), "test")
        fold = select_split(st, "treebank", "test", fileids="wsj_0171*")
        part = cached_matrix(st, fs, fold, "test")
        assert len(st.artifact_keys(MATRIX_KIND)) == 1   # made of the stored rows, not extracted
        alone = cached_matrix(st, fs, fold, "test", refresh=True)
        assert part.names == alone.names and part.sentence_ids == alone.sentence_ids
        assert (part.X.tocsr() != alone.X.tocsr()).nnz == 0
        add_sentence(st, "wsj_0171.mrg", 0, forest=(FLAT, HIGH))   # imported again
        again = cached_matrix(st, fs, fold, "test")
        assert again.X.shape[0] == 2 and again.names != part.names   # the flat tree's rows, fresh


def test_counts_follow_a_reimported_forest(store):
    ev = EvaluationSection()
    with Store.open(store) as st:
        ctx = stages.StageContext(st, "test", 1)
        sel = select_split(st, "treebank", "test")
        with pytest.raises(RankerError, match=r"ranker counts --store \S+ --corpus treebank --split test$"):
            stages.require_counts(ctx, ev, sel)
        assert stages.compute_counts(ctx, ev, sel.sentences).scored == 3
        assert stages.compute_counts(ctx, ev, sel.sentences).scored == 0
        stages.require_counts(ctx, ev, sel)
        before = stages.load_counts(ctx, ev, sel, ["evalb_labeled"])["evalb_labeled"]
        assert before.counts.shape[0] == 6
        # sentence 1 imported again: one candidate now, the flat one (an old rank 1 must not survive)
        add_sentence(st, "wsj_0170.mrg", 1, forest=(FLAT,))
        with pytest.raises(RankerError, match="1 sentences"):
            stages.require_counts(ctx, ev, sel)
        assert stages.compute_counts(ctx, ev, sel.sentences).scored == 1
        after = stages.load_counts(ctx, ev, sel, ["evalb_labeled"])["evalb_labeled"]
        assert list(after.offsets) == [0, 2, 3, 5]
        flat = after.counts[2]
        assert flat[2] < flat[0]   # the flat tree matches fewer brackets than gold has
        assert (after.counts[[0, 1, 3, 4]] == before.counts[[0, 1, 4, 5]]).all()


def test_counts_of_a_forest_imported_again_unchanged_are_there_after_compute_counts(store):
    """Replacing a forest drops its counts (they may be another forest's); the same forest stored
    again has the recorded digest, so the counts stage must see that the counts are gone, not
    trust the digest alone."""
    ev = EvaluationSection()
    with Store.open(store) as st:
        ctx = stages.StageContext(st, "test", 1)
        sel = select_split(st, "treebank", "test")
        assert stages.compute_counts(ctx, ev, sel.sentences).scored == 3
        before = stages.load_counts(ctx, ev, sel, ["evalb_labeled"])["evalb_labeled"]
        add_sentence(st, "wsj_0170.mrg", 1)                       # the same two trees again
        with pytest.raises(RankerError, match="1 sentences"):
            stages.require_counts(ctx, ev, sel)
        assert stages.compute_counts(ctx, ev, sel.sentences).scored == 1
        stages.require_counts(ctx, ev, sel)
        after = stages.load_counts(ctx, ev, sel, ["evalb_labeled"])["evalb_labeled"]
        assert list(after.offsets) == list(before.offsets)
        assert (after.counts == before.counts).all()


def test_a_model_whose_feature_config_was_edited_is_refused(tmp_path):
    import numpy as np
    import scipy.sparse as sp

    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 1.0]]))
    ranker = LogLinearRanker(sigma2=1.0).fit(X, np.array([1.0, 0.0]), np.array([0, 0]))
    path = tmp_path / "m.json"
    save_model(path, ranker, ["a", "b"], feature_set().to_dict())
    assert load_model(path).feature_config["name"] == "small"
    doc = json.loads(path.read_text())
    doc["features"]["config"]["family"][1]["name"] = "local_trees/1"
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match="feature configuration does not match its digest"):
        load_model(path)
    del doc["features"]["config_digest"]
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match="feature configuration"):
        load_model(path)


@pytest.mark.parametrize("section, key, value, message", [
    ("features", "set", "no-such-features", "no such feature configuration"),
    ("heidorn", "k_table", "no-such-k-table", "[heidorn] k_table"),
    ("evaluation", "head_rules", "no-such-heads", "[evaluation]"),
    ("evaluation", "flatten_rules", "no-such-rules", "[evaluation]"),
    ("evaluation", "evalb_param", "NO-SUCH", "[evaluation]"),
    ("loglinear", "select_metric", "evalb_labelled", "unknown metric 'evalb_labelled'"),
    ("parse", "source", "stanford", "unknown candidate source 'stanford'"),
    ("parse", "source", "bllip", "needs forests = \"FILE\""),
    ("parse", "forests", "no-such.nbest", "[parse] forests is read only for a source of bllip, penn"),
    ("data", "corpus", "brown", "unknown corpus 'brown'"),
    ("data", "test", "wsj_0199-0170", "ends before it starts"),
])
def test_a_bad_config_fails_before_any_work_and_writes_no_resolved_config(tmp_path, section, key, value, message):
    cfg = load_config(TINY)
    store = tmp_path / "s.sqlite"
    cfg = dataclasses.replace(cfg, experiment=dataclasses.replace(cfg.experiment, store=str(store)))
    bad = dataclasses.replace(cfg, **{section: dataclasses.replace(getattr(cfg, section), **{key: value})})
    with pytest.raises(ConfigError) as e:
        run_experiment(bad, tmp_path / "out", progress=False)
    assert message in str(e.value) and TINY in str(e.value)
    assert not (tmp_path / "out" / "config.resolved.toml").exists()
    assert not store.exists()


def test_two_cutoffs_that_disagree_are_refused(tmp_path, capsys):
    feats = tmp_path / "f.toml"
    feats.write_text('name = "f"\ncutoff = 3\n[[family]]\nname = "local_trees/1"\n')
    cfg = load_config(TINY)
    bad = dataclasses.replace(cfg, features=dataclasses.replace(cfg.features, set=str(feats)))
    with pytest.raises(ConfigError, match="the cut-off applied is 2 but .*f.toml says cutoff = 3"):
        run_experiment(bad, tmp_path / "out", progress=False)
    assert main(["train", "--features", str(feats), "--sigma2", "1", "--out", str(tmp_path / "m.json")]) == 2
    assert "says cutoff = 3" in capsys.readouterr().err


def test_run_command_reports_a_missing_k_table_in_one_line(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[experiment]\nstore = "{tmp_path}/s.sqlite"\n[heidorn]\nk_table = "{tmp_path}/k.toml"\n')
    assert main(["run", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ranker: error: {cfg}: [heidorn] k_table") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_select_takes_fileids_limit_and_oracle_needs_counts(store, tmp_path, capsys):
    out = tmp_path / "o.mrg"
    with Store.open(store) as st:
        add_sentence(st, "wsj_0171.mrg", 0)
    assert main(["select", "--store", str(store), "--ranker", "oracle", "--out", str(out)]) == 2
    assert f"ranker counts --store {store} --corpus treebank --split test\n" in capsys.readouterr().err
    assert main(["counts", "--store", str(store), "--split", "test", "--workers", "1", "--no-progress"]) == 0
    assert main(["select", "--store", str(store), "--ranker", "oracle", "--fileids", "wsj_0171*",
                 "--out", str(out)]) == 0
    assert out.read_text().splitlines() == [parse_tree(LOW.format(n="man"), "<t>", 1).to_penn()]
    assert main(["select", "--store", str(store), "--ranker", "native", "--limit", "1", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 3   # whole documents: wsj_0170 has three sentences
    gold = tmp_path / "g.mrg"
    assert main(["gold", "--store", str(store), "--limit", "1", "--out", str(gold)]) == 0
    assert len(gold.read_text().splitlines()) == 3


def test_train_checks_out_before_fitting(store, tmp_path, capsys):
    assert main(["train", "--store", str(store), "--split", "test", "--sigma2", "1",
                 "--out", str(tmp_path / "no-such-dir" / "m.json")]) == 2
    err = capsys.readouterr().err
    assert "no such directory" in err and err.count("\n") == 1
    with Store.open(store) as st:
        assert st.artifact_keys(MATRIX_KIND) == []   # nothing was extracted


def test_select_refuses_a_model_of_another_ranker(store, tmp_path, capsys):
    import numpy as np
    import scipy.sparse as sp

    model = tmp_path / "m.json"
    X = sp.csr_matrix(np.eye(2))
    save_model(model, LogLinearRanker(sigma2=1.0).fit(X, np.array([1.0, 0.0]), np.array([0, 0])),
               ["a", "b"], feature_set().to_dict())
    assert main(["select", "--store", str(store), "--ranker", "heidorn", "--model", str(model),
                 "--out", str(tmp_path / "o.mrg")]) == 2
    err = capsys.readouterr().err
    assert "a loglinear model, not a heidorn model" in err and err.count("\n") == 1
    assert not (tmp_path / "o.mrg").exists()
    assert main(["select", "--store", str(store), "--ranker", "native", "--model", str(model),
                 "--out", str(tmp_path / "o.mrg")]) == 2
    assert "not by native" in capsys.readouterr().err


def test_models_list_and_export(store, tmp_path, capsys):
    from ranker.pipeline.cache import MODEL_KIND

    assert main(["models", "list", "--store", str(store)]) == 0
    assert "no models stored" in capsys.readouterr().out
    assert main(["models", "export", "--store", str(store), "--out", str(tmp_path / "m.json")]) == 2
    assert "no stored models were chosen on held-out" in capsys.readouterr().err
    with Store.open(store) as st:
        st.put_artifact(MODEL_KIND, "abc123", b'{"format": "something else"}', {"trials": []})
    assert main(["models", "export", "--store", str(store), "abc", "--out", str(tmp_path / "m.json")]) == 2
    assert "not a ranker model file" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()
    assert main(["models", "list", "--store", str(store)]) == 0
    assert capsys.readouterr().out == "abc123  ?  chosen on heldout\n"   # a model of an older store: no record
