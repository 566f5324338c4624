"""Decisions as annotation kind ``user``: ranker annotate reads them, and a stored model is retrained from them.

A real store: Link Grammar forests of the first 33 treebank sentences, decisions answered from gold.
"""
import shutil

import numpy as np
import pytest

from ranker.cli.main import main
from ranker.errors import RankerError
from ranker.models import load_model
from ranker.pipeline.cache import MODEL_KIND
from ranker.pipeline.retrain import retrain
from ranker.sources.annotations import LabelEquivalences
from ranker.sources.discriminants import candidate_spans, discriminants, remaining_mask
from ranker.store import Decision, Store

pytestmark = [pytest.mark.slow, pytest.mark.linkgrammar]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A parsed store and a log-linear model trained on its riezler annotation (not on decisions)."""
    d = tmp_path_factory.mktemp("user")
    store, model, feats = d / "s.sqlite", d / "model.json", d / "feats.toml"
    feats.write_text('name = "small"\n[[family]]\nname = "local_trees/1"\n[[family]]\nname = "embedding/1"\n')
    assert main(["parse", "--store", str(store), "--corpus", "treebank", "--split", "train", "--limit", "4",
                 "--linkage-limit", "30", "--no-progress", "--workers", "1"]) == 0
    assert main(["annotate", "--store", str(store), "--kind", "riezler", "--workers", "1"]) == 0
    assert main(["train", "--store", str(store), "--split", "train", "--limit", "4", "--features", str(feats),
                 "--sigma2", "10", "--heldout", "", "--out", str(model), "--no-progress", "--workers", "1"]) == 0
    return store, model


@pytest.fixture
def store(base, tmp_path):
    path = tmp_path / "s.sqlite"
    shutil.copy(base[0], path)
    return path


def _answer_from_gold(st, sid, n):
    """Answer the first ``n`` discriminants of ``sid`` as gold says, storing each decision."""
    spans = [candidate_spans(t) for _, _, t in st.candidate_trees(sid)]
    gold = candidate_spans(st.gold(sid))
    made = []
    for _ in range(n):
        ds = discriminants(spans, remaining_mask(spans, made))
        if not ds:
            break
        d = ds[0]
        yes = Decision(d.label, d.start, d.end, True, "sim", "2026-11-23T16:00:00Z")
        made.append(yes if remaining_mask([gold], [yes])[0] else yes._replace(accept=False))
        st.add_decision(sid, made[-1])
    return spans, made


def _sentences_with_choices(st, k):
    return [s.id for s in st.sentences("treebank") if len(set(st.candidate_texts(s.id))) > 4][:k]


def test_annotate_kind_user_reads_the_decisions_as_the_page_shows_them(store, capsys):
    with Store.open(store) as st:
        sids = _sentences_with_choices(st, 3)
        shown = {sid: _answer_from_gold(st, sid, 2) for sid in sids}
    assert main(["annotate", "--store", str(store), "--kind", "user", "--workers", "1"]) == 0
    assert "user: 3 sentences annotated" in capsys.readouterr().out
    with Store.open(store) as st:
        anns = st.annotations("user")
        sets = st.consistent_sets("user", corpus=None, rule="strict")
        assert sorted(anns) == sorted(sids)
        for sid, (spans, made) in shown.items():
            assert [(b.label, b.start, b.end, b.accept) for b in anns[sid].brackets] == \
                [(d.label, d.start, d.end, d.accept) for d in made]
            # X(y, z) of the user annotation is exactly the page's remaining set
            assert list(sets[sid].weights) == remaining_mask(spans, made).astype(float).tolist()
            assert 0 < sum(sets[sid].weights) < len(spans)
        # undo on one sentence: only that sentence is checked again
        st.undo_decision(sids[0])
        st.undo_decision(sids[0])
    assert main(["annotate", "--store", str(store), "--kind", "user", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "user: 2 sentences annotated" in out and "of 0 sentences" in out   # nothing left to check there
    with Store.open(store) as st:
        assert sorted(st.annotations("user")) == sorted(sids[1:])
        st.add_decision(sids[1], Decision("NP", 0, 1, False, "bob", "2026-11-23T17:00:00Z"))
    assert main(["annotate", "--store", str(store), "--kind", "user", "--workers", "1"]) == 0
    assert "of 1 sentences" in capsys.readouterr().out


def test_a_rejected_span_is_a_violation_for_training_too(store):
    with Store.open(store) as st:
        sid = _sentences_with_choices(st, 1)[0]
        spans = [candidate_spans(t) for _, _, t in st.candidate_trees(sid)]
        d = discriminants(spans)[0]
        st.add_decision(sid, Decision(d.label, d.start, d.end, False, "ann", "2026-11-23T16:00:00Z"))
    assert main(["annotate", "--store", str(store), "--kind", "user", "--workers", "1"]) == 0
    with Store.open(store) as st:
        w = st.consistent_sets("user", corpus=None, rule="strict")[sid].weights
    has = remaining_mask(spans, [Decision(d.label, d.start, d.end, True, "", "")], LabelEquivalences.load())
    assert list(w) == (~has).astype(float).tolist() and sum(w) == d.remaining - d.count


def _consistent_loglik(ranker, feature_config, store, sids, names):
    """Σ log p(consistent set) of the model on the sentences (what retraining must raise)."""
    from ranker.features import feature_set_from_dict

    from ranker.pipeline.feature_cache import cached_matrix
    from ranker.pipeline.splits import SplitSelection

    with Store.open(store) as st:
        sets = st.consistent_sets("user", corpus=None, rule="strict")
        sel = SplitSelection("u", "treebank", None, None, tuple(st.sentence(s) for s in sids))
        m = cached_matrix(st, feature_set_from_dict(feature_config), sel, None)
    scores = ranker.decision_function(m.restrict(names))
    total = 0.0
    for j, sid in enumerate(m.sentence_ids):
        s = scores[m.offsets[j]:m.offsets[j + 1]]
        w = np.array(sets[sid].weights) > 0
        total += np.logaddexp.reduce(s[w]) - np.logaddexp.reduce(s)
    return total


def test_retrain_adapts_the_stored_model_to_the_decisions(base, store, capsys):
    saved = load_model(base[1])
    with Store.open(store) as st:
        st.put_artifact(MODEL_KIND, "base0123", base[1].read_bytes(), {})   # as ranker run keeps models
        sids = _sentences_with_choices(st, 6)
        for sid in sids:
            _answer_from_gold(st, sid, 3)
        seen = []
        out = retrain(st, "base0", progress=lambda i, n: seen.append((i, n)))
        assert out.base == "base0123" and out.key != "base0123" and out.sentences == 6 and out.trained >= 1
        assert out.n_iter >= 1 and seen == [(i, saved.ranker.max_iter) for i in range(1, out.n_iter + 1)]
        assert out.feature_names == saved.feature_names
        assert out.key in st.artifact_keys(MODEL_KIND)
        again = retrain(st, "base0123")                 # the same decisions: the stored result
        assert again.key == out.key and again.n_iter == 0
        # a retrained model stands for its base: the same decisions are never learnt twice
        chained = retrain(st, out.key)
        assert (chained.key, chained.base, chained.n_iter) == (out.key, "base0123", 0)
        np.testing.assert_array_equal(again.model.coef_, out.model.coef_)
    # MAP adaptation starts at the old weights and only lowers P: the decisions gain likelihood
    before = _consistent_loglik(saved.ranker, saved.feature_config, store, sids, saved.feature_names)
    after = _consistent_loglik(out.model, saved.feature_config, store, sids, saved.feature_names)
    assert after > before
    # and the weights stay near the old ones (a zero-centred prior would have pulled them all to 0)
    moved = np.abs(out.model.coef_ - saved.ranker.coef_).max()
    assert 0 < moved < np.abs(saved.ranker.coef_).max()
    capsys.readouterr()
    assert main(["models", "list", "--store", str(store)]) == 0
    listed = {l.split()[0]: l for l in capsys.readouterr().out.splitlines()}
    assert "  retrained from base0123  " in listed[out.key] and "retrained" not in listed["base0123"]
    with Store.open(store, readonly=True) as st:   # the record names its parent
        assert st.model_record(out.key).parent == "base0123"


def test_retrain_refuses_what_it_cannot_learn_from(base, store, capsys):
    with Store.open(store) as st:
        st.put_artifact(MODEL_KIND, "base0123", base[1].read_bytes(), {})
        with pytest.raises(RankerError, match="no stored models match 'nope'"):
            retrain(st, "nope")
        # no decisions yet: say so, not "run ranker annotate --kind user" (which would store nothing)
        with pytest.raises(RankerError, match="no discriminant decisions are stored.*ranker serve"):
            retrain(st, "base0123")
        sid = _sentences_with_choices(st, 1)[0]
        spans = [candidate_spans(t) for _, _, t in st.candidate_trees(sid)]
        d = discriminants(spans)[0]
        st.add_decision(sid, Decision(d.label, d.start, d.end, True, "a", "2026-11-23T16:00:00Z"))
        st.add_decision(sid, Decision(d.label, d.start, d.end, False, "b", "2026-11-23T16:00:01Z"))
        # two annotators contradicting each other: a conflict, which teaches nothing until adjudicated
        with pytest.raises(RankerError, match="nothing to learn.*conflict between annotators"):
            retrain(st, "base0123")
        st.undo_decision(sid, "b")
        st.add_decision(sid, Decision(d.label, d.start, d.end, False, "a", "2026-11-23T16:00:01Z"))
        with pytest.raises(RankerError, match="nothing to learn"):   # one's contradicting answers: empty set
            retrain(st, "base0123")
    capsys.readouterr()
    assert main(["models", "retrain", "--store", str(store), "base0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ranker: error:") and "nothing to learn" in err and err.count("\n") == 1


def test_models_retrain_command_is_the_stage(base, store, capsys):
    with Store.open(store) as st:
        st.put_artifact(MODEL_KIND, "base0123", base[1].read_bytes(), {})
        for sid in _sentences_with_choices(st, 2):
            _answer_from_gold(st, sid, 2)
    assert main(["models", "retrain", "--store", str(store), "base0"]) == 0
    line = capsys.readouterr().out.strip()
    with Store.open(store) as st:
        out = retrain(st, "base0123")
    assert line.startswith(f"{out.key}: base0123 adapted to 'user' (") and out.n_iter == 0


def test_models_retrain_fits_on_its_workers_and_the_model_does_not_depend_on_them(base, tmp_path, capsys):
    """``--workers`` (issue 47: the warm-started fit stage) is the fit's threads; the model is the same."""
    import json

    got = {}
    for workers in ("1", "2"):
        store = tmp_path / f"s{workers}.sqlite"
        shutil.copy(base[0], store)
        with Store.open(store) as st:
            st.put_artifact(MODEL_KIND, "base0123", base[1].read_bytes(), {})
            for sid in _sentences_with_choices(st, 2):
                _answer_from_gold(st, sid, 2)
        capsys.readouterr()
        assert main(["models", "retrain", "--store", str(store), "base0", "--workers", workers]) == 0
        key = capsys.readouterr().out.split(":")[0]
        with Store.open(store, readonly=True) as st:
            got[workers] = key, json.loads(st.model_file(key))
    (key1, doc1), (key2, doc2) = got["1"], got["2"]
    assert key1 == key2 and doc1["state"] == doc2["state"]
    assert (doc1["params"]["n_jobs"], doc2["params"]["n_jobs"]) == (1, 2)


