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
from frozen_heap import frozen_heap

from ranker.cli.main import main
from ranker.features import CandidateMatrix
from ranker.pipeline.config import ConfigError, config_from_dict, load_config, resolve_paths
from ranker.pipeline.domains import corpus_copy, domain_modes, stacked, with_corpus_copies
from ranker.pipeline.training_rows import pooled_cutoff

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
sigma2_grid = [1.0]   # the feature space is chosen on held-out here, not sigma^2: one fit per space

[heidorn]
tune_rounds = 1

[evaluation]
bootstrap_resamples = 20
randomization_resamples = 20

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


@pytest.mark.parametrize("seed", range(6))
def test_held_out_splits_in_a_fit_s_columns_are_the_stacked_doubled_splits_restricted(seed, monkeypatch):
    """Issue 45: each split made in the space and restricted to a fit's columns a slab at a time,
    before the next is made, gives what stacking the splits in the space, then restricting, gave,
    array for array (so a fit keyed by its held-out rows is found again), and the same groups."""
    from ranker.matrices.compact import CompactMatrix
    from ranker.pipeline import domains
    from ranker.pipeline.cache import data_digest
    from ranker.pipeline.domains import HeldoutSplits, in_space

    rng = np.random.default_rng(seed)
    monkeypatch.setattr(domains, "_SLAB_ENTRIES", int(rng.integers(1, 12)))
    mats, corpora = [], ("treebank", "gum", "ewt")[:int(rng.integers(1, 4))]
    for k, corpus in enumerate(corpora):
        sizes = rng.integers(1, 4, size=int(rng.integers(1, 5)))
        d = int(rng.integers(1, 8))
        A = sp.random(int(sizes.sum()), d, density=0.4, random_state=seed * 10 + k, format="csr")
        A.data = np.where(rng.random(A.nnz) < 0.6, 1.0, np.round(A.data * 5, 1))
        A.data[rng.random(A.nnz) < 0.1] = np.pi
        names = [f"f{i}" for i in rng.permutation(10)[:d]]
        mats.append(CandidateMatrix(CompactMatrix.from_csr(A), np.concatenate([[0], np.cumsum(sizes)]),
                                    tuple(names), tuple(f"{corpus}/{i}" for i in range(len(sizes)))))
    held = HeldoutSplits(mats, corpora)
    for space in ("shared", "per-corpus"):
        whole = stacked([in_space(m, c, space) for m, c in zip(mats, corpora)])
        cols = list(whole.names)
        fit_names = [cols[i] for i in rng.permutation(len(cols))[:int(rng.integers(1, len(cols) + 1))]] + ["absent"]
        got, want = held.rows(space, fit_names), whole.restrict(fit_names)
        assert [a.dtype for a in got.arrays()] == [a.dtype for a in want.arrays()]
        assert data_digest([got], {}) == data_digest([want], {})
        assert np.array_equal(held.groups(), whole.groups())


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
def two_run(tmp_path_factory, two_treebanks_parsed, gum_few):
    """The run of ``TWO`` on a copy of ``two_treebanks_parsed`` (conftest.py: both treebanks loaded,
    the sentences of its splits parsed with its [parse] options, so the run parses none), in one
    process: pools of two beside pytest-xdist's two workers on two cores made its features and
    fits several times slower (results do not depend on the workers)."""
    import shutil

    from ranker.pipeline.experiment import run_experiment

    tmp = tmp_path_factory.mktemp("two")
    shutil.copy(two_treebanks_parsed, tmp / "s.sqlite")
    # GUM's folder narrowed to the three documents the splits select (conftest.py): the same sentences
    (tmp / "two.toml").write_text(TWO.replace(str(GUM / "const"), str(gum_few)))
    cfg = load_config(tmp / "two.toml")
    cfg = dataclasses.replace(cfg, experiment=dataclasses.replace(cfg.experiment, store=str(tmp / "s.sqlite"),
                                                                  workers=1))
    with frozen_heap():
        report = run_experiment(cfg, tmp / "out", progress=False)
    assert report.counts.source.parsed_now == 0   # the shared store's forests, as this run would store them
    return tmp, cfg, report


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
    with frozen_heap():
        report = run_experiment(cfg, tmp_path / "out", progress=False)   # the warm store: fits only
    assert report.fits["loglinear"]["domains"] == "per-corpus"
    from ranker.store import Store

    # the run's model (the auto run's choice, if it chose the shared space, is chosen on held-out too)
    with Store.writing(cfg.experiment.store) as st:
        keys = [r.key for r in st.model_records() if r.chosen]
    for key in keys:
        assert main(["models", "export", "--store", cfg.experiment.store, "--out", str(tmp_path / "m.json"), key]) == 0
        names = load_model(tmp_path / "m.json").feature_names
        if any(n.startswith("[gum] ") for n in names):
            break
    copies = [n for n in names if n.startswith("[gum] ") or n.startswith("[treebank] ")]
    assert copies and len(copies) < len(names)
    (tmp_path / "in.txt").write_text("The dog barks .\nShe reads a book .\n")
    assert main(["apply", "--model", str(tmp_path / "m.json"), "--text", str(tmp_path / "in.txt"),
                 "--out", str(tmp_path / "out.mrg"), "--workers", "1"]) == 0   # no pool for two sentences
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


