"""A store scored with non-default evaluation settings is trained, selected from, retrained and served
with those settings, read from the store, without being told again (issue 24's first "done when").

The store is prepared with the CLI on real BLLIP lists of a few WSJ documents; its counts are computed
with an unlabelled copy of COLLINS.prm and Charniak's head rules. Before the store recorded the
settings of its counts, ``train --heldout`` and ``select --ranker oracle`` looked for counts under
the default settings and refused ("no per-candidate counts"), and the web page showed no metric.
"""
import json
from pathlib import Path

import numpy as np
import pytest
from nbest_slices import cut_lists

from ranker.cli.main import main
from ranker.store import Store

ROOT = Path(__file__).resolve().parents[2]
DOCS = {"train": ("wsj_0001", "wsj_0002"), "heldout": ("wsj_0140", "wsj_0140"), "test": ("wsj_0170", "wsj_0170")}
RANGES = {"train": "wsj_0001-0002", "heldout": "wsj_0140", "test": "wsj_0170"}


def ranker(*argv) -> int:
    return main([str(a) for a in argv])


# quick tier under a minute (issue 47, item 5): every test reads the module's 20 s store; CI runs them
pytestmark = pytest.mark.slow

@pytest.fixture(scope="module")
def scored(tmp_path_factory, bllip_lists):
    work = tmp_path_factory.mktemp("stored-settings")
    files = []
    for split in DOCS:
        cut_lists(bllip_lists, split, DOCS[split], work / f"{split}.nbest")
        files.append(work / f"{split}.nbest")
    prm = work / "unlabelled.prm"
    prm.write_text((ROOT / "configs" / "evalb" / "COLLINS.prm").read_text().replace("LABELED 1", "LABELED 0"))
    store = work / "store.sqlite"
    assert ranker("import", "--store", store, "--format", "bllip", "--source", "bllip", "--corpus", "treebank", *files) == 0
    assert ranker("annotate", "--store", store, "--kind", "riezler") == 0
    for split in ("heldout", "test"):
        assert ranker("counts", "--store", store, "--split", RANGES[split], "--workers", 1, "--no-progress",
                      "--evalb-param", prm, "--head-rules", "charniak") == 0
    return work, store, prm


def last_run(store: Path, command: str):
    with Store.open(store, readonly=True) as st:
        return [r for r in st.runs() if r.command == command][-1]


def test_the_store_records_the_counts_settings(scored):
    _, store, prm = scored
    with Store.open(store, readonly=True) as st:
        (sc,) = st.scorings("bllip")
    assert sc.settings == {"evalb_param": str(prm), "head_rules": "charniak", "flatten_rules": "ptb"}
    run = last_run(store, "counts")
    assert run.outcome == "ok" and run.settings["head_rules"] == "charniak" and run.ended


def test_train_select_and_retrain_read_the_stored_settings(scored, capsys):
    work, store, prm = scored
    assert ranker("train", "--store", store, "--split", RANGES["train"], "--heldout", RANGES["heldout"],
                  "--sigma2-grid", 0.1, 1, "--workers", 1, "--no-progress", "--out", work / "m.json") == 0
    run = last_run(store, "train")
    assert run.settings["evaluation"]["evalb_param"] == str(prm)
    assert run.settings["evaluation"]["head_rules"] == "charniak"
    # every fit of the grid is a stored model, one chosen on held-out, each recording this run
    with Store.open(store, readonly=True) as st:
        records = [r for r in st.model_records() if r.run == run.id]
    assert sorted(r.settings["sigma2"] for r in records) == [0.1, 1.0]
    assert [r.ranker for r in records] == ["loglinear/1", "loglinear/1"]
    assert sum("heldout evalb_unlabeled" in r.chosen for r in records) == 1

    out = work / "oracle.mrg"
    assert ranker("select", "--store", store, "--split", RANGES["test"], "--ranker", "oracle",
                  "--metric", "evalb_labeled", "--out", out) == 0
    # (the oracle changes nothing in the store, so no run is recorded for it)
    # the oracle read the counts of the unlabelled parameter file: it equals the stage's choice with them
    from ranker.evaluation.bounds import METRICS, oracle_choice
    from ranker.pipeline import stages
    from ranker.pipeline.splits import select_split
    with Store.open(store, readonly=True) as st:
        ev = stages.stored_evaluation(st, "bllip")
        sel = select_split(st, "treebank", RANGES["test"], 0)
        fc = stages.load_counts(stages.StageContext(st, "bllip"), ev, sel, ["evalb_labeled"])["evalb_labeled"]
        choice = oracle_choice(fc, METRICS["evalb_labeled"].score)
        texts = {s.id: st.candidate_texts(s.id, "bllip") for s in sel.sentences}
    expected = [texts[s.id][c] for s, c in zip(sel.sentences, choice.tolist())]
    assert out.read_text().splitlines() == expected

    key = next(r.key for r in records if r.chosen)
    assert ranker("models", "retrain", "--store", store, key[:10], "--kind", "riezler") == 0
    run = last_run(store, "models retrain")
    assert run.settings["evaluation"]["head_rules"] == "charniak"
    with Store.open(store, readonly=True) as st:
        child = [r for r in st.model_records() if r.parent == key]
    assert len(child) == 1 and child[0].run == run.id


