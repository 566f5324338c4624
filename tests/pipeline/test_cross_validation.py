"""The cross-validation's summary and its bad-fold message (experiments/cross-validation/run.py; the
folds themselves: tests/pipeline/test_folds.py)."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ranker.errors import RankerError

RUN = Path(__file__).resolve().parents[2] / "experiments" / "cross-validation" / "run.py"


def _cv():
    spec = importlib.util.spec_from_file_location("cross_validation_run", RUN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _fold(k, mph_er, mph_phi, sigma2):
    cv = _cv()
    row = {r: mph_er - i for i, r in enumerate(cv.RANKERS)} | {f"{r}_phi": mph_phi for r in cv.RANKERS}
    return {"fold": k, "counts": {"training_kept": 1200 + k},
            "fit": {"sigma2": sigma2, "optimizer": "cg", "iterations": 50, "converged": True},
            "mph": row, "deps_untyped": dict(row) | {"loglinear_phi": None}}


def test_summary_gives_mean_and_sd_of_error_reduction_and_phi_and_a_row_per_fold(tmp_path):
    cv = _cv()
    results = [_fold(7, 60.0, 40.0, 0.01), _fold(8, 64.0, 50.0, 0.1)]
    cv.write_summary(results, tmp_path, 10)
    doc = json.loads((tmp_path / "summary.json").read_text())
    mph = doc["summary"]["mph"]["loglinear"]
    assert mph["mean_error_reduction"] == pytest.approx(59.0)   # loglinear is 3 below the fold's mph_er
    assert mph["stdev"] == pytest.approx(2.8284271)
    assert (mph["mean_phi"], mph["folds"]) == (45.0, 2)
    assert doc["summary"]["deps_untyped"]["loglinear"]["mean_phi"] is None
    assert [f["fold"] for f in doc["folds"]] == [7, 8]
    md = (tmp_path / "summary.md").read_text()
    assert "over 2 of 10 folds (folds 7, 8)" in md
    assert "| mph | 62.0 ± 2.8 | 61.0 ± 2.8 | 60.0 ± 2.8 | 59.0 ± 2.8 |" in md
    assert "| mph | 45.0 ± 7.1 | 45.0 ± 7.1 | 45.0 ± 7.1 |" in md
    assert "| deps_untyped | 45.0 ± 7.1 | 45.0 ± 7.1 | n/a |" in md
    assert "| 8 | 61.0 | 50.0 | 61.0 | n/a | 64.0 | 0.1 | 1208 |" in md
    assert "nan" not in md.lower()


@pytest.mark.slow
def test_a_bad_fold_is_a_one_line_error_with_exit_2(tmp_path):
    out = subprocess.run([sys.executable, str(RUN), "--only", "4,12", "--out", str(tmp_path)],
                         capture_output=True, text=True, cwd=RUN.parents[2], timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip() == "cross-validation: error: --only: fold '12' is not a number from 0 to 9"
    assert not list(tmp_path.iterdir())


def test_folds_done_before_are_not_run_again_and_the_summary_covers_every_fold_done(tmp_path, capsys):
    cv = _cv()
    for k, er in ((3, 60.0), (1, 64.0), (5, 62.0)):
        (tmp_path / f"fold{k}").mkdir()
        (tmp_path / f"fold{k}" / cv.RECORD).write_text(json.dumps(_fold(k, er, 40.0, 0.01)))
    # folds 3 and 1 asked for and done: nothing runs (no store is opened), and fold 5, done by
    # another process, is in the summary too, in fold order
    assert cv.main(["--only", "3,1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "fold 3: done before" in out and "fold 1: done before" in out
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert [f["fold"] for f in doc["folds"]] == [1, 3, 5]
    assert doc["summary"]["mph"]["loglinear"]["mean_error_reduction"] == pytest.approx(59.0)
    assert "over 3 of 10 folds (folds 1, 3, 5)" in (tmp_path / "summary.md").read_text()
