"""The annotation-economy experiment's verdicts on its targets and its bad input (experiments/annotation-economy/run.py)."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from ranker.errors import RankerError

RUN = Path(__file__).resolve().parents[2] / "experiments" / "annotation-economy" / "run.py"


def _economy():
    spec = importlib.util.spec_from_file_location("annotation_economy_run", RUN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _point(strategy, decisions, er, ci=None, fraction=10.0):
    ci = ci or [er - 5, er + 5]
    return {"strategy": strategy, "fraction": fraction, "decisions": decisions, "sentences": 1,
            "test": {"mph": {"error_reduction": er, "er_ci95": ci}}}


def _refs():
    return [_point("best_f", 0, 60.0, [55.0, 65.0], 100.0),
            _point("riezler", 0, 40.0, [35.0, 45.0], 100.0)]


def test_a_target_is_met_only_within_its_budget_and_its_interval():
    econ = _economy()
    lines = econ.targets(_refs() + [_point("c", 200, 56.0), _point("b", 50, 36.0)], 1000, 3000)
    best_f, riezler = lines[1], lines[2]
    assert "MET by (c) at 200 decisions (20.0%)" in best_f
    assert "MET by (b) at 50 decisions (5.0%)" in riezler


def test_a_missed_target_says_by_how_much_and_where_it_is_reached():
    econ = _economy()
    lines = econ.targets(_refs() + [_point("c", 201, 56.0), _point("a", 150, 52.0), _point("b", 51, 36.0),
                                    _point("a", 40, 30.0)], 1000, 3000)
    assert "MISSED" in lines[1] and "52.0% ((a) at 150 decisions), 3.0 points below" in lines[1]
    assert "first reached by (c) at 201 decisions (20.1% of (a)'s)" in lines[1]
    assert "MISSED" in lines[2] and "30.0% ((a) at 40 decisions), 5.0 points below" in lines[2]


def test_targets_wait_for_the_whole_split_and_the_references():
    econ = _economy()
    assert "not evaluated yet" in econ.targets([_point("a", 100, 50.0)], None, 3000)[0]
    assert "not evaluated yet" in econ.targets(_refs()[:1], 1000, 3000)[0]
    assert "(a) needs 1000 decisions for the whole training split (3000 sentences)" in econ.targets(_refs(), 1000, 3000)[0]


@pytest.mark.parametrize("text", ["0,5", "5,101", "a,b", ""])
def test_bad_fractions_are_refused(text):
    with pytest.raises(RankerError, match="--fractions"):
        _economy().parse_fractions(text)


def test_a_missing_store_is_a_one_line_error(tmp_path):
    r = subprocess.run([sys.executable, str(RUN), "--store", str(tmp_path / "none.sqlite"), "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, cwd=RUN.parents[2])
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "none.sqlite: no such store" in r.stderr
