"""The stages of an experiment as public functions: ``stage(ctx, section, ...) -> record``.

Every stage takes a :class:`StageContext` (the open store, the candidate source, the workers, progress
and where its settings come from) and its config section, and returns a documented record.
``ranker run`` (:func:`ranker.pipeline.experiment.run_experiment`) is their composition, and every
subcommand (``ranker parse``, ``import``, ``annotate``, ``counts``, ``train``, ``select``,
``gold``), ``models retrain`` and ``ranker serve`` call the same stages with the same defaults
(the config dataclasses), so a store prepared by hand is the store ``ranker run --store`` would
have made.

=================  ==================================  ==========================================
stage              reads                               returns
=================  ==================================  ==========================================
select_splits      ``[data]``, the corpora             :class:`Splits`
parse_or_import    ``[parse]``, the sentences          :class:`ParseOutcome` (forests stored)
parse_evidence     ``[evidence]``, the sentences       :class:`ParseOutcome` or None (stored)
annotate           ``[annotation]``, train sentences   :class:`AnnotationOutcome` (checks stored)
compute_counts     ``[evaluation]``, forests           :class:`CountsOutcome` (counts stored)
extract_features   ``[features]``, forests             :class:`~ranker.features.CandidateMatrix`
training_rows      ``[features]``, ``[loglinear]``     :class:`~.training.TrainingData`
fit_loglinear      ``[loglinear]``, training rows      :class:`LogLinearFit` (models stored)
fit_heidorn        ``[heidorn]``, held-out counts      :class:`HeidornFit` (model stored)
select_test        the fitted rankers                  :class:`Choices`
evaluate           ``[evaluation]``, counts, choices   :class:`Evaluation`
write_gold, ...    the test split, the choices         files (``gold.mrg``, ``selected/*.mrg``)
=================  ==================================  ==========================================

The report itself (:mod:`.report`) is written by :func:`.experiment.run_experiment` from these
records, the stage timings and the counts each record carries.
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from ..errors import RankerError
from ..evaluation.bounds import METRICS, ForestCounts
from ..store import Store
from ..store.records import Sentence
from .config import (AnnotationSection, DataSection, EvaluationSection, EvidenceSection,
                     ExperimentSection, FeaturesSection, HeidornSection, LogLinearSection,
                     ParseSection)
from .counts import conversion_ceiling, load_forest_counts, score_candidates
from ..evaluation.scoring import Scorer, ScoringSettings
from .splits import SplitSelection, select_split

LINK_GRAMMAR = "link-grammar"


class StageContext(NamedTuple):
    """What every stage runs with, besides its config section: the one contract of the stages.

    ``ranker run``, every subcommand, ``models retrain`` and ``ranker serve`` build one and call
    the same stages with it, so a stage never learns its store, source, parallelism or messages
    from a caller-specific argument list.
    """

    store: Store
    source: str | None = None    # the candidates the stages read (set once parsed, imported or found)
    workers: int = 0             # processes and threads, 0 = every core ([experiment] workers)
    progress: bool = False       # progress bars
    where: str = "<config>"      # the config file or command, for messages
    executor: object = None      # the executor the data-parallel work runs on (None: the local pool)
    evidence: str | None = None  # a second source whose candidates the evidence families read

    def with_source(self, source: str) -> "StageContext":
        """The same context reading ``source``'s candidates."""
        return self._replace(source=source)

    def with_evidence(self, evidence: str | None) -> "StageContext":
        """The same context giving the evidence families ``evidence``'s candidates (None: none)."""
        return self._replace(evidence=evidence)

    @property
    def n_workers(self) -> int:
        """``workers`` resolved (0 = every core)."""
        return resolve_workers(self.workers)

    def need_source(self) -> str:
        """The candidate source, which a stage that reads candidates needs."""
        if self.source is None:
            raise RankerError(f"{self.where}: no candidate source yet (parse or import first)")
        return self.source


def resolve_workers(workers: int) -> int:
    """Processes (or threads) to use: ``0`` means every core, as ``[experiment] workers`` says."""
    if workers < 0:
        raise RankerError(f"workers must be >= 0 (0 = every core), not {workers}")
    return workers or os.cpu_count() or 1


def make_executor(experiment: ExperimentSection):
    """The executor ``[experiment] executor`` names, built (a Dask executor connects or starts its cluster).

    Use it as a context manager around :func:`ranker.parallel.use_executor`, so that a cluster it
    started is closed again.
    """
    from ..registries import EXECUTORS

    cls = EXECUTORS.get(experiment.executor, "[experiment] executor")
    return cls(scheduler=experiment.scheduler, workers=resolve_workers(experiment.workers))


def scoring_settings(evaluation: EvaluationSection) -> ScoringSettings:
    """What the stored per-candidate counts depend on, from the ``[evaluation]`` section."""
    return ScoringSettings(evaluation.evalb_param, evaluation.head_rules, evaluation.flatten_rules)


#: The ``[evaluation]`` keys the stored per-candidate counts depend on (:class:`ScoringSettings`).
SCORING_KEYS = ("evalb_param", "head_rules", "flatten_rules")


