"""Tests for the report writers: the JSON contract, no NaN in any file, plots embedded."""
import json

import pytest

from ranker.pipeline.report import (BreakdownGroup, MetricTable, Plot, RankerScore, Report,
                                    write_report)
from ranker.pipeline.run_counts import RunCounts


def _report():
    t = MetricTable("mph", "MPH F", 85.0, 60.0, {
        "native": RankerScore(68.5, 34.0, (66.0, 71.0), None, 0.2),
        "loglinear": RankerScore(75.0, float("nan"), (73.0, 77.0), 0.0004, 0.01, 39.2)}, 413)
    return Report("demo", {"mph": t},
                  by_quality=[BreakdownGroup("full", 300, 72.6, {"mph": t})],
                  counts=RunCounts(sentences={"test": 413}), timings={"parse": 1.5},
                  plots=[Plot("forest", "Score against forest size", "candidates", "F",
                              {"oracle": ((1.0, 10.0), (90.0, 80.0))}, "log")])


def test_json_follows_the_output_contract_and_has_no_nan(tmp_path):
    paths = write_report(_report(), tmp_path)
    text = paths["json"].read_text()
    assert "NaN" not in text
    doc = json.loads(text)
    m = doc["metrics"]["mph"]
    assert (m["upper"], m["lower"]) == (85.0, 60.0)
    assert m["rankers"]["native"] == {"score": 68.5, "error_reduction": 34.0, "ci95": [66.0, 71.0],
                                      "p_vs_native": None, "p_vs_heidorn": 0.2, "phi": None}
    assert m["rankers"]["loglinear"]["phi"] == 39.2
    assert m["rankers"]["loglinear"]["error_reduction"] is None


def test_markdown_and_html_show_tables_and_plots(tmp_path):
    paths = write_report(_report(), tmp_path)
    md = paths["md"].read_text()
    assert "| upper bound (oracle) | 85.0 |" in md and "| lower bound (random) | 60.0 |" in md
    assert "| loglinear | 75.0 | n/a | 39 | [73.0, 77.0] | <0.001 | 0.010 |" in md
    assert "nan" not in md.lower()
    assert (tmp_path / "plots" / "forest.png").read_bytes()[:4] == b"\x89PNG"
    assert "data:image/png;base64," in paths["html"].read_text()


def test_summary_table_leads_and_breakdowns_agree_in_markdown_and_html(tmp_path):
    paths = write_report(_report(), tmp_path)
    md, page = paths["md"].read_text(), paths["html"].read_text()
    assert md.index("## Summary") < md.index("## mph: MPH F")
    assert "| metric | upper | native | loglinear | lower |" in md
    assert "| MPH F | 85.0 | 68.5 (34%) | 75.0 (n/a) | 60.0 |" in md
    assert "<td>68.5 (34%)</td>" in page
    # the HTML breakdown carries the same rows as the Markdown one, error reduction included
    assert "| mph error red. (loglinear) | n/a |" in md
    assert "<td>mph error red. (loglinear)</td><td>n/a</td>" in page
    assert "| mph phi (loglinear) | 39 |" in md
    assert "<td>mph phi (loglinear)</td><td>39</td>" in page


def test_phi_is_the_share_of_the_native_to_oracle_gap_closed():
    """phi = (ranker - native) / (oracle - native): Alpino's measure, beside error reduction."""
    import numpy as np

    from ranker.evaluation.bounds import ForestCounts
    from ranker.pipeline.config import EvaluationSection
    from ranker.pipeline.tables import metric_table

    # one sentence, three candidates; counts (gold, test, matched, crossing) of brackets
    fc = ForestCounts.from_lists([[(4, 4, 1, 0), (4, 4, 3, 0), (4, 4, 4, 0)]], [4])
    choices = {"native": np.array([0]), "loglinear": np.array([1])}
    t = metric_table("evalb_unlabeled", fc, choices, EvaluationSection(), 0, False)
    # F: native 25, loglinear 75, oracle 100 -> phi = 50/75
    assert t.rankers["loglinear"].phi == pytest.approx(100 * 50 / 75)
    assert t.rankers["native"].phi == pytest.approx(0.0)


@pytest.mark.slow
def test_stage_table_carries_peak_memory_where_measured(tmp_path):
    rep = _report()
    rep.timings = {"parse": 1.5, "train": 2.25}
    rep.peak_memory_mb = {"parse": 812.4, "train": None}
    paths = write_report(rep, tmp_path)
    md, page = paths["md"].read_text(), paths["html"].read_text()
    assert "| stage | seconds | peak memory (MB) |" in md
    assert "| parse | 1.5 | 812 |" in md and "| train | 2.2 |  |" in md
    assert "<td>parse</td><td>1.5</td><td>812</td>" in page
    assert json.loads(paths["json"].read_text())["peak_memory_mb"] == {"parse": 812.4, "train": None}
    plain = write_report(_report(), tmp_path / "plain")["md"].read_text()
    assert "| stage | seconds |\n" in plain


@pytest.mark.slow
def test_learning_curve_points_are_a_table_in_markdown_and_html(tmp_path):
    """Whether test F rises with training data is read from numbers, not only from a figure."""
    curve = Plot("learning_curve", "Log-linear: test mph against training sentences",
                 "training sentences kept by the filters", "mph (%)",
                 {"loglinear": ((260.0, 649.0, 2595.0), (61.16, float("nan"), 62.4))})
    long = Plot("long", "Too many points", "x", "y", {"a": (tuple(range(30)), tuple(range(30)))})
    report = _report()
    report.plots.extend([curve, long])
    paths = write_report(report, tmp_path)
    md, page = paths["md"].read_text(), paths["html"].read_text()
    assert "| training sentences kept by the filters | loglinear: mph (%) |" in md
    assert "| 260 | 61.16 |" in md and "| 649 | n/a |" in md and "| 2,595 | 62.40 |" in md
    assert "| 1 | 90.00 |" in md                        # the forest plot's two points too
    assert "| 29 | 29.00 |" not in md                   # a long series stays a figure only
    assert "<td>2,595</td><td>62.40</td>" in page
    assert "nan" not in md.lower()


def test_the_fits_table_says_its_held_out_scores_are_sentence_means_not_corpus_scores(tmp_path):
    """Issue 43: GUM dev's Fits table read 69.56 for the chosen fit and the metric table of the same
    model on the same sentences 64.6: the choice maximises the mean of sentence scores, the tables
    sum counts. The report says so under the table, where a log-linear fit lists held-out scores."""
    import dataclasses

    from ranker.pipeline.report import _FITS_TEXT

    fits = {"loglinear": {"sigma2": 0.01, "iterations": 78, "evaluations": 81, "converged": True,
                          "chosen_on": "heldout deps_untyped", "trials": [[0.01, 69.56], [0.1, 68.98]]},
            "heidorn_tuned": {"iterations": 93}}
    paths = write_report(dataclasses.replace(_report(), fits=fits), tmp_path / "with")
    md, page = paths["md"].read_text(), paths["html"].read_text()
    assert "| loglinear: held-out deps_untyped at sigma2=0.01 | 69.56 |" in md
    assert md.index("## Fits") < md.index(_FITS_TEXT) < md.index("## Time per stage")
    assert "mean, over the held-out sentences with candidates," in page
    # no held-out scores listed (Heidorn's K search alone): no words about them
    paths = write_report(dataclasses.replace(_report(), fits={"heidorn_tuned": {"iterations": 93}}),
                         tmp_path / "without")
    assert "## Fits" in paths["md"].read_text() and _FITS_TEXT not in paths["md"].read_text()
