"""Issue 43: ``[annotation] rule = "auto"`` chooses the consistency rule on held-out, as sigma^2 is.

Real BLLIP lists of a few WSJ documents per split, partial bracketings from their gold trees. Each
rule of the grid is fitted (its own sigma^2 grid) from one extraction of features; the report's
fit record lists every rule with the training sentences it kept and its held-out score, the
chosen one is the best of them, its model alone is the store's model chosen on held-out, and a
run naming that rule directly fits the same model.
"""
import dataclasses

import pytest
from frozen_heap import frozen_heap
from ranker_forked import run_forked

from ranker.pipeline.config import ConfigError, load_config
from ranker.pipeline.experiment import run_experiment
from ranker.store import Store

pytestmark = pytest.mark.slow

DOCS = {"train": ("wsj_0001", "wsj_0004"), "heldout": ("wsj_0140", "wsj_0141"), "test": ("wsj_0170", "wsj_0170")}


@pytest.fixture(scope="module")
def config(tmp_path_factory, bllip_lists, treebank_store):
    import shutil

    from nbest_slices import cut_lists

    tmp = tmp_path_factory.mktemp("rule-grid")
    shutil.copy(treebank_store, tmp / "s.sqlite")   # the corpus loaded: the run imports the lists
    files = {split: tmp / f"{split}.nbest" for split in DOCS}
    for split, docs in DOCS.items():
        cut_lists(bllip_lists, split, docs, files[split])
    cfg = load_config("configs/wsj-sample-bllip.toml")
    return tmp, dataclasses.replace(
        cfg,
        experiment=dataclasses.replace(cfg.experiment, store=str(tmp / "s.sqlite"), workers=1),
        data=dataclasses.replace(cfg.data, train="wsj_0001-0004", heldout="wsj_0140-0141", test="wsj_0170"),
        parse=dataclasses.replace(cfg.parse, **{f"{k}_forests": str(v) for k, v in files.items()}),
        annotation=dataclasses.replace(cfg.annotation, kind="riezler", rule="auto",
                                       rules=("strict", "fewest", "graded")),
        loglinear=dataclasses.replace(cfg.loglinear, objective="loglik", sigma2_grid=(0.1, 1.0)),
        evaluation=dataclasses.replace(cfg.evaluation, bootstrap_resamples=50, randomization_resamples=50),
        report=dataclasses.replace(cfg.report, plots=False, learning_curve=(1.0,)))


@pytest.fixture(scope="module")
def auto(config):
    tmp, cfg = config
    with frozen_heap():
        return tmp / "auto", run_experiment(cfg, tmp / "auto", progress=False)


def test_the_rule_with_the_best_held_out_score_is_chosen(auto):
    out, auto = auto
    fit = auto.fits["loglinear"]
    trials = fit["rules"]
    assert [t[0] for t in trials] == ["strict", "fewest", "graded"]
    scores = [t[3] for t in trials]
    assert fit["rule"] == trials[scores.index(max(scores))][0]
    kept = {t[0]: t[1] for t in trials}
    # the strict rule keeps only sentences with a candidate holding every bracket; the others more
    assert 0 < kept["strict"] < kept["fewest"] <= kept["graded"]
    assert auto.counts.training_kept == kept[fit["rule"]]
    md = (out / "report.md").read_text()
    assert f"consistency rule (chosen on heldout {fit['chosen_on'].split()[-1]}) | {fit['rule']}" in md
    for rule, k, *_ in trials:
        assert f"rule {rule}: held-out" in md and f"{k:,} training sentences kept" in md


def test_only_the_winner_is_the_model_chosen_on_held_out_and_a_fixed_rule_fits_it_again(config, auto):
    tmp, cfg = config
    _, auto = auto
    rule = auto.fits["loglinear"]["rule"]
    with Store.open(cfg.experiment.store, readonly=True) as st:
        chosen = [r for r in st.model_records() if r.chosen and "heldout" in r.chosen and r.ranker.startswith("loglinear")]
    assert len(chosen) == 1
    out = tmp / "model.json"
    got = run_forked(["models", "export", "--store", cfg.experiment.store, "--out", str(out)], timeout=120)
    assert got.returncode == 0, got.stderr
    with frozen_heap():
        fixed = run_experiment(dataclasses.replace(cfg, annotation=dataclasses.replace(cfg.annotation, rule=rule)),
                               tmp / "fixed", progress=False)
    assert "rules" not in fixed.fits["loglinear"]
    assert fixed.fits["loglinear"]["sigma2"] == auto.fits["loglinear"]["sigma2"]
    assert fixed.fits["loglinear"]["iterations"] == auto.fits["loglinear"]["iterations"]
    assert (tmp / "fixed" / "selected" / "loglinear.mrg").read_bytes() == \
        (tmp / "auto" / "selected" / "loglinear.mrg").read_bytes()


