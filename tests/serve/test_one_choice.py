"""One model, one split: the web page, ``ranker select`` and ``ranker run`` choose the same trees (issue 35).

The page computed its log-linear choice as ``argmax`` of its own scores and Heidorn's the same way,
beside :func:`ranker.pipeline.stages.choose` (the function ``ranker run``'s ``select_test`` and
``ranker select`` call, through ``ranker.predict``); now the page's choices go through it too, so
a change to how a ranker chooses (ties, non-finite scores) reaches all three fronts at once.
"""
from pathlib import Path

import numpy as np

from serve_team import RANGES

from ranker.cli.main import main
from ranker.features import feature_set_from_dict
from ranker.models import HeidornRanker, load_model, save_model
from ranker.pipeline import stages
from ranker.pipeline.feature_cache import cached_matrix
from ranker.pipeline.splits import select_split
from ranker.store import Store


def _lines(path: Path) -> list[str]:
    return path.read_text().split("\n")[:-1]


def test_the_page_select_and_run_choose_the_same_trees(store_path, tmp_path):
    from ranker.serve.app import create_app   # Flask comes with the test extra
    from ranker.serve.listing import ranker_choices

    # the store's model (3 training sentences) picks every test sentence's first candidate; its
    # weights drawn at random (seeded) pick others, so agreement means something
    exported = tmp_path / "exported.json"
    assert main(["models", "export", "--store", str(store_path), "--out", str(exported)]) == 0
    base = load_model(exported)
    base.ranker.coef_ = np.random.default_rng(7).normal(size=len(base.ranker.coef_))
    model_file = tmp_path / "model.json"
    save_model(model_file, base.ranker, base.feature_names, base.feature_config)
    picked = {}
    for r in ("loglinear", "native", "heidorn"):
        out = tmp_path / f"{r}.mrg"
        extra = ["--model", str(model_file)] if r == "loglinear" else []
        assert main(["select", "--store", str(store_path), "--split", RANGES["test"], "--ranker", r,
                     *extra, "--out", str(out)]) == 0
        picked[r] = _lines(out)

    saved = load_model(model_file)
    with Store.open(store_path, readonly=True) as st:
        sel = select_split(st, "treebank", RANGES["test"])
        ctx = stages.StageContext(st, "bllip", 1, False, "test")
        m = cached_matrix(st, feature_set_from_dict(saved.feature_config, "model"), sel, "bllip")
        plain = HeidornRanker().fit()
        heidorn = stages.HeidornFit(plain, plain, [])
        run = stages.select_test(ctx, sel, m, saved.feature_names, heidorn, saved.ranker, seed=0)
        texts = {s.id: st.candidate_texts(s.id, "bllip") for s in sel.sentences}
    for r in ("loglinear", "native", "heidorn"):
        ran = [texts[s.id][c] if c >= 0 else "" for s, c in zip(sel.sentences, run.rankers[r].tolist())]
        assert ran == picked[r], r

    app = create_app(str(store_path), str(model_file), read_only=True, source="bllip")
    served = app.extensions["ranker"]
    page = {s.id: ranker_choices(served, s.id) for s in sel.sentences}
    shown = [texts[s.id][page[s.id]["loglinear"]] if page[s.id] else "" for s in sel.sentences]
    assert shown == picked["loglinear"]
    assert [texts[s.id][page[s.id]["native"]] if page[s.id] else "" for s in sel.sentences] == picked["native"]
    assert len({c for c in run.rankers["loglinear"].tolist()}) > 1   # not every choice the first
    assert np.any(run.rankers["loglinear"] != run.rankers["native"])

