"""The ``score_treebanks`` stage: one model trained on several treebanks, scored on each one's test split
beside a model trained on each treebank alone (issue 43: the transfer table both ways).

A user who trains on their treebank and another (GUM and the WSJ sample) wants to know whether
the combined model is at least as good as each single one on each test split, and how far each
single model carries to the other treebank. Each single model is fitted with the rule the
combined run chose, its σ² chosen on its own treebank's held-out over the same grid; every
model is scored on every test split under every metric, between that split's random (lower)
and oracle (upper) bounds, so the error reductions read alike.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from ...evaluation.bounds import METRICS, corpus_score, error_reduction, expected_counts, oracle_choice, \
    selected_counts
from ..config import LogLinearSection
from ..domains import SHARED, HeldoutSplits, model_rows
from .context import StageContext
from .features import extract_features, training_sets
from .fit import fit_loglinear
from .select import choose, per_sentence


class TreebankTest(NamedTuple):
    """One test split's scores: each model's, and the split's bounds, under each metric."""

    corpus: str
    sentences: int
    scores: dict[str, dict[str, float]]    # model label -> metric -> corpus score (%)
    lower: dict[str, float]                # metric -> random's expected score
    upper: dict[str, float]                # metric -> oracle's score

    def reduction(self, model: str, metric: str) -> float | None:
        """The model's error reduction (%) on this split under ``metric``."""
        return error_reduction(self.scores[model][metric], self.lower[metric], self.upper[metric])

    def to_dict(self) -> dict:
        return {"corpus": self.corpus, "sentences": self.sentences, "scores": self.scores,
                "lower": self.lower, "upper": self.upper}


def model_choice(sel, matrix, names: Sequence[str], model) -> np.ndarray:
    """``model``'s choice per sentence of ``sel`` (-1: no candidate), from its feature ``matrix``
    (in the model's columns ``names`` as every front scores them: :func:`~ranker.pipeline.domains.model_rows`)."""
    X, groups = model_rows(matrix, sel.corpus, names), matrix.groups()
    return per_sentence(sel, matrix.sentence_ids, choose(model, {"features": lambda: (X, groups)}))


def single_models(ctx: StageContext, loglinear: LogLinearSection, template, annotation, features,
                  corpora: Sequence, heldout: Sequence, qualities: Sequence[np.ndarray], rule: str,
                  feature_config: dict | None, tagger, heldout_keys: Sequence[str] | None = None) -> dict[str, object]:
    """A model per treebank trained on its train split alone (rule ``rule``, σ² chosen on its held-out).

    ``heldout`` are the treebanks' held-out matrices (their rows in memory or read on demand:
    :class:`~ranker.pipeline.domains.HeldoutSplits`), ``heldout_keys`` their store keys (a warm
    rerun then loads each stored search without building its rows).
    """
    out = {}
    keys = [None] * len(heldout) if heldout_keys is None else list(heldout_keys)
    for parts, matrix, quality, key in zip(corpora, heldout, qualities, keys):
        (_, got), = training_sets(ctx, annotation, features, template, [parts.train], (rule,))
        held = HeldoutSplits([matrix], [None], None if key is None else [key])
        fit = fit_loglinear(ctx, loglinear, template, got.data,
                            lambda held=held, data=got.data: held.rows(SHARED, data.names), held.groups(),
                            quality, feature_config, tagger, mark=False, heldout_key=held.key(SHARED))
        if fit.model is not None:
            out[f"trained on {parts.train.corpus}"] = (fit.model, fit.names)
        del got, fit   # this treebank's rows go before the next one's are built (issue 45)
    return out


def score_treebanks(ctx: StageContext, features, corpora: Sequence, counts: Sequence[dict],
                    models: dict[str, tuple], metrics: Sequence[str]) -> list[TreebankTest]:
    """Every model on every treebank's test split under every metric.

    Each test split's feature matrix (``[features]``) is read from the store when its split is
    scored, one split's at a time (held from the features stage on, GUM's and the WSJ sample's
    took 0.6 GB through training: issue 45); ``counts`` are the splits' stored counts by metric
    (:func:`.counting.load_counts`), ``models`` label -> ``(model, feature names)``.
    """
    out = []
    for parts, fcs in zip(corpora, counts):
        sel = parts.test
        matrix = extract_features(ctx, features, sel)
        scores = {}
        for label, (model, names) in models.items():
            choice = model_choice(sel, matrix, names, model)
            scores[label] = {m: corpus_score(METRICS[m], selected_counts(fcs[m], choice)) for m in metrics}
        lower = {m: corpus_score(METRICS[m], expected_counts(fcs[m])) for m in metrics}
        upper = {m: corpus_score(METRICS[m], selected_counts(fcs[m], oracle_choice(fcs[m], METRICS[m].score)))
                 for m in metrics}
        out.append(TreebankTest(sel.corpus, len(sel.sentences), scores, lower, upper))
        del matrix
    return out