def record_scoring(store: Store, evaluation: EvaluationSection, source: str) -> None:
    """Record in the store that ``source``'s counts are computed with ``evaluation``'s settings."""
    store.put_scoring(source, scoring_settings(evaluation).key(),
                      {k: getattr(evaluation, k) for k in SCORING_KEYS})


def stored_evaluation(store: Store, source: str, given: dict | None = None) -> EvaluationSection:
    """The ``[evaluation]`` settings a command reads ``source``'s counts with: the store's own.

    The store records the settings every ``ranker counts`` (or ``ranker run``) computed counts
    with (:meth:`Store.scorings`), so ``train``, ``select``, ``annotate``, ``models retrain`` and
    ``ranker serve`` read those instead of assuming the defaults. ``given`` (option -> value, None
    for an option not given) picks among several; a value no stored counts were computed with is
    an error naming what is stored, never a silent switch to other counts. A store with no counts
    recorded gives the defaults (overridden by ``given``).

    Raises
    ------
    RankerError
        If ``given`` matches no stored settings, or several settings are stored and ``given``
        does not say which.
    """
    given = {k: v for k, v in (given or {}).items() if v is not None}
    scorings = store.scorings(source)
    if not scorings:
        return EvaluationSection(**given)
    matches = [sc for sc in scorings if all(sc.settings.get(k) == v for k, v in given.items())]
    if len(matches) == 1:
        return EvaluationSection(**{k: v for k, v in matches[0].settings.items() if k in SCORING_KEYS})

    def say(sc) -> str:
        return ", ".join(f"{k} {sc.settings.get(k)!r}" for k in SCORING_KEYS)

    stored = "; ".join(say(sc) for sc in scorings)
    if not matches:
        asked = ", ".join(f"{k} {v!r}" for k, v in given.items())
        raise RankerError(f"{store.path}: the counts of {source} were computed with {stored}, not "
                          f"with {asked}; name stored settings, or compute counts with these first "
                          f"(ranker counts --source {source} ...)")
    raise RankerError(f"{store.path}: the counts of {source} were computed under {len(matches)} "
                      f"settings ({stored}); name one with --evalb-param, --head-rules, --flatten-rules")


def metric_names(evaluation: EvaluationSection) -> list[str]:
    """The report's metrics, in report order: those whose counts the scorer stores."""
    stored = Scorer(scoring_settings(evaluation)).metrics
    return [m for m in METRICS if METRICS[m].counts_from in stored]


# ------------------------------------------------------------------------------------ splits
class Splits(NamedTuple):
    """The sentences of an experiment: the three parts of the main corpus and any extra corpora."""

    train: SplitSelection
    heldout: SplitSelection
    test: SplitSelection
    extra: tuple[SplitSelection, ...]   # extra training corpora (partial annotation only)

    def main(self) -> dict[str, SplitSelection]:
        """``{"train": ..., "heldout": ..., "test": ...}``."""
        return {"train": self.train, "heldout": self.heldout, "test": self.test}

    def sentences(self) -> list[Sentence]:
        """Every sentence of every part, main corpus first."""
        return [x for s in (*self.main().values(), *self.extra) for x in s.sentences]


def load_corpus(store: Store, corpus: str) -> None:
    """Load a corpus into the store once (the treebank with its dependency gold)."""
    from ..sources.dependencies import ensure_dependency_gold
    from ..sources.treebank import ensure_corpus

    ensure_corpus(store, corpus)
    if corpus == "treebank":
        ensure_dependency_gold(store)


def select_splits(ctx: StageContext, data: DataSection) -> Splits:
    """Load the corpora into the store (once) and select the experiment's sentences."""
    store = ctx.store
    load_corpus(store, data.corpus)
    for extra in data.extra_training:
        load_corpus(store, extra)
    return Splits(select_split(store, data.corpus, data.train, data.limit),
                  select_split(store, data.corpus, data.heldout, data.limit),
                  select_split(store, data.corpus, data.test, data.limit),
                  tuple(select_split(store, extra, "train", data.extra_limit)
                        for extra in data.extra_training))


# ------------------------------------------------------------------------------------ parse


class ParseOutcome(NamedTuple):
    """The candidate source the later stages read, and what parsing or importing did."""

    source: str                     # the store's source name of the candidates
    counts: dict[str, float]        # report counts ("sentences parsed now", "import: forests", ...)
    notes: tuple[str, ...]          # report notes (rejected forests)
    summary: object = None          # Link Grammar's ParseSummary, or the n-best ImportSummary


def stored_sources(store: Store) -> list[str]:
    """The store's candidate sources, sorted."""
    # parsers and importers register their source (cheap); a store filled by hand is counted
    return sorted(store.source_options()) or sorted(store.stats().sources)


def stored_source(store: Store, given: str | None = None) -> str:
    """The candidate source to read: ``given`` if the store holds it, else the store's only one."""
    have = stored_sources(store)
    if given is not None:
        if given not in have:
            raise RankerError(f"{store.path}: no candidates from source {given!r} "
                              f"(stored: {', '.join(have) or 'none'})")
        return given
    if len(have) != 1:
        raise RankerError(f"{store.path}: " + ("no candidates stored yet (ranker parse or ranker import)"
                          if not have else f"candidates of {len(have)} sources ({', '.join(have)}): "
                          "name one with --source"))
    return have[0]


