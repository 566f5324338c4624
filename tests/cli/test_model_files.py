"""Issue 10: a model file of the wrong kind, not UTF-8, not JSON or holding NaN is one line naming it."""
import json

import pytest

from ranker.cli.main import main
from ranker.models import LogLinearRanker, ModelFileError, load_model, save_model
from ranker.store import Candidate, Sentence, Store
from ranker.trees.penn import parse_tree


def build_store(path):
    """One test-split sentence with two candidates."""
    trees = [parse_tree(t) for t in ("(S (NP (NN dogs)) (VP (VBP bark)))", "(S (NN dogs) (VBP bark))")]
    with Store.open(path) as st:
        st.add_sentences([Sentence("treebank/wsj_0170.mrg/0", "treebank", "wsj_0170.mrg", 0, ("dogs", "bark"),
                                   ("NN", "VBP"))])
        st.add_candidates([Candidate("treebank/wsj_0170.mrg/0", "test", r, t, "full", {})
                           for r, t in enumerate(trees)])


@pytest.fixture
def loglinear_model(tmp_path):
    """A real fitted log-linear model (two features) saved as the trainer saves it."""
    import numpy as np
    import scipy.sparse as sp

    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]))
    y = np.array([1.0, 0.0, 0.0, 1.0])
    groups = np.array([0, 0, 1, 1])
    ranker = LogLinearRanker(sigma2=1.0).fit(X, y, groups)
    path = tmp_path / "model.json"
    save_model(path, ranker, ["a", "b"], {"name": "tiny"})
    return path


def test_select_heidorn_with_a_loglinear_model_is_a_short_error(tmp_path, loglinear_model, capsys):
    store = tmp_path / "s.sqlite"
    build_store(store)
    assert main(["select", "--store", str(store), "--ranker", "heidorn", "--model", str(loglinear_model),
                 "--out", str(tmp_path / "x.mrg")]) == 2
    err = capsys.readouterr().err
    assert err == f"ranker: error: {loglinear_model}: a loglinear model, not a heidorn model\n"
    assert not (tmp_path / "x.mrg").exists()


@pytest.mark.parametrize("damage, message", [
    (lambda b: b"\xff\xfe" + b, "model.json:1:1: not UTF-8 text (byte 0xff"),
    # cut short between two keys (half the file may end inside a string, whose message differs)
    (lambda b: b[: b.index(b'"coef_"')], "not a model file (Expecting"),
    (lambda b: b.replace(b'"coef_": [\n', b'"coef_": [\n  NaN,\n', 1), "NaN is not a number a model may hold"),
    (lambda b: json.dumps({**json.loads(b), "state": {"coef_": "x"}}).encode(), "bad loglinear model"),
    # issue 36, item 8: a state without its weights named the key, not Python's KeyError
    (lambda b: json.dumps({**json.loads(b), "state": {}}).encode(), "its state has no 'coef_'"),
    (lambda b: b.replace(b'"names": [', b'"names": [1, ', 1), "features.names must be a list of strings"),
    (lambda b: b.replace(b'"ranker": "loglinear/1"', b'"ranker": ["loglinear"]', 1), "unknown ranker"),
    (lambda b: b.replace(b'"ranker": "loglinear/1"', b'"ranker": "loglinear/2"', 1), "unknown ranker 'loglinear/2'"),
])
def test_a_damaged_model_file_is_one_error_naming_it(loglinear_model, damage, message):
    loglinear_model.write_bytes(damage(loglinear_model.read_bytes()))
    with pytest.raises(ModelFileError, match=r"model\.json") as e:
        load_model(loglinear_model)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_loglinear_model_is_loaded_as_saved(loglinear_model):
    saved = load_model(loglinear_model, ["a", "b"], kind="loglinear")
    assert saved.feature_names == ("a", "b") and saved.feature_config == {"name": "tiny"}
    assert json.loads(loglinear_model.read_text())["ranker"] == "loglinear/1"    # its versioned registry name


@pytest.mark.parametrize("old, cls", [("loglinear", "LogLinearRanker"), ("heidorn", "HeidornRanker")])
def test_a_model_file_from_before_the_versions_is_read_as_version_1(tmp_path, loglinear_model, old, cls):
    # issue 24: files said "ranker": "loglinear", no version; they still load, as the first version
    from ranker.models import HeidornRanker, save_model

    path = loglinear_model
    if old == "heidorn":
        path = tmp_path / "heidorn.json"
        save_model(path, HeidornRanker().fit())
    doc = json.loads(path.read_text())
    assert doc["ranker"] == f"{old}/1"
    doc["ranker"] = old
    path.write_text(json.dumps(doc))
    saved = load_model(path, kind=old)
    assert type(saved.ranker).__name__ == cls
    # written again, it says the version
    save_model(path, saved.ranker, saved.feature_names, saved.feature_config)
    assert json.loads(path.read_text())["ranker"] == f"{old}/1"


@pytest.mark.slow
def test_saving_over_a_model_on_a_full_disk_keeps_the_old_file(tmp_path, loglinear_model):
    """A real process whose file size limit (SIGXFSZ ignored) fails the write half-way, as a full disk does."""
    import os
    import subprocess
    import sys

    before = loglinear_model.read_bytes()
    script = ("import resource, signal\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))\n"
              "from ranker.models import load_model, save_model\n"
              f"m = load_model({str(loglinear_model)!r})\n"
              f"save_model({str(loglinear_model)!r}, m.ranker, m.feature_names, m.feature_config)\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 1 and "RankerError" in r.stderr
    assert f"{loglinear_model}: cannot write (File too large); the file was left as it was" in r.stderr
    assert loglinear_model.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]
