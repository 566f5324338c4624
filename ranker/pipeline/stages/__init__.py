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
import_forests     parse         n-best files named by the user      ``ImportOutcome`` (forests stored)
parse_evidence     evidence      ``[evidence]``, the sentences       :class:`ParseOutcome` or None (stored)
annotate           annotation    ``[annotation]``, train sentences   :class:`AnnotationOutcome` (checks stored)
compute_counts     counting      ``[evaluation]``, forests           :class:`CountsOutcome` (counts stored)
extract_features   features      ``[features]``, forests             :class:`~ranker.features.CandidateMatrix`
heldout_rows       features      ``[features]``, held-out counts     :class:`HeldoutRows` (matrix, quality)
model_features     features      a model's feature set, a selection  :class:`~ranker.features.CandidateMatrix`
forest_features    features      a model's families, forests         feature rows (lists: ``column_features``)
training_rows      features      ``[features]``, ``[loglinear]``     :class:`~.training_rows.TrainingData`
train_tagger       tagger        the train split's gold tags         :class:`~ranker.sources.tagger.PosTagger` (stored)
fit_loglinear      fit           ``[loglinear]``, training rows      :class:`LogLinearFit` (models stored)
fit_warm           fit           a model, its new rows               :class:`WarmFit` (model stored)
fit_rules          rules         each rule's training rows           :class:`RuleChoice` (best on held-out)
fit_heidorn        heidorn       ``[heidorn]``, held-out counts      :class:`HeidornFit` (model stored)
select_test        select        the fitted rankers                  :class:`Choices`
rank               select        rankers, :func:`ranker_inputs`      each ranker's choices
evaluate           evaluation    ``[evaluation]``, counts, choices   :class:`Evaluation`
write_gold, ...    outputs       the test split, the choices         files (``gold.mrg``, ``selected/*.mrg``)
score_treebanks    treebanks     ``[[data.also]]``, the models       :class:`TreebankTest` per test split
=================  ============  ==================================  ==========================================

The report itself (:mod:`.report`) is written by :func:`.experiment.run_experiment` from these
records, the stage timings and the counts each record carries.

Every front does a step through these functions: no command or page module calls
``cached_matrix``, a feature extractor, ``import_forest_files`` or a ranker's ``fit`` itself
(``tests/test_one_path_per_step.py`` fails on one).
"""
from __future__ import annotations

from ...lazy import lazy_getattr

#: Public name -> the module that defines it, loaded on first use: a command that runs one stage
#: (``ranker gold``, ``ranker import``) does not import every other stage's libraries (numpy,
#: scikit-learn, numba), which cost a second or more of its start-up.
_PUBLIC = {
    "LINK_GRAMMAR": "ranker.pipeline.stages.context", "StageContext": "ranker.pipeline.stages.context",
    "make_executor": "ranker.pipeline.stages.context", "resolve_workers": "ranker.parallel",
    "SCORING_KEYS": "ranker.pipeline.provenance", "metric_names": "ranker.pipeline.provenance",
    "record_scoring": "ranker.pipeline.provenance", "scoring_settings": "ranker.pipeline.provenance",
    "stored_evaluation": "ranker.pipeline.provenance", "stored_source": "ranker.pipeline.provenance",
    "stored_sources": "ranker.pipeline.provenance",
    "CorpusParts": "ranker.pipeline.stages.corpus", "Splits": "ranker.pipeline.stages.corpus",
    "corpus_reader": "ranker.pipeline.stages.corpus", "load_corpus": "ranker.pipeline.stages.corpus",
    "select_splits": "ranker.pipeline.stages.corpus",
    "ParseOutcome": "ranker.pipeline.stages.parse", "candidate_source": "ranker.pipeline.stages.parse",
    "check_parse_options": "ranker.pipeline.stages.parse",
    "link_grammar_options": "ranker.pipeline.stages.parse",
    "parse_or_import": "ranker.pipeline.stages.parse", "source_format": "ranker.pipeline.stages.parse",
    "import_forests": "ranker.pipeline.stages.parse",
    "parse_statuses": "ranker.pipeline.stages.parse", "reparse": "ranker.pipeline.stages.parse",
    "evidence_parse": "ranker.pipeline.stages.evidence", "parse_evidence": "ranker.pipeline.stages.evidence",
    "AnnotationOutcome": "ranker.pipeline.stages.annotation",
    "annotate": "ranker.pipeline.stages.annotation",
    "CountsOutcome": "ranker.pipeline.stages.counting", "candidate_quality": "ranker.pipeline.stages.counting",
    "compute_counts": "ranker.pipeline.stages.counting", "counts_command": "ranker.pipeline.stages.counting",
    "load_counts": "ranker.pipeline.stages.counting", "require_counts": "ranker.pipeline.stages.counting",
    "test_ceiling": "ranker.pipeline.stages.counting",
    "TrainableSplit": "ranker.pipeline.stages.features", "TrainingSet": "ranker.pipeline.stages.features",
    "consistency": "ranker.pipeline.stages.features", "extract_features": "ranker.pipeline.stages.features",
    "HeldoutRows": "ranker.pipeline.stages.features", "heldout_rows": "ranker.pipeline.stages.features",
    "model_features": "ranker.pipeline.stages.features", "model_families": "ranker.pipeline.stages.features",
    "forest_features": "ranker.pipeline.stages.features", "column_features": "ranker.pipeline.stages.features",
    "trainable": "ranker.pipeline.stages.features", "training_rows": "ranker.pipeline.stages.features",
    "training_set": "ranker.pipeline.stages.features", "training_sets": "ranker.pipeline.stages.features",
    "train_tagger": "ranker.pipeline.stages.tagger",
    "LogLinearFit": "ranker.pipeline.stages.fit", "fit_loglinear": "ranker.pipeline.stages.fit",
    "loglinear_template": "ranker.pipeline.stages.fit",
    "WarmFit": "ranker.pipeline.stages.fit", "fit_warm": "ranker.pipeline.stages.fit",
    "RuleChoice": "ranker.pipeline.stages.rules", "RuleTrial": "ranker.pipeline.stages.rules",
    "fit_rules": "ranker.pipeline.stages.rules", "rule_grid": "ranker.pipeline.stages.rules",
    "handed_over": "ranker.pipeline.stages.rules",
    "candidate_trees": "ranker.pipeline.splits",
    "REPORTED": "ranker.pipeline.stages.select", "Choices": "ranker.pipeline.stages.select",
    "choose": "ranker.pipeline.stages.select", "per_sentence": "ranker.pipeline.stages.select",
    "select_test": "ranker.pipeline.stages.select", "source_ranks": "ranker.pipeline.stages.select",
    "ranker_inputs": "ranker.pipeline.stages.select", "rank": "ranker.pipeline.stages.select",
    "ready_ranker": "ranker.pipeline.stages.select",
    "HeidornFit": "ranker.pipeline.stages.heidorn", "fit_heidorn": "ranker.pipeline.stages.heidorn",
    "tune_heidorn": "ranker.pipeline.stages.heidorn",
    "Evaluation": "ranker.pipeline.stages.evaluation", "evaluate": "ranker.pipeline.stages.evaluation",
    "sentence_quality": "ranker.pipeline.stages.evaluation",
    "write_gold": "ranker.pipeline.stages.outputs", "write_selected": "ranker.pipeline.stages.outputs",
    "TreebankTest": "ranker.pipeline.stages.treebanks",
    "score_treebanks": "ranker.pipeline.stages.treebanks",
    "single_models": "ranker.pipeline.stages.treebanks",
}

__all__ = sorted(_PUBLIC)

__getattr__ = lazy_getattr(__name__, _PUBLIC, globals())


def __dir__():
    return __all__
