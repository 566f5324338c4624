"""Issue 43, item 4: the run's tagger stage and the models that carry its tagger, in a real store.

``train_tagger`` learns from the training split's gold tags once per content (a warm rerun reads
the same tagger back); every model the fit keeps carries it, and a model kept before models carried
taggers is given it on a warm rerun, its weights as they were.
"""
import json
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ranker.models import LogLinearRanker
from ranker.pipeline.cache import MODEL_KIND, cached_fit, load_payload
from ranker.pipeline.splits import SplitSelection
from ranker.pipeline.stages import StageContext, train_tagger
from ranker.pipeline.stages.tagger import TAGGER_KIND
from ranker.sources.penn_files import file_trees
from ranker.store import Sentence, Store

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT.parent / "shared" / "gum" / "const" / "GUM_academic_exposure.ptb"


def _selection(untagged: bool = False) -> SplitSelection:
    sentences = tuple(Sentence(f"mine/d/{i}", "mine", "d", i, tuple(t.words),
                               ("",) * len(t.words) if untagged else tuple(t.tags()))
                      for i, t in enumerate(file_trees(DOC)))
    return SplitSelection("train", "mine", None, None, sentences)


def _fitted():
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]))
    return LogLinearRanker(sigma2=1.0).fit(X, np.array([1.0, 0.0, 0.0, 1.0]), np.array([0, 0, 1, 1]))


def test_the_tagger_is_trained_once_per_content_and_read_back_the_same(tmp_path):
    with Store.open(tmp_path / "s.sqlite") as st:
        ctx = StageContext(st)
        tagger = train_tagger(ctx, [_selection()])
        assert tagger is not None and tagger.sentences == len(_selection().sentences)
        assert len(st.artifact_keys(TAGGER_KIND)) == 1
        again = train_tagger(ctx, [_selection()])
        assert again.digest == tagger.digest and again.to_dict() == tagger.to_dict()
        assert len(st.artifact_keys(TAGGER_KIND)) == 1     # read back, not trained and kept again
        assert train_tagger(ctx, [_selection(untagged=True)]) is None   # text without tags teaches nothing
        assert train_tagger(ctx, [_selection(untagged=True)]) is None   # ... and says so again, warm


def test_a_fitted_model_carries_the_tagger_and_an_older_one_is_given_it_warm(tmp_path):
    with Store.open(tmp_path / "s.sqlite") as st:
        tagger = train_tagger(StageContext(st), [_selection()])
        ranker = _fitted()
        cached_fit(st, "new", ["a", "b"], lambda: (ranker, {"sigma2": 1.0}), {"name": "tiny"}, tagger=tagger)
        saved = load_payload(st.model_file("new"), ["a", "b"])
        assert saved.tagger.digest == tagger.digest
        assert st.get_artifact(MODEL_KIND, "new")[1] == {"sigma2": 1.0, "tagger": tagger.digest}

        # a model kept before models carried taggers: the warm rerun adds the run's, weights untouched
        cached_fit(st, "old", ["a", "b"], lambda: (ranker, {"sigma2": 1.0}), {"name": "tiny"})
        before = json.loads(st.model_file("old"))
        assert "tagger" not in before
        fitted, meta = cached_fit(st, "old", ["a", "b"], lambda: 1 / 0, {"name": "tiny"}, tagger=tagger)
        after = json.loads(st.model_file("old"))
        assert after["tagger"]["digest"] == tagger.digest and meta == {"sigma2": 1.0}
        assert {k: v for k, v in after.items() if k != "tagger"} == before
        assert np.array_equal(fitted.coef_, ranker.coef_)
        payload = st.model_file("old")
        cached_fit(st, "old", ["a", "b"], lambda: 1 / 0, {"name": "tiny"}, tagger=tagger)
        assert st.model_file("old") == payload          # carried once: a model that has it is not rewritten


def test_a_run_naming_a_tagger_for_a_corpus_that_brings_its_own_tags_is_refused_before_any_work(tmp_path, capsys):
    from ranker.cli.main import main

    cfg = tmp_path / "x.toml"
    cfg.write_text(f'[experiment]\nstore = "{tmp_path / "s.sqlite"}"\n[data]\ntagger = "model.json"\n')
    assert main(["run", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err == (f"ranker: error: {cfg}: [data] tagger tags plain text (corpus \"text\"); corpus 'treebank' "
                   "brings its own tags: leave tagger out\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.toml"]   # no store, no output folder
