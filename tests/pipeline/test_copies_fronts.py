"""Issue 43, item 3: a model with a copy of its features per corpus is scored and retrained as ``ranker run`` scores it.

A per-corpus model (Daumé III 2007: ``[features] domains = "per-corpus"``) scores a sentence of a
corpus it has copies of by the shared weights plus that corpus's copies. ``ranker run``'s select
stage did so (the test matrix doubled per corpus, :func:`ranker.pipeline.domains.in_space`), but
the page, ``ranker select``, ``ranker apply`` and ``ranker models retrain`` built the rows with
the model's columns alone, the copies' columns left at zero: they scored a GUM sentence by the
shared weights only, and a retrain learnt no copy. Here, on a real two-corpus store (a few GUM and
WSJ documents, Link Grammar forests), each front's scores of a GUM sentence are the run's, and a
retrain's weights are the optimum of the adaptation in the model's whole space, copies included.
"""
import dataclasses
import shutil

import numpy as np
import pytest
from frozen_heap import frozen_heap

from ranker.cli.main import main
from ranker.pipeline.config import load_config

pytestmark = [pytest.mark.slow, pytest.mark.linkgrammar]

# GUM the main treebank (the run's select stage scores its test split), the WSJ sample beside it;
# GUM_FOLDER: the folder of the three GUM documents the splits select (tests/pipeline/conftest.py)
PER_CORPUS = """
[experiment]
name = "copies"
seed = 1
workers = 1

[data]
corpus = "penn"
path = "GUM_FOLDER"
name = "gum"
train = "GUM_news_*"
heldout = "GUM_bio_*"
test = "GUM_fiction_*"
limit = 12

[[data.also]]
corpus = "treebank"
train = "wsj_0001-0004"
heldout = "wsj_0140-0141"
test = "wsj_0170-0171"
limit = 8

[parse]
linkage_limit = 25
max_parse_time = 2.0

[features]
domains = "per-corpus"

[loglinear]
sigma2_grid = [1.0]

[heidorn]
tune_rounds = 1

[evaluation]
bootstrap_resamples = 20
randomization_resamples = 20

[report]
learning_curve = [1.0]
plots = false
"""


class Run:
    """The run's store, its per-corpus model and what it scored the GUM test sentences with."""

    def __init__(self, tmp, cfg, key, names, model, ids, scores, groups, shared_scores, test_ids, model_config):
        self.model_config = model_config
        self.tmp, self.cfg, self.key, self.names, self.model = tmp, cfg, key, names, model
        self.test_ids = test_ids      # every test sentence, in split order (the selected files' lines)
        self.ids, self.scores, self.groups, self.shared_scores = ids, scores, groups, shared_scores

    def sentence_scores(self, k: int) -> np.ndarray:
        return self.scores[self.groups == k]


@pytest.fixture(scope="module")
def run(tmp_path_factory, two_treebanks_parsed, gum_few):
    """The per-corpus run on a copy of ``two_treebanks_parsed`` (conftest.py: both treebanks loaded,
    the sentences of these splits parsed with these [parse] options, so the run parses none)."""
    from ranker.models import LogLinearRanker
    from ranker.pipeline import stages
    from ranker.pipeline.domains import PER_CORPUS as SPACE, in_space
    from ranker.pipeline.experiment import run_experiment
    from ranker.pipeline.retrain import stored_model
    from ranker.store import Store

    tmp = tmp_path_factory.mktemp("copies")
    shutil.copy(two_treebanks_parsed, tmp / "s.sqlite")
    (tmp / "copies.toml").write_text(PER_CORPUS.replace("GUM_FOLDER", str(gum_few)))
    cfg = load_config(tmp / "copies.toml")
    cfg = dataclasses.replace(cfg, experiment=dataclasses.replace(cfg.experiment, store=str(tmp / "s.sqlite")))
    with frozen_heap():
        report = run_experiment(cfg, tmp / "out", progress=False)
    assert report.counts.source.parsed_now == 0   # the shared store's forests, as this run would store them
    assert report.fits["loglinear"]["domains"] == "per-corpus"
    with Store.writing(cfg.experiment.store) as st:
        key, saved = next((r.key, stored_model(st, r.key)[1]) for r in st.model_records()
                          if "heldout" in r.chosen and isinstance(stored_model(st, r.key)[1].ranker, LogLinearRanker))
        ctx = stages.StageContext(st, None, 1, False, "t")
        test = stages.select_splits(ctx, cfg.data).test
        ctx = ctx.with_source(stages.stored_source(st, None))
        m = stages.extract_features(ctx, cfg.features, test)
    names = saved.feature_names
    assert any(n.startswith("[gum] ") for n in names) and any(n.startswith("[treebank] ") for n in names)
    # what the run's select stage scored GUM's test split with (experiment.py, before the fronts were
    # made one): the test matrix doubled for its corpus, then the model's columns
    scores = saved.ranker.decision_function(in_space(m, "gum", SPACE).restrict(names))
    shared = saved.ranker.decision_function(m.restrict(names))
    return Run(tmp, cfg, key, names, saved.ranker, list(m.sentence_ids), scores, m.groups(), shared,
               [s.id for s in test.sentences], saved.feature_config)


