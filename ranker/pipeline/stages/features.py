"""The ``extract_features`` and ``training_rows`` stages: the feature matrices and the rows every fit learns from."""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from ...errors import RankerError
from ..config import FeaturesSection
from ..domains import SHARED
from ..splits import SplitSelection
from .annotation import AnnotationOutcome
from .context import StageContext


def extract_features(ctx: StageContext, features: FeaturesSection, sel: SplitSelection,
                     label: str | None = None, on_demand: bool = False, keyed: bool = False):
    """The split's feature matrix (stored and reused while the split's forests stay the same).

    ``on_demand``: its rows read from the store a run at a time, never held whole (training's
    matrices: :func:`ranker.pipeline.feature_cache.cached_matrix`). ``keyed``: ``(matrix, key)``,
    its store key naming its content (the key of the training rows' inputs).
    """
    from ...features import load_feature_set

    from ..feature_cache import cached_matrix

    fs = load_feature_set(features.set)
    return cached_matrix(ctx.store, fs, sel, ctx.need_source(), workers=ctx.n_workers,
                         progress=f"features {label or sel.name}" if ctx.progress else None,
                         evidence=ctx.evidence, on_demand=on_demand, keyed=keyed)


def model_features(ctx: StageContext, feature_set, sel: SplitSelection, progress: str | None = None):
    """A model's feature matrix of a selection (``feature_set``: the one its configuration gives), stored and reused.

    What ``ranker apply``, ``ranker select`` and a retrain read a model's candidates with: the
    store's matrix of ``feature_set`` over ``ctx``'s source (and evidence), extracted by
    ``ctx.workers`` processes when absent. ``progress`` names the bar (shown when ``ctx.progress``).
    Its rows in the model's columns (:func:`ranker.pipeline.domains.model_rows`: with the copies of
    the selection's corpus where the model has them) are what the model scores.
    """
    from ..feature_cache import cached_matrix

    return cached_matrix(ctx.store, feature_set, sel, ctx.need_source(), workers=ctx.n_workers,
                         progress=progress if ctx.progress else None, evidence=ctx.evidence)


def model_families(store, feature_set) -> list:
    """A model's feature families (``feature_set``: the one its configuration gives), built and fitted.

    The tables of the families that learn from training data are read from ``store``, or fitted
    there and kept (:func:`ranker.pipeline.feature_cache.fit_families`).
    """
    from ..feature_cache import fit_families

    families = feature_set.build()
    fit_families(store, families)   # tables of learning families are stored with the run
    return families


def forest_features(families: list, names: Sequence[str], forests: Sequence):
    """The feature rows of forests held in memory (not a stored selection), in a model's columns ``names``.

    The page's one forest at a time (``ranker serve``): ``families`` are the model's built
    families (:func:`model_families`), each forest's candidates rows in forest order, with the
    copies of its sentence's corpus where the model has them (:func:`ranker.pipeline.domains.model_rows`).
    """
    from ...features import extract
    from ...matrices.compact import vstack
    from ..domains import model_rows

    forests = list(forests)
    corpora = {f.sentence.corpus for f in forests}
    if len(corpora) <= 1:
        return model_rows(extract(forests, families), next(iter(corpora), None), names)
    return vstack([model_rows(extract([f], families), f.sentence.corpus, names) for f in forests])


def column_features(columns, forests: Sequence, workers: int = 1):
    """The feature rows of a chunk of streamed forests, extracted straight into a model's columns.

    ``columns`` is the model's :class:`ranker.features.applying.ModelColumns` (``ranker apply
    --lists`` without a store); ``workers`` processes share the chunk.
    """
    return columns.extract(forests, workers)


class HeldoutRows(NamedTuple):
    """A held-out selection's feature rows and each row's quality, what σ², the rule and the space are chosen on."""

    matrix: object        # CandidateMatrix of the selection (features of [features])
    quality: np.ndarray   # each row's candidate quality under the metric (candidate_quality)
    key: str = ""         # the matrix's store key (what it is made of: HeldoutSplits' keys)


