"""The whole config checked before any work starts: every value a stage will read, every file it names.

An experiment that would fail half-way (a misspelt metric, a K table that does not parse, a head
rule file that is missing) fails here instead, before the store is opened or the resolved config
is written, with one line naming the config and the section and key at fault.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import RankerError
from .config import ConfigError, ExperimentConfig, check_settings


def check_cutoff(feature_set: str, cutoff: int, where: str) -> None:
    """Refuse a feature-set file whose own ``cutoff`` disagrees with the one applied.

    The cut-off applied is ``[features] cutoff`` (``ranker train --cutoff``); a feature-set file may
    still say one (older files do), and then it must say the same, or it would be ignored in silence.
    """
    import tomllib

    from ..features.feature_sets import feature_set_path
    from ..textfiles import read_text

    path = feature_set_path(feature_set)
    try:
        said = tomllib.loads(read_text(path)).get("cutoff")   # a BOM dropped, as every reader does
    except (OSError, ValueError):   # TextFileError, TOMLDecodeError
        return   # load_feature_set reports it
    if said is not None and said != cutoff:
        raise ConfigError(f"{where}: the cut-off applied is {cutoff} but {path} says cutoff = {said}; "
                          "make them agree (the config's [features] cutoff, or ranker train --cutoff, "
                          "is the one used)")


def check_executor(experiment, src: str) -> None:
    """Refuse an unknown executor, one that cannot run here (a missing extra), or a scheduler address
    it cannot take: the executor itself answers (``available()``, ``check()``)."""
    from ..registries import EXECUTORS

    _check(src, "[experiment] executor", lambda: EXECUTORS.resolve(experiment.executor))
    executor = EXECUTORS.get(experiment.executor)
    if experiment.scheduler and not executor.takes_scheduler:
        takers = " or ".join(f'"{n}"' for n in EXECUTORS.names(bare=True) if EXECUTORS.get(n).takes_scheduler)
        raise ConfigError(f"{src}: [experiment] scheduler is set but executor is {experiment.executor!r}; "
                          f"a scheduler address needs executor = {takers}")
    _check(src, "[experiment] executor", executor.check)
    if experiment.scheduler:
        _check(src, "[experiment] scheduler", lambda: executor.check(experiment.scheduler))


def check_selection(where: str, reader, key: str, spec: str) -> None:
    """Refuse a ``[data]`` split (name, document ranges, glob or list) that selects no document of the corpus.

    Checked against the corpus's document listing (``reader``, a
    :class:`~ranker.sources.corpus.CorpusReader`, or a registered corpus's name), so a range that
    selects nothing fails here, not after the store was made and the forests parsed or imported.
    """
    from ..sources.treebank import require_split
    from ..store.splits import SPLITS
    from .splits import document_span, in_ranges, parse_ranges, split_documents
    from .stages.corpus import corpus_reader

    if isinstance(reader, str):
        reader = corpus_reader(reader)
    corpus = reader.name
    what = f'[data] {key} = "{spec}"'
    if (corpus, spec) in SPLITS:
        _check(where, what, lambda: require_split(corpus, spec))
        return
    documents: list[str] = []
    _check(where, "[data] corpus", lambda: documents.extend(reader.documents()))
    listed: list = []
    _check(where, what, lambda: listed.append(split_documents(spec, documents, corpus)))
    if listed[0] is not None:
        if not listed[0]:
            raise ConfigError(f"{where}: {what} matches no document of corpus {corpus}")
        return
    _check(where, what, lambda: parse_ranges(spec))
    ranges = parse_ranges(spec)
    if not any(in_ranges(doc, ranges) for doc in documents):
        raise ConfigError(f"{where}: {what} selects no sentence of corpus {corpus} (its documents are "
                          f"{document_span(documents)})")


def _check(where: str, what: str, load) -> None:
    try:
        load()
    except (RankerError, OSError, ValueError) as e:
        said = str(e)   # a message that names the file and section already is not prefixed again
        raise ConfigError(said if said.startswith(f"{where}: ") else f"{where}: {what}: {said}") from None


def warn_split_overlap(where: str, reader, data) -> None:
    """One ``ranker: warning:`` line when the held-out split is the test split, or training shares
    documents with the test split: the test scores are then no measure of unseen text (not refused:
    a quick look at a tiny corpus may want it)."""
    import sys

    from .splits import split_selection

    try:
        train, heldout, test = (split_selection(reader, getattr(data, k)) for k in ("train", "heldout", "test"))
    except (RankerError, OSError, ValueError):
        return   # check_selection said what is wrong
    if heldout and heldout == test:
        print(f"ranker: warning: {where}: [data] heldout selects the test documents ({data.test}): sigma^2 "
              "and K are tuned on the test split, so its scores are not of unseen text", file=sys.stderr)
    elif test & heldout:
        print(f"ranker: warning: {where}: [data] heldout and test share {len(test & heldout)} documents "
              f"(first {min(test & heldout)}): the test scores are not of unseen text", file=sys.stderr)
    if test & train:
        print(f"ranker: warning: {where}: [data] train and test share {len(test & train)} documents "
              f"(first {min(test & train)}): the test scores are not of unseen text", file=sys.stderr)


def _check_parse(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[parse]: a registered source, and the n-best files it reads exist."""
    from .stages import candidate_source

    _check(src, "[parse]", lambda: candidate_source(cfg.parse, src))


