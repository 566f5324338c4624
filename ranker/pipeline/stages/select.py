"""The ``select_test`` stage: every ranker's choice of candidate on the test split."""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from ...errors import RankerError
from ..splits import SplitSelection, candidate_trees
from .context import StageContext
from .heidorn import HeidornFit


def per_sentence(sel: SplitSelection, ids: Sequence[str], per_group: np.ndarray) -> np.ndarray:
    """Spread per-group choices (groups = sentences with candidates) over every sentence, -1 for none."""
    pos = dict(zip(ids, per_group.tolist()))
    return np.array([pos.get(s.id, -1) for s in sel.sentences], dtype=np.int64)


#: The rankers a report shows, in its order (``select_test``'s choices; the random draw and the
#: oracle are the bounds, not rankers). The cross-validation summaries read these too.
REPORTED = ("native", "heidorn", "heidorn_tuned", "loglinear")


class Choices(NamedTuple):
    """One candidate per test sentence and ranker (index in its forest, -1 for no candidate)."""

    rankers: dict[str, np.ndarray]   # each of REPORTED
    random: np.ndarray               # one random draw (the report's bound is its exact expectation)
    ids: list[str]                   # sentences with candidates, in split order
    X: object                        # the test matrix restricted to the model's features
    groups: np.ndarray               # its per-row sentence number


def choose(ranker, inputs: dict) -> np.ndarray:
    """``ranker``'s choice in each group, on the candidates in the form it reads.

    ``inputs`` maps each form of :data:`ranker.models.base.INPUTS` a caller can give to a function
    returning ``(X, groups)`` (called only for the form ``ranker.reads``), so no caller picks a
    ranker's input by the ranker's name.
    """
    if ranker.reads not in inputs:
        raise RankerError(f"{type(ranker).__name__} reads {ranker.reads}, which is not at hand here")
    X, groups = inputs[ranker.reads]()
    if len(groups) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.asarray(ranker.predict(X, groups), dtype=np.int64)


def ranker_inputs(groups: np.ndarray, features=None, trees=None, quality=None) -> dict:
    """Every form of one set of candidates a ranker may read, each made at most once, on first use.

    The inputs of :func:`choose` and :func:`rank`, which every front hands its rankers (``ranker
    run``'s select stage, ``ranker select``, ``ranker apply``, the page). ``groups`` is each
    candidate row's sentence number; ``features``, ``trees`` and ``quality`` are callables giving
    ``(X, groups)`` of that form (the model's feature rows, the trees or the compiled trees, each
    candidate's quality), None where it is not at hand (a ranker reading it is refused). The
    source's rank and the bare candidates come from ``groups``.
    """
    def once(make):
        made: list = []

        def get():
            if not made:
                made.append(make())
            return made[0]
        return get

    inputs = {"source_rank": once(lambda: (source_ranks(groups), groups)),
              "candidates": once(lambda: (np.zeros(len(groups)), groups))}
    for form, make in (("features", features), ("trees", trees), ("quality", quality)):
        if make is not None:
            inputs[form] = once(make)
    return inputs


def rank(rankers: dict, inputs: dict) -> dict[str, np.ndarray]:
    """Each ranker's choice in each group (label -> choices), all from one :func:`ranker_inputs`."""
    return {label: choose(ranker, inputs) for label, ranker in rankers.items()}


def ready_ranker(name: str, config=None):
    """The registered ranker ``name`` as ``config`` describes it, fitted where it learns nothing from data.

    Native, random, Heidorn's untuned (its K table loaded): what ``ranker select``, ``ranker
    score`` and the page rank with when no model file is given. A ranker that needs a model
    (``needs_model``) is fitted by the fit stages instead.
    """
    from ...registries import RANKERS
    from ..config import ExperimentConfig

    return RANKERS.build(name, config if config is not None else ExperimentConfig()).fit()


def source_ranks(groups: np.ndarray) -> np.ndarray:
    """Each candidate's rank in its group's source order (0: the source's first choice)."""
    from ...models.groups import group_offsets

    offsets = group_offsets(groups, len(groups))
    return np.arange(len(groups)) - np.repeat(offsets[:-1], np.diff(offsets))


def select_test(ctx: StageContext, test: SplitSelection, matrix, names: Sequence[str],
                heidorn: HeidornFit, model, seed: int) -> Choices:
    """Every ranker's choice on the test split (the log-linear model's absent: the source's first).

    ``matrix`` is the split's feature matrix, scored in the model's columns ``names`` as every
    front scores a corpus's sentences (:func:`ranker.pipeline.domains.model_rows`: with the copies
    of the split's corpus where the model has them).
    """
    from ...models import NativeRanker, RandomRanker
    from ..domains import model_rows

    tt, tg, tids = candidate_trees(ctx.store, test, ctx.need_source())
    if list(matrix.sentence_ids) != tids:
        raise RankerError("test features and forests disagree; rerun with a fresh store")
    Xt = model_rows(matrix, test.corpus, names)
    mg = matrix.groups()
    # both Heidorn rankers score the same compiled trees, compiled once
    inputs = ranker_inputs(tg, features=lambda: (Xt, mg), trees=lambda: (heidorn.plain.compile(tt), tg))
    native = NativeRanker().fit()
    rankers = {"native": native, "heidorn": heidorn.plain, "heidorn_tuned": heidorn.tuned,
               "loglinear": model if model else native}
    picked = rank({**{label: rankers[label] for label in REPORTED}, "random": RandomRanker(seed=seed).fit()}, inputs)
    choices = {label: per_sentence(test, tids, picked[label]) for label in REPORTED}
    return Choices(choices, per_sentence(test, tids, picked["random"]), tids, Xt, mg)