def heldout_rows(ctx: StageContext, features: FeaturesSection, sel: SplitSelection, counts,
                 metric: str, on_demand: bool = False) -> HeldoutRows:
    """The held-out rows ``ranker run`` and ``ranker train`` choose on: ``sel``'s matrix and each row's quality.

    ``counts`` are the selection's stored counts of ``metric`` (:func:`.counting.load_counts`); the
    qualities are :func:`.counting.candidate_quality`'s, checked to be one per feature row.
    ``on_demand``: the matrix's rows stay in the store until a fit's held-out rows are made
    (:class:`ranker.pipeline.domains.HeldoutSplits`), not held from here on.
    """
    from .counting import candidate_quality

    matrix, key = extract_features(ctx, features, sel, on_demand=on_demand, keyed=True)
    quality = candidate_quality(counts, metric)
    if len(quality) != matrix.X.shape[0]:
        raise RankerError("held-out counts and feature rows disagree; rerun with a fresh store")
    return HeldoutRows(matrix, quality, key)


class TrainableSplit(NamedTuple):
    """A training selection without the sentences no fit can learn from, and how the filters count them."""

    selection: SplitSelection    # the sentences whose consistent set is not empty
    dropped: dict[str, int]      # training filter -> left-out sentences it drops (first filter that fires)


def trainable(ctx: StageContext, sel: SplitSelection, kind: str, rule: str | Sequence[str],
              template) -> TrainableSplit:
    """Leave out the training sentences whose consistent set is empty, before their features are extracted.

    Their likelihood is zero whatever the weights, so the trainer drops them
    (:func:`ranker.models.training_set.select_training_rows`), and the cut-off counts only
    consistent candidates, so the fitted model is the same with or without their rows; extracting
    them is wasted work (on the WSJ sample under the strict rule, 1,581 of 3,068 training
    sentences). ``dropped`` counts them by the filter that would have dropped them (``template``'s
    filters, in the trainer's order), so the report's counts stay what they were. Kind ``best_f``
    has no empty set: ``sel`` comes back whole. With several rules (a rule grid), a sentence is
    kept when its set is not empty under any of them.
    """
    from ...models.training_set import select_training_rows
    from ..annotation_kinds import kind_of

    store, source = ctx.store, ctx.need_source()
    if kind_of(kind).full:
        return TrainableSplit(sel, {})
    rules = (rule,) if isinstance(rule, str) else tuple(rule)
    sets = [store.consistent_sets(kind, sel.corpus, sel.split, source=source, rule=r) for r in rules]
    keep, left_out = [], []
    for s in sel.sentences:
        learns = any(cs is not None and any(w > 0 for w in cs.weights) for cs in (by.get(s.id) for by in sets))
        (keep if learns else left_out).append(s)
    if not left_out:
        return TrainableSplit(sel, {})
    qualities = store.forest_qualities(source)
    forests = [qualities[s.id] for s in left_out if s.id in qualities]   # sentences with candidates
    offsets = np.concatenate([[0], np.cumsum([len(q) for q in forests])]).astype(np.int64)
    full = np.array([q == "full" for qs in forests for q in qs], dtype=bool)
    rows = select_training_rows(np.zeros(int(offsets[-1])), offsets, max_parses=template.max_parses,
                                full=full if template.full_parses_only else None,
                                proper_subset=template.proper_subset)
    return TrainableSplit(sel._replace(sentences=tuple(keep)), rows.dropped)


def consistency(ctx: StageContext, matrix, kind: str, sel: SplitSelection,
                rule: str, best_f: tuple | None = None) -> np.ndarray:
    """Consistency weights of the matrix's rows under annotation ``kind`` (0 for unannotated).

    For kind ``best_f``, ``best_f`` is ``AnnotationOutcome.best_f``: the weights are 1/k on each
    sentence's k candidates with the top F (:func:`.best_f.best_f_weights`).
    """
    from ..annotation_kinds import kind_of

    return kind_of(kind).weights(ctx, matrix, sel, rule, best_f)