def candidate_source(parse: ParseSection, where: str = "<config>", name: str | None = None,
                     check: bool = True) -> str:
    """The store's name for the candidates ``[parse]`` asks for (checked, nothing read yet).

    Forests read from files are named ``<format>:<file name>`` (``<format>:<file>+<file>...`` when
    the splits name files of their own, :mod:`.forest_files`) unless ``name`` is given;
    ``check=False`` does not look for the files (a recorded run's sources, read back).
    """
    from ..registries import SOURCES, file_sources

    source_name = name
    kind = SOURCES.get(parse.source, f"{where}: [parse] source")
    name = SOURCES.resolve(parse.source).partition("/")[0]
    if kind == "parser":
        for key in ("forests", "train_forests", "heldout_forests", "test_forests"):
            if getattr(parse, key):
                raise RankerError(f"{where}: [parse] {key} is read only for a source of "
                                  f"{', '.join(file_sources())}, not {parse.source!r}")
        return name
    from .forest_files import forest_files

    assert name in file_sources()
    files = forest_files(parse, where, name, check)
    return files.source if source_name is None else source_name


def link_grammar_options(parse: ParseSection):
    """The parser options ``[parse]`` stands for (recorded with the source in the store)."""
    from ..sources.link_grammar import LinkGrammarOptions

    return LinkGrammarOptions(linkage_limit=parse.linkage_limit, null_links=parse.allow_null,
                              max_parse_time=int(round(parse.max_parse_time)))


def check_parse_options(store: Store, options) -> None:
    """Refuse to mix forests parsed with other options into this experiment (a stale cache)."""
    stored = store.source_options().get(LINK_GRAMMAR)
    wanted = dict(options._asdict())
    if stored and store.parsed_ids(LINK_GRAMMAR) and stored != wanted:
        diff = ", ".join(f"{k}={stored.get(k)!r} (config: {wanted.get(k)!r})"
                         for k in sorted(set(stored) | set(wanted)) if stored.get(k) != wanted.get(k))
        raise RankerError(f"{store.path} holds Link Grammar forests parsed with other options: {diff}; "
                          "use another [experiment] store or the same [parse] settings")


def parse_or_import(ctx: StageContext, parse: ParseSection, sentences: Sequence[Sentence], corpus: str,
                    batch_size: int = 20, name: str | None = None,
                    reimport: bool = False) -> ParseOutcome:
    """Parse ``sentences`` with Link Grammar (those not parsed yet), or import ``[parse] forests``.

    n-best files are imported unless the store holds exactly these files already (their digests
    are kept with the source), or always with ``reimport``; ``summary`` is the file's
    ``ImportSummary`` when exactly one file was read now.

    Parameters
    ----------
    corpus : str
        The corpus imported forests belong to.
    name : str, optional
        The source name of imported forests (default ``<format>:<file name>``).
    """
    store, where = ctx.store, ctx.where
    source = candidate_source(parse, where, name)
    counts: dict[str, float] = {}
    notes: list[str] = []
    if source == LINK_GRAMMAR:
        from ..sources.parse_run import parse_into_store

        options = link_grammar_options(parse)
        check_parse_options(store, options)
        summary = parse_into_store(store, list(sentences), options, workers=ctx.n_workers,
                                   batch_size=batch_size, progress=ctx.progress)
        counts["sentences parsed now"] = summary.parsed
        counts["unmapped tokens (this run)"] = summary.unmapped
        return ParseOutcome(source, counts, (), summary)
    from .forest_files import forest_files, import_forest_files

    files = forest_files(parse, where, source_format(parse.source))._replace(source=source)
    got = import_forest_files(store, files, corpus, reimport)
    return ParseOutcome(source, got.counts, tuple(got.notes),
                        got.summaries[0] if len(got.summaries) == 1 else None)


def evidence_parse(parse: ParseSection, evidence: EvidenceSection, where: str = "<config>",
                   check: bool = True) -> ParseSection | None:
    """The ``[parse]`` section that parses or imports the ``[evidence]`` source (None: no evidence).

    Link Grammar's options come from ``[parse]``; n-best files from ``[evidence]``. An evidence
    source that is the candidates' own source is refused (it would be no second opinion).
    ``check=False`` does not look for the files (:func:`candidate_source`).
    """
    import dataclasses

    if not evidence.source:
        for key in ("forests", "train_forests", "heldout_forests", "test_forests"):
            if getattr(evidence, key):
                raise RankerError(f"{where}: [evidence] {key} is given but [evidence] source is not")
        return None
    ev = dataclasses.replace(parse, source=evidence.source, forests=evidence.forests,
                             train_forests=evidence.train_forests,
                             heldout_forests=evidence.heldout_forests,
                             test_forests=evidence.test_forests)
    if candidate_source(ev, f"{where} ([evidence])", check=check) == candidate_source(parse, where, check=check):
        raise RankerError(f"{where}: [evidence] source {evidence.source!r} gives the same candidates "
                          "as [parse]: the evidence must come from a second source")
    return ev


