"""The model the page ranks with: a stored model (by key) or a model file, with its feature extractors.

A model carries its feature configuration (:mod:`ranker.models.persistence`), so the page
extracts exactly the features the weights were fitted on, one forest at a time (a 1,000-candidate
Link Grammar forest takes well under 100 ms). Heidorn's ranker is shown when a tuned Heidorn
model is kept in the store (``ranker run`` keeps it, chosen on held-out). A model whose families
read a second source's candidates (the evidence families) scores forests read with that source's
candidates, the source its record names (the run that fitted it) or ``--evidence``.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import RankerError


class ServedModel(NamedTuple):
    """A loaded log-linear model, where it came from, and its built feature families."""

    key: str              # store key, or the file name
    saved: object         # SavedModel
    families: list        # built (and fitted) feature families of its configuration
    evidence: str | None = None   # the stored source its evidence families read (None: none)

    def matrix(self, forest):
        """The forest's candidates as the model's feature rows (its columns only), forest order."""
        from ..pipeline.stages import forest_features

        return forest_features(self.families, self.saved.feature_names, [forest])

    def scores(self, forest) -> np.ndarray:
        """Each candidate's score ``λ·f(x)`` in forest order."""
        if not forest.candidates:
            return np.zeros(0)
        return np.asarray(self.saved.ranker.decision_function(self.matrix(forest)), dtype=np.float64)


def probabilities(scores: np.ndarray) -> np.ndarray:
    """The model's conditional distribution over one forest (softmax of the scores)."""
    if len(scores) == 0:
        return scores
    z = np.exp(scores - scores.max())
    return z / z.sum()


def stored_model_keys(store) -> list[str]:
    """Keys of the models kept in the store, those chosen on held-out first (newest first)."""
    records = store.model_records()
    chosen = [r.key for r in sorted(records, key=lambda r: r.created, reverse=True) if "heldout" in r.chosen]
    return chosen + [r.key for r in records if r.key not in chosen]


def load_served_model(store, spec: str | None, evidence: str | None = None,
                      source: str | None = None) -> ServedModel | None:
    """The model the page ranks with, as ``--model`` names it (None: the store holds no usable model).

    ``spec`` is a stored model's key (or unique prefix) or a model file; by default the stored
    model chosen on held-out, else the first stored one that carries its feature configuration,
    among those trained on the served ``source``'s candidates (or whose record names no source:
    a model trained on another parser's candidates is never served by default).
    ``evidence`` (``--evidence``) names the second source its evidence families read, by default
    the one its record names (:func:`ranker.pipeline.retrain.resolve_evidence`).

    Raises
    ------
    RankerError
        A key matching no stored model or several, a file that is not a log-linear model, a
        model without its feature configuration, or one reading evidence no record or option names.
    """
    from ..models import LogLinearRanker, load_model
    from ..pipeline.retrain import model_sources, stored_model

    if spec is None:
        # the default: the first stored log-linear model that carries its features (a model of an
        # older ranker may not; the page then ranks in source order rather than refuse to start)
        for key in stored_model_keys(store):
            trained_on = model_sources(store, key)[0] if source is not None else None
            if trained_on is not None and trained_on != source:
                continue
            saved = stored_model(store, key)[1]
            if isinstance(saved.ranker, LogLinearRanker) and saved.feature_config:
                return _with_features(store, key, saved, evidence)
        return None
    stored = not Path(spec).is_file()
    if not stored:
        saved, key = load_model(spec, kind="loglinear"), Path(spec).name
    else:
        key, saved = stored_model(store, spec)
        if not isinstance(saved.ranker, LogLinearRanker):
            raise RankerError(f"{store.path}: model {key} is not a log-linear model")
    if not saved.feature_config:
        raise RankerError(f"model {key}: carries no feature configuration; export it again (ranker "
                          "models export) or retrain")
    return _with_features(store, key, saved, evidence, stored)


def _with_features(store, key: str, saved, evidence: str | None = None, stored: bool = True) -> ServedModel:
    from ..features import feature_set_from_dict

    from ..pipeline.retrain import resolve_evidence
    from ..pipeline.stages import model_families

    fs = feature_set_from_dict(saved.feature_config, f"model {key}")
    evidence = resolve_evidence(store, key if stored else None, saved.feature_config, evidence,
                                f"model {key}")
    return ServedModel(key, saved, model_families(store, fs), evidence)


def tuned_heidorn(store):
    """Heidorn's ranker tuned on held-out that the store keeps as a model (newest), or None.

    The model file carries the ranker's K table and its settings (head rules, PP as NP) as the
    run tuned it (:func:`ranker.pipeline.stages.fit_heidorn`), so nothing is assumed here.
    """
    from ..pipeline.cache import load_payload

    key = tuned_heidorn_key(store)
    return None if key is None else load_payload(store.model_file(key), where=key).ranker


def tuned_heidorn_key(store) -> str | None:
    """The store key of the model :func:`tuned_heidorn` loads (None: there is none)."""
    from ..models import HeidornRanker
    from ..registries import RANKERS

    for r in sorted(store.model_records(), key=lambda r: r.created, reverse=True):
        if r.ranker in RANKERS and RANKERS.get(r.ranker) is HeidornRanker and "heldout" in r.chosen:
            return r.key
    return None


#: Artifact kind: the model a server ranked a source's candidates with last (key: the source), so that a
#: restart ranks with the model the team retrained rather than the stored default.
SERVED_KIND = "serve-model"


def remember_served(store, source: str, key: str, how: str) -> None:
    """Record that ``source``'s candidates are ranked with the stored model ``key`` (``how``: why)."""
    from ..store.team import now_utc

    store.put_artifact(SERVED_KIND, source, b"", {"model": key, "how": how, "at": now_utc()})


def remembered_served(store, source: str) -> dict | None:
    """``{"model", "how", "at"}`` of the model last served for ``source`` (None: never recorded)."""
    got = store.get_artifact(SERVED_KIND, source)
    return got[1] if got and got[1].get("model") else None


def retrained_model(store, current: ServedModel | None, update, source: str | None = None) -> ServedModel:
    """``current`` adapted to the ``user`` decisions (:func:`ranker.pipeline.retrain.retrain`, warm-started).

    ``source`` is the served candidate source (default the store's only one).

    ``update(fraction, message)`` reports progress after each solver iteration. The new model is
    kept in the store (``ranker models list``) and keeps the feature extractors of ``current``.

    Raises
    ------
    RankerError
        Without a model to start from, or when no decision narrows a forest.
    """
    from ..models.persistence import SavedModel
    from ..pipeline.cache import MODEL_KIND
    from ..pipeline.retrain import retrain

    if current is None:
        raise RankerError("no model to retrain: the store holds none and --model named none "
                          "(train one with ranker train or ranker run)")
    base = current.key if store.get_artifact(MODEL_KIND, current.key) is not None else current.saved
    # one process and thread: the page retrains in a thread of the server, beside its requests
    out = retrain(store, base, kind="user", source=source, evidence=current.evidence, workers=1,
                  progress=lambda i, n: update(i / max(n, 1), f"iteration {i} (at most {n})"))
    saved = SavedModel(out.model, tuple(out.feature_names), current.saved.feature_config, current.saved.tagger)
    return ServedModel(out.key, saved, current.families, current.evidence)
