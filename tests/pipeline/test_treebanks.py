"""Issue 43, item 3: several treebanks in one model (``[[data.also]]``), features per corpus (Daumé III 2007).

The config reads and writes ``[[data.also]]`` tables and refuses what cannot work (one line, the
key named); the feature doubling gives each corpus's rows a copy of every column that a model
trained on it can weight apart, and that text of no corpus never fires; a real run on a few WSJ
and GUM documents (Link Grammar forests) reports the combined model beside each single one on
both test splits, with the feature space chosen on the two held-out splits together.
"""
import dataclasses
import hashlib
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from ranker.cli.main import main
from ranker.features import CandidateMatrix
from ranker.pipeline.config import ConfigError, config_from_dict, load_config, resolve_paths
from ranker.pipeline.domains import corpus_copy, domain_modes, stacked, with_corpus_copies
from ranker.pipeline.training import pooled_cutoff

GUM = Path(__file__).resolve().parents[2].parent / "shared" / "gum"

TWO = f"""
[experiment]
name = "two"
seed = 1
workers = 2

[data]
corpus = "treebank"
train = "wsj_0001-0004"
heldout = "wsj_0140-0141"
test = "wsj_0170-0171"
limit = 8

[[data.also]]
corpus = "penn"
path = "{GUM / 'const'}"
name = "gum"
train = "GUM_news_*"
heldout = "GUM_bio_*"
test = "GUM_fiction_*"
limit = 8

[parse]
linkage_limit = 25
max_parse_time = 2.0

[loglinear]
sigma2_grid = [1.0, 10.0]

[heidorn]
tune_rounds = 1

[evaluation]
bootstrap_resamples = 50
randomization_resamples = 50

[report]
learning_curve = [1.0]
plots = false
"""


def matrix(rows, names, sizes, ids):
    X = sp.csr_matrix(np.array(rows, dtype=float))
    return CandidateMatrix(X, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), tuple(names), tuple(ids))


# ------------------------------------------------------------------------------------ the config
def test_also_tables_are_read_resolved_and_written_back_as_they_may_be_said(tmp_path):
    cfg = config_from_dict(tomllib.loads(TWO.replace(str(GUM / "const"), "gum/const")), "two.toml")
    assert [c.corpus for c in cfg.data.corpora()] == ["treebank", "penn"]
    resolved = resolve_paths(cfg, tmp_path)
    assert resolved.data.also[0].path == str(tmp_path / "gum" / "const")
    again = config_from_dict(tomllib.loads(resolved.to_toml()), "resolved.toml")
    assert again.data == resolved.data
    assert "tagger" not in resolved.to_dict()["data"]["also"][0]   # only the keys a table may set


@pytest.mark.parametrize("also, message", [
    ({"tagger": "m.json"}, "unknown key 'tagger' in [data] also[0] (known: corpus, path, name, encoding, train, "
                           "heldout, test, limit)"),
    ({"limit": -1}, "[data] also[0] limit: must be >= 0, got -1"),
    ("treebank", "[data] also: expected a list"),
])
def test_a_bad_also_table_is_one_error_naming_it(also, message):
    with pytest.raises(ConfigError) as e:
        config_from_dict({"data": {"also": also if isinstance(also, str) else [also]}}, "x.toml")
    assert str(e.value).startswith("x.toml: ") and message in str(e.value)


