"""``ranker annotate --kind best_f`` and ``ranker train --kind best_f`` on a slice of the real BLLIP lists.

Regression: ``ranker train --kind best_f`` used to stop with "annotation 'best_f' needs its metric
and scoring settings", and ``ranker annotate`` had no ``best_f`` kind, so full annotation was
reachable only through ``ranker run``.
"""
import os
import shutil
from pathlib import Path

import pytest
from ranker.features import load_feature_set
from nbest_slices import cut_lists

from ranker.cli.main import main
from ranker.models import load_model
from ranker.pipeline import stages
from ranker.pipeline.best_f import best_f_key
from ranker.pipeline.config import AnnotationSection, EvaluationSection
from ranker.pipeline.feature_cache import cached_matrix
from ranker.pipeline.splits import select_split
from ranker.store import Store

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ["NLTK_DATA"]).parent if "NLTK_DATA" in os.environ else ROOT.parent / "shared"
NBEST = Path(os.environ.get("RANKER_NBEST", SHARED / "nbest" / "bllip-wsj-sample"))
SPLIT = "wsj_0001-0003"


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """A store holding the BLLIP 50-best lists of wsj_0001-0003 (their train-split lists)."""
    work = tmp_path_factory.mktemp("bestf")
    lists = work / "train.nbest"
    assert cut_lists(NBEST, "train", ("wsj_0001", "wsj_0003"), lists) > 0
    store = work / "s.sqlite"
    assert main(["import", "--store", str(store), "--format", "bllip", "--source", "bllip", "--corpus", "treebank", str(lists)]) == 0
    return store


def _counts(store, metric):
    settings = stages.scoring_settings(EvaluationSection())
    with Store.open(store) as st:
        return st.bracket_counts(best_f_key(metric, settings), None, None, source="bllip")


def test_annotate_best_f_stores_what_the_stage_stores(imported, tmp_path, capsys):
    by_cli, by_stage = tmp_path / "cli.sqlite", tmp_path / "stage.sqlite"
    shutil.copy(imported, by_cli)
    shutil.copy(imported, by_stage)
    assert main(["annotate", "--store", str(by_cli), "--kind", "best_f", "--best-f-metric", "parseval",
                 "--workers", "1"]) == 0
    assert "best_f: counts under parseval" in capsys.readouterr().out
    with Store.open(by_stage) as st:
        stages.annotate(stages.StageContext(st, "bllip", 1), AnnotationSection(kind="best_f", best_f_metric="parseval"),
                        st.sentences("treebank"), evaluation=EvaluationSection())
    got = _counts(by_cli, "parseval")
    assert got and got == _counts(by_stage, "parseval")
    assert not _counts(by_cli, "evalb_labeled")          # only the metric asked for is scored


def test_train_best_f_fits_on_the_sentences_whose_best_set_is_proper(imported, tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    shutil.copy(imported, store)
    out = tmp_path / "m.json"
    assert main(["train", "--store", str(store), "--split", SPLIT, "--kind", "best_f", "--heldout", "",
                 "--sigma2", "0.1", "--max-iter", "20", "--workers", "1", "--no-progress",
                 "--out", str(out)]) == 0
    assert "trained on" in capsys.readouterr().out
    model = load_model(out)
    assert _counts(store, "evalb_labeled")              # train scored the counts it needed
    # the sentences it trained on: those whose top-F candidates are a proper, non-empty subset
    with Store.open(store) as st:
        sel = select_split(st, "treebank", SPLIT, 0)
        settings = stages.scoring_settings(EvaluationSection())
        m = cached_matrix(st, load_feature_set("default"), sel, "bllip", 1, None)
        w = stages.consistency(stages.StageContext(st, "bllip", 1), m, "best_f", sel, "strict", ("evalb_labeled", settings))
    proper = sum(0 < (w[a:b] > 0).sum() < b - a for a, b in zip(m.offsets[:-1], m.offsets[1:]))
    assert proper > 0 and model.ranker.n_training_sentences_ == proper


def test_train_best_f_with_an_unknown_metric_is_a_one_line_error(imported, tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    shutil.copy(imported, store)
    assert main(["train", "--store", str(store), "--split", SPLIT, "--kind", "best_f", "--best-f-metric",
                 "nonsense", "--heldout", "", "--sigma2", "0.1", "--out", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--best-f-metric 'nonsense' is not known" in err[0]