def _check_data(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[data]: registered corpora, a readable corpus with gold (or annotation of its own), splits
    that select documents of it (a warning when they overlap)."""
    from ..registries import CORPORA
    from .stages.corpus import corpus_reader

    d = cfg.data
    for key, corpus in (("corpus", d.corpus), *(("extra_training", c) for c in d.extra_training)):
        _check(src, f"[data] {key}", lambda: CORPORA.get(corpus))
    readers: list = []
    _check(src, "[data]", lambda: readers.append(corpus_reader(d)))
    reader = state["reader"] = readers[0]
    if d.tagger and not reader.takes_tagger:
        raise ConfigError(f"{src}: [data] tagger tags plain text (corpus \"text\"); corpus {reader.name!r} "
                          "brings its own tags: leave tagger out")
    if not reader.has_gold and not reader.has_annotation:
        raise ConfigError(f"{src}: [data] corpus {d.corpus!r} has no gold trees, and ranker run trains and "
                          "scores against gold; apply a trained model to it with ranker apply (--report DIR "
                          "reports its forests and costs), or treebank it with ranker serve")
    for key in ("train", "heldout", "test"):
        check_selection(src, reader, key, getattr(d, key))
    warn_split_overlap(src, reader, d)
    for extra in d.extra_training:
        check_selection(src, extra, "extra_training", "train")
    _check_treebanks(cfg, src, reader)


def _check_treebanks(cfg: ExperimentConfig, src: str, main) -> None:
    """[[data.also]]: treebanks with gold trees, each its own name, splits that select its documents,
    a source that parses every corpus (n-best files belong to one) and annotation from gold trees."""
    from ..registries import CORPORA
    from .annotation_kinds import kind_of
    from .candidate_sources import source_of
    from .stages.corpus import corpus_reader

    if not cfg.data.also:
        return
    if source_of(cfg.parse.source).reads_files:
        raise ConfigError(f"{src}: [[data.also]] needs [parse] source = \"link-grammar\" (it parses every "
                          f"treebank); the n-best files of source {cfg.parse.source!r} belong to one corpus")
    if kind_of(cfg.annotation.kind).origin != "gold trees":
        raise ConfigError(f"{src}: [[data.also]] trains on each treebank's gold trees: [annotation] kind "
                          f"{cfg.annotation.kind!r} comes from {kind_of(cfg.annotation.kind).origin}; use "
                          "\"riezler\" or \"best_f\"")
    names = {main.name: "[data]"}
    for i, one in enumerate(cfg.data.also):
        where = f"[[data.also]] number {i + 1}"
        _check(src, f"{where} corpus", lambda: CORPORA.get(one.corpus))
        readers: list = []
        _check(src, where, lambda: readers.append(corpus_reader(one, where)))
        reader = readers[0]
        if reader.name in names:
            raise ConfigError(f"{src}: {where} is corpus {reader.name!r}, as {names[reader.name]} is: give "
                              "each treebank its own name (name = \"...\")")
        names[reader.name] = where
        if not reader.has_gold:
            raise ConfigError(f"{src}: {where}: corpus {one.corpus!r} has no gold trees to train and score on")
        for key in ("train", "heldout", "test"):
            _check(src, where, lambda: check_selection(src, reader, key, getattr(one, key)))
        warn_split_overlap(src, reader, one)


def _check_report(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[report]: a document-group pattern that compiles and has a group."""
    if cfg.report.group_documents:
        import re

        try:
            groups = re.compile(cfg.report.group_documents).groups
        except re.error as e:
            raise ConfigError(f"{src}: [report] group_documents: not a regular expression ({e})") from None
        if groups < 1:
            raise ConfigError(f"{src}: [report] group_documents needs a group, as \"GUM_([a-z]+)_\": "
                              "its first group names a document's group")


def _check_annotation(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[annotation]: what the kind itself needs of the corpus (:meth:`.annotation_kinds.AnnotationKind.check_run`),
    and a rule grid only where there is a rule to choose."""
    from .annotation_kinds import kind_of

    ann = cfg.annotation
    if ann.rule == "auto" and kind_of(ann.kind).full:
        raise ConfigError(f"{src}: [annotation] rule = \"auto\" chooses among the consistency rules of a partial "
                          f"annotation; kind {ann.kind!r} is full annotation and has none: drop the rule")
    if ann.rule == "auto" and not ann.rules:
        raise ConfigError(f"{src}: [annotation] rule = \"auto\" needs at least one rule in [annotation] rules")
    if ann.screen_iterations >= cfg.loglinear.max_iter:
        raise ConfigError(f"{src}: [annotation] screen_iterations = {ann.screen_iterations} is not below [loglinear] "
                          f"max_iter = {cfg.loglinear.max_iter}: a screening fit as long as a full one screens "
                          "nothing (0 = no screen: every rule's sigma^2 grid fitted in full)")
    _check(src, "", lambda: kind_of(cfg.annotation.kind).check_run(cfg, state["reader"], src))


def _check_evidence(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[evidence]: a second source other than [parse]'s, its files there."""
    from .stages import evidence_parse

    _check(src, "[evidence]", lambda: evidence_parse(cfg.parse, cfg.evidence, src))


def _check_features(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[features]: a feature set that loads, an [evidence] source for its evidence families, one cut-off."""
    from ..features import load_feature_set

    sets: list = []
    _check(src, "[features] set", lambda: sets.append(load_feature_set(cfg.features.set)))
    wanting = sets[0].evidence_families()
    if wanting and not cfg.evidence.source:
        raise ConfigError(f"{src}: [features] set {cfg.features.set!r} has families that read a "
                          f"second source's candidates ({', '.join(wanting)}): name it in [evidence] source")
    check_cutoff(cfg.features.set, cfg.features.cutoff, f"{src}: [features] cutoff")


def _check_heidorn(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[heidorn]: a K table that parses."""
    from ..trees.ktable import as_k_table

    _check(src, "[heidorn] k_table", lambda: as_k_table(cfg.heidorn.k_table))


def _check_evaluation(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[evaluation]: a scorer its files build; the metrics tuning names are among those it reports."""
    from ..evaluation.scoring import Scorer
    from .stages import metric_names, scoring_settings

    _check(src, "[evaluation]", lambda: Scorer(scoring_settings(cfg.evaluation)))
    known = metric_names(cfg.evaluation)
    for key, m in (("[loglinear] select_metric", cfg.loglinear.select_metric),
                   ("[heidorn] tune_metric", cfg.heidorn.tune_metric)):
        if m not in known:
            raise ConfigError(f"{src}: {key}: unknown metric {m!r} (known: {', '.join(known)})")


def _check_loglinear(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[loglinear]: an objective the annotation can train (expected F needs full annotation), a grid."""
    from ..registries import ANNOTATIONS, OBJECTIVES, RANKERS
    from .annotation_kinds import kind_of

    if RANKERS.get(OBJECTIVES.get(cfg.loglinear.objective)).needs_gain and (
            not kind_of(cfg.annotation.kind).full or cfg.data.extra_training):
        full = [n for n in ANNOTATIONS.names(bare=True) if kind_of(n).full]
        raise ConfigError(f"{src}: [loglinear] objective {cfg.loglinear.objective!r} needs every candidate's F "
                          f"against a full gold tree: [annotation] kind {' or '.join(map(repr, full))} and no "
                          "[data] extra_training")
    if not cfg.loglinear.sigma2_grid:
        raise ConfigError(f"{src}: [loglinear] sigma2_grid is empty")


def _check_experiment(cfg: ExperimentConfig, src: str, state: dict) -> None:
    """[experiment]: an executor that can run here, a store path that is no folder."""
    check_executor(cfg.experiment, src)
    store = Path(cfg.experiment.store)
    if store.exists() and not store.is_file():
        raise ConfigError(f"{src}: [experiment] store {store} is not a file")


#: Each section's own check, in the order :func:`validate_config` calls them (a later one may read
#: what an earlier one found: the corpus reader [data] opened, in ``state["reader"]``).
SECTION_CHECKS = (("parse", _check_parse), ("data", _check_data), ("report", _check_report),
                  ("annotation", _check_annotation), ("evidence", _check_evidence),
                  ("features", _check_features), ("heidorn", _check_heidorn),
                  ("evaluation", _check_evaluation), ("loglinear", _check_loglinear),
                  ("experiment", _check_experiment))


def validate_config(cfg: ExperimentConfig) -> None:
    """Raise :class:`ConfigError` for the first value or file of ``cfg`` no stage could use.

    Every key's range and choices first (:func:`~.config.check_settings`), then each section's own
    check (:data:`SECTION_CHECKS`): the candidate source and its forests files, the corpora and
    split names, the report's document groups, what the annotation kind needs, the evidence source
    and its files, the feature set (and an evidence source for its evidence families), the K table,
    the EVALB parameter file, the head, MPH and flattening rules and the metrics named for tuning,
    the objective against the annotation, the executor and the store path.
    """
    check_settings(cfg)     # every key's range and choices (ranker/pipeline/config.py)
    state: dict = {}
    for _, check in SECTION_CHECKS:
        check(cfg, cfg.source, state)