# ------------------------------------------------------------------------------------ copies in the objective
def _two_spaces_and_the_doubled_rows(cfg):
    """On the warm store of ``cfg``: the training sets of both feature spaces as ``ranker run``
    makes them (per-corpus: copies made by the objective) and, as a reference, the rows of the
    per-corpus space as they were made before: every treebank's matrix doubled
    (``with_corpus_copies``), then the cut-off and the filters."""
    from ranker.pipeline import stages
    from ranker.pipeline.stages.features import consistency, extract_features, trainable
    from ranker.pipeline.training_rows import training_data
    from ranker.store import Store

    with Store.writing(cfg.experiment.store) as st:
        ctx = stages.StageContext(st, None, 1, False, "t", None)
        splits = stages.select_splits(ctx, cfg.data)
        ctx = ctx.with_source(stages.parse_or_import(ctx, cfg.parse, splits.sentences(), cfg.data.corpus).source)
        corpora = splits.corpora()
        ann = stages.annotate(ctx, cfg.annotation, [s for c in corpora for s in c.train.sentences], False,
                              evaluation=cfg.evaluation)
        template = stages.loglinear_template(cfg.loglinear, 1)
        sets = list(stages.training_sets(ctx, ann, cfg.features, template, [c.train for c in corpora],
                                         (ann.rule,), 2, ("shared", "per-corpus")))
        kept = [trainable(ctx, c.train, ann.kind, (ann.rule,), template) for c in corpora]
        mats = [extract_features(ctx, cfg.features, t.selection) for t in kept]
        weights = [consistency(ctx, m, ann.kind, t.selection, ann.rule) for m, t in zip(mats, kept)]
        doubled = training_data([with_corpus_copies(m, t.selection.corpus) for m, t in zip(mats, kept)], weights,
                                cfg.features.cutoff, st.forest_qualities(ctx.need_source()), template, counted=2)
        heldout = [(extract_features(ctx, cfg.features, c.heldout), c.heldout.corpus) for c in corpora]
        built = {got.domains: got.data.rows() for _, got in sets}   # (built from the store when first read)
    return built, doubled, heldout


@pytest.mark.slow
@pytest.mark.linkgrammar
def test_copies_made_by_the_objective_are_the_doubled_matrix_s_objective_and_converge_sooner(two_run):
    """Issue 43: the per-corpus space no longer doubles the training rows. Its copies live in the
    objective (a row of corpus c scored by its shared weights plus c's copies), so the training
    set is the shared space's rows, the same arrays, with the copies' names after the shared
    ones; the names, the function and its optimum are the doubled matrix's.

    Not to the bit: the doubled matrix adds a row's shared and copy entries one by one, the
    objective puts ``w_c = λ_s + λ_c`` in their place; the value and gradient agree to 1e-12
    relative. Nor the same fit from zero: the objective searches over ``(λ_s, w_c)``
    (:mod:`ranker.models.copies`), where the preconditioned L-BFGS converges in fewer iterations,
    and the objective is not convex (the log of a sum over several consistent candidates), so two
    paths may end in two local minima. The doubled matrix's minimum is one of the objective's:
    started there, the fit stops at once, its weights the same to 1e-15.
    """
    from ranker.models.groups import group_offsets
    from ranker.models.loglinear import LogLinearRanker
    from ranker.models.objective import ConditionalObjective

    tmp, cfg, _ = two_run
    spaces, doubled, heldout = _two_spaces_and_the_doubled_rows(cfg)
    shared, per = spaces["shared"], spaces["per-corpus"]
    assert per.X is shared.X and per.names[:len(shared.names)] == shared.names    # no entry copied
    assert sorted(per.names) == sorted(doubled.names) and len(per.names) > len(shared.names)
    assert {n.split("] ")[0] for n in per.names[len(shared.names):]} == {"[treebank", "[gum"}
    assert np.array_equal(per.y, doubled.y) and np.array_equal(per.groups, doubled.groups)
    at = np.array([doubled.names.index(n) for n in per.names])    # the doubled column of each weight
    d, copies = per.X.shape[1], per.copies
    offsets = group_offsets(per.groups, len(per.y))
    lam = np.random.default_rng(0).normal(scale=0.3, size=len(per.names))
    lam_doubled = np.empty(len(per.names))
    lam_doubled[at] = lam
    v1, g1 = ConditionalObjective(doubled.X, doubled.y, offsets, 1.0)(lam_doubled)
    v2, g2 = ConditionalObjective(per.X, per.y, offsets, 1.0, copies=copies)(copies.to_theta(lam, d))
    assert v2 == pytest.approx(v1, rel=1e-12)
    assert np.max(np.abs(g2 - copies.pull_back(g1[at], d))) <= 1e-12 * np.max(np.abs(g1))

    def fitted(data, tol=1e-5, max_iter=300, **extra):
        return LogLinearRanker(sigma2=1.0, solver="lbfgs", tol=tol, max_iter=max_iter, precondition=True).fit(
            data.X, data.y, data.groups, **extra)

    old, new = fitted(doubled), fitted(per, copies=copies)
    # the doubled matrix's fit stops at the cap (152 against 300 iterations when this was written)
    assert new.converged_ and new.grad_max_ <= 1e-5 and new.n_iter_ < 200 < old.n_iter_
    assert new.coef_.shape == old.coef_.shape
    old = fitted(doubled, tol=1e-8, max_iter=3000)     # the doubled matrix's minimum
    again = fitted(per, copies=copies, coef_init=old.coef_[at])
    assert again.n_iter_ == 0 and np.max(np.abs(again.coef_ - old.coef_[at])) < 1e-15
    # a per-corpus model predicts from the held-out rows in the per-corpus space (columns by name)
    from ranker.pipeline.domains import in_space

    held = stacked([in_space(m, corpus, "per-corpus") for m, corpus in heldout])
    assert np.allclose(again.decision_function(held.restrict(per.names)),
                       old.decision_function(held.restrict(doubled.names)), rtol=0, atol=1e-12)


