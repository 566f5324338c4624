"""Annotation kinds as objects: where a kind's brackets come from, what it needs, how it weights candidates.

The registry :data:`ranker.registries.ANNOTATIONS` holds these classes by kind name, so the stage
(:func:`ranker.pipeline.stages.annotate`), the config check (:func:`.validate.validate_config`),
``ranker annotate``, ``ranker train`` and the retrain ask the kind instead of comparing its name:

- :class:`GoldBrackets` (``riezler``): Crouch et al.'s partial bracketing derived from gold trees;
- :class:`FullAnnotation` (``best_f``): the candidates of best F against the gold tree, weighted
  1/k (:mod:`.best_f`), so no training sentence has an empty consistent set;
- :class:`CorpusBrackets` (``chunks``): brackets stored with their corpus (CoNLL-2000's chunks);
- :class:`Decisions` (``user``): the adjudicated discriminant decisions of ``ranker serve``;
- :class:`BracketFile`: any other name, brackets read from a user's file (``ranker annotate
  --kind file``) and stored under that name.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from ..errors import RankerError


class AnnotationOutcome(NamedTuple):
    """Which annotation kinds define the consistent sets, and the rule applied when none is."""

    kind: str          # of the main corpus
    extra_kind: str    # of the extra corpora
    rule: str          # [annotation] rule, one of ranker.store.consistency.RULES (:meth:`Store.consistent_sets`)
    annotated: int = 0             # sentences annotated now
    checked: object = None         # CheckSummary of the main kind: candidates checked now
    best_f: tuple | None = None    # kind best_f: (metric, ScoringSettings) its weights are read by


class AnnotationKind:
    """One kind of (partial) annotation; the subclasses say where its brackets come from."""

    #: Where its brackets come from, as messages say it ("gold trees", "a corpus", "decisions", "a file").
    origin: str = "a file"
    #: The corpus whose sentences ``ranker annotate --kind NAME`` loads and annotates (None: the store's).
    corpus: str | None = None
    #: Whether every candidate is weighted by its F (``best_f``): no sentence's consistent set is empty.
    full: bool = False
    #: Whether the brackets are people's decisions (``ranker serve``), read again at each use.
    from_decisions: bool = False
    #: Whether the brackets are derived from the corpus's gold (trees or chunks), so every sentence
    #: has them, the test sentences too (a retrain learns from the train split by default).
    from_gold: bool = False

    def __init__(self, name: str):
        self.name = name

    def check_run(self, cfg, reader, where: str) -> None:
        """Refuse, naming the key, a run whose corpus cannot give this kind's brackets."""
        raise RankerError(f"{where}: [annotation] kind {self.name!r} is {_known()}; a bracket file is "
                          "stored with ranker annotate --kind file")

    def store(self, ctx, annotation, sentences: Sequence) -> int:
        """Store this kind's brackets for ``sentences``; how many sentences were annotated now."""
        raise RankerError(f"{ctx.where}: annotation kind {self.name!r} is {_known()}: it needs a bracket file")

    def annotate(self, ctx, annotation, sentences: Sequence, with_extra: bool, eq, recheck: bool,
                 brackets: str | Path | None, evaluation):
        """Store the brackets and check every candidate against them (:func:`ranker.pipeline.stages.annotate`)."""
        from ..sources.annotations import check_store

        if brackets is not None:   # any kind may be read from a user's file (replacing its sentences' brackets)
            added = _from_file(ctx.store, brackets, self.name)
            recheck = True         # the file may have changed since the last check
        else:
            added = self.store(ctx, annotation, sentences)
        checked = check_store(ctx.store, self.name, eq, recheck=recheck, progress=ctx.progress,
                              workers=ctx.n_workers, source=ctx.source)
        if with_extra:
            check_store(ctx.store, annotation.extra_kind, eq, progress=ctx.progress, workers=ctx.n_workers)
        return AnnotationOutcome(self.name, annotation.extra_kind, annotation.rule, added, checked)

    def weights(self, ctx, matrix, sel, rule: str, best_f: tuple | None) -> np.ndarray:
        """Consistency weights of ``matrix``'s rows: 1 for the candidates consistent under ``rule``."""
        from ..features.datasets import consistency_weights

        return consistency_weights(ctx.store, matrix, self.name, sel.corpus, sel.split, ctx.need_source(), rule)


class GoldBrackets(AnnotationKind):
    """``riezler``: the partial bracketing Crouch et al. (2.1) derive from each gold tree."""

    origin = "gold trees"
    corpus = "treebank"
    from_gold = True

    def check_run(self, cfg, reader, where: str) -> None:
        _needs_gold(self.name, reader, where)

    def store(self, ctx, annotation, sentences) -> int:
        from ..sources.annotations import riezler_annotations

        store = ctx.store
        have = store.annotations(self.name)
        new = [s for s in sentences if s.id not in have]
        return store.add_annotations(riezler_annotations((s.id, store.gold(s.id)) for s in new)) if new else 0


