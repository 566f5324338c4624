"""The settings of an experiment, section by section: the bottom of the house.

Every key of a config file is a field here, with its default and (as the field's metadata) the
values it may take (:func:`setting`). The models, the features, the store and the pipeline all
read their settings from this module, so it imports only the standard library and nothing of
ranker: a layer below every other (``tests/test_architecture.py`` holds it there). Reading and
checking a TOML file is the pipeline's business (:mod:`ranker.pipeline.config`, which re-exports
every name defined here).

Two names are not held here but found at run time, so that nothing of ranker is imported:
``[loglinear] objective`` takes its choices from the registry :data:`ranker.registries.OBJECTIVES`
(given as ``"ranker.registries:OBJECTIVES"`` and resolved by :func:`choices` on first use), and
:meth:`ExperimentConfig.to_toml` imports the TOML writer (``tomli_w``) when it is called.
"""
from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from importlib import import_module

SCHEMA_VERSION = 1

#: The consistency rules of ``[annotation] rule`` (:func:`ranker.store.consistency.choose_consistent`
#: says what each keeps). Names only, so the config can offer them without importing the store.
RULES = ("strict", "fewest", "compatible", "strict-else-compatible", "lexicographic", "graded")


class Range(typing.NamedTuple):
    """The numbers a key accepts: ``low``/``high`` (None = unbounded), each end included unless open."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    why: str = ""          # what the bounds stand for, said after a refused value


#: What a key's value is when it names a file (:func:`setting`'s ``path``): ``"file"`` a path,
#: ``"table"`` a shipped table's name or a path (a value with a ``/``), ``"split"`` a split whose
#: ``@FILE`` form names a list. A config file's relative paths are read from its own folder
#: (:func:`ranker.pipeline.config.load_config`), so a config runs the same from any folder.
PATH_KINDS = ("file", "table", "split")


def setting(default, *, choices=None, range: Range | None = None, path: str | None = None):
    """A config key: its default and, as the field's metadata, the values it may take.

    ``choices`` (a tuple of names, a :class:`~ranker.component_registry.Registry` whose bare names they
    are, or such a registry named ``"module:attribute"``, imported on first use) or ``range`` (a
    :class:`Range` of numbers). They are written here once: a config file is checked against them
    (:func:`ranker.pipeline.config.config_from_dict`), the command-line options that stand for the
    key take them (:func:`ranker.cli.options.config_option`), and the estimators take the defaults.
    ``path`` (one of :data:`PATH_KINDS`) marks a key whose value names a file.
    """
    metadata = {}
    if path is not None:
        assert path in PATH_KINDS, path
        metadata["path"] = path
    if choices is not None:
        metadata["choices"] = choices
    if range is not None:
        metadata["range"] = range
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class ExperimentSection:
    name: str = "experiment"
    seed: int = setting(0, range=Range(0))
    store: str = "runs/store.sqlite"       # relative to the working directory (as runs/NAME), not the config's folder
    workers: int = setting(0, range=Range(0))   # 0 = all cores (with executor "dask" and no scheduler: its workers)
    executor: str = "local"                # "local" (forked process pool) or "dask" (the dask extra)
    scheduler: str = ""                    # executor "dask": tcp://host:port; "" = start a LocalCluster


@dataclass(frozen=True)
class DataSection:
    # a registered corpus (ranker.registries.CORPORA): NLTK's "treebank" or "conll2000", "penn"
    # (Penn tree files at `path`: ranker/sources/penn_files.py) or "text" (one sentence a line)
    corpus: str = "treebank"
    path: str = setting("", path="file")   # penn: a folder, glob or file of trees; text: the text file
    name: str = ""                         # penn/text: the store's corpus name ("" = the folder's name, or "text")
    encoding: str = "utf-8"                # of the penn or text files
    # text: "tokens" (space-separated), "raw" (tokenized by NLTK's Treebank tokenizer) or "tagged" (word/TAG)
    text_format: str = setting("tokens", choices=("tokens", "raw", "tagged"))
    # text in tokens or raw: a model file whose tagger tags the lines before they are parsed, so the
    # trees carry preterminals ("" = none: words under their phrases); ranker apply uses its model's
    tagger: str = setting("", path="file")
    # each part: a named split, document ranges (wsj_0170-0199), a glob over document names
    # (GUM_news_*) or @FILE, a file of document names one a line
    train: str = setting("train", path="split")
    heldout: str = setting("heldout", path="split")
    test: str = setting("test", path="split")
    limit: int = setting(0, range=Range(0))            # sentences per split, 0 = all (quick runs)
    extra_training: tuple[str, ...] = ()   # extra corpora with partial annotation only, e.g. ("conll2000",)
    extra_limit: int = setting(0, range=Range(0))      # sentences of each extra corpus, 0 = all
    # more treebanks trained on in one model, each with its own splits ([[data.also]] tables with
    # this section's corpus, path, name, encoding, train, heldout, test and limit): every corpus's
    # train split trains, its held-out joins the choice of sigma^2 and rule, and the report scores
    # the model on each corpus's test split beside models trained on each alone
    also: tuple[DataSection, ...] = ()

    #: The keys an ``[[data.also]]`` table may set (the rest are the main corpus's alone).
    ALSO_KEYS = ("corpus", "path", "name", "encoding", "train", "heldout", "test", "limit")

    def corpora(self) -> tuple[DataSection, ...]:
        """This corpus, then those of ``also``: the treebanks one model is trained on."""
        return (self, *self.also)


#: The most linkages a sentence may keep (100 times the default: candidates of 1-3 KB each, a
#: sentence of 100,000 is 100-300 MB of store).
MAX_LINKAGES = 100_000


@dataclass(frozen=True)
class ParseSection:
    source: str = "link-grammar"          # or "penn" / "bllip": forests read from `forests`
    forests: str = setting("", path="file")         # the n-best file for source "penn" or "bllip"
    train_forests: str = setting("", path="file")   # per-split n-best files ("" = `forests`): each split's own
    heldout_forests: str = setting("", path="file")
    test_forests: str = setting("", path="file")
    # at most MAX_LINKAGES: Link Grammar holds it in a C int (10^12 crashed every worker as it
    # started, each sentence stored as a crash, exit 0), and each linkage is a stored candidate
    linkage_limit: int = setting(1000, range=Range(1, MAX_LINKAGES))
    # CPU seconds a sentence's parse may take, every pass together (full, null links, skim: see
    # ranker/sources/link_grammar.py); a sentence that runs out is skimmed and marked "timeout".
    # Raising it gives long sentences real forests instead of skims, for parse time spent on the
    # longest sentences (README: the trade); at least 2 (Link Grammar's timer counts whole seconds,
    # one of them kept for the skim). `ranker parse --reparse timeout --max-parse-time N` gives the
    # timeouts of a parsed store another budget.
    max_parse_time: float = setting(10.0, range=Range(2, why="a sentence's budget holds whole CPU seconds: one "
                                                          "at least for its parse, one kept for the skim"))
    allow_null: bool = True                # null links for sentences with no full linkage ("fragment")


@dataclass(frozen=True)
class EvidenceSection:
    """A second parser's candidates of the same sentences, read by the evidence feature families.

    Off by default. ``source`` "link-grammar" parses with ``[parse]``'s Link Grammar options;
    "bllip" or "penn" read the n-best files named here (as ``[parse]`` names its own). The store
    keeps both sources' candidates side by side; only the families of ``features/evidence.py``
    look at these.
    """

    source: str = ""                       # "" = none, or a [parse] source other than its own
    forests: str = setting("", path="file")         # the n-best file for source "penn" or "bllip"
    train_forests: str = setting("", path="file")   # per-split n-best files ("" = `forests`)
    heldout_forests: str = setting("", path="file")
    test_forests: str = setting("", path="file")


@dataclass(frozen=True)
class AnnotationSection:
    kind: str = "riezler"                  # riezler: partial bracketing from gold (Crouch et al. 2.1);
                                           # best_f: full annotation; user: the stored discriminant decisions
    extra_kind: str = "chunks"             # the partial annotation of the extra corpora
    # consistency rule (:func:`ranker.store.consistency.choose_consistent`): "strict", "fewest" (the
    # least-violating candidates when none is consistent), "compatible", "strict-else-compatible",
    # "lexicographic", "graded" (candidates weighted by the share of brackets they hold when none
    # holds all), or "auto": each rule of `rules` fitted, the best on held-out kept (as sigma^2 is)
    rule: str = setting("fewest", choices=RULES + ("auto",))
    rules: tuple[str, ...] = setting(RULES, choices=RULES)   # the rules rule = "auto" chooses from
    # rule = "auto" with several rules: each rule (in each feature space of [features] domains = "auto")
    # screened by a fit of at most this many iterations at the sigma2_grid's middle value, the best on
    # held-out kept and only its sigma^2 grid fitted in full, warm-started from its screening fit
    # (ranker/pipeline/stages/rules.py); 0 = every rule's whole sigma^2 grid fitted in full (the
    # exact choice, at the cost of every full fit). Below [loglinear] max_iter.
    screen_iterations: int = setting(0, range=Range(0))
    best_f_metric: str = "evalb_labeled"   # kind "best_f": the metric whose best candidates are consistent


@dataclass(frozen=True)
class FeaturesSection:
    set: str = setting("default", path="table")       # configs/features/<set>.toml, or a path
    # keep properties seen >= cutoff times in consistent candidates
    cutoff: int = setting(2, range=Range(0))
    # with [[data.also]] (several treebanks): "per-corpus" gives every feature a copy per corpus beside
    # the shared one (Daume III 2007; ranker/pipeline/domains.py), "shared" one copy for all, "auto"
    # fits both and keeps the better on held-out; text of no known corpus is scored by the shared copy
    domains: str = setting("auto", choices=("auto", "shared", "per-corpus"))


@dataclass(frozen=True)
class LogLinearSection:
    sigma2_grid: tuple[float, ...] = setting((0.01, 0.1, 1.0, 10.0), range=Range(0, low_open=True))
    # when held-out picks the grid's smallest or largest sigma^2, try up to this many values beyond it
    # (each one step of the grid's own ratio at that end) while the edge scores above the value next
    # to it: a best value at the edge says the grid stopped short (a grid of one value stays as it is)
    extend_grid: int = setting(0, range=Range(0, 10))
    optimizer: str = setting("cg", choices=("cg", "lbfgs"))   # Polak-Ribiere CG (the paper's) or L-BFGS
    # each weight in the units of its curvature (diagonal preconditioning: ranker/models/precondition.py)
    precondition: bool = False
    max_iter: int = setting(300, range=Range(1))
    tol: float = setting(1e-5, range=Range(0, low_open=True))
    # training filter: at most N parses per sentence, 0 = no limit
    max_parses: int = setting(0, range=Range(0))
    full_only: bool = False                # training filter: full parses only
    proper_subset: bool = True             # training filter: consistent set non-empty and proper
    select_metric: str = "evalb_unlabeled" # held-out metric that picks sigma^2
    # "loglik" (the paper's) or "expected_f" (minimum risk, best_f only): ranker.registries.OBJECTIVES
    objective: str = setting("loglik", choices="ranker.registries:OBJECTIVES")
    # training rows as differences along a spanning tree of each sentence's candidates
    # (ranker/models/delta.py), or "plain"
    layout: str = setting("delta", choices=("delta", "plain"))


@dataclass(frozen=True)
class HeidornSection:
    k_table: str = setting("default", path="table")   # configs/k-tables/<name>.toml, or a path
    pp_as_np: bool = True                  # read a PP as a noun phrase, the preposition a premodifier
    tune_metric: str = "evalb_unlabeled"
    tune_rounds: int = setting(2, range=Range(0))


#: The most bootstrap or randomization resamples a config may ask for (100 times the defaults' 10,000).
MAX_RESAMPLES = 1_000_000


@dataclass(frozen=True)
class EvaluationSection:
    evalb_param: str = setting("COLLINS", path="table")   # configs/evalb/<name>.prm, or a path
    head_rules: str = setting("collins", path="table")      # configs/heads/<name>.txt, or a path
    flatten_rules: str = setting("ptb", path="table")       # configs/flatten/<name>.txt, or a path
    length_cutoff: int = setting(25, range=Range(1))   # breakdown "under N words"
    # at most MAX_RESAMPLES: each resample is a row of a (resamples x sentences) array, and 10^12 of
    # them failed in numpy (ArrayMemoryError) only after the whole pipeline had run
    bootstrap_resamples: int = setting(1000, range=Range(1, MAX_RESAMPLES))
    randomization_resamples: int = setting(10000, range=Range(1, MAX_RESAMPLES))
    confidence: float = setting(0.95, range=Range(0, 1, low_open=True, high_open=True))


@dataclass(frozen=True)
class ReportSection:
    plots: bool = True
    # a breakdown of the test split by document group: a regular expression over document names
    # whose first group names a document's group ("GUM_([a-z]+)_": by genre); "" = none
    group_documents: str = ""
    learning_curve: tuple[float, ...] = setting((0.1, 0.25, 0.5, 1.0), range=Range(0, 1, low_open=True))


@dataclass(frozen=True)
class ServeSection:
    """Settings of ``ranker serve`` (not part of an experiment config: the web page is not a stage)."""

    host: str = "127.0.0.1"                # loopback only: others reach it only if told otherwise
    port: int = 8000
    read_only: bool = False                # browse only: every POST is refused
    discriminants_shown: int = 40          # the page lists this many discriminants, best first
    cached_forests: int = 16               # forests kept in memory between requests (pages reload per decision)
    # blind double annotation: an annotator sees nobody else's work on a sentence until everyone on it
    # is done (the lead's setting, kept in the store: the /assign page, ranker serve assign blind)
    blind: bool = False


@dataclass(frozen=True)
class ExperimentConfig:
    """One experiment, section by section; see ``configs/wsj-sample.toml`` for a commented example."""

    experiment: ExperimentSection = field(default_factory=ExperimentSection)
    data: DataSection = field(default_factory=DataSection)
    parse: ParseSection = field(default_factory=ParseSection)
    evidence: EvidenceSection = field(default_factory=EvidenceSection)
    annotation: AnnotationSection = field(default_factory=AnnotationSection)
    features: FeaturesSection = field(default_factory=FeaturesSection)
    loglinear: LogLinearSection = field(default_factory=LogLinearSection)
    heidorn: HeidornSection = field(default_factory=HeidornSection)
    evaluation: EvaluationSection = field(default_factory=EvaluationSection)
    report: ReportSection = field(default_factory=ReportSection)
    source: str = "<defaults>"             # the file it came from, for messages

    def to_dict(self) -> dict:
        """The fully resolved config as plain data (every key, defaults included; lists for tuples)."""
        doc: dict = {"schema_version": SCHEMA_VERSION}
        for f in dataclasses.fields(self):
            if f.name == "source":
                continue
            sec = getattr(self, f.name)
            doc[f.name] = _plain(dataclasses.asdict(sec))
            if isinstance(sec, DataSection):   # an [[data.also]] table says only what it may set
                doc[f.name]["also"] = [{k: v for k, v in t.items() if k in DataSection.ALSO_KEYS}
                                       for t in doc[f.name]["also"]]
        return doc

    def to_toml(self) -> str:
        """The fully resolved config as TOML (every key, defaults included)."""
        import tomli_w     # the one import that is not the standard library's, only when writing

        return tomli_w.dumps(self.to_dict())


def _plain(x):
    """Lists for tuples, all the way down (``[[data.also]]`` tables hold tuples of their own)."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