@pytest.mark.slow
@pytest.mark.linkgrammar
def test_the_fits_hold_no_test_matrix_and_the_held_out_rows_only_when_made_in_the_fit_s_columns(
        two_run, monkeypatch, tmp_path):
    """Issue 45: training held both test matrices (read with the held-out ones, kept for select) and
    the held-out splits stacked in each feature space beside their restriction to each fit's
    columns (GUM and the WSJ sample: 7.7 GB before any fit, the restriction 0.9 GB beside the fit).
    Now each test matrix is read where it is scored, and the held-out rows are made in the columns
    of the fit scoring them when they are needed: at every fit (the combined model's spaces, each
    treebank's own) no test matrix is alive, no matrix of the held-out rows either, and the rows
    the fit is handed a way to make are in its columns. The report is the same."""
    import gc
    import weakref

    from ranker.matrices.compact import CompactMatrix
    from ranker.pipeline import feature_cache, stages
    from ranker.pipeline.experiment import run_experiment
    from ranker.pipeline.stages import rules, treebanks
    from ranker.store import Store

    tmp, cfg, first = two_run
    with Store.writing(cfg.experiment.store) as st:
        splits = stages.select_splits(stages.StageContext(st, None, 1, False, "t"), cfg.data)
    corpora = splits.corpora()
    test_ids = {s.id for c in corpora for s in c.test.sentences}
    read: list = []   # weak references to the X of every matrix read of a test split
    cached_matrix = feature_cache.cached_matrix

    def reading(store, feature_set, sel, *args, **kw):
        got = cached_matrix(store, feature_set, sel, *args, **kw)
        m = got[0] if kw.get("keyed") else got   # (matrix, its store key)
        if test_ids & set(m.sentence_ids):
            read.append(weakref.ref(m.X))
        return got

    fits: list = []

    def watched(fit, combined):
        def fitting(ctx, loglinear, template, data, X_heldout, groups, quality, *args, **kw):
            gc.collect()
            assert [r for r in read if r() is not None] == [], "a test matrix is held at a fit"
            rows = len(groups)
            held = [m.shape for m in gc.get_objects() if isinstance(m, CompactMatrix) and m.shape[0] == rows]
            assert held == [], f"held-out rows held at a fit: {held}"
            made = X_heldout()
            assert made.shape == (rows, len(data.names))
            del made
            fits.append(combined)
            return fit(ctx, loglinear, template, data, X_heldout, groups, quality, *args, **kw)
        return fitting

    monkeypatch.setattr(feature_cache, "cached_matrix", reading)
    monkeypatch.setattr(rules, "fit_loglinear", watched(rules.fit_loglinear, True))
    monkeypatch.setattr(treebanks, "fit_loglinear", watched(treebanks.fit_loglinear, False))
    report = run_experiment(cfg, tmp_path / "out", progress=False)   # the warm store: fits loaded
    assert fits == [True] * len(report.fits["loglinear"]["rules"]) + [False] * len(corpora)
    assert read   # the test matrices were read (where they are scored)
    assert report.fits == first.fits and report.by_treebank == first.by_treebank
    for name in ("gold.mrg", *(f"selected/{r}.mrg" for r in ("native", "heidorn", "heidorn_tuned", "loglinear"))):
        assert (tmp_path / "out" / name).read_bytes() == (tmp / "out" / name).read_bytes(), name