def _picks(scores, groups) -> list[int]:
    return [int(np.argmax(scores[groups == k])) for k in range(int(groups.max()) + 1)]


def test_the_copies_change_what_the_model_chooses_on_gum(run):
    """The premise of the tests below: scored without GUM's copies the model chooses otherwise on
    some GUM test sentence, so a front that drops the copies is seen."""
    assert not np.allclose(run.scores, run.shared_scores)
    assert _picks(run.scores, run.groups) != _picks(run.shared_scores, run.groups)


def test_the_run_s_select_stage_scores_with_the_copies(run):
    """``selected/loglinear.mrg`` holds the run's choice on GUM test: the argmax of the shared plus
    GUM's copy weights (first of equals)."""
    from ranker.store import Store

    chosen = (run.tmp / "out" / "selected" / "loglinear.mrg").read_text().splitlines()
    with Store.writing(run.cfg.experiment.store) as st:
        for sid, pick in zip(run.ids, _picks(run.scores, run.groups)):
            assert chosen[run.test_ids.index(sid)] == st.candidate_texts(sid, "link-grammar")[pick], sid


def test_the_page_scores_a_gum_sentence_as_the_run_does(run):
    from ranker.pipeline.stages import forest_features
    from ranker.serve.model import load_served_model
    from ranker.store import Store

    with Store.writing(run.cfg.experiment.store) as st:
        served = load_served_model(st, run.key)
        for k, sid in enumerate(run.ids):
            got = served.scores(st.forest(sid, "link-grammar"))
            assert np.allclose(got, run.sentence_scores(k), rtol=0, atol=1e-12), sid
        # forests of two corpora at once: each scored with its own corpus's copies
        wsj = next(s.id for s in map(st.sentence, st.consistent_sets("riezler", corpus="treebank",
                                                                      source="link-grammar", rule="fewest")))
        forests = [st.forest(run.ids[0], "link-grammar"), st.forest(wsj, "link-grammar")]
        both = run.model.decision_function(forest_features(served.families, run.names, forests))
        assert np.array_equal(both, np.concatenate([served.scores(f) for f in forests]))


def test_ranker_select_chooses_on_gum_as_the_run_does(run, tmp_path):
    store = run.cfg.experiment.store
    model = tmp_path / "m.json"
    assert main(["models", "export", "--store", store, "--out", str(model), run.key]) == 0
    assert main(["select", "--store", store, "--corpus", "gum", "--split", "GUM_fiction_*", "--limit", "12",
                 "--ranker", "loglinear", "--model", str(model), "--out", str(tmp_path / "sel.mrg"),
                 "--workers", "1"]) == 0
    got = (tmp_path / "sel.mrg").read_text().splitlines()
    assert got == (run.tmp / "out" / "selected" / "loglinear.mrg").read_text().splitlines()