def training_rows(ctx: StageContext, features: FeaturesSection, template, blocks: Sequence,
                  weights: Sequence[np.ndarray],
                  gains: Sequence[np.ndarray] | None = None,
                  dropped_before: dict[str, int] | None = None, counted: int = 1, qualities: dict | None = None):
    """The rows every fit learns from: cut-off applied, the template's filters applied.

    ``gains`` (each block's candidate F in [0, 1]) travel with the rows for minimum-risk training.
    ``blocks`` stay the caller's (a set's rows are built again when read again). ``dropped_before``
    (:attr:`TrainableSplit.dropped` of the blocks' selections) is added to the filters' counts,
    so they cover every training sentence. The cut-off counts the consistent candidates of the
    first ``counted`` blocks (the treebanks: the main one and those of ``[[data.also]]``).
    ``qualities`` are the source's forest qualities when the caller has read them.

    Returns
    -------
    TrainingData
    """
    from ..training_rows import training_data

    data = training_data(list(blocks), list(weights), features.cutoff,
                         ctx.store.forest_qualities(ctx.need_source()) if qualities is None else qualities,
                         template, gains, counted=counted)
    return data._replace(survivors=with_dropped(data.survivors, dropped_before)) if dropped_before else data


def with_dropped(survivors, dropped_before: dict[str, int]):
    """``survivors`` (:class:`~ranker.models.training_set.TrainingRows`) with ``dropped_before`` (the
    sentences left out before extraction, by filter: :attr:`TrainableSplit.dropped`) added to its counts."""
    seen = survivors.dropped
    return survivors._replace(dropped={k: seen.get(k, 0) + dropped_before.get(k, 0)
                                       for k in dict.fromkeys([*seen, *dropped_before])})


class TrainingSet(NamedTuple):
    """The training rows of an experiment, and the size of its feature space before the cut-off."""

    data: object                   # TrainingData: the rows every fit learns from
    features_before_cutoff: int    # properties of the main training split's candidates
    domains: str = SHARED          # its feature space (ranker.pipeline.domains): shared or per-corpus


def training_set(ctx: StageContext, annotation: AnnotationOutcome, features: FeaturesSection, template,
                 selections: Sequence[SplitSelection]) -> TrainingSet:
    """The training rows of ``selections`` (the main split, then any extra corpora) under ``annotation.rule``.

    ``ranker run`` and ``ranker train`` both train from what this (or, for a grid of rules,
    :func:`training_sets`) returns.
    """
    (_, got), = training_sets(ctx, annotation, features, template, selections, (annotation.rule,))
    return got