def parse_evidence(ctx: StageContext, parse: ParseSection, evidence: EvidenceSection,
                   sentences: Sequence[Sentence], corpus: str) -> ParseOutcome | None:
    """Parse or import the ``[evidence]`` source's candidates of ``sentences`` (None: no evidence).

    The same stage as :func:`parse_or_import`, on the section :func:`evidence_parse` makes; its
    counts and notes are prefixed ``evidence:``.
    """
    ev = evidence_parse(parse, evidence, ctx.where)
    if ev is None:
        return None
    got = parse_or_import(ctx, ev, sentences, corpus)
    return got._replace(counts={f"evidence: {k}": v for k, v in got.counts.items()},
                        notes=tuple(f"Evidence source: {n}" for n in got.notes))


def source_format(source: str) -> str:
    """The bare registered name of a ``[parse] source`` (``"bllip/1"`` -> ``"bllip"``)."""
    from ..registries import SOURCES

    return SOURCES.resolve(source).partition("/")[0]


# ------------------------------------------------------------------------------------ annotate
class AnnotationOutcome(NamedTuple):
    """Which annotation kinds define the consistent sets, and the rule applied when none is."""

    kind: str          # of the main corpus
    extra_kind: str    # of the extra corpora
    rule: str          # [annotation] rule, one of ranker.store.store.RULES (:meth:`Store.consistent_sets`)
    annotated: int = 0             # sentences annotated now
    checked: object = None         # CheckSummary of the main kind: candidates checked now
    best_f: tuple | None = None    # kind best_f: (metric, ScoringSettings) its weights are read by


def annotate(ctx: StageContext, annotation: AnnotationSection, sentences: Sequence[Sentence],
             with_extra: bool = False, equivalences: str | None = None, labelled: bool = True,
             recheck: bool = False, brackets: str | Path | None = None,
             evaluation: EvaluationSection | None = None) -> AnnotationOutcome:
    """Store the partial bracketing of kind ``annotation.kind`` and check every candidate against it.

    The kind says where the brackets come from: ``riezler`` derives them from the gold trees of
    ``sentences`` (Crouch et al. 2.1), ``chunks`` are stored with the conll2000 corpus when it is
    loaded, ``user`` is made of the discriminant decisions stored (``ranker serve``; accepted
    spans must be contained, rejected ones must not; several annotators' work is their adjudicated
    set, :mod:`ranker.sources.adjudication`; sentences whose decisions changed are checked again), and any kind may be read from a user bracket file ``brackets`` (a sentence's
    brackets there replace those stored for it before, so the kind's candidates are all checked
    again).

    Kind ``best_f`` (full annotation, :mod:`.best_f`) instead stores the counts of the context's
    source's candidates under ``[annotation] best_f_metric`` with the ``evaluation`` settings.

    Parameters
    ----------
    with_extra : bool
        Also check the candidates of the extra corpora against their ``extra_kind`` annotation.
    equivalences, labelled, recheck
        Label equivalence table (default the shipped one), whether labels must match, and
        whether candidates checked before are checked again (``ranker annotate`` options).
    brackets : path, optional
        A bracket file (:func:`~ranker.sources.annotations.read_bracket_file`) for ``kind``.
    """
    from ..registries import ANNOTATIONS
    from ..sources.annotations import (DEFAULT_EQUIVALENCES, LabelEquivalences, check_store,
                                       read_bracket_file, riezler_annotations)
    from ..sources.adjudication import store_spans, store_team_work
    from ..sources.discriminants import user_annotations
    from .best_f import KIND as BEST_F

    store, source, where, progress, workers = ctx.store, ctx.source, ctx.where, ctx.progress, ctx.n_workers
    kind = annotation.kind
    if brackets is None and kind not in ANNOTATIONS.names(bare=True):
        raise RankerError(f"{where}: annotation kind {kind!r} is neither derivable from gold trees "
                          f"(riezler, {BEST_F}), stored with a corpus (chunks) nor made of decisions "
                          f"(user): it needs a bracket file")
    eq = LabelEquivalences.load(equivalences or DEFAULT_EQUIVALENCES, labelled=labelled)
    if kind == BEST_F and brackets is None:
        from .best_f import ensure_best_f_counts

        if source is None:
            raise RankerError(f"{where}: [annotation] kind {BEST_F!r} needs the candidate source")
        if evaluation is None:
            raise RankerError(f"{where}: [annotation] kind {BEST_F!r} needs the [evaluation] settings "
                              "its counts are computed with")
        settings = scoring_settings(evaluation)
        done = ensure_best_f_counts(store, sentences, source, annotation.best_f_metric, settings,
                                    workers)
        record_scoring(store, evaluation, source)
        if with_extra:
            check_store(store, annotation.extra_kind, eq, progress=progress, workers=workers)
        return AnnotationOutcome(kind, annotation.extra_kind, annotation.rule, done,
                                 None, (annotation.best_f_metric, settings))
    if brackets is not None:
        known = {s.id: len(s.tokens) for s in store.sentences()}
        added = store.add_annotations(read_bracket_file(brackets, kind, known))
        recheck = True   # a user file may have changed since the last check
    elif ANNOTATIONS.get(kind) == "decisions":   # user: the adjudicated set of the answers stored so far
        team = store_team_work(store)
        added = store.replace_annotations(kind, user_annotations(team.adjudicated(store_spans(store, source)), kind))
    elif kind == "riezler":
        have = store.annotations(kind)
        new = [s for s in sentences if s.id not in have]
        added = store.add_annotations(riezler_annotations((s.id, store.gold(s.id)) for s in new)) if new else 0
    else:   # chunks: stored with their corpus (load_corpus)
        added = 0
    checked = check_store(store, kind, eq, recheck=recheck, progress=progress, workers=workers,
                          source=source)
    if with_extra:
        check_store(store, annotation.extra_kind, eq, progress=progress, workers=workers)
    return AnnotationOutcome(kind, annotation.extra_kind, annotation.rule, added, checked)


