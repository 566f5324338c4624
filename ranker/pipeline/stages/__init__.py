"""The stages of an experiment as public functions: ``stage(ctx, section, ...) -> record``.

Every stage takes a :class:`StageContext` (the open store, the candidate source, the workers, progress
and where its settings come from) and its config section, and returns a documented record.
``ranker run`` (:func:`ranker.pipeline.experiment.run_experiment`) is their composition, and every
subcommand (``ranker parse``, ``import``, ``annotate``, ``counts``, ``train``, ``select``,
``gold``), ``models retrain`` and ``ranker serve`` call the same stages with the same defaults
(the config dataclasses), so a store prepared by hand is the store ``ranker run --store`` would
have made.

One module per stage; the context (:mod:`.context`: :class:`StageContext`, the workers, the
executor) has a module of its own, and where a store's settings come from
(:mod:`ranker.pipeline.provenance`: the scoring settings its counts were computed with, its
candidate sources) sits beside the stages, not among them, because what the stages call (the
annotation kinds) reads it too. Every name is importable from this package, as before (``from
ranker.pipeline.stages import annotate``).

=================  ============  ==================================  ==========================================
stage              module        reads                               returns
=================  ============  ==================================  ==========================================
select_splits      corpus        ``[data]``, the corpora             :class:`Splits`
parse_or_import    parse         ``[parse]``, the sentences          :class:`ParseOutcome` (forests stored)
parse_evidence     evidence      ``[evidence]``, the sentences       :class:`ParseOutcome` or None (stored)
annotate           annotation    ``[annotation]``, train sentences   :class:`AnnotationOutcome` (checks stored)
compute_counts     counts        ``[evaluation]``, forests           :class:`CountsOutcome` (counts stored)
extract_features   features      ``[features]``, forests             :class:`~ranker.features.CandidateMatrix`
training_rows      features      ``[features]``, ``[loglinear]``     :class:`~.training.TrainingData`
train_tagger       tagger        the train split's gold tags         :class:`~ranker.sources.tagger.PosTagger` (stored)
fit_loglinear      fit           ``[loglinear]``, training rows      :class:`LogLinearFit` (models stored)
fit_rules          rules         each rule's training rows           :class:`RuleChoice` (best on held-out)
fit_heidorn        heidorn       ``[heidorn]``, held-out counts      :class:`HeidornFit` (model stored)
select_test        select        the fitted rankers                  :class:`Choices`
evaluate           evaluation    ``[evaluation]``, counts, choices   :class:`Evaluation`
write_gold, ...    outputs       the test split, the choices         files (``gold.mrg``, ``selected/*.mrg``)
score_treebanks    treebanks     ``[[data.also]]``, the models       :class:`TreebankTest` per test split
=================  ============  ==================================  ==========================================

The report itself (:mod:`.report`) is written by :func:`.experiment.run_experiment` from these
records, the stage timings and the counts each record carries.
"""
from __future__ import annotations

from .context import LINK_GRAMMAR, StageContext, make_executor, resolve_workers
from ..provenance import (SCORING_KEYS, metric_names, record_scoring, scoring_settings, stored_evaluation,
                         stored_source, stored_sources)
from .corpus import CorpusParts, Splits, corpus_reader, load_corpus, select_splits
from .parse import (ParseOutcome, candidate_source, check_parse_options, link_grammar_options,
                    parse_or_import, source_format)
from .evidence import evidence_parse, parse_evidence
from .annotation import AnnotationOutcome, annotate
from .counts import (CountsOutcome, candidate_quality, compute_counts, counts_command, load_counts,
                     require_counts, test_ceiling)
from .features import (TrainableSplit, TrainingSet, consistency, extract_features, trainable,
                       training_rows, training_set, training_sets)
from .tagger import train_tagger
from .fit import LogLinearFit, fit_loglinear, loglinear_template
from .rules import RuleChoice, RuleTrial, fit_rules, rule_grid
from ..splits import candidate_trees
from .select import REPORTED, Choices, choose, per_sentence, select_test, source_ranks
from .heidorn import HeidornFit, fit_heidorn, tune_heidorn
from .evaluation import Evaluation, evaluate, sentence_quality
from .outputs import write_gold, write_selected
from .treebanks import TreebankTest, score_treebanks, single_models

__all__ = [
    "LINK_GRAMMAR", "StageContext", "make_executor", "resolve_workers",
    "SCORING_KEYS", "metric_names", "record_scoring", "scoring_settings", "stored_evaluation",
    "stored_source", "stored_sources",
    "CorpusParts", "Splits", "corpus_reader", "load_corpus", "select_splits",
    "ParseOutcome", "candidate_source", "check_parse_options", "link_grammar_options", "parse_or_import",
    "source_format",
    "evidence_parse", "parse_evidence",
    "AnnotationOutcome", "annotate",
    "CountsOutcome", "candidate_quality", "compute_counts", "counts_command", "load_counts",
    "require_counts", "test_ceiling",
    "TrainableSplit", "TrainingSet", "consistency", "extract_features", "trainable", "training_rows",
    "training_set", "training_sets",
    "train_tagger",
    "LogLinearFit", "fit_loglinear", "loglinear_template",
    "RuleChoice", "RuleTrial", "fit_rules", "rule_grid",
    "REPORTED", "Choices", "candidate_trees", "choose", "per_sentence", "select_test", "source_ranks",
    "HeidornFit", "fit_heidorn", "tune_heidorn",
    "Evaluation", "evaluate", "sentence_quality",
    "write_gold", "write_selected",
    "TreebankTest", "score_treebanks", "single_models",
]
