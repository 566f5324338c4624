"""``ranker run`` with a second parser's evidence, on a handful of WSJ sentences, real parsers and lists.

The tiny Link Grammar job (tests/pipeline/configs/tiny.toml) with ``[evidence] source = "bllip"``
(slices of the real BLLIP lists of the first documents of each split): the lists are imported
beside the linkages, the evidence families fire, and ``ranker train``/``select`` read the same
evidence with ``--evidence``.
"""
import dataclasses

import pytest
from frozen_heap import frozen_heap
from nbest_slices import cut_lists

from ranker.cli.main import main
from ranker.pipeline import stages
from ranker.pipeline.config import EvidenceSection, FeaturesSection, load_config
from ranker.pipeline.experiment import run_experiment
from ranker.pipeline.splits import select_split
from ranker.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.linkgrammar]

DOCS = {"train": ("wsj_0001", "wsj_0003"), "heldout": ("wsj_0140", "wsj_0142"),
        "test": ("wsj_0170", "wsj_0172")}


@pytest.fixture(scope="module")
def evidence_run(tmp_path_factory, bllip_lists, tiny_parsed):
    """The tiny job with BLLIP evidence on a copy of ``tiny_parsed`` (conftest.py: its sentences
    parsed with its [parse] options, so the run parses none; it imports the lists)."""
    import shutil

    base = tmp_path_factory.mktemp("ev")
    shutil.copy(tiny_parsed, base / "store.sqlite")
    files = {}
    for split, docs in DOCS.items():
        files[split] = base / f"{split}.nbest"
        assert cut_lists(bllip_lists, split, docs, files[split]) > 0
    cfg = load_config("tests/pipeline/configs/tiny.toml")
    # Of the tiny job, what these tests read (the evidence, the features, the chosen model), without
    # what none of them reads: plots, a learning curve's second point, thousands of resamples; in one
    # process (pools of two beside pytest-xdist's two workers on two cores made the features slower)
    cfg = dataclasses.replace(
        cfg, experiment=dataclasses.replace(cfg.experiment, store=str(base / "store.sqlite"), workers=1),
        evidence=EvidenceSection(source="bllip", train_forests=str(files["train"]),
                                 heldout_forests=str(files["heldout"]), test_forests=str(files["test"])),
        features=FeaturesSection(set="default-bllip"),
        evaluation=dataclasses.replace(cfg.evaluation, bootstrap_resamples=20, randomization_resamples=20),
        report=dataclasses.replace(cfg.report, plots=False, learning_curve=(1.0,)))
    with frozen_heap():
        report = run_experiment(cfg, base / "out", progress=False)
    assert report.counts.source.parsed_now == 0   # the shared store's forests
    return cfg, base, report


def test_the_evidence_source_is_imported_beside_the_candidates(evidence_run):
    cfg, base, report = evidence_run
    assert report.counts.evidence.imported_forests > 0
    with Store.open(cfg.experiment.store) as st:
        sources = stages.stored_sources(st)
        assert "link-grammar" in sources and any(s.startswith("bllip:") for s in sources)
    assert '[evidence]\nsource = "bllip"' in (base / "out" / "config.resolved.toml").read_text()


def test_the_evidence_families_fire_on_the_linkages(evidence_run):
    cfg, _, _ = evidence_run
    with Store.open(cfg.experiment.store) as st:
        ev = stages.candidate_source(stages.evidence_parse(cfg.parse, cfg.evidence))
        ctx = stages.StageContext(st, "link-grammar", 1, evidence=ev)
        splits = stages.select_splits(ctx, cfg.data)
        m = stages.extract_features(ctx, cfg.features, splits.test)
        assert {"evs:support", "evd:support", "evs:f"} <= set(m.names)
        with pytest.raises(Exception, match=r"\[evidence\] source"):
            stages.extract_features(ctx.with_evidence(None), cfg.features, splits.test)