# ------------------------------------------------------------------------------------ counts
class CountsOutcome(NamedTuple):
    """Per-candidate counts stored for a set of sentences under every metric."""

    settings: ScoringSettings   # what the counts depend on (their store key)
    scored: int                 # sentences scored now (the others were stored already)


def compute_counts(ctx: StageContext, evaluation: EvaluationSection,
                   sentences: Sequence[Sentence]) -> CountsOutcome:
    """Store every candidate's counts against gold under every metric (the oracle's and tuners' data),
    and record in the store the settings they were computed with (:func:`stored_evaluation`)."""
    store, source = ctx.store, ctx.need_source()
    settings = scoring_settings(evaluation)
    gold_deps = {s.id: store.gold_dependencies(s.id) for s in sentences}
    done = score_candidates(store, list(sentences), settings, gold_deps, ctx.n_workers,
                            ctx.progress, source)
    record_scoring(store, evaluation, source)
    return CountsOutcome(settings, done)


def require_counts(ctx: StageContext, evaluation: EvaluationSection, sel: SplitSelection) -> None:
    """Raise unless every sentence of ``sel`` has counts computed from its current forest."""
    from .counts import missing_counts

    store, source = ctx.store, ctx.need_source()
    missing = missing_counts(store, scoring_settings(evaluation), sel.sentences, source)
    if missing:
        raise RankerError(f"{store.path}: {len(missing)} sentences of {sel.corpus}/{sel.name} (e.g. "
                          f"{missing[0]}) have no per-candidate counts for their current forests from "
                          f"{source}; compute them first: {counts_command(store, evaluation, sel, source)}")


def counts_command(store: Store, evaluation: EvaluationSection, sel: SplitSelection, source: str) -> str:
    """The ``ranker counts`` command line that computes the counts ``sel`` lacks, ready to paste."""
    import shlex

    from .counts import SETTING_OPTIONS

    argv = ["ranker", "counts", "--store", str(store.path), "--corpus", sel.corpus]
    if sel.split is not None or sel.name != "all":
        argv += ["--split", sel.name]
    if len(stored_sources(store)) > 1:
        argv += ["--source", source]
    from .config import default

    for key, flag in SETTING_OPTIONS.items():
        if getattr(evaluation, key) != default(EvaluationSection, key):
            argv += [flag, str(getattr(evaluation, key))]
    return shlex.join(argv)


def load_counts(ctx: StageContext, evaluation: EvaluationSection, sel: SplitSelection,
                metrics: Sequence[str]) -> dict[str, ForestCounts]:
    """The stored counts of a split under each of ``metrics`` (see :func:`compute_counts`)."""
    settings = scoring_settings(evaluation)
    return {m: load_forest_counts(ctx.store, sel, METRICS[m].counts_from, settings, ctx.need_source())
            for m in metrics}


def candidate_quality(fc: ForestCounts, metric: str) -> np.ndarray:
    """Each candidate's own sentence score under ``metric`` (the oracle's and tuners' target).

    A candidate the scorer left out (EVALB could not align it: ``bounds.unscored_rows``) scores 0,
    not the 100 of a sentence with nothing to get wrong.
    """
    if not len(fc.counts):
        return np.zeros(0)
    from ..evaluation.bounds import unscored_rows

    q = np.asarray(METRICS[metric].score(fc.counts), dtype=np.float64)
    return np.where(unscored_rows(fc.counts, np.repeat(fc.gold, np.diff(fc.offsets))), 0.0, q)


def test_ceiling(ctx: StageContext, evaluation: EvaluationSection, sentences: Sequence[Sentence]) -> float:
    """Untyped dependency F of the gold trees converted by the head rules (the report's ceiling)."""
    store = ctx.store
    gold_deps = {s.id: store.gold_dependencies(s.id) for s in sentences}
    return conversion_ceiling(store, sentences, scoring_settings(evaluation), gold_deps)


test_ceiling.__test__ = False   # a stage, not a pytest test


# ------------------------------------------------------------------------------------ features
def extract_features(ctx: StageContext, features: FeaturesSection, sel: SplitSelection,
                     label: str | None = None):
    """The split's feature matrix (stored and reused while the split's forests stay the same)."""
    from ..features import load_feature_set

    from .feature_cache import cached_matrix

    fs = load_feature_set(features.set)
    return cached_matrix(ctx.store, fs, sel, ctx.need_source(), workers=ctx.n_workers,
                         progress=f"features {label or sel.name}" if ctx.progress else None,
                         evidence=ctx.evidence)


