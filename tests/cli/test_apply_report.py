"""``ranker apply --report DIR``: input without gold reported without scores (issue 34, item 3).

Text a user brings has no gold trees, so a report of it says so and gives what can be known: the
sentences read and skipped, the forests' sizes and qualities, the trees written, the costs. And
every ranker selects on such sentences (``ranker select --corpus text``), not only the model.
"""
from __future__ import annotations

import json

import pytest
from test_apply import _ok, _one_error, _ranker

pytestmark = pytest.mark.slow


def _lines(path):
    return path.read_text().split("\n")[:-1]


@pytest.mark.linkgrammar
def test_a_report_of_text_counts_its_forests_and_costs_and_scores_nothing(bllip, tmp_path):
    work, _, _ = bllip
    (tmp_path / "my.txt").write_text("The cat sat on the mat .\n\nDogs bark at night .\n"
                                     "Colorless green ideas sleep furiously .\n")
    got = _ok(_ranker("apply", "--model", work / "model.json", "--text", tmp_path / "my.txt", "--store",
                      tmp_path / "my.sqlite", "--out", tmp_path / "best.mrg", "--report", tmp_path / "rep",
                      "--no-progress"))
    assert f"wrote the report to {tmp_path / 'rep' / 'report.md'}" in got.stderr
    doc = json.loads((tmp_path / "rep" / "report.json").read_text())
    best = _lines(tmp_path / "best.mrg")
    c = doc["counts"]
    assert doc["metrics"] == {} and not doc["by_quality"]
    assert c["sentences"] == {"input": 4} and c["skipped"] == 1
    assert c["trees_written"] == sum(1 for t in best if t) == 3
    stats = json.loads(_ok(_ranker("store", "stats", tmp_path / "my.sqlite", "--format", "json")).stdout)
    assert c["forests"]["input"]["candidates"] == stats["candidates"] > 3
    assert sum(c["forests"]["input"]["qualities"].values()) == 3
    assert set(doc["timings"]) == {"parse", "features", "select", "write"}
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "no gold trees, so nothing here is scored" in md
    assert "| input sentences | 4 |" in md and "| input sentences skipped (unreadable, empty or too long) | 1 |" in md
    assert "| trees written | 3 |" in md and "| input sentences whose forest is full |" in md
    assert "upper bound" not in md and "error red." not in md and "Scores are percentages" not in md
    # issue 45: the input's parse statuses by length (its three sentences parsed, the skipped line not)
    assert sum(n for row in c["parse_statuses"].values() for n in row.values()) == 3
    assert "## Parse statuses by sentence length" in md
    assert (tmp_path / "rep" / "report.html").read_text().count("<table>") == 3   # statuses, counts, timings

    # every ranker selects on the stored text (corpus "text", the name text is stored under)
    for r in ("heidorn", "native", "random", "loglinear"):
        model = ("--model", work / "model.json") if r == "loglinear" else ()
        _ok(_ranker("select", "--store", tmp_path / "my.sqlite", "--corpus", "text", "--split", "*",
                    "--ranker", r, *model, "--out", tmp_path / f"{r}.mrg"))
        assert len(_lines(tmp_path / f"{r}.mrg")) == 3
    assert _lines(tmp_path / "loglinear.mrg") == [t for t in best if t]


def test_a_report_of_lists_kept_in_a_store_counts_every_list(bllip, tmp_path):
    work, _, files = bllip
    _ok(_ranker("apply", "--model", work / "model.json", "--lists", files["test"], "--store", tmp_path / "l.sqlite",
                "--out", tmp_path / "best.mrg", "--report", tmp_path / "rep", "--no-progress"))
    doc = json.loads((tmp_path / "rep" / "report.json").read_text())
    c, best = doc["counts"], _lines(tmp_path / "best.mrg")
    stats = json.loads(_ok(_ranker("store", "stats", tmp_path / "l.sqlite", "--format", "json")).stdout)
    assert c["sentences"]["input"] == len(best) == stats["sentences"] + c["skipped"]
    f = c["forests"]["input"]
    assert c["trees_written"] == sum(1 for t in best if t) and f["candidates"] == stats["candidates"]
    assert f["median"] > 1
    assert set(doc["timings"]) == {"import", "features", "select", "write"}


def test_a_report_needs_a_store_and_a_folder(bllip, tmp_path):
    work, _, files = bllip
    _one_error(_ranker("apply", "--model", work / "model.json", "--lists", files["test"], "--out",
                       tmp_path / "o.mrg", "--report", tmp_path / "rep"), "--report", "--store")
    (tmp_path / "afile").write_text("x\n")
    _one_error(_ranker("apply", "--model", work / "model.json", "--lists", files["test"], "--store",
                       tmp_path / "s.sqlite", "--out", tmp_path / "o.mrg", "--report", tmp_path / "afile"),
               "afile", "not a folder")
    assert not (tmp_path / "o.mrg").exists() and not (tmp_path / "s.sqlite").exists()