def test_the_rule_and_sigma2_are_chosen_by_the_select_metric(config, auto):
    """Issue 43: ``configs/gum.toml`` chooses by untyped dependency F on dev, not EVALB's brackets.
    On a copy of the store, the same grid chosen by ``deps_untyped``: every rule keeps the sentences
    it kept, the stored fits are scored again by the other metric (not the first run's scores), the
    best of those is chosen and the report says by what."""
    import shutil

    tmp, cfg = config
    _, auto = auto
    shutil.copy(cfg.experiment.store, tmp / "deps.sqlite")
    deps = dataclasses.replace(cfg, experiment=dataclasses.replace(cfg.experiment, store=str(tmp / "deps.sqlite")),
                               loglinear=dataclasses.replace(cfg.loglinear, select_metric="deps_untyped"))
    with frozen_heap():
        got = run_experiment(deps, tmp / "deps", progress=False)
    fit, before = got.fits["loglinear"], auto.fits["loglinear"]
    assert fit["chosen_on"] == "heldout deps_untyped"
    assert before["chosen_on"] == f"heldout {cfg.loglinear.select_metric}" != fit["chosen_on"]
    assert [t[:2] for t in fit["rules"]] == [t[:2] for t in before["rules"]]
    scores = [t[3] for t in fit["rules"]]
    assert scores != [t[3] for t in before["rules"]]
    assert fit["rule"] == fit["rules"][scores.index(max(scores))][0]
    md = (tmp / "deps" / "report.md").read_text()
    assert f"consistency rule (chosen on heldout deps_untyped) | {fit['rule']}" in md
    assert "sigma2 (chosen on heldout deps_untyped)" in md


def test_the_grid_holds_one_rule_s_rows_at_a_time_and_builds_the_chosen_rule_s_again(config, auto):
    """Issue 45: each rule's rows are let go when the next rule's set is made (the best rule's rows
    held beside the next took GUM's grid of six rules to 11.5 GB), and the chosen rule's rows are
    built again when read after the grid: the same arrays its fit learnt from."""
    import gc
    import weakref

    import numpy as np

    from ranker.features import load_feature_set
    from ranker.pipeline import stages

    tmp, cfg = config
    _, auto = auto
    rules = stages.rule_grid(cfg.annotation)
    alive: list = []          # weak references to the rows of every set handed to fit_rules
    seen: dict = {}           # rule -> its rows' arrays as the grid built them (copies)
    plans: dict = {}          # rule -> the set's rows (a PlannedRows)
    with Store.writing(cfg.experiment.store) as st:
        ctx, splits, ann, template, held = _grid_inputs(cfg, st)

        def watched(sets):
            for rule, got in sets:
                gc.collect()
                assert [r for r, ref in alive if ref() is not None] == [], f"rows held when {rule}'s are built"
                alive.append((rule, weakref.ref(got.data.X)))
                seen[rule] = (got.data.X.toarray().copy(), got.data.y.copy(), got.data.groups.copy())
                plans[rule] = got.data
                yield rule, got
                del got

        ruled = stages.fit_rules(ctx, cfg.loglinear, template,
                                 watched(stages.training_sets(ctx, ann, cfg.features, template, [splits.train], rules)),
                                 len(rules), held.matrix, held.quality,
                                 load_feature_set(cfg.features.set).to_dict())
        gc.collect()
        assert [r for r, ref in alive if ref() is not None] == []   # the last rule's too, when the sets end
        assert ruled.data is plans[ruled.rule] and not ruled.data.built
        X, y, groups = seen[ruled.rule]
        # (the chosen rule's rows are built from the store when first read)
        assert np.array_equal(ruled.data.X.toarray(), X) and np.array_equal(ruled.data.y, y) \
            and np.array_equal(ruled.data.groups, groups)
    assert [r for r, _ in alive] == list(rules) and ruled.rule == auto.fits["loglinear"]["rule"]
    assert ruled.fit.summary["rules"] == auto.fits["loglinear"]["rules"]


def _grid_inputs(cfg, st):
    """What ``ranker run`` hands the grid on the warm store: context, splits, annotation, template, held-out rows."""
    from ranker.pipeline import stages

    ctx = stages.StageContext(st, None, 1, False, "t", None)
    splits = stages.select_splits(ctx, cfg.data)
    ctx = ctx.with_source(stages.parse_or_import(ctx, cfg.parse, splits.sentences(), cfg.data.corpus).source)
    ann = stages.annotate(ctx, cfg.annotation, splits.train.sentences, False, evaluation=cfg.evaluation)
    metric = cfg.loglinear.select_metric
    held = stages.heldout_rows(ctx, cfg.features, splits.heldout,
                               stages.load_counts(ctx, cfg.evaluation, splits.heldout, [metric])[metric], metric)
    return ctx, splits, ann, stages.loglinear_template(cfg.loglinear, 1), held