def test_a_run_config_may_train_on_user_decisions(tmp_path):
    from ranker.pipeline.config import load_config
    from ranker.pipeline.validate import validate_config

    from ranker.store import Sentence

    cfg = tmp_path / "c.toml"
    store = tmp_path / "s.sqlite"   # a decision on a training sentence (none: refused, tests/cli/test_issue44_run_cases)
    with Store.open(store) as st:
        st.add_sentences([Sentence("treebank/wsj_0001.mrg/0", "treebank", "wsj_0001.mrg", 0, ("Pierre",), ("NNP",))])
        st.add_decision("treebank/wsj_0001.mrg/0", Decision("NP", 0, 1, True, "sim", "2026-11-23T16:00:00Z"))
    cfg.write_text(f'[experiment]\nname = "u"\nstore = "{store}"\n[annotation]\nkind = "user"\n')
    validate_config(load_config(cfg))
    cfg.write_text('[experiment]\nname = "u"\n[annotation]\nkind = "users"\n')
    with pytest.raises(RankerError, match=r"kind .users. is neither derived from gold trees \(best_f, riezler\), nor stored with a corpus \(chunks\), nor made of decisions \(user\)"):
        validate_config(load_config(cfg))


def test_a_versioned_kind_name_is_refused_not_silently_empty(store):
    from ranker.pipeline import stages
    from ranker.pipeline.config import AnnotationSection

    with Store.open(store) as st:
        for kind in ("user/1", "riezler/1", "users"):
            with pytest.raises(RankerError, match=f"annotation kind '{kind}' is neither"):
                stages.annotate(stages.StageContext(st, None, 1, where="t"), AnnotationSection(kind=kind), [])
