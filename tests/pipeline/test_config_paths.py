"""A config's relative paths are read from its own folder (issue 34: run from any folder).

``ranker run /somewhere/configs/gum.toml`` from another folder read ``../shared/gum`` against the
working directory and failed; a config now names its data relative to itself, and the store and
``runs/NAME`` stay where ranker runs.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ranker.pipeline.config import load_config, resolve_path
from ranker.pipeline.validate import validate_config

REPO = Path(__file__).resolve().parents[2]

TREES = "(ROOT (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)))\n"


def _project(tmp_path: Path) -> Path:
    """A user's project: ``data/`` with two tree files and a split list, ``conf/exp.toml`` naming them."""
    (tmp_path / "data" / "trees").mkdir(parents=True)
    for name in ("a", "b"):
        (tmp_path / "data" / "trees" / f"{name}.ptb").write_text(TREES)
    (tmp_path / "data" / "train.txt").write_text("a\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "heads.txt").write_bytes((REPO / "configs" / "heads" / "collins.txt").read_bytes())
    cfg = tmp_path / "conf" / "exp.toml"
    cfg.write_text('[experiment]\nstore = "runs/s.sqlite"\n'
                   '[data]\ncorpus = "penn"\npath = "../data/trees"\nname = "mine"\n'
                   'train = "@../data/train.txt"\nheldout = "b"\ntest = "b"\n'
                   '[evaluation]\nhead_rules = "./heads.txt"\nflatten_rules = "ptb"\n')
    return cfg


@pytest.mark.parametrize("where", ["project", "elsewhere", "config folder"])
def test_a_config_reads_its_paths_from_its_own_folder_wherever_ranker_runs(tmp_path, monkeypatch, where):
    cfg_file = _project(tmp_path)
    cwd = {"project": tmp_path, "config folder": tmp_path / "conf", "elsewhere": tmp_path / "other"}[where]
    cwd.mkdir(exist_ok=True)
    monkeypatch.chdir(cwd)
    cfg = load_config(os.path.relpath(cfg_file, cwd))
    assert cfg.data.path == str(tmp_path / "data" / "trees")
    assert cfg.data.train == "@" + str(tmp_path / "data" / "train.txt")
    assert cfg.data.heldout == cfg.data.test == "b"                   # no @FILE: a document name
    assert cfg.evaluation.head_rules == str(tmp_path / "conf" / "heads.txt")
    assert cfg.evaluation.flatten_rules == "ptb"                      # a shipped table's name
    assert cfg.experiment.store == "runs/s.sqlite"                    # an output: where ranker runs
    validate_config(cfg)                                              # every named file is found


def test_the_resolved_config_reads_the_same_files_from_the_run_folder(tmp_path, monkeypatch):
    cfg = load_config(_project(tmp_path))
    out = tmp_path / "elsewhere" / "runs" / "exp"
    out.mkdir(parents=True)
    (out / "config.resolved.toml").write_text(cfg.to_toml())
    monkeypatch.chdir(tmp_path / "elsewhere")
    again = load_config(out / "config.resolved.toml")
    assert again.data == cfg.data and again.evaluation == cfg.evaluation


def test_a_missing_file_is_named_where_the_config_put_it(tmp_path, monkeypatch):
    cfg_file = _project(tmp_path)
    (tmp_path / "data" / "train.txt").unlink()
    (tmp_path / "data" / "data").mkdir()        # ../data/train.txt read from the working directory
    (tmp_path / "data" / "data" / "train.txt").write_text("a\n")   # would be this one: not read
    (tmp_path / "data" / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "data" / "sub")
    with pytest.raises(Exception, match=str(tmp_path / "data" / "train.txt") + ": no such split list"):
        validate_config(load_config(cfg_file))


@pytest.mark.parametrize("value, kind, want", [
    ("", "file", ""), ("/abs/f.txt", "file", "/abs/f.txt"), ("f.txt", "file", "/base/f.txt"),
    ("../x", "file", "/x"), ("train", "split", "train"), ("GUM_*", "split", "GUM_*"),
    ("@l.txt", "split", "@/base/l.txt"), ("@/abs/l.txt", "split", "@/abs/l.txt"),
    ("collins", "table", "collins"), ("t/heads.txt", "table", "/base/t/heads.txt"),
])
def test_resolve_path(value, kind, want):
    assert resolve_path(value, kind, "/base") == want


def test_the_shipped_configs_run_from_another_folder(tmp_path, monkeypatch):
    """The shipped configs name ../../shared: the folder beside the project, from any folder."""
    monkeypatch.chdir(tmp_path)
    shared = os.path.normpath(REPO / ".." / "shared")
    cfg = load_config(REPO / "configs" / "gum.toml")
    assert cfg.data.path == os.path.join(shared, "gum", "const")
    assert cfg.data.test == "@" + os.path.join(shared, "gum", "splits", "test.txt")
    two = load_config(REPO / "configs" / "gum-wsj.toml").data   # and a treebank beside it
    assert two.path == cfg.data.path and [c.corpus for c in two.corpora()] == ["penn", "treebank"]
    lists = os.path.join(shared, "nbest", "bllip-wsj-sample", "nbest-test.txt.gz")
    for name, section in (("wsj-sample-bllip.toml", "parse"), ("wsj-sample-lg-bllip.toml", "evidence"),
                          ("wsj-sample-bllip-lg.toml", "parse")):
        assert getattr(load_config(REPO / "configs" / name), section).test_forests == lists, name