def training_sets(ctx: StageContext, annotation: AnnotationOutcome, features: FeaturesSection, template,
                  selections: Sequence[SplitSelection], rules: Sequence[str], treebanks: int = 1,
                  domains: Sequence[str] = (SHARED,)):
    """``(rule, TrainingSet)`` for each of ``domains`` and each of ``rules`` in turn, from one extraction.

    The first ``treebanks`` selections are the train splits of treebanks (the main corpus, then
    those of ``[[data.also]]``: annotation ``annotation.kind``), the rest extra corpora
    (``annotation.extra_kind``). In feature space ``per-corpus`` each treebank's features get
    their corpus's copies beside the shared ones, made by the objective
    (:mod:`ranker.models.copies`): the rows are the shared space's, no entry copied, and a pair
    after one of the same rule (a single rule's two spaces) shares that pair's rows.

    Sentences no rule can learn from are left out before extraction (:func:`trainable`), each
    selection's features are extracted once (:func:`extract_features`) and weighted by its
    annotation under each rule in turn (the main split by ``annotation.kind``, extra corpora by
    ``annotation.extra_kind``), minimum risk gets every candidate's own F, and the cut-off and the
    template's filters are applied (:func:`training_rows`). A sentence kept for another rule but
    empty under this one is dropped by the filters and counted with the rest. A generator, so one
    rule's rows are held at a time: each set's rows are released (:meth:`~ranker.pipeline.training_rows.PlannedRows.release`)
    when the next rule's set is made, and the last rule's when the generator ends; a set kept (a
    grid's chosen rule) builds its rows again when they are read again.

    Each set's ``data`` is a :class:`~ranker.pipeline.training_rows.PlannedRows`: what the filters keep
    is known from the weights and forests alone (:func:`~ranker.pipeline.training_rows.row_plan`), the
    rows are built from the stored matrices (read a run at a time) when a fit first needs them,
    and every fit of them is keyed by their inputs (:func:`~ranker.pipeline.training_rows.rows_key`):
    a warm rerun loads a rule's stored fits without building its rows.
    """
    from ..training_rows import PlannedRows, copied_names, row_plan, rows_key, with_copies

    rules = tuple(rules)
    kinds = [annotation.kind] * treebanks + [annotation.extra_kind] * (len(selections) - treebanks)
    # training sentences with an empty consistent set (under every rule) are dropped whatever their features
    kept = [trainable(ctx, sel, kind, rules, template) for sel, kind in zip(selections, kinds)]
    # read a run of rows at a time as the rows are built: the matrices are never held whole
    keyed = [extract_features(ctx, features, t.selection, label=None if i == 0 else t.selection.corpus,
                              on_demand=True, keyed=True) for i, t in enumerate(kept)]
    mats, matrix_keys = [m for m, _ in keyed], [k for _, k in keyed]
    del keyed
    before = len(mats[0].names)
    dropped: dict[str, int] = {}
    for t in kept:
        for why, k in t.dropped.items():
            dropped[why] = dropped.get(why, 0) + k
    gains = None
    if template.needs_gain:   # minimum risk: every candidate's own F
        from ..best_f import best_f_gains

        if annotation.best_f is None:
            raise RankerError(f"{ctx.where}: minimum-risk training needs [annotation] kind 'best_f'")
        gains = [best_f_gains(ctx.store, m, *annotation.best_f, ctx.need_source()) for m in mats[:treebanks]]
    qualities = ctx.store.forest_qualities(ctx.need_source())
    pairs = [(space, rule) for space in domains for rule in rules]
    block_rows = [m.X.shape[0] for m in mats]
    corpora = [t.selection.corpus for t in kept[:treebanks]]
    shared = None   # the last rule's shared rows: a pair after one of the same rule differs in the objective alone
    handed: list = []   # the sets of the last rule, whose rows go when the next rule's set is made
    for space, rule in pairs:
        weights = [consistency(ctx, m, kind, t.selection, rule, annotation.best_f if j < treebanks else None)
                   for j, (m, kind, t) in enumerate(zip(mats, kinds, kept))]
        plan = row_plan(mats, weights, qualities, template, gains)
        plan = plan._replace(survivors=with_dropped(plan.survivors, dropped))
        if shared is None or shared[0] != rule:
            for done in handed:
                done.release()
            handed = []
            key = rows_key(matrix_keys, weights, plan, template, features.cutoff, treebanks, SHARED)
            shared = (rule, PlannedRows(key, plan, lambda weights=weights: training_rows(
                ctx, features, template, mats, weights, gains, dropped_before=dropped, counted=treebanks,
                qualities=qualities)))
        if space == SHARED:
            got = shared[1]
        else:   # the shared rows with their corpus copies (the copies' names counted on the same weights)
            key = rows_key(matrix_keys, weights, plan, template, features.cutoff, treebanks, space,
                           {"corpora": corpora, "blocks": block_rows})
            got = PlannedRows(key, plan, lambda rows=shared[1], weights=weights: with_copies(
                rows.rows(), copied_names(mats[:treebanks], weights, features.cutoff), corpora, block_rows))
        yield rule, TrainingSet(got, before, space)
        handed += [got, shared[1]]
        del got, weights
    for done in handed:
        done.release()