def test_an_option_contradicting_the_stored_settings_is_a_one_line_error(scored, capsys):
    work, store, _ = scored
    before = len(Store.open(store, readonly=True).runs())
    assert ranker("select", "--store", store, "--split", RANGES["test"], "--ranker", "oracle",
                  "--evalb-param", "COLLINS", "--out", work / "x.mrg") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ranker: error:") and "\n" not in err
    assert "were computed with" in err and "unlabelled.prm" in err
    assert len(Store.open(store, readonly=True).runs()) == before   # refused before writing: no run


def test_the_web_page_shows_the_metrics_of_the_stored_settings(scored):
    from ranker.serve.app import create_app   # Flask comes with the test extra

    _, store, prm = scored
    app = create_app(str(store), read_only=True)
    served = app.extensions["ranker"]
    assert served.evaluation.evalb_param == str(prm) and served.evaluation.head_rules == "charniak"
    with Store.open(store, readonly=True) as st:
        sid = next(s.id for s in st.sentences("treebank") if s.document == "wsj_0170.mrg"
                   and st.candidate_texts(s.id, "bllip"))
    data = served.forest_data(sid)
    assert {"evalb_labeled", "mph", "deps_untyped"} <= set(data.metrics)
    # labelled EVALB under the unlabelled .prm is the unlabelled score
    assert np.array_equal(data.metrics["evalb_labeled"], data.metrics["evalb_unlabeled"])
    page = app.test_client().get(f"/sentence?id={sid}")
    assert page.status_code == 200 and b"evalb_labeled" in page.data


def test_store_stats_lists_the_runs(scored, capsys):
    _, store, _ = scored
    assert ranker("store", "stats", store, "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["command"] for r in doc["runs"]][:3] == ["import", "annotate", "counts"]
    assert all(r["version"].startswith("0.") for r in doc["runs"])


def test_every_fit_is_kept_and_export_names_the_candidates(scored, capsys):
    """A second ranker train kept only its chosen fit and export failed without naming the choices."""
    work, store, _ = scored
    for grid in (("0.1", "1"), ("0.01",)):
        assert ranker("train", "--store", store, "--split", RANGES["train"], "--heldout", RANGES["heldout"],
                      "--sigma2-grid", *grid, "--workers", 1, "--no-progress", "--out", work / "m2.json") == 0
    with Store.open(store, readonly=True) as st:
        chosen = [r.key for r in st.model_records() if "heldout" in r.chosen]
        assert len({r.settings["sigma2"] for r in st.model_records()}) >= 3   # every sigma^2 fitted is kept
    assert len(chosen) >= 2
    capsys.readouterr()
    assert ranker("models", "export", "--store", store, "--out", work / "x.json") == 2
    err = capsys.readouterr().err
    assert err.startswith("ranker: error:") and err.count("\n") == 1   # one line
    assert "were chosen on held-out; name one by its key" in err
    assert all(k in err for k in chosen)
    assert ranker("models", "export", "--store", store, chosen[0][:12], "--out", work / "x.json") == 0
