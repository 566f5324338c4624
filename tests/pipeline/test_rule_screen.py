"""Issue 43: ``[annotation] screen_iterations`` screens the rules by short fits, then fits the best one's σ² grid.

A full rule grid fits every rule's whole σ² grid (GUM: six rules by three σ², over an hour). The
screen fits each rule for a few iterations at the grid's middle σ², keeps the rule whose short fit
scores best on held-out, and fits the σ² grid in full for that rule alone, its first fit started
from the rule's screening weights. Real data, small: two GUM documents' sentences read from Penn
files, parsed by Link Grammar with a small budget, partial bracketings from their gold trees.
"""
import shutil
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

from ranker.features import load_feature_set
from ranker.models.groups import group_offsets
from ranker.models.tuning import select_sigma2, selected_quality
from ranker.pipeline import stages
from ranker.pipeline.domains import HeldoutSplits
from ranker.pipeline.config import (AnnotationSection, DataSection, EvaluationSection, FeaturesSection,
                                    LogLinearSection, ParseSection)
from ranker.pipeline.training import _fit_arrays
from ranker.store import Store

pytestmark = pytest.mark.linkgrammar

GUM = Path(__file__).resolve().parents[2].parent / "shared" / "gum" / "const"
RULES = ("strict", "fewest", "graded")
SCREEN = 3
TRAIN, HELDOUT = 20, 8     # sentences of GUM_news_iodine and GUM_bio_byron, from the first
WARM: dict = {}            # the screen run again on the same store (screened)


@pytest.fixture(scope="module")
def screened(tmp_path_factory):
    """The screen run on GUM_news_iodine's first sentences (train) and GUM_bio_byron's (held-out)."""
    tmp = tmp_path_factory.mktemp("rule-screen")
    for doc in ("GUM_news_iodine", "GUM_bio_byron", "GUM_fiction_lunre"):
        shutil.copy(GUM / f"{doc}.ptb", tmp / f"{doc}.ptb")
    data = DataSection(corpus="penn", path=str(tmp), name="gum", train="GUM_news_*", heldout="GUM_bio_*",
                       test="GUM_fiction_*", limit=1)
    annotation = AnnotationSection(rule="auto", rules=RULES, screen_iterations=SCREEN)
    loglinear = LogLinearSection(sigma2_grid=(0.1, 1.0, 10.0), optimizer="lbfgs", precondition=True)
    metric = loglinear.select_metric
    fc = load_feature_set("default").to_dict()
    built, rows = [], {}
    with Store.writing(tmp / "s.sqlite") as st:
        ctx = stages.StageContext(st, None, 1, False, "t", None)
        splits = stages.select_splits(ctx, data)
        train = splits.train._replace(sentences=splits.train.sentences[:TRAIN])
        held_sel = splits.heldout._replace(sentences=splits.heldout.sentences[:HELDOUT])
        heldout = held_sel.sentences
        parse = ParseSection(linkage_limit=20, max_parse_time=2.0)
        ctx = ctx.with_source(stages.parse_or_import(ctx, parse, [*train.sentences, *heldout], "penn").source)
        ann = stages.annotate(ctx, annotation, train.sentences, False, evaluation=EvaluationSection())
        stages.compute_counts(ctx, EvaluationSection(), heldout)
        counts = stages.load_counts(ctx, EvaluationSection(), held_sel, [metric])
        held = stages.heldout_rows(ctx, FeaturesSection(), held_sel, counts[metric], metric)
        template = stages.loglinear_template(loglinear, 1)

        # the held-out split as ranker run hands it: named by its matrix's store key
        keyed = HeldoutSplits([held.matrix], [held_sel.corpus], [held.key])

        def sets(into):
            for rule, got in stages.training_sets(ctx, ann, FeaturesSection(), template, [train],
                                                  RULES):
                into[rule] = got.data
                yield rule, got

        ruled = stages.fit_rules(ctx, loglinear, template, sets(rows), len(RULES), keyed, held.quality, fc,
                                 screen=annotation.screen_iterations)
        # each rule's rows were let go when the next rule's set was made; the chosen rule's set is
        # the grid's own, its rows built again when its full fits read them
        built.extend(rule for rule, data in rows.items() if data.built)
        assert ruled.data is rows[ruled.rule]
        records = list(st.model_records())
        # the same grid again (a warm rerun): counted, no rows built, no held-out rows made
        made, again = [], {}
        real_rows = HeldoutSplits.rows
        HeldoutSplits.rows = lambda self, *a: made.append(a) or real_rows(self, *a)
        try:
            warm = stages.fit_rules(ctx, loglinear, template, sets(again), len(RULES), keyed, held.quality, fc,
                                    screen=annotation.screen_iterations)
        finally:
            HeldoutSplits.rows = real_rows
        WARM.update(ruled=warm, built=[rule for rule, data in again.items() if data.built], made=made,
                    models=len(list(st.model_records())))
        rows = {rule: data.rows() for rule, data in rows.items()}   # (read here, while the store is open)
    return ruled, built, rows, held, template, loglinear, records


def test_each_rule_is_screened_by_a_short_fit_at_the_grids_middle_sigma2(screened):
    ruled, _, rows, held, template, _, _ = screened
    assert [t.rule for t in ruled.trials] == list(RULES)
    offsets = group_offsets(held.matrix.groups(), len(held.quality))
    for t in ruled.trials:
        data = rows[t.rule]
        assert t.kept == int(data.survivors.group_mask.sum()) > 0
        assert t.sigma2 == 1.0 and 0 < t.iterations <= SCREEN
        # the trial's score is that of a fit of SCREEN iterations at sigma2 = 1 from zero weights
        short = clone(template).set_params(sigma2=1.0, max_iter=SCREEN)
        with pytest.warns(Warning):
            short.fit(data.X, data.y, data.groups, **_fit_arrays(data))
        assert short.n_iter_ == t.iterations
        assert t.heldout == selected_quality(short.decision_function(held.matrix.restrict(data.names)),
                                             held.quality, offsets)
    # strict keeps fewer sentences than the rules that fall back on the best candidates
    kept = {t.rule: t.kept for t in ruled.trials}
    assert kept["strict"] < kept["fewest"] == kept["graded"]