class TrainableSplit(NamedTuple):
    """A training selection without the sentences no fit can learn from, and how the filters count them."""

    selection: SplitSelection    # the sentences whose consistent set is not empty
    dropped: dict[str, int]      # training filter -> left-out sentences it drops (first filter that fires)


def trainable(ctx: StageContext, sel: SplitSelection, kind: str, rule: str, template) -> TrainableSplit:
    """Leave out the training sentences whose consistent set is empty, before their features are extracted.

    Their likelihood is zero whatever the weights, so the trainer drops them
    (:func:`ranker.models.training_set.select_training_rows`), and the cut-off counts only
    consistent candidates, so the fitted model is the same with or without their rows; extracting
    them is wasted work (on the WSJ sample under the strict rule, 1,581 of 3,068 training
    sentences). ``dropped`` counts them by the filter that would have dropped them (``template``'s
    filters, in the trainer's order), so the report's counts stay what they were. Kind ``best_f``
    has no empty set: ``sel`` comes back whole.
    """
    from ..models.training_set import select_training_rows
    from .best_f import KIND as BEST_F

    store, source = ctx.store, ctx.need_source()
    if kind == BEST_F:
        return TrainableSplit(sel, {})
    sets = store.consistent_sets(kind, sel.corpus, sel.split, source=source, rule=rule)
    keep, left_out = [], []
    for s in sel.sentences:
        cs = sets.get(s.id)
        (keep if cs is not None and any(w > 0 for w in cs.weights) else left_out).append(s)
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
    from ..features.datasets import consistency_weights

    from .best_f import KIND as BEST_F, best_f_weights

    store, source = ctx.store, ctx.need_source()
    if kind == BEST_F:
        if best_f is None:
            raise RankerError(f"annotation {BEST_F!r} needs its metric and scoring settings")
        metric, settings = best_f
        return best_f_weights(store, matrix, metric, settings, source)
    return consistency_weights(store, matrix, kind, sel.corpus, sel.split, source, rule)


# ------------------------------------------------------------------------------------ fit
def loglinear_template(loglinear: LogLinearSection, workers: int = 0):
    """The unfitted log-linear ranker ``[loglinear]`` describes (σ² is chosen later).

    The ranker of its ``objective`` (:data:`ranker.registries.OBJECTIVES`): the likelihood's, or
    minimum risk's (whose ``fit`` also takes ``gain``), built from the section by the registry.
    """
    from ..registries import OBJECTIVES, RANKERS
    from .config import ExperimentConfig

    config = ExperimentConfig(experiment=ExperimentSection(workers=resolve_workers(workers)),
                              loglinear=loglinear)
    return RANKERS.build(OBJECTIVES.get(loglinear.objective, "[loglinear] objective"), config)


def training_rows(ctx: StageContext, features: FeaturesSection, template, blocks: Sequence,
                  weights: Sequence[np.ndarray],
                  gains: Sequence[np.ndarray] | None = None, consume: bool = False,
                  dropped_before: dict[str, int] | None = None):
    """The rows every fit learns from: cut-off applied, the template's filters applied.

    ``gains`` (each block's candidate F in [0, 1]) travel with the rows for minimum-risk training.
    With ``consume``, ``blocks`` (a list) is emptied as each block's rows are taken, so a caller
    that keeps no other reference has each block's memory released at once. ``dropped_before``
    (:attr:`TrainableSplit.dropped` of the blocks' selections) is added to the filters' counts,
    so they cover every training sentence.

    Returns
    -------
    TrainingData
    """
    from .training import training_data

    data = training_data(blocks if consume else list(blocks), list(weights), features.cutoff,
                         ctx.store.forest_qualities(ctx.need_source()), template, gains, consume=consume)
    if not dropped_before:
        return data
    seen = data.survivors.dropped
    merged = {k: seen.get(k, 0) + dropped_before.get(k, 0) for k in dict.fromkeys([*seen, *dropped_before])}
    return data._replace(survivors=data.survivors._replace(dropped=merged))


class TrainingSet(NamedTuple):
    """The training rows of an experiment, and the size of its feature space before the cut-off."""

    data: object                   # TrainingData: the rows every fit learns from
    features_before_cutoff: int    # properties of the main training split's candidates


