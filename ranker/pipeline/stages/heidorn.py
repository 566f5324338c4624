"""The ``fit_heidorn`` stage: Heidorn's ranker as configured, and tuned on held-out."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...store import Store
from ..config import HeidornSection
from ..splits import SplitSelection, candidate_trees
from .context import StageContext


class HeidornFit(NamedTuple):
    """Heidorn's ranker with the given K table, the one tuned on held-out, and the K sensitivity."""

    plain: object
    tuned: object
    k_curve: list[tuple[float, float]]   # (uniform K, held-out score)
    summary: dict | None = None          # typed fit record of the tuning (report.json "fits")


def fit_heidorn(ctx: StageContext, heidorn: HeidornSection, head_rules: str, heldout: SplitSelection,
                quality: np.ndarray) -> HeidornFit:
    """Heidorn's ranker as configured, and tuned on held-out for ``[heidorn] tune_metric`` (cached).

    The tuned ranker is kept in the store as a model chosen on held-out (``ranker models list``),
    with its K table, head rules and settings, which ``ranker serve`` and ``select`` read back.
    """
    from ...models import HeidornRanker
    from ...models.summary import FitSummary

    plain = HeidornRanker(k_table=heidorn.k_table, heads=head_rules, pp_as_np=heidorn.pp_as_np).fit()
    chosen_on = f"heldout {heidorn.tune_metric}"
    tuned, curve, key = tune_heidorn(ctx.store, heldout, ctx.need_source(), quality, heidorn.k_table, head_rules,
                                     heidorn.tune_rounds, chosen_on, pp_as_np=heidorn.pp_as_np)
    return HeidornFit(plain, tuned, curve, {**FitSummary.of(tuned).to_dict(), "chosen_on": chosen_on,
                                            "model": key})


def tune_heidorn(store: Store, heldout: SplitSelection, source: str, quality: np.ndarray,
                 k_table, heads: str, rounds: int, chosen_on: str = "heldout", *, pp_as_np: bool):
    """Heidorn's K tuned on held-out, and the held-out score of uniform K's (the sensitivity plot).

    The tuned ranker is kept in the store as a model (marked ``chosen_on``) and the curve as a
    result, both keyed by the held-out forests, their quality and the settings, so a warm rerun
    compiles no tree. Returns the fitted tuned ranker, ``[(K, score), ...]`` and the model's key.
    """
    from ...models import HeidornRanker
    from ...models.groups import group_offsets
    from ...trees.ktable import KTable
    from ...models.tuning import selected_quality
    from ..cache import cached_fit, cached_result, data_digest, load_payload, sub_key, text_digest

    texts = text_digest(t for s in heldout.sentences for t in store.candidate_texts(s.id, source))
    template = HeidornRanker(k_table=k_table, heads=heads, pp_as_np=pp_as_np, tune=True, max_rounds=rounds)
    params = {k: (v.to_dict() if isinstance(v, KTable) else v)
              for k, v in template.get_params().items()}
    uniform = (0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
    key = data_digest([quality], {"texts": texts, "params": params, "uniform": uniform,
                                  "what": "heidorn/2"})
    model_key = sub_key(key, what="tuned")

    def compute() -> dict:
        trees, groups, _ = candidate_trees(store, heldout, source)
        compiled = template.compile(trees)   # once, for the tuning and the curve
        tuned = template.fit(compiled, quality, groups)
        cached_fit(store, model_key, (), lambda: (tuned, {}), data=key)
        offsets = group_offsets(groups, len(trees))
        curve = [[k, selected_quality(-compiled.scores(KTable(default=k)), quality, offsets)]
                 for k in uniform]
        return {"model": model_key, "curve": curve}

    got = cached_result(store, key, compute)
    store.choose_model(model_key, chosen_on)
    tuned = load_payload(store.model_file(model_key), where=model_key).ranker
    return tuned, [(float(k), float(q)) for k, q in got["curve"]], model_key