def test_the_rule_with_the_best_screening_score_is_kept_and_its_grid_alone_fitted_in_full(screened):
    ruled, built, rows, held, template, loglinear, records = screened
    scores = [t.heldout for t in ruled.trials]
    assert ruled.rule == RULES[scores.index(max(scores))]     # a tie keeps the earlier rule
    assert built == [ruled.rule]                               # the chosen rule's rows built again, alone
    summary = ruled.fit.summary
    assert summary["rule"] == ruled.rule and summary["screen"] == {"iterations": SCREEN, "sigma2": 1.0}
    assert [s2 for s2, _ in summary["trials"]] == [0.1, 1.0, 10.0]
    # the store: one screening fit per rule, and the full grid's three fits of the chosen rule only
    capped = [r for r in records if r.settings.get("max_iter") == SCREEN]
    full = [r for r in records if r.settings.get("max_iter") == loglinear.max_iter]
    assert len(capped) == len(RULES) and len(full) == len(loglinear.sigma2_grid)
    assert len({r.data for r in full}) == 1
    chosen = [r for r in records if r.chosen]
    assert len(chosen) == 1 and chosen[0].key == ruled.fit.chosen.key
    # the full grid is the chosen rule's, its first fit started from that rule's screening weights
    data = rows[ruled.rule]
    short = clone(template).set_params(sigma2=1.0, max_iter=SCREEN)
    with pytest.warns(Warning):
        short.fit(data.X, data.y, data.groups, **_fit_arrays(data))
    X_held = held.matrix.restrict(data.names)
    warm = select_sigma2(template, data.X, data.y, data.groups, X_held, held.matrix.groups(), held.quality,
                         grid=loglinear.sigma2_grid, fit_params=_fit_arrays(data), coef_init=short.coef_)
    assert [tuple(t) for t in summary["trials"]] == list(warm.trials)
    assert np.array_equal(ruled.fit.model.coef_, warm.ranker.coef_)
    assert ruled.fit.kept == ruled.trials[RULES.index(ruled.rule)].kept


def test_the_fits_table_shows_each_rules_screening_fit_and_the_chosen_rules_full_fits(screened):
    from ranker.pipeline.report import _fit_rows, _num

    ruled = screened[0]
    rows = dict(_fit_rows({"loglinear": ruled.fit.summary}))
    chosen = ("loglinear: consistency rule (chosen on heldout evalb_unlabeled, by screening fits of at most "
              f"{SCREEN} iterations at sigma2=1; its sigma2 grid fitted in full)")
    assert rows[chosen] == ruled.rule
    for t in ruled.trials:
        label = (f"loglinear: rule {t.rule}: screening fit held-out evalb_unlabeled (sigma2 1, {t.iterations} "
                 f"iterations, {t.kept:,} training sentences kept)")
        assert rows[label] == _num(t.heldout)
    for s2, q in ruled.fit.summary["trials"]:   # the chosen rule's full fits
        assert rows[f"loglinear: held-out evalb_unlabeled at sigma2={s2:g}"] == _num(q)


def test_a_screening_fit_reports_each_iteration_to_the_bar_and_a_stored_one_none(screened, tmp_path):
    """Issue 45: GUM's six screens ran minutes under "[ranker] train ..." with nothing on screen; the
    stage's bar now moves with each solver iteration of a screening fit (none when the fit is stored)."""
    from ranker.pipeline.training import fit_screen

    _, _, rows, _, template, _, _ = screened
    fc = load_feature_set("default").to_dict()
    calls = []
    with Store.writing(tmp_path / "s.sqlite") as st:
        model, names = fit_screen(st, template, rows["strict"], 1.0, SCREEN, fc,
                                  callback=lambda k, n: calls.append((k, n)))
        assert calls == [(k, SCREEN) for k in range(1, model.n_iter_ + 1)] and model.n_iter_ >= 1
        again, stored = fit_screen(st, template, rows["strict"], 1.0, SCREEN, fc, callback=lambda k, n: calls.append(k))
    assert len(calls) == model.n_iter_
    np.testing.assert_array_equal(again.coef_, model.coef_)
    assert names == stored == tuple(rows["strict"].names)


def test_a_warm_screen_builds_no_rows_makes_no_held_out_rows_and_chooses_as_the_cold_one(screened):
    """Issue 45: a warm rerun of GUM's screen built every rule's rows, loaded its screening model and
    made the held-out rows in its columns to score it again (21 s with the rows' digests keyed);
    the screens' scores and iterations are kept under the fit's and the held-out rows' keys, so a
    warm rerun reads them: no rule's rows built, no held-out rows made, nothing fitted."""
    ruled, _, _, _, _, _, records = screened
    warm = WARM["ruled"]
    assert WARM["built"] == [] and WARM["made"] == [] and WARM["models"] == len(records)
    assert warm.rule == ruled.rule and warm.trials == ruled.trials
    assert warm.fit.summary == ruled.fit.summary and warm.fit.names == ruled.fit.names
    np.testing.assert_array_equal(warm.fit.model.coef_, ruled.fit.model.coef_)