def test_train_and_select_read_the_evidence_given(evidence_run, tmp_path, capsys):
    cfg, _, _ = evidence_run
    store = cfg.experiment.store
    with Store.open(store) as st:
        ev = stages.candidate_source(stages.evidence_parse(cfg.parse, cfg.evidence))
    model = tmp_path / "m.json"
    common = ["--store", store, "--source", "link-grammar", "--features", "default-bllip", "--workers", "1"]
    assert main(["train", *common, "--split", "train", "--limit", "4", "--rule", "strict",
                 "--evidence", ev, "--sigma2", "1", "--no-progress", "--out", str(model)]) == 0
    out = tmp_path / "sel.mrg"
    assert main(["select", "--store", store, "--source", "link-grammar", "--evidence", ev,
                 "--split", "test", "--limit", "4", "--ranker", "loglinear", "--model", str(model),
                 "--out", str(out), "--workers", "1"]) == 0
    with Store.open(store) as st:
        wanted = select_split(st, "treebank", "test", 4).sentences
    assert len(out.read_text().splitlines()) == len(wanted)
    capsys.readouterr()
    # without it the feature set is refused in one line, not scored as if the evidence were empty
    assert main(["select", "--store", store, "--source", "link-grammar", "--split", "test",
                 "--limit", "4", "--ranker", "loglinear", "--model", str(model),
                 "--out", str(tmp_path / "x.mrg")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ranker: error:") and "[evidence]" in err[0]


def _evidence_source(cfg):
    return stages.candidate_source(stages.evidence_parse(cfg.parse, cfg.evidence))


def test_a_stored_model_names_the_evidence_it_was_trained_on(evidence_run, tmp_path):
    """Regression: ranker serve refused a model trained on evidence families (it read no evidence)."""
    from ranker.pipeline.retrain import model_evidence, model_sources
    from ranker.serve.model import load_served_model, stored_model_keys

    cfg, _, _ = evidence_run
    ev = _evidence_source(cfg)
    with Store.open(cfg.experiment.store, readonly=True) as st:
        # the run's log-linear model, chosen on held-out (Heidorn's tuned model is chosen there
        # too, in the same second: which of the two is listed first depends on their keys)
        key = next(k for k in stored_model_keys(st) if st.model_record(k).ranker.startswith("loglinear"))
        assert model_evidence(st, key) == ev           # read back from the run's record
        served = load_served_model(st, None)
        assert served.key == key and served.evidence == ev
        assert load_served_model(st, None, source="link-grammar").key == key
        # serving the BLLIP lists, no model trained on the linkages is taken by default
        other = load_served_model(st, None, source=ev)
        assert other is None or model_sources(st, other.key)[0] in (ev, None)
        assert model_sources(st, key) == ("link-grammar", ev)
        # a model file carries no record: the source must be named
        from ranker.pipeline.cache import load_payload

        path = tmp_path / "m.json"
        path.write_bytes(st.model_file(key))
        with pytest.raises(Exception, match="--evidence"):
            load_served_model(st, str(path))
        assert load_served_model(st, str(path), ev).evidence == ev
        with pytest.raises(Exception, match="no candidates from source 'nope'"):
            load_served_model(st, str(path), "nope")
        assert load_payload(st.model_file(key)).feature_config["name"] == "default-bllip"


def test_serve_ranks_and_retrains_with_the_models_evidence(evidence_run, tmp_path):
    import numpy as np

    from ranker.pipeline.retrain import model_evidence
    from ranker.serve.app import create_app
    from ranker.serve.model import retrained_model
    from ranker.store.records import Decision
    from ranker.sources.discriminants import discriminants

    cfg, _, _ = evidence_run
    ev = _evidence_source(cfg)
    copy = tmp_path / "copy.sqlite"
    with Store.open(cfg.experiment.store, readonly=True) as st:
        st.backup(copy)
        wanted = [s.id for s in select_split(st, "treebank", "test", 4).sentences]
    app = create_app(copy, source="link-grammar")
    served = app.extensions["ranker"]
    assert served.evidence == ev
    sid = next(s for s in wanted if served.sizes.get(s, 0) > 1)
    data = served.forest_data(sid)
    assert data.forest.evidence                       # the BLLIP list of the sentence is read with it
    scores = served.model_scores(served.model, sid)
    assert len(scores) == len(data.forest.candidates) and np.isfinite(scores).all()
    page = app.test_client().get("/sentence", query_string={"id": sid})
    assert page.status_code == 200
    # a person's answer narrows the forest; retraining reads the evidence as the model did
    d = discriminants(data.spans)[0]
    with Store.open(copy) as st:
        st.add_decision(sid, Decision(d.label, d.start, d.end, True, "ann", "2026-11-26T04:00:00Z"))
        new = retrained_model(st, served.model, lambda *_: None, "link-grammar")
        assert new.evidence == ev and model_evidence(st, new.key) == ev   # through its parent
    assert np.isfinite(new.scores(data.forest)).all()