def test_a_warm_grid_builds_no_rule_s_rows_and_chooses_as_the_cold_one(config, auto):
    """Issue 45: a warm rerun of GUM's grid built every rule's rows again (3.5 of its 5.5 minutes)
    only to find their fits, whose keys were digests of the rows. Every fit of a rule is now keyed
    by the rows' inputs (training_rows.rows_key): the stored screens and searches are loaded with no
    rule's rows built, and the choice, every trial and the chosen model are the cold run's."""
    import numpy as np

    from ranker.features import load_feature_set
    from ranker.pipeline import domains, stages

    tmp, cfg = config
    _, auto = auto
    rules = stages.rule_grid(cfg.annotation)
    handed: list = []
    with Store.writing(cfg.experiment.store) as st:
        ctx, splits, ann, template, held = _grid_inputs(cfg, st)

        def kept(sets):
            for rule, got in sets:
                handed.append(got.data)
                yield rule, got

        ruled = stages.fit_rules(ctx, cfg.loglinear, template,
                                 kept(stages.training_sets(ctx, ann, cfg.features, template, [splits.train], rules)),
                                 len(rules), domains.HeldoutSplits([held.matrix], [splits.heldout.corpus], [held.key]),
                                 held.quality,
                                 load_feature_set(cfg.features.set).to_dict())
        assert len(handed) == len(rules) and [d.built for d in handed] == [False] * len(handed)
        assert ruled.rule == auto.fits["loglinear"]["rule"]
        assert [list(t) for t in ruled.trials] == auto.fits["loglinear"]["rules"]
        assert ruled.fit.summary["trials"] == auto.fits["loglinear"]["trials"]
        assert len(ruled.fit.names) == auto.counts.features_after_cutoff
        # the chosen model is the stored one, and its columns are the rows' (built now, on demand)
        assert tuple(ruled.fit.names) == tuple(ruled.data.names) and ruled.data.built
        record = st.model_record(ruled.fit.chosen.key)
        assert "heldout" in record.chosen and record.summary["iterations"] == auto.fits["loglinear"]["iterations"]
    assert np.isfinite(ruled.fit.model.coef_).all()


def test_every_input_of_a_rule_s_rows_is_in_their_key(config, auto):
    """Issue 45: the rows' key stands for the rows in every stored fit's key, so a key that missed
    an input would load a fit of other rows. The same inputs give the same key; another rule, cut-off,
    filter, weight, forest quality or stored matrix, another one."""
    import dataclasses as dc

    import numpy as np

    from ranker.pipeline import stages
    from ranker.pipeline.training_rows import row_plan, rows_key

    tmp, cfg = config
    rules = stages.rule_grid(cfg.annotation)
    with Store.writing(cfg.experiment.store) as st:
        ctx, splits, ann, template, _ = _grid_inputs(cfg, st)

        def keys(features=cfg.features, tmpl=template):
            return {rule: got.data.key for rule, got in
                    stages.training_sets(ctx, ann, features, tmpl, [splits.train], rules)}

        first = keys()
        assert keys() == first and len(set(first.values())) == len(rules)
        assert set(keys(dc.replace(cfg.features, cutoff=cfg.features.cutoff + 1)).values()).isdisjoint(first.values())
        assert set(keys(tmpl=template.__class__(**{**template.get_params(), "max_parses": 7})).values()) \
            .isdisjoint(first.values())
        # the same plan and weights with one thing changed
        (rule, got), = stages.training_sets(ctx, ann, cfg.features, template, [splits.train], rules[:1])
        m, mkey = stages.extract_features(ctx, cfg.features, splits.train, on_demand=True, keyed=True)
        w = stages.consistency(ctx, m, ann.kind, splits.train, rule)
        qualities = st.forest_qualities(ctx.source)
        plan = row_plan([m], [w], qualities, template)

        def key(mkeys=(mkey,), weights=(w,), p=plan):
            return rows_key(list(mkeys), list(weights), p, template, cfg.features.cutoff, 1, "shared")

        base = key()
        assert key() == base
        w2 = w.copy()
        w2[np.flatnonzero(w > 0)[0]] = 0.0
        flipped = {sid: tuple("skim" if q == "full" else "full" for q in qs) for sid, qs in qualities.items()}
        others = [key(mkeys=(mkey + "x",)), key(weights=(w2,)), key(p=row_plan([m], [w2], qualities, template)),
                  key(p=row_plan([m], [w], flipped, template)),
                  rows_key([mkey], [w], plan, template, cfg.features.cutoff, 1, "per-corpus"),
                  rows_key([mkey], [w], plan, template, cfg.features.cutoff, 2, "shared")]
        assert base not in others and len(set(others)) == len(others)
