"""Cross-validation folds over treebank files (ranker/pipeline/folds.py), with hand-worked values."""
from pathlib import Path

import pytest

from ranker.errors import RankerError
from ranker.pipeline.config import load_config
from ranker.pipeline.folds import (TREEBANK_FILES, cross_validation_folds, file_folds, fold_config,
                                   fold_order, ranges)

SEVEN = tuple(f"wsj_{i:04d}" for i in range(1, 8))


def test_seven_files_in_three_folds_give_the_extra_file_to_the_first_fold():
    # 7 = 3 * 2 + 1: the first fold takes three files, the other two take two
    assert file_folds(SEVEN, 3) == [("wsj_0001", "wsj_0002", "wsj_0003"), ("wsj_0004", "wsj_0005"),
                                    ("wsj_0006", "wsj_0007")]


def test_each_fold_tests_one_run_holds_out_the_next_and_trains_on_the_rest():
    f = cross_validation_folds(SEVEN, 3)
    assert f[0].test == ("wsj_0001", "wsj_0002", "wsj_0003")
    assert f[0].heldout == ("wsj_0004", "wsj_0005")
    assert f[0].train == ("wsj_0006", "wsj_0007")
    # the last fold's held-out part wraps round to the first run
    assert (f[2].k, f[2].test, f[2].heldout, f[2].train) == (
        2, ("wsj_0006", "wsj_0007"), ("wsj_0001", "wsj_0002", "wsj_0003"), ("wsj_0004", "wsj_0005"))


def test_the_199_treebank_files_make_nine_folds_of_20_and_one_of_19_each_file_tested_once():
    folds = cross_validation_folds(TREEBANK_FILES, 10)
    assert [len(f.test) for f in folds] == [20] * 9 + [19]
    assert [f for fold in folds for f in fold.test] == list(TREEBANK_FILES)
    assert folds[9].test[0] == "wsj_0181" and folds[9].heldout == folds[0].test
    for fold in folds:
        assert len(fold.train) + len(fold.heldout) + len(fold.test) == 199
        assert not set(fold.train) & (set(fold.heldout) | set(fold.test))


def test_ranges_join_consecutive_files():
    assert ranges(("wsj_0001", "wsj_0002", "wsj_0003", "wsj_0061", "wsj_0080", "wsj_0079")) == \
        "wsj_0001-0003 wsj_0061-0061 wsj_0079-0080"
    assert ranges(cross_validation_folds(TREEBANK_FILES, 10)[3].train) == "wsj_0001-0060 wsj_0101-0199"


def test_too_few_or_too_many_folds_are_refused():
    for n in (2, 8):
        with pytest.raises(RankerError, match="--folds"):
            file_folds(SEVEN, n)


def test_only_gives_the_folds_in_the_order_named_and_rejects_bad_ones():
    assert fold_order(None, 10) == list(range(10))
    assert fold_order("7, 8,0", 10) == [7, 8, 0]
    for bad in ("10", "3,3", "x", "-1"):
        with pytest.raises(RankerError, match="--only"):
            fold_order(bad, 10)


def test_a_folds_config_names_its_ranges_and_keeps_everything_else():
    base = load_config(Path(__file__).resolve().parents[2] / "configs" / "wsj-sample-bllip.toml")
    cfg = fold_config(base, cross_validation_folds(TREEBANK_FILES, 10)[9])
    assert (cfg.data.train, cfg.data.heldout, cfg.data.test) == (
        "wsj_0021-0180", "wsj_0001-0020", "wsj_0181-0199")
    assert cfg.experiment.name == "wsj-sample-bllip-fold9"
    assert cfg.report.learning_curve == ()
    assert (cfg.experiment.store, cfg.parse, cfg.loglinear) == (base.experiment.store, base.parse, base.loglinear)


def test_a_folds_record_keeps_its_counts_fit_and_every_rankers_scores():
    from ranker.pipeline.experiment import RANKERS
    from ranker.pipeline.folds import fold_record
    from ranker.pipeline.report import MetricTable, RankerScore, Report
    from ranker.pipeline.run_counts import RunCounts

    rankers = {r: RankerScore(80.0 + i, 10.0 * i, (0.0, 0.0), phi=None if r == "native" else 5.0 * i)
               for i, r in enumerate(RANKERS)}
    report = Report("x", {"mph": MetricTable("mph", "MPH", 90.0, 70.0, rankers)},
                    counts=RunCounts(sentences={"test": 3}, training_kept=12),
                    fits={"loglinear": {"sigma2": 10, "optimizer": "cg", "iterations": 7,
                                        "converged": False, "seconds": 1.5}})
    got = fold_record(4, report)
    assert got["fold"] == 4 and got["counts"] == {"training_kept": 12, "features_after_cutoff": None}
    assert got["fit"] == {"sigma2": 10, "optimizer": "cg", "iterations": 7, "converged": False}
    assert got["mph"]["upper"] == 90.0 and got["mph"]["lower"] == 70.0
    assert got["mph"]["loglinear"] == 30.0 and got["mph"]["loglinear_score"] == 83.0
    assert got["mph"]["native_phi"] is None and got["mph"]["heidorn_phi"] == 5.0