def training_set(ctx: StageContext, annotation: AnnotationOutcome, features: FeaturesSection, template,
                 selections: Sequence[SplitSelection]) -> TrainingSet:
    """The training rows of ``selections`` (the main split, then any extra corpora): the one composition.

    Sentences no fit can learn from are left out before extraction (:func:`trainable`), each
    selection's features are extracted (:func:`extract_features`) and weighted by its annotation
    (the main split by ``annotation.kind``, extra corpora by ``annotation.extra_kind``), minimum
    risk gets every candidate's own F, and the cut-off and the template's filters are applied
    (:func:`training_rows`), each matrix released as soon as its rows are taken. ``ranker run``
    and ``ranker train`` both train from what this returns.
    """
    kinds = [annotation.kind, *([annotation.extra_kind] * (len(selections) - 1))]
    # training sentences with an empty consistent set are dropped whatever their features
    kept = [trainable(ctx, sel, kind, annotation.rule, template) for sel, kind in zip(selections, kinds)]
    mats = [extract_features(ctx, features, t.selection, label=None if i == 0 else t.selection.corpus)
            for i, t in enumerate(kept)]
    before = len(mats[0].names)
    dropped: dict[str, int] = {}
    for t in kept:
        for why, k in t.dropped.items():
            dropped[why] = dropped.get(why, 0) + k
    weights = [consistency(ctx, m, kind, t.selection, annotation.rule, annotation.best_f if i == 0 else None)
               for i, (m, kind, t) in enumerate(zip(mats, kinds, kept))]
    gains = None
    if template.needs_gain:   # minimum risk: every candidate's own F
        from .best_f import best_f_gains

        if annotation.best_f is None:
            raise RankerError(f"{ctx.where}: minimum-risk training needs [annotation] kind 'best_f'")
        gains = [best_f_gains(ctx.store, mats[0], *annotation.best_f, ctx.need_source())]
    # the matrices go to training_rows alone, which releases each one as soon as its kept rows
    # are taken (GBs with extra corpora)
    data = training_rows(ctx, features, template, mats, weights, gains, consume=True, dropped_before=dropped)
    return TrainingSet(data, before)


class LogLinearFit(NamedTuple):
    """The log-linear model chosen on held-out (``None`` when no training sentence survived)."""

    model: object                   # fitted LogLinearRanker or None
    chosen: object                  # SigmaSelection (σ², held-out trials) or None
    names: tuple[str, ...]          # the feature index (columns the model scores)
    counts: dict[str, float]        # report counts (what the filters kept and dropped)
    notes: tuple[str, ...]          # report notes (not trained, early stopping)
    summary: dict | None = None     # typed fit record (report.json "fits"): FitSummary + choice


def fit_loglinear(ctx: StageContext, loglinear: LogLinearSection, template, data, X_heldout,
                  groups_heldout, quality_heldout, feature_config: dict | None = None) -> LogLinearFit:
    """Fit one model per σ² of ``[loglinear] sigma2_grid`` and keep the best on held-out (cached).

    Every fit is kept in the store as a model (``ranker models list``), the chosen one marked as
    chosen on held-out under ``[loglinear] select_metric``. ``feature_config`` (the feature set's
    ``to_dict()``) is saved with each model, so ``ranker models export`` gives a model
    ``ranker select`` can extract features for.
    """
    from sklearn.exceptions import ConvergenceWarning

    from ..models.summary import FitSummary
    from .training import select_model

    notes: list[str] = []
    counts: dict[str, float] = {}
    model = chosen = summary = None
    survivors = data.survivors
    if survivors.group_mask.any():
        with warnings.catch_warnings():   # reported once, below, not once per fit
            warnings.simplefilter("ignore", ConvergenceWarning)
            chosen = select_model(ctx.store, template, data, X_heldout, groups_heldout, quality_heldout,
                                  loglinear.sigma2_grid, ctx.progress, feature_config,
                                  chosen_on=f"heldout {loglinear.select_metric}")
        model = chosen.ranker
        if not model.converged_:
            notes.append(f"The chosen log-linear model stopped at [loglinear] max_iter = "
                         f"{loglinear.max_iter} iterations before its gradient reached "
                         f"tol = {loglinear.tol:g} (early stopping).")
        summary = {**FitSummary.of(model).to_dict(), "chosen_on": f"heldout {loglinear.select_metric}",
                   "trials": [list(t) for t in chosen.trials]}
    else:
        notes.append("The log-linear model was not trained: no training sentence survives the "
                     f"filters ({survivors.dropped}); with nothing to learn it selects the "
                     "source's first candidate, like native.")
    counts["training sentences kept"] = int(survivors.group_mask.sum())
    for why, k in survivors.dropped.items():
        counts[f"training sentences dropped: {why}"] = k
    return LogLinearFit(model, chosen, data.names, counts, tuple(notes), summary)


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
    from ..models import HeidornRanker
    from ..models.summary import FitSummary

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
    from ..models import HeidornRanker
    from ..models.groups import group_offsets
    from ..trees.ktable import KTable
    from ..models.tuning import selected_quality
    from .cache import cached_fit, cached_result, data_digest, load_payload, sub_key, text_digest

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


# ------------------------------------------------------------------------------------ select
def per_sentence(sel: SplitSelection, ids: Sequence[str], per_group: np.ndarray) -> np.ndarray:
    """Spread per-group choices (groups = sentences with candidates) over every sentence, -1 for none."""
    pos = dict(zip(ids, per_group.tolist()))
    return np.array([pos.get(s.id, -1) for s in sel.sentences], dtype=np.int64)


def candidate_trees(store: Store, sel: SplitSelection, source: str):
    """Every candidate tree of a split in forest order, with per-row groups and the grouped ids."""
    trees, groups, ids = [], [], []
    for s in sel.sentences:
        forest = store.candidate_trees(s.id, source)
        if not forest:
            continue
        trees.extend(t for _, _, t in forest)
        groups.extend([len(ids)] * len(forest))
        ids.append(s.id)
    return trees, np.asarray(groups, dtype=np.int64), ids


