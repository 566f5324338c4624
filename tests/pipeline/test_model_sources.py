"""A recorded run's candidate and evidence sources, read back as the store names them."""
import dataclasses
import json

from ranker.pipeline.config import config_from_dict
from ranker.pipeline.retrain import run_sources
from ranker.store.records import RunRecord


def _recorded(cfg) -> dict:
    """A config as a run's record keeps it (JSON)."""
    return json.loads(json.dumps(cfg.to_dict()))


def _run(id_, command, settings):
    return RunRecord(id_, command, settings, "test", "2026-11-26T04:00:00Z", "2026-11-26T04:01:00Z", "ok")


def test_a_run_names_its_sources_without_looking_for_its_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                       # none of the files below exists here
    cfg = config_from_dict({"parse": {"source": "link-grammar"},
                            "evidence": {"source": "bllip", "train_forests": "gone/a.nbest",
                                         "heldout_forests": "gone/b.nbest", "test_forests": "gone/b.nbest"}},
                           "c.toml")
    run = _run(1, "run", {"config": _recorded(cfg), "out": "x"})
    assert run_sources(run) == ("link-grammar", "bllip:a.nbest+b.nbest")
    plain = dataclasses.replace(cfg, evidence=dataclasses.replace(cfg.evidence, source="", train_forests="",
                                                                   heldout_forests="", test_forests=""))
    assert run_sources(_run(2, "run", {"config": _recorded(plain)})) == ("link-grammar", None)


def test_train_records_and_unreadable_records():
    assert run_sources(_run(3, "train", {"source": "bllip:x", "evidence": "link-grammar"})) == \
        ("bllip:x", "link-grammar")
    assert run_sources(_run(4, "train", {"source": None})) == (None, None)
    assert run_sources(_run(5, "run", {"config": {"schema_version": 999}})) == (None, None)
    assert run_sources(_run(6, "import", {})) == (None, None)
