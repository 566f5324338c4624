"""Retrain a stored log-linear model from collected annotations (people's discriminant decisions).

A person disambiguating forests in ``ranker serve`` leaves a partial annotation of kind ``user``;
this stage turns it into consistent sets X(y, z) and adapts a trained model to them. Training on
the new sentences alone from the usual zero-centred prior would forget everything the model
learned from its training split, so the fit is a MAP adaptation (Chelba and Acero 2004): the
Gaussian prior is centred on the current weights ``λ₀`` and the solver starts there::

    P(λ) = - Σ_j log Σ_{x ∈ X(y_j, z_j)} e^{λ·f(x)} + Σ_j log Σ_{x ∈ X(y_j)} e^{λ·f(x)} + Σ_i (λ_i - λ₀_i)² / 2σ²

with the model's own σ². A few decisions then move the weights only as far as they demand, and
the fit is quick (it starts at the old optimum's neighbourhood). The new model is kept in the store
beside the others (``ranker models list``), keyed by its data and its base model, so retraining
twice on the same decisions loads the first result.

A retrained model is a function of (base model, all the annotations): a model retrained from an
annotation kind is never the base of another retrain on that kind (its base is used instead, with
all the annotations at once), so retraining again without a new decision gives the same model, and
a model is never adapted twice to the same answers. For people's decisions the store keeps an index
from a digest of (base key, everything the adjudicated set is made of: decisions, verdicts,
adjudications; :func:`training_digest`) to the model, so that case is a lookup, not a fit; an
adjudication or a "no correct candidate" changes the training data, and so the digest.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from ..errors import RankerError
from ..store import Store


class RetrainOutcome(NamedTuple):
    """What :func:`retrain` made."""

    key: str                      # the new model's key in the store (ranker models list)
    base: str | None              # the key of the model it started from (None: given as an object)
    model: object                 # the fitted LogLinearRanker
    feature_names: tuple[str, ...]
    sentences: int                # annotated sentences with candidates
    trained: int                  # of those, sentences the training filters kept (the set narrowed)
    n_iter: int                   # solver iterations (0: loaded from the store)


#: Artifact kind: a digest of (base model, annotation kind, rule, source, decisions, verdicts,
#: adjudications) -> the retrained model's key.
RETRAIN_INDEX = "retrain-index"


def root_model(store: Store, key: str, kind: str) -> str:
    """The key of the model ``key`` was retrained from on annotation ``kind``, followed back to the first.

    A model adapted to some decisions already holds them; adapting it again would count them twice.
    """
    from .cache import MODEL_KIND

    seen = {key}
    while True:
        got = store.get_artifact(MODEL_KIND, key)
        meta = got[1] if got else {}
        parent = meta.get("retrained_from")
        if not parent or meta.get("kind") != kind or parent in seen or store.model_file(parent) is None:
            return key
        seen.add(parent)
        key = parent


def training_digest(base_key: str, kind: str, rule: str, source: str, decisions, verdicts=(),
                    adjudications=None, copies: bool = False) -> str:
    """The digest of a retrain's inputs: its base model and everything the training set of people's
    work is made of (:meth:`ranker.sources.adjudication.TeamWork.adjudicated`): every stored
    decision with who gave it (an adjudication picks a person's work), every verdict's flags
    ("no correct candidate" leaves a sentence out; comments teach nothing) and every adjudication
    (whose work stands, and the digest of the work reviewed). Times aside. ``copies``: the base
    has a copy of its features per corpus, which a retrain learns (it once did not: an index entry
    of then names a model whose copies are the base's).
    """
    import hashlib
    import json

    rows = sorted((sid, d.label, d.start, d.end, bool(d.accept), d.who) for sid, d in decisions)
    said = sorted((sid, v.who, bool(v.no_correct), bool(v.confirmed)) for sid, v in verdicts
                  if v.no_correct or v.confirmed)
    picks = sorted((sid, a.chosen, a.work) for sid, a in (adjudications or {}).items())
    text = json.dumps({"base": base_key, "kind": kind, "rule": rule, "source": source, "decisions": rows,
                       "verdicts": said, "adjudications": picks, "retrain": "map-adaptation/1",
                       **({"copies": "learnt/1"} if copies else {})})
    return hashlib.sha1(text.encode()).hexdigest()


def stored_model(store: Store, key: str):
    """``(key, SavedModel)`` of the stored model ``key`` names (the key or a unique prefix).

    Raises
    ------
    RankerError
        If no stored model, or more than one, matches ``key``.
    """
    from .cache import load_payload

    keys = [r.key for r in store.model_records() if r.key.startswith(key)] if key else []
    if len(keys) != 1:
        raise RankerError(f"{store.path}: {'no' if not keys else len(keys)} stored models match "
                          f"{key!r}; name one by its key (ranker models list)")
    return keys[0], load_payload(store.model_file(keys[0]), where=keys[0])


def needs_evidence(feature_config: dict) -> bool:
    """Whether a model's feature configuration has families reading a second source's candidates."""
    from ..features import feature_set_from_dict

    return bool(feature_config) and bool(feature_set_from_dict(feature_config, "<model>").evidence_families())


def run_sources(run) -> tuple[str | None, str | None]:
    """``(candidates, evidence)``: the stored sources a recorded run trained on (None: not recorded).

    ``ranker run`` records its resolved config, whose ``[parse]`` and ``[evidence]`` sections name
    the sources the way the run named them in the store; ``ranker train`` records its
    ``--source`` and ``--evidence`` as it resolved them.
    """
    from .config import ConfigError, config_from_dict
    from .stages import candidate_source, evidence_parse

    settings = run.settings or {}
    if isinstance(settings.get("config"), dict):
        where = f"run {run.id}"
        try:
            cfg = config_from_dict(settings["config"], where)
            ev = evidence_parse(cfg.parse, cfg.evidence, where, check=False)
            return (candidate_source(cfg.parse, where, check=False),
                    None if ev is None else candidate_source(ev, where, check=False, section="[evidence]"))
        except (ConfigError, RankerError):   # a config of an older schema: it names none we can read
            return None, None
    got = tuple(settings.get(k) for k in ("source", "evidence"))
    return tuple(v if isinstance(v, str) and v else None for v in got)


def model_sources(store: Store, key: str) -> tuple[str | None, str | None]:
    """``(candidates, evidence)``: the sources the stored model ``key`` was trained on, as the
    store records them: those of the run that fitted it, else of the model it was retrained from
    (and so on back). None where no record names one.
    """
    runs = {r.id: r for r in store.runs()}
    found: list = [None, None]
    seen: set = set()
    while key and key not in seen and None in found:
        seen.add(key)
        rec = store.model_record(key)
        if rec is None:
            break
        got = run_sources(runs[rec.run]) if rec.run in runs else (None, None)
        found = [f or g for f, g in zip(found, got)]
        key = rec.parent
    return found[0], found[1]


def model_evidence(store: Store, key: str) -> str | None:
    """The second source whose candidates the stored model ``key`` was trained to read
    (:func:`model_sources`), None when no record names one."""
    return model_sources(store, key)[1]


def resolve_evidence(store: Store, key: str | None, feature_config: dict, given: str | None = None,
                     what: str = "the model") -> str | None:
    """The stored evidence source a model's features need: ``given`` (checked), else the one its
    record names (:func:`model_evidence`); None when its families read no second source.

    Raises
    ------
    RankerError
        When its families read one but neither ``given`` nor the store names it, or the source
        named holds no candidates in this store.
    """
    from .stages import stored_source

    if not needs_evidence(feature_config):
        return None if given is None else stored_source(store, given)
    name = given or (model_evidence(store, key) if key else None)
    if name is None:
        raise RankerError(f"{what}: its feature families read a second source's candidates of each "
                          "sentence and no record names that source: give it with --evidence")
    return stored_source(store, name)


def retrain(store: Store, model, kind: str = "user", progress: Callable[[int, int], None] | None = None,
            source: str | None = None, rule: str | None = None, workers: int | None = None,
            evidence: str | None = None, split: str | None = None) -> RetrainOutcome:
    """Adapt a stored log-linear model to the annotations of ``kind`` and store the new model.

    Parameters
    ----------
    store
        An open, writable store.
    model : str or SavedModel
        The key (or a unique prefix) of a stored log-linear model, or a loaded
        :class:`~ranker.models.persistence.SavedModel` (with its feature configuration). A stored
        model itself retrained on ``kind`` stands for its base (:func:`root_model`).
    kind
        The annotation to learn from; ``user`` (the stored decisions) is brought up to date and
        checked first; any other kind must have been stored and checked (``ranker annotate``).
    progress
        Called as ``progress(iteration, max_iter)`` after each solver iteration.
    source
        The candidates' source (default: the store's only one).
    rule
        Consistency rule of :meth:`~ranker.store.Store.consistent_sets` for sentences whose
        answers contradict each other (``strict``: they teach nothing; ``fewest``: their
        least-violating candidates count); default the dataclass's ``[annotation] rule``. The
        rules that read crossings refuse sentences with rejected brackets (user decisions).
    workers
        Feature extraction processes (for sentences whose features are not stored yet) and the
        fit's threads, 0 every core; default ``[experiment] workers``. The model is the same for
        any number.
    evidence
        The second source the model's evidence families read (default: the one its record
        names, :func:`resolve_evidence`).
    split
        Learn only from the annotated sentences of this split of their corpus (a name, document
        ranges, a glob or ``@FILE``; :func:`~.splits.select_split`); None: every annotated sentence.
        Kinds derived from gold trees (riezler, best_f) hold test sentences too: ``ranker models
        retrain`` gives them ``train`` by default.

    Raises
    ------
    RankerError
        If the model is not a log-linear one with a feature configuration, or no annotated
        sentence has a forest the annotation narrows (nothing to learn).
    """
    from ..features import feature_set_from_dict
    from ..features.datasets import consistency_weights

    from ..models import LogLinearRanker
    from .annotation_kinds import kind_of
    from .config import AnnotationSection, ExperimentSection
    from .splits import SplitSelection
    from .stages import StageContext, annotate, fit_warm, model_features, stored_source

    from .cache import MODEL_KIND, load_payload
    from .domains import model_copies, row_copies

    base_key, saved = stored_model(store, model) if isinstance(model, str) else (None, model)
    if base_key is not None and root_model(store, base_key, kind) != base_key:
        base_key, saved = stored_model(store, root_model(store, base_key, kind))
    base = saved.ranker
    if not isinstance(base, LogLinearRanker):
        raise RankerError(f"{base_key or 'the model'}: a {type(base).__name__} cannot be retrained; "
                          "name a log-linear model (ranker models list)")
    if not saved.feature_config:
        raise RankerError(f"{base_key or 'the model'}: the model carries no feature configuration; "
                          "rerun ranker run to store one with it")
    source = stored_source(store, source)
    evidence = resolve_evidence(store, base_key, saved.feature_config, evidence, base_key or "the model")
    rule = rule or AnnotationSection().rule
    if rule == "auto":   # a retrain has no held-out split to choose on
        raise RankerError("rule 'auto' chooses the consistency rule on held-out, which a retrain has none of: "
                          "name a rule (--rule)")
    index_key = None
    if kind_of(kind).from_decisions:
        decisions = store.decisions()
        if not decisions:
            raise RankerError(f"{store.path}: no discriminant decisions are stored, so annotation "
                              f"{kind!r} is empty: make some in ranker serve first")
        if base_key is not None and split is None:   # the index is of the whole team's work
            index_key = training_digest(base_key, kind, rule, source, decisions, store.verdicts(),
                                        store.adjudications(), bool(model_copies(tuple(saved.feature_names))[1]))
            known = store.get_artifact(RETRAIN_INDEX, index_key)
            payload = store.model_file(known[1]["model"]) if known else None
            if payload is not None:   # this work was learnt from this base before
                key = known[1]["model"]
                meta = store.get_artifact(MODEL_KIND, key)[1]
                got = load_payload(payload, saved.feature_names, where=key)
                return RetrainOutcome(key, base_key, got.ranker, tuple(saved.feature_names),
                                      int(meta.get("sentences", 0)), int(meta.get("trained", 0)), 0)
        annotate(StageContext(store, source, 1, False, "retrain"), AnnotationSection(kind=kind, rule=rule), [])
        if not store.annotations(kind, corpus=None):   # the adjudicated set is empty
            raise RankerError(f"{store.path}: nothing to learn from annotation {kind!r}: every sentence's "
                              "decisions conflict between annotators (awaiting adjudication on ranker serve's "
                              "agreement page) or say that no candidate is correct")
    sets = store.consistent_sets(kind, corpus=None, source=source, rule=rule)
    sentences = tuple(store.sentence(sid) for sid in sets)
    if split is not None and sentences:
        from .splits import select_split

        within: set[str] = set()
        for corpus in sorted({s.corpus for s in sentences}):
            try:
                within.update(s.id for s in select_split(store, corpus, split).sentences)
            except RankerError:
                pass   # this corpus has none of the split: checked below, as a whole
        sentences = tuple(s for s in sentences if s.id in within)
        if not sentences:
            raise RankerError(f"{store.path}: no sentence annotated as {kind!r} with candidates from {source} "
                              f"is in split {split!r}")
    if not sentences:
        raise RankerError(f"{store.path}: no sentence annotated as {kind!r} has candidates from {source}")
    corpora = sorted({s.corpus for s in sentences})
    sel = SplitSelection(f"{kind} annotations", corpora[0] if len(corpora) == 1 else "+".join(corpora),
                         None, None, sentences)
    ctx = StageContext(store, source, ExperimentSection().workers if workers is None else workers, False,
                       "retrain", evidence=evidence)
    m = model_features(ctx, feature_set_from_dict(saved.feature_config, base_key or "<model>"), sel)
    names = saved.feature_names
    # a model with a copy of its features per corpus learns the copies of its sentences' corpora as
    # ranker run trained them, made by the objective: the rows hold its shared columns alone
    corpus_of = {s.id: s.corpus for s in sentences}
    d, copies = row_copies(names, np.repeat([corpus_of[sid] for sid in m.sentence_ids], np.diff(m.offsets)))
    X = m.restrict(names[:d])
    y = consistency_weights(store, m, kind, None, None, source, rule)
    qualities = store.forest_qualities(source)
    full = np.array([q == "full" for sid in m.sentence_ids for q in qualities[sid]], dtype=bool)
    got = fit_warm(ctx, base, X, y, m.groups(), full, names,
                   {"retrained_from": base_key, "kind": kind, "rule": rule, "sentences": len(sentences)},
                   {"kind": kind, "retrain": "map-adaptation/1"}, saved.feature_config, parent=base_key,
                   tagger=saved.tagger, progress=progress, copies=copies,
                   refused=f"{store.path}: nothing to learn from annotation {kind!r} of {len(sentences)} "
                           "sentences: no forest is narrowed by it")
    if index_key is not None:
        store.put_artifact(RETRAIN_INDEX, index_key, b"", {"model": got.key})
    return RetrainOutcome(got.key, base_key, got.model, tuple(names), len(sentences), int(got.meta["trained"]),
                          got.n_iter)
