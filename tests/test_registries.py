"""Registries by versioned name: a bare name is the newest version, an unknown one lists the known."""
import json
import sys

import pytest

from ranker.errors import RankerError
from ranker.registries import CORPORA, RANKERS, SCHEMES, SOURCES, file_sources
from ranker.registry import Registry


def test_versions_resolve_and_unknown_names_list_the_known():
    r = Registry("widget")
    r.register("spin/1", "old")
    r.register("spin/2", "new")
    assert r.get("spin") == "new" and r.get("spin/1") == "old" and "spin" in r
    with pytest.raises(RankerError, match=r"x.toml: unknown widget 'spn' \(known: spin/1, spin/2\)"):
        r.get("spn", "x.toml")
    with pytest.raises(ValueError, match="needs a version"):
        r.register("spin", "x")
    with pytest.raises(ValueError, match="registered twice"):
        r.register("spin/1", "x")


def test_components_load_on_first_use():
    r = Registry("module")
    r.register("json/1", "json:dumps")
    import json
    assert r.get("json") is json.dumps
    assert RANKERS.get("loglinear").__name__ == "LogLinearRanker"


def test_the_built_in_components():
    assert RANKERS.names(bare=True) == ["expected_f", "heidorn", "loglinear", "native", "oracle", "random"]
    assert file_sources() == ("bllip", "penn") and SOURCES.get("link-grammar") == "parser"
    assert CORPORA.get("conll2000") == "conll2000"


def test_listing_names_imports_no_ranker():
    import subprocess
    code = ("import sys; from ranker.registries import RANKERS; RANKERS.names(); "
            "print('sklearn' in sys.modules, 'ranker.models' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_every_metric_of_the_report_is_registered():
    from ranker.evaluation.bounds import METRICS as TABLE
    from ranker.registries import METRICS, metric

    assert METRICS.names(bare=True) == sorted(TABLE)
    assert metric("mph/1") is TABLE["mph"]
    with pytest.raises(RankerError, match="--metric: unknown metric 'f1'"):
        metric("f1", "--metric")


GOLD = ("(S (NP-SBJ (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP-PRD (NP (NN chairman)) (PP (IN of) (NP (NP "
        "(NNP Elsevier) (NNP N.V.)) (, ,) (NP (DT the) (NNP Dutch) (VBG publishing) (NN group)))))) (. .))")
# the same words with the PP attached to the verb and the appositive NP one level up
TEST = ("(S (NP (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP (NN chairman)) (PP (IN of) (NP (NNP Elsevier) "
        "(NNP N.V.))) (, ,) (NP (DT the) (NNP Dutch) (VBG publishing) (NN group))) (. .))")


@pytest.mark.parametrize("name", SCHEMES.names())
def test_every_registered_scheme_runs_through_ranker_evaluate(tmp_path, capsys, name):
    from ranker.cli.main import main

    assert callable(SCHEMES.get(name))
    (tmp_path / "gold.txt").write_text(GOLD + "\n")
    (tmp_path / "test.txt").write_text(TEST + "\n")
    bare = name.partition("/")[0]
    code = main(["evaluate", str(tmp_path / "gold.txt"), str(tmp_path / "test.txt"), "--scheme", bare,
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    r = json.loads(out)
    assert r["scheme"] == bare and r["sentences"] == 1 and r["no_parse"] == 0
    assert 0 < r["matched"] < r["gold_brackets"] and 0 < r["f1"] < 100   # a real, imperfect pair
