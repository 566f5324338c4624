"""One registry per component kind, by versioned name: rankers, sources, corpora, annotations, schemes, metrics,
executors.

Configs and commands name components from here (``--ranker heidorn``, ``[parse] source =
"bllip"``, ``[data] corpus = "treebank"``); a bare name means its newest version. Items are
registered by import path and loaded on first use (:class:`ranker.component_registry.Registry`), so listing
the names for ``--help`` imports nothing heavy. Feature families have their own registry,
:mod:`ranker.features.registry`.
"""
from __future__ import annotations

from .component_registry import Registry

#: Rankers over grouped candidates (scikit-learn-style estimators), each made from the config by
#: ``RANKERS.build(name, config)`` (its class's ``from_config``); a model file names its ranker here.
RANKERS: Registry[type] = Registry("ranker")
RANKERS.register("heidorn/1", "ranker.models.heidorn:HeidornRanker")
RANKERS.register("loglinear/1", "ranker.models.loglinear:LogLinearRanker")
RANKERS.register("expected_f/1", "ranker.models.expected_f:ExpectedFRanker")
RANKERS.register("native/1", "ranker.models.baselines:NativeRanker")
RANKERS.register("random/1", "ranker.models.baselines:RandomRanker")
RANKERS.register("oracle/1", "ranker.models.baselines:OracleRanker")

#: The log-linear ranker's training objectives (``[loglinear] objective``), each by the ranker
#: that minimises it: the conditional log-likelihood of the consistent sets (the paper's), or
#: minimum risk, the expected F of each sentence's choice (needs full annotation, ``best_f``).
OBJECTIVES: Registry[str] = Registry("training objective")
OBJECTIVES.register("loglik/1", "loglinear")
OBJECTIVES.register("expected_f/1", "expected_f")

#: Where candidates come from (``[parse] source``): a parser run over stored sentences (a class of
#: :mod:`ranker.pipeline.candidate_sources` that names its candidates and obtains them), or an
#: n-best file format, each an entry of :data:`ranker.sources.nbest.NBEST_FORMATS` (blank-line
#: separated Penn trees, the BLLIP/Charniak n-best format) read by ``NbestFileSource``.
SOURCES: Registry = Registry("candidate source")
SOURCES.register("link-grammar/1", "ranker.pipeline.candidate_sources:LinkGrammarSource")
SOURCES.register_table("ranker.sources.nbest:NBEST_FORMATS")

#: Corpora by the reader class that builds itself from the ``[data]`` section
#: (:meth:`ranker.sources.corpus.CorpusReader.from_section`): NLTK's two, a treebank of Penn files
#: on disk in any layout, and plain text of one sentence a line (no gold).
CORPORA: Registry[type] = Registry("corpus")
CORPORA.register("treebank/1", "ranker.sources.treebank:NltkTreebank")
CORPORA.register("conll2000/1", "ranker.sources.treebank:NltkConll2000")
CORPORA.register("penn/1", "ranker.sources.penn_files:PennFiles")
CORPORA.register("text/1", "ranker.sources.text_corpus:TextCorpus")

#: Partial (or full) annotation kinds, each a class of :mod:`ranker.pipeline.annotation_kinds` that
#: says where its brackets come from (gold trees, a corpus loaded with them, people's discriminant
#: decisions), what a run needs for it and how it weights candidates. Any other kind name is read
#: from a user bracket file (``ranker annotate --kind file``).
ANNOTATIONS: Registry[type] = Registry("annotation kind")
ANNOTATIONS.register("riezler/1", "ranker.pipeline.annotation_kinds:GoldBrackets")     # Crouch et al. 2.1
ANNOTATIONS.register("best_f/1", "ranker.pipeline.annotation_kinds:FullAnnotation")   # candidates of best F
ANNOTATIONS.register("chunks/1", "ranker.pipeline.annotation_kinds:CorpusBrackets")   # CoNLL-2000 chunks
ANNOTATIONS.register("user/1", "ranker.pipeline.annotation_kinds:Decisions")          # ranker serve's decisions


def corpus_name(name: str, where: str = "") -> str:
    """The bare registered name of a corpus given by (maybe versioned) name; unknown names raise."""
    return CORPORA.resolve(name, where).partition("/")[0]

#: The report's metrics over per-candidate counts: the entries of
#: :data:`ranker.evaluation.bounds.METRICS`, the table the pipeline reads, by their names there.
METRICS: Registry = Registry("metric")
METRICS.register_table("ranker.evaluation.bounds:METRICS")


def metric(name: str, where: str = ""):
    """The :class:`~ranker.evaluation.bounds.Metric` a (maybe versioned) metric name stands for."""
    return METRICS.get(name, where)


#: The scoring schemes of ``ranker evaluate`` (its ``--scheme`` choices, options and scorers): the
#: entries of :data:`ranker.evaluation.schemes.SCHEMES`, each a
#: :class:`~ranker.evaluation.schemes.Scheme` (its corpus scorer over a file pair and what it reads).
SCHEMES: Registry = Registry("scoring scheme")
SCHEMES.register_table("ranker.evaluation.schemes:SCHEMES")


#: Where the data-parallel work runs (``[experiment] executor``): each is built as
#: ``Executor(scheduler=..., workers=...)`` and used through :func:`ranker.parallel.use_executor`.
EXECUTORS: Registry[type] = Registry("executor")
EXECUTORS.register("local/1", "ranker.parallel:LocalExecutor")
EXECUTORS.register("dask/1", "ranker.dask_executor:DaskExecutor")