class FullAnnotation(AnnotationKind):
    """``best_f``: the candidates of best F against the gold tree, each of k tied winners weighted 1/k."""

    origin = "gold trees"
    corpus = "treebank"
    from_gold = True
    full = True

    def check_run(self, cfg, reader, where: str) -> None:
        from .best_f import best_f_key
        from .provenance import scoring_settings

        _needs_gold(self.name, reader, where)
        try:
            best_f_key(cfg.annotation.best_f_metric, scoring_settings(cfg.evaluation))
        except RankerError as e:
            raise RankerError(f"{where}: [annotation] {e}") from None

    def annotate(self, ctx, annotation, sentences, with_extra, eq, recheck, brackets, evaluation):
        from ..sources.annotations import check_store
        from .best_f import ensure_best_f_counts
        from .provenance import record_scoring, scoring_settings

        if brackets is not None:   # a bracket file stored under the name best_f is a partial bracketing
            return AnnotationKind.annotate(self, ctx, annotation, sentences, with_extra, eq, recheck,
                                           brackets, evaluation)
        if ctx.source is None:
            raise RankerError(f"{ctx.where}: [annotation] kind {self.name!r} needs the candidate source")
        if evaluation is None:
            raise RankerError(f"{ctx.where}: [annotation] kind {self.name!r} needs the [evaluation] settings "
                              "its counts are computed with")
        settings = scoring_settings(evaluation)
        done = ensure_best_f_counts(ctx.store, sentences, ctx.source, annotation.best_f_metric, settings,
                                    ctx.n_workers)
        record_scoring(ctx.store, evaluation, ctx.source)
        if with_extra:
            check_store(ctx.store, annotation.extra_kind, eq, progress=ctx.progress, workers=ctx.n_workers)
        return AnnotationOutcome(self.name, annotation.extra_kind, annotation.rule, done, None,
                                 (annotation.best_f_metric, settings))

    def weights(self, ctx, matrix, sel, rule, best_f) -> np.ndarray:
        from .best_f import best_f_weights

        if best_f is None:
            raise RankerError(f"annotation {self.name!r} needs its metric and scoring settings")
        metric, settings = best_f
        return best_f_weights(ctx.store, matrix, metric, settings, ctx.need_source())


class CorpusBrackets(AnnotationKind):
    """``chunks``: brackets stored with their corpus when it is loaded (CoNLL-2000's chunks)."""

    origin = "a corpus"
    corpus = "conll2000"
    from_gold = True

    def check_run(self, cfg, reader, where: str) -> None:
        if not getattr(reader, "has_annotation", False):
            raise RankerError(f"{where}: [annotation] kind {self.name!r} is stored with corpus {self.corpus}, "
                              f"not with [data] corpus {cfg.data.corpus!r}: train on it as [data] "
                              "extra_training, or choose kind riezler, best_f or user")

    def store(self, ctx, annotation, sentences) -> int:
        return 0   # stored with the corpus (stages.load_corpus)


class Decisions(AnnotationKind):
    """``user``: people's accepted and rejected discriminants (``ranker serve``), their adjudicated set."""

    origin = "decisions"
    from_decisions = True

    def check_run(self, cfg, reader, where: str) -> None:
        """Refuse a run whose store holds no decision on a training sentence, before any stage works
        (the run parsed, counted and stamped the store's records, then refused)."""
        from ..store import Store
        from .splits import split_selection

        path = Path(cfg.experiment.store)
        decided: set[str] = set()
        if path.is_file():
            with Store.open(path, readonly=True) as st:
                decided = {sid for sid, _ in st.decisions()}
        train = split_selection(reader, cfg.data.train)
        if not any(c == reader.name and doc in train for c, doc, _ in (sid.rsplit("/", 2) for sid in decided)):
            held = "no such store yet: ranker parse makes it" if not path.is_file() else (
                f"its {len(decided)} decided sentences are all outside it" if decided else "no decision at all")
            raise RankerError(f"{where}: [annotation] kind {self.name!r} learns from the decisions people make in "
                              f"ranker serve, and store {path} holds none on a sentence of [data] train "
                              f"({cfg.data.train}: {held}); make them first (ranker serve --store {path}), or "
                              "choose kind riezler or best_f")

    def store(self, ctx, annotation, sentences) -> int:
        from ..sources.adjudication import store_spans, store_team_work
        from ..sources.discriminants import user_annotations

        store = ctx.store
        team = store_team_work(store)
        return store.replace_annotations(self.name, user_annotations(team.adjudicated(store_spans(store, ctx.source)),
                                                                     self.name))


class BracketFile(AnnotationKind):
    """Any other name: brackets a user's file gives (``ranker annotate --kind file --name NAME``)."""


def kind_of(name: str) -> AnnotationKind:
    """The kind ``name`` stands for: a registered one, else brackets stored under that name (a user file's)."""
    from ..registries import ANNOTATIONS

    if name in ANNOTATIONS.names(bare=True):   # bare only: "user/1" would store brackets nobody reads
        return ANNOTATIONS.get(name)(name)
    return BracketFile(name)


def _needs_gold(name: str, reader, where: str) -> None:
    if not reader.has_gold:
        raise RankerError(f"{where}: [annotation] kind {name!r} is derived from gold trees, and [data] corpus "
                          f"{reader.name!r} has none: annotate it in ranker serve and choose kind user")


def _known() -> str:
    """The registered kinds by where their brackets come from, for messages."""
    from ..registries import ANNOTATIONS

    by: dict[str, list[str]] = {}
    for name in ANNOTATIONS.names(bare=True):
        by.setdefault(kind_of(name).origin, []).append(name)
    return ("neither " + ", nor ".join(f"{'derived from' if o == 'gold trees' else 'stored with' if o == 'a corpus' else 'made of'} "
                                      f"{o} ({', '.join(names)})" for o, names in by.items()))


def _from_file(store, brackets, kind: str) -> int:
    """The sentences of a bracket file stored under ``kind`` (each replacing what was stored for it)."""
    from ..sources.annotations import read_bracket_file

    known = {s.id: len(s.tokens) for s in store.sentences()}
    return store.add_annotations(read_bracket_file(brackets, kind, known))