def test_ranker_apply_scores_lists_of_a_named_corpus_with_its_copies_and_of_another_by_the_shared(run, tmp_path):
    """``ranker apply`` on the GUM test forests imported as corpus ``gum`` chooses by the shared
    and GUM's copy weights, as the run chooses; imported under a name the model has no copies of,
    by the shared weights alone (text of no known corpus)."""
    from ranker.features import feature_set_from_dict
    from ranker.pipeline import stages
    from ranker.pipeline.domains import PER_CORPUS as SPACE, in_space
    from ranker.pipeline.splits import select_split
    from ranker.store import Store

    store = run.cfg.experiment.store
    model = tmp_path / "m.json"
    assert main(["models", "export", "--store", store, "--out", str(model), run.key]) == 0
    with Store.writing(store) as st:
        lists = "".join(f"{len(st.candidate_texts(sid, 'link-grammar'))}\t{sid.replace('/', '_')}\n" +
                        "".join(f"0\n{t}\n" for t in st.candidate_texts(sid, "link-grammar")) + "\n"
                        for sid in run.ids)
    (tmp_path / "gum.txt").write_text(lists)
    picked = {}
    for name in ("gum", "other"):
        out = tmp_path / f"{name}.mrg"
        # one process: a pool forked from the test process (its heap grown by every earlier test of
        # the worker) took minutes in a full run; results do not depend on --workers
        assert main(["apply", "--model", str(model), "--lists", str(tmp_path / "gum.txt"), "--format", "bllip",
                     "--store", str(tmp_path / f"{name}.sqlite"), "--corpus-name", name, "--out", str(out),
                     "--workers", "1"]) == 0
        with Store.writing(tmp_path / f"{name}.sqlite") as st:
            source = stages.stored_source(st, None)
            ctx = stages.StageContext(st, source, 1, False, "t")
            sel = select_split(st, name, None)
            m = stages.model_features(ctx, feature_set_from_dict(run.model_config, "m"), sel)
            scores = run.model.decision_function(in_space(m, "gum", SPACE).restrict(run.names) if name == "gum"
                                                 else m.restrict(run.names))
            picked[name] = _picks(scores, m.groups())
            want = [st.candidate_texts(sid, source)[p] for sid, p in zip(m.sentence_ids, picked[name])]
        assert [t for t in out.read_text().splitlines() if t] == want, name
    assert picked["gum"] != picked["other"]


def test_a_retrain_learns_the_copies_of_the_corpora_its_decisions_are_on(run):
    """A retrain of the per-corpus model on the gold annotation of both train splits (what ``ranker
    models retrain`` and the page's retrain run): its weights are the adaptation's optimum in the
    model's whole space (every corpus's rows doubled as the run scores them; the solver, started
    there, stays), so each corpus's copies moved from the base's."""
    from ranker.features import feature_set_from_dict
    from ranker.features.datasets import consistency_weights
    from ranker.models import LogLinearRanker
    from ranker.pipeline import stages
    from ranker.pipeline.domains import PER_CORPUS as SPACE, in_space, stacked
    from ranker.pipeline.retrain import retrain, stored_model
    from ranker.pipeline.splits import SplitSelection
    from ranker.store import Store

    rule = run.cfg.annotation.rule if run.cfg.annotation.rule != "auto" else "strict"
    with Store.writing(run.cfg.experiment.store) as st:
        base = stored_model(st, run.key)[1]
        out = retrain(st, run.key, kind="riezler", rule=rule, workers=1)
        assert out.n_iter > 0
        lam0 = np.asarray(base.ranker.coef_)
        lam = np.asarray(out.model.coef_)
        for corpus in ("gum", "treebank"):
            at = [i for i, n in enumerate(run.names) if n.startswith(f"[{corpus}] ")]
            assert np.max(np.abs(lam[at] - lam0[at])) > 1e-3, corpus
        # the retrain's rows, each corpus's in the model's whole space
        ctx = stages.StageContext(st, "link-grammar", 1, False, "t")
        fs = feature_set_from_dict(base.feature_config, "m")
        sets = st.consistent_sets("riezler", corpus=None, source="link-grammar", rule=rule)
        mats = []
        for corpus in ("gum", "treebank"):
            sents = tuple(s for s in map(st.sentence, sets) if s.corpus == corpus)
            sel = SplitSelection("t", corpus, None, None, sents)
            mats.append(stages.model_features(ctx, fs, sel))
        m = stacked([in_space(x, c, SPACE) for x, c in zip(mats, ("gum", "treebank"))])
        assert len(m.sentence_ids) == out.sentences
        y = np.concatenate([consistency_weights(st, x, "riezler", None, None, "link-grammar", rule) for x in mats])
        q = st.forest_qualities("link-grammar")
        full = np.array([v == "full" for sid in m.sentence_ids for v in q[sid]], dtype=bool)
    keep = LogLinearRanker().get_params()
    again = LogLinearRanker(**{**{k: v for k, v in base.ranker.get_params().items() if k in keep},
                               "n_jobs": 1, "tol": 1e-9, "max_iter": 2000})
    again.fit(m.restrict(run.names), y, m.groups(), full=full, coef_init=lam, prior_mean=lam0)
    # started at the retrained weights the doubled rows' fit moves them no further than the tolerance
    # of the retrain's own stop; a retrain that left the copies at the base's moves them by far more
    assert np.max(np.abs(again.coef_ - lam)) < 0.05 * np.max(np.abs(lam - lam0))