class Choices(NamedTuple):
    """One candidate per test sentence and ranker (index in its forest, -1 for no candidate)."""

    rankers: dict[str, np.ndarray]   # native, heidorn, heidorn_tuned, loglinear
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


def source_ranks(groups: np.ndarray) -> np.ndarray:
    """Each candidate's rank in its group's source order (0: the source's first choice)."""
    from ..models.groups import group_offsets

    offsets = group_offsets(groups, len(groups))
    return np.arange(len(groups)) - np.repeat(offsets[:-1], np.diff(offsets))


def select_test(ctx: StageContext, test: SplitSelection, matrix, names: Sequence[str],
                heidorn: HeidornFit, model, seed: int) -> Choices:
    """Every ranker's choice on the test split (the log-linear model's absent: the source's first)."""
    from ..models import NativeRanker, RandomRanker

    tt, tg, tids = candidate_trees(ctx.store, test, ctx.need_source())
    if list(matrix.sentence_ids) != tids:
        raise RankerError("test features and forests disagree; rerun with a fresh store")
    Xt = matrix.restrict(names)
    mg = matrix.groups()
    compiled = heidorn.plain.compile(tt)   # both Heidorn rankers score the same compiled trees
    inputs = {"features": lambda: (Xt, mg), "trees": lambda: (compiled, tg),
              "source_rank": lambda: (source_ranks(tg), tg), "candidates": lambda: (np.zeros(len(tt)), tg)}
    native = NativeRanker().fit()
    rankers = {"native": native, "heidorn": heidorn.plain, "heidorn_tuned": heidorn.tuned,
               "loglinear": model if model else native}
    choices = {label: per_sentence(test, tids, choose(r, inputs)) for label, r in rankers.items()}
    random_choice = per_sentence(test, tids, choose(RandomRanker(seed=seed).fit(), inputs))
    return Choices(choices, random_choice, tids, Xt, mg)


# ------------------------------------------------------------------------------------ evaluate
def sentence_quality(store: Store, sentences: Sequence[Sentence], source: str) -> list[str]:
    """Crouch et al.'s parse-quality class of each sentence: full, fragment, timeout or no parse.

    A sentence is "full" when all its candidates are full parses, else "fragment" or "timeout" as
    its candidates are; one with no candidate is "timeout" if the parser ran out of time on it.
    """
    qualities = store.forest_qualities(source)
    status = {row[0]: row[2] for row in store.parse_log(source)}
    out = []
    for s in sentences:
        qs = set(qualities.get(s.id, ()))
        if not qs:
            out.append("timeout" if status.get(s.id) == "timeout" else "no parse")
        elif qs == {"full"}:
            out.append("full")
        else:
            out.append("timeout" if "timeout" in qs else "fragment")
    return out



class Evaluation(NamedTuple):
    """The report's tables: every metric over the test split, and its breakdowns."""

    tables: dict                     # metric -> MetricTable (bounds, rankers, intervals, p-values)
    by_quality: list                 # BreakdownGroup per parse-quality class
    by_length: list                  # BreakdownGroup per sentence-length class
    forest_size: object              # Plot of the primary metric against forest size


def evaluate(ctx: StageContext, evaluation: EvaluationSection, seed: int, test: SplitSelection,
             counts: dict[str, ForestCounts], choices: dict[str, np.ndarray], primary: str) -> Evaluation:
    """Bounds, every ranker's score with its interval and p-values, and the breakdowns."""
    from .tables import breakdown, forest_size_plot, metric_table

    ev = evaluation
    tables = {m: metric_table(m, counts[m], choices, ev, seed, True) for m in counts}
    quality = sentence_quality(ctx.store, test.sentences, ctx.need_source())
    by_quality = breakdown(quality, ("all", "full", "fragment", "timeout", "no parse"), counts, choices,
                           ev, seed)
    lengths = [f"< {ev.length_cutoff} words" if len(s.tokens) < ev.length_cutoff else
               f">= {ev.length_cutoff} words" for s in test.sentences]
    by_length = breakdown(lengths, (f"< {ev.length_cutoff} words", "all"), counts, choices, ev, seed)
    return Evaluation(tables, by_quality, by_length, forest_size_plot(counts[primary], choices, primary))


# ------------------------------------------------------------------------------------ gold
def write_gold(store: Store, sel: SplitSelection, path: str | Path) -> int:
    """Write the split's gold trees, one per line in split order; returns how many."""
    from ..trees.penn import write_trees

    write_trees(path, (store.gold(s.id) for s in sel.sentences))
    return len(sel.sentences)


def write_selected(path: Path, sel: SplitSelection, texts: dict[str, list[str]],
                   choice: np.ndarray) -> None:
    """One chosen tree per line in split order (an empty line for a sentence without candidates)."""
    from ..atomicfile import atomic_write

    with atomic_write(path) as f:   # a full disk leaves an old file as it was
        for s, c in zip(sel.sentences, choice.tolist()):
            f.write((texts[s.id][c] if c >= 0 else "") + "\n")