def run_refused(tmp_path, capsys, text: str) -> str:
    (tmp_path / "c.toml").write_text(text)
    before = sorted(p.name for p in tmp_path.iterdir())
    digest = hashlib.sha256((tmp_path / "c.toml").read_bytes()).hexdigest()
    code = main(["run", str(tmp_path / "c.toml"), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("ranker: error: "), err
    assert sorted(p.name for p in tmp_path.iterdir()) == before   # no store, no report
    assert hashlib.sha256((tmp_path / "c.toml").read_bytes()).hexdigest() == digest
    return err


def test_two_treebanks_of_one_name_are_refused(tmp_path, capsys):
    text = TWO.replace('name = "gum"', 'name = "treebank"').replace('store', 'x')
    text = text.replace("[experiment]\n", f'[experiment]\nstore = "{tmp_path}/s.sqlite"\n')
    err = run_refused(tmp_path, capsys, text)
    assert "[[data.also]] number 1 is corpus 'treebank', as [data] is: give each treebank its own name" in err


def test_a_split_naming_another_treebanks_documents_is_refused(tmp_path, capsys):
    text = TWO.replace('train = "GUM_news_*"', 'train = "wsj_0001-0004"')
    text = text.replace("[experiment]\n", f'[experiment]\nstore = "{tmp_path}/s.sqlite"\n')
    err = run_refused(tmp_path, capsys, text)
    assert '[data] train = "wsj_0001-0004" selects no sentence of corpus gum' in err


@pytest.mark.parametrize("extra, message", [
    ('[annotation]\nkind = "chunks"\n', "[[data.also]] trains on each treebank's gold trees: [annotation] kind "
                                        "'chunks' comes from a corpus"),
    ('[features]\ndomains = "both"\n', "[features] domains 'both' is not known (known: auto, shared, per-corpus)"),
])
def test_what_two_treebanks_cannot_train_is_refused(tmp_path, capsys, extra, message):
    text = TWO.replace("[experiment]\n", f'[experiment]\nstore = "{tmp_path}/s.sqlite"\n') + extra
    assert message in run_refused(tmp_path, capsys, text)


# ------------------------------------------------------------------------------------ the doubling
def test_each_corpus_rows_get_a_copy_of_every_column_and_stacking_unites_the_columns():
    a = matrix([[1, 0], [0, 2]], ["x", "y"], [2], ["a/1"])
    b = matrix([[3, 1]], ["y", "z"], [1], ["b/1"])
    a2 = with_corpus_copies(a, "wsj")
    assert a2.names == ("x", "y", "[wsj] x", "[wsj] y") and corpus_copy("wsj", "x") == "[wsj] x"
    assert np.array_equal(a2.X.toarray(), [[1, 0, 1, 0], [0, 2, 0, 2]])
    both = stacked([a2, with_corpus_copies(b, "gum")])
    assert both.names == ("x", "y", "[wsj] x", "[wsj] y", "z", "[gum] y", "[gum] z")
    assert both.sentence_ids == ("a/1", "b/1") and both.offsets.tolist() == [0, 2, 3]
    assert np.array_equal(both.X.toarray(), [[1, 0, 1, 0, 0, 0, 0], [0, 2, 0, 2, 0, 0, 0], [0, 3, 0, 0, 1, 3, 1]])
    # text of no corpus: a model's copies are absent from its matrix, so they weigh nothing
    plain = matrix([[1, 1]], ["x", "y"], [1], ["t/1"])
    assert np.array_equal(plain.restrict(both.names).toarray(), [[1, 1, 0, 0, 0, 0, 0]])


def test_the_spaces_fitted_and_the_pooled_cut_off():
    assert domain_modes("auto", 1) == ("shared",) and domain_modes("per-corpus", 1) == ("shared",)
    assert domain_modes("auto", 2) == ("shared", "per-corpus") and domain_modes("per-corpus", 3) == ("per-corpus",)
    a = matrix([[1, 1], [1, 0]], ["x", "y"], [2], ["a/1"])
    b = matrix([[1, 0], [0, 1]], ["z", "y"], [2], ["b/1"])
    # x twice in a's consistent rows; y once in a's and once in b's (twice pooled); z once
    assert pooled_cutoff([a, b], [np.array([1.0, 1.0]), np.array([1.0, 1.0])], 2) == ("x", "y")
    assert pooled_cutoff([a, b], [np.array([1.0, 0.0]), np.array([0.0, 1.0])], 2) == ("y",)


# ------------------------------------------------------------------------------------ a real run
@pytest.fixture(scope="module")
def two_run(tmp_path_factory):
    from ranker.pipeline.experiment import run_experiment

    tmp = tmp_path_factory.mktemp("two")
    (tmp / "two.toml").write_text(TWO)
    cfg = load_config(tmp / "two.toml")
    cfg = dataclasses.replace(cfg, experiment=dataclasses.replace(cfg.experiment, store=str(tmp / "s.sqlite")))
    return tmp, cfg, run_experiment(cfg, tmp / "out", progress=False)


@pytest.mark.slow
@pytest.mark.linkgrammar
def test_the_combined_model_is_reported_beside_each_single_one_on_both_test_splits(two_run):
    tmp, cfg, report = two_run
    doc = json.loads((tmp / "out" / "report.json").read_text())
    tests = {t["corpus"]: t for t in doc["by_treebank"]}
    assert set(tests) == {"treebank", "gum"}
    fit = report.fits["loglinear"]
    space = fit["domains"]
    assert space in ("shared", "per-corpus")
    # both spaces fitted and the better on the two held-out splits together kept
    trials = {t[4]: t[3] for t in fit["rules"]}
    assert set(trials) == {"shared", "per-corpus"} and trials[space] == max(trials.values())
    labels = {"trained on treebank", "trained on gum", f"trained on all 2 (features {space})"}
    for t in tests.values():
        assert set(t["scores"]) == labels
        for scores in t["scores"].values():
            for m, v in scores.items():
                assert t["lower"][m] - 1e-9 <= t["upper"][m] and v <= t["upper"][m] + 1e-9
    # the combined model's row on the main treebank is the main table's score
    combined = tests["treebank"]["scores"][f"trained on all 2 (features {space})"]
    for m, v in combined.items():
        assert v == pytest.approx(report.metrics[m].rankers["loglinear"].score)
    assert report.counts.sentences["gum test"] == tests["gum"]["sentences"] > 0
    md = (tmp / "out" / "report.md").read_text()
    assert "## By treebank" in md and "### Test split of gum" in md


@pytest.mark.slow
@pytest.mark.linkgrammar
def test_per_corpus_features_give_copies_a_model_applies_to_plain_text_by_its_shared_weights(two_run, tmp_path):
    from ranker.models.persistence import load_model
    from ranker.pipeline.experiment import run_experiment

    _, cfg, _ = two_run
    cfg = dataclasses.replace(cfg, features=dataclasses.replace(cfg.features, domains="per-corpus"))
    report = run_experiment(cfg, tmp_path / "out", progress=False)   # the warm store: fits only
    assert report.fits["loglinear"]["domains"] == "per-corpus"
    assert main(["models", "export", "--store", cfg.experiment.store, "--out", str(tmp_path / "m.json")]) == 0
    names = load_model(tmp_path / "m.json").feature_names
    copies = [n for n in names if n.startswith("[gum] ") or n.startswith("[treebank] ")]
    assert copies and len(copies) < len(names)
    (tmp_path / "in.txt").write_text("The dog barks .\nShe reads a book .\n")
    assert main(["apply", "--model", str(tmp_path / "m.json"), "--text", str(tmp_path / "in.txt"),
                 "--out", str(tmp_path / "out.mrg")]) == 0
    trees = (tmp_path / "out.mrg").read_text().splitlines()
    assert len(trees) == 2 and all(t.startswith("(") for t in trees)


@pytest.mark.parametrize("seed", range(12))
def test_the_copies_are_made_on_the_compact_parts_in_slabs_as_scipy_would_stack_them(seed, monkeypatch):
    """Doubling runs part by part, a slab of entries at a time (scipy's copies took more than 24 GB
    on GUM and the WSJ sample): any slab size gives scipy's ``hstack``, each row's columns ascending."""
    from ranker.matrices.compact import CompactMatrix
    from ranker.pipeline import domains

    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 40)), int(rng.integers(1, 25))
    A = sp.random(n, d, density=0.3, random_state=seed, format="csr")
    A.data = np.where(rng.random(A.nnz) < 0.6, 1.0, np.round(A.data * 5, 1))   # ones, float32, float64
    A.data[rng.random(A.nnz) < 0.1] = np.pi
    monkeypatch.setattr(domains, "_SLAB_ENTRIES", int(rng.integers(1, 8)))
    m = CandidateMatrix(CompactMatrix.from_csr(A), np.array([0, n]), tuple(f"f{i}" for i in range(d)), ("s",))
    got = with_corpus_copies(m, "c").X
    assert np.array_equal(got.toarray(), sp.hstack([A, A]).toarray())
    for p in got.parts:
        assert all(np.all(np.diff(p.indices[p.indptr[r]:p.indptr[r + 1]]) > 0) for r in range(n))