#: The sections of an experiment config by name (``[loglinear]`` is :class:`LogLinearSection`).
SECTIONS: dict[str, type] = {f.name: f.default_factory for f in dataclasses.fields(ExperimentConfig)
                             if f.name != "source"}


def section_name(section: type) -> str:
    """The config's name of a section class (``LogLinearSection`` -> ``"loglinear"``)."""
    return section.__name__.removesuffix("Section").lower()


def _field(section: type, key: str) -> dataclasses.Field:
    return {f.name: f for f in dataclasses.fields(section)}[key]


def default(section: type, key: str):
    """The default of ``key`` in config section ``section`` (the one place it is written)."""
    return _field(section, key).default


def choices(section: type, key: str) -> tuple[str, ...] | None:
    """The values ``key`` of ``section`` may take (None: any of its type)."""
    allowed = _field(section, key).metadata.get("choices")
    if allowed is None or isinstance(allowed, tuple):
        return allowed
    if isinstance(allowed, str):               # a registry by "module:attribute", imported now
        module, _, attr = allowed.partition(":")
        allowed = getattr(import_module(module), attr)
    return tuple(allowed.names(bare=True))     # a registry: its components by bare name


#: The range each number may take, by (section, key), read from the ``range`` of each key's
#: :func:`setting` (the sections above are the one place it is written). A value outside is refused
#: with the key named instead of silently meaning something else (``limit = -5`` would run the whole
#: corpus); floats must also be finite everywhere.
BOUNDS: dict[tuple[str, str], Range] = {
    (name, f.name): f.metadata["range"]
    for name, section in SECTIONS.items() for f in dataclasses.fields(section) if "range" in f.metadata
}
