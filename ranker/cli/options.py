"""Command-line options whose defaults come from the config dataclasses, and the shared selection options.

A subcommand option that stands for a config key is declared with :func:`config_option`: its default
is read from the dataclass (``ranker/pipeline/config.py``), never written twice, and the option
remembers which key it stands for, so a test compares every one of them with its dataclass.
"""
from __future__ import annotations

from typing import Callable


def config_default(section: type, key: str):
    """The default of ``key`` in config section ``section`` (a dataclass of ranker.pipeline.config)."""
    from ..pipeline.config import default

    return default(section, key)


def config_option(parser, *flags: str, section: type, key: str, to_cli: Callable = lambda v: v,
                  help: str = "", **kwargs):
    """``parser.add_argument`` with the default of ``section.key`` (converted by ``to_cli``).

    The action keeps ``config_key = (section, key, to_cli)`` for the defaults test. A number is
    held to the range the config key takes, and a name to its choices (the key's
    :func:`~ranker.pipeline.config.setting`), so ``--max-iter 0`` is refused as ``max_iter = 0`` in
    a config is, with argparse's one-line error.
    """
    from ..pipeline.config import choices, section_name

    name = section_name(section)
    if "type" in kwargs:
        kwargs["type"] = _bounded(kwargs["type"], name, key, flags[0])
    allowed = choices(section, key)
    if allowed is not None:
        kwargs["choices"] = allowed
    default = to_cli(config_default(section, key))
    shown = default if not isinstance(default, (list, tuple)) else " ".join(map(str, default))
    action = parser.add_argument(*flags, default=default, help=f"{help} (default {shown}; "
                                 f"config [{name}] {key})",
                                 **kwargs)
    action.config_key = (section, key, to_cli)
    return action


def _bounded(convert: Callable, section: str, key: str, flag: str) -> Callable:
    """``convert`` followed by the config key's range check, refusals as argparse type errors."""
    import argparse

    from ..pipeline.config import ConfigError, check_bounds

    def checked(text: str):
        value = convert(text)
        try:
            check_bounds(section, key, value, flag)
        except ConfigError as e:
            raise argparse.ArgumentTypeError(str(e).removeprefix(f"{flag}: ")) from None
        return value

    checked.__name__ = getattr(convert, "__name__", "value")   # argparse's "invalid int value"
    return checked


def at_least_one(text: str) -> int:
    """An argparse type: a whole number >= 1 (``--batch-size 0`` or ``-3`` was taken, exit 0)."""
    import argparse

    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


at_least_one.__name__ = "int"   # argparse's "invalid int value: 'x'"


def add_store(parser) -> None:
    """``--store FILE``, default ``[experiment] store``."""
    from ..pipeline.config import ExperimentSection

    config_option(parser, "--store", section=ExperimentSection, key="store", help="store file")


def add_workers(parser) -> None:
    """``--workers N``, default ``[experiment] workers`` (0 = every core)."""
    from ..pipeline.config import ExperimentSection

    config_option(parser, "--workers", section=ExperimentSection, key="workers", type=int,
                  help="processes (or threads) to use, 0 = every core; more than the cores warns, and no "
                  "more processes than the cores (nor than a pool's tasks) start on this machine; results "
                  "do not depend on it")


def add_selection(parser, split_key: str | None) -> None:
    """``--corpus``, ``--split`` (default the ``[data]`` key ``split_key``), ``--fileids``, ``--limit``."""
    from ..pipeline.config import DataSection

    config_option(parser, "--corpus", section=DataSection, key="corpus",
                  help="corpus: treebank or conll2000 (NLTK's), penn or text (files named by --path, "
                  "where ranker parse and import read them), or the name of a corpus the store holds")
    if split_key is None:
        parser.add_argument("--split", default=None,
                            help="named split (train, heldout, test), document ranges, a glob over "
                            "document names (news_*) or @FILE listing documents (default: all)")
    else:
        config_option(parser, "--split", section=DataSection, key=split_key,
                      help="named split (train, heldout, test), document ranges like wsj_0170-0179, "
                      "a glob over document names (news_*) or @FILE listing documents")
    parser.add_argument("--fileids", default=None, help="glob over document ids, e.g. 'wsj_017*'")
    config_option(parser, "--limit", section=DataSection, key="limit", type=int,
                  help="the first whole documents holding N sentences, 0 = all")


def add_corpus_files(parser) -> None:
    """``--path``, ``--corpus-name``, ``--encoding``, ``--text-format``: a corpus of the user's files.

    With ``--path`` and no ``--corpus``, a folder, glob or tree file (``.mrg``, ``.ptb``, ...) is a
    ``penn`` corpus and any other file ``text``.
    """
    from ..pipeline.config import DataSection

    config_option(parser, "--path", section=DataSection, key="path",
                  help="penn: folder, glob or file of Penn trees; text: a file of one sentence a line")
    config_option(parser, "--corpus-name", dest="corpus_name", section=DataSection, key="name",
                  help="the store's name of a penn or text corpus (\"\" = the folder's name, or text)")
    config_option(parser, "--encoding", section=DataSection, key="encoding", help="encoding of the files")
    config_option(parser, "--text-format", section=DataSection, key="text_format",
                  help="text: tokens (space-separated), raw (tokenized with NLTK's Treebank tokenizer) "
                  "or tagged (word/TAG)")


def add_parse_options(parser) -> None:
    """Link Grammar's options of ``[parse]``: ``--linkage-limit``, ``--max-parse-time``, ``--no-null-links``."""
    from ..pipeline.config import ParseSection

    config_option(parser, "--linkage-limit", section=ParseSection, key="linkage_limit", type=int,
                  help="linkages kept per sentence")
    config_option(parser, "--max-parse-time", section=ParseSection, key="max_parse_time", type=float,
                  help="seconds per sentence before it is marked timeout")
    config_option(parser, "--no-null-links", dest="allow_null", action="store_false", section=ParseSection,
                  key="allow_null", help="do not reparse with null links when no complete linkage exists")


def parse_section(args):
    """The ``[parse]`` section :func:`add_parse_options` stand for (Link Grammar)."""
    from ..pipeline.config import ParseSection

    return ParseSection(linkage_limit=args.linkage_limit, max_parse_time=args.max_parse_time,
                        allow_null=args.allow_null)


def data_section(args):
    """The ``[data]`` section the corpus options stand for (the corpus guessed from ``--path``)."""
    from pathlib import Path

    from ..pipeline.config import DataSection, default
    from ..sources.penn_files import TREE_SUFFIXES, document_id

    path = getattr(args, "path", "") or ""
    corpus = args.corpus
    if path and corpus == default(DataSection, "corpus"):
        single = Path(path).is_file() and not document_id(Path(path)).endswith(TREE_SUFFIXES)
        corpus = "text" if single else "penn"
    return DataSection(corpus=corpus, path=path, name=getattr(args, "corpus_name", "") or "",
                       encoding=getattr(args, "encoding", "utf-8"),
                       text_format=getattr(args, "text_format", "tokens"), tagger=getattr(args, "tagger", "") or "")


def store_corpus(args, store=None) -> str:
    """The store's name of the corpus the options name: a reader's (files, NLTK) or a stored one's.

    ``--corpus text`` (or ``penn``) without ``--path`` names the stored corpus of that name when
    ``store`` holds one: text read without ``[data] name`` is stored as corpus ``text``.
    """
    from ..pipeline.stages.corpus import corpus_reader
    from ..registries import CORPORA

    if getattr(args, "path", ""):
        return corpus_reader(data_section(args), "--path").name
    if args.corpus in CORPORA:
        name = CORPORA.resolve(args.corpus).partition("/")[0]
        if CORPORA.get(name).reads_files and store is not None and store.has_corpus(args.corpus):
            return args.corpus
        if CORPORA.get(name).reads_files:
            from ..errors import RankerError

            raise RankerError(f"--corpus {name} reads files: name them with --path (or give the stored "
                              "corpus's name as --corpus)")
        return name
    return args.corpus


def check_selection(reader, args) -> None:
    """Refuse, before the store is opened, selection options that select no sentence of the corpus
    ``reader`` reads: a negative ``--limit``, a ``--split`` that selects no document (ranges beyond
    the corpus, a glob matching nothing, ``@FILE`` naming a missing document), ``--fileids`` that
    keep none of them. (``ranker parse`` loaded the whole corpus and recorded a run, then refused.)
    """
    from ..errors import RankerError
    from ..pipeline.splits import document_span, split_selection
    from ..sources.treebank import require_split
    from ..store.splits import document_filter

    if args.limit < 0:
        raise RankerError(f"--limit must be >= 0, not {args.limit}")
    documents = reader.documents()
    if args.split is not None:
        require_split(reader.name, args.split)   # e.g. conll2000's test half, not installed
        chosen = split_selection(reader, args.split)
        if not chosen:
            raise RankerError(f"--split {args.split}: selects no document of corpus {reader.name} (its "
                              f"documents are {document_span(documents)})")
        documents = [d for d in documents if d in chosen]
    if args.fileids is not None:
        keep = document_filter(reader.name, None, args.fileids)
        if not any(keep(d) for d in documents):
            of = f"the {len(documents)} documents --split {args.split} selects" if args.split is not None else \
                f"corpus {reader.name} (its documents are {document_span(documents)})"
            raise RankerError(f"--fileids {args.fileids}: keeps no document of {of}")


def selection(store, args):
    """The sentences the selection options name (:func:`ranker.pipeline.splits.select_split`)."""
    from ..errors import RankerError
    from ..pipeline.splits import select_split

    if args.limit < 0:
        raise RankerError(f"--limit must be >= 0, not {args.limit}")
    return select_split(store, store_corpus(args, store), args.split, args.limit, fileids=args.fileids)


def add_source(parser) -> None:
    """``--source NAME``: which stored candidates (default: the store's only source)."""
    parser.add_argument("--source", default=None,
                        help="candidate source in the store (default: the only one there)")


#: ``--evidence``'s default where a stored model is read: what its record says.
EVIDENCE_OF_MODEL = ("default: the source the model's record names (the run that fitted it); needed "
                     "for a model file or a model whose record names none")


def add_evidence(parser, default: str = "") -> None:
    """``--evidence NAME``: the second stored source the evidence feature families read."""
    parser.add_argument("--evidence", default=None,
                        help="a second candidate source in the store whose analyses the evidence "
                             "families (features/evidence.py) read; a config's [evidence] source"
                             + (f" ({default})" if default else ""))


def check_metric(option: str, name: str) -> None:
    """Fail in one line when ``name``, given to ``option``, is not a reported metric (the config's list)."""
    from ..errors import RankerError
    from ..evaluation.bounds import reported_metric_names

    known = reported_metric_names()
    if name not in known:
        raise RankerError(f"{option} {name!r} is not known (known: {', '.join(known)})")


def add_evaluation_settings(parser) -> None:
    """``--evalb-param``, ``--head-rules``, ``--flatten-rules``: which stored counts to read.

    By default the settings the store's counts were computed with (``ranker counts`` records
    them); an option picks among several stored settings, and one naming settings no counts were
    computed with is an error (:func:`ranker.pipeline.stages.stored_evaluation`).
    """
    for flag, key in (("--evalb-param", "evalb_param"), ("--head-rules", "head_rules"),
                      ("--flatten-rules", "flatten_rules")):
        parser.add_argument(flag, dest=key, default=None,
                            help=f"[evaluation] {key} of the stored counts to read (default: the "
                                 "settings the store's counts were computed with)")


def check_corpus_name(option: str, name: str) -> None:
    """Refuse a corpus name a sentence id cannot begin with, or one of NLTK's corpora.

    A sentence id is ``<corpus>/<document>/<line>``: a name holding ``/`` or white space makes ids
    that read as other corpora's, and ``treebank`` or ``conll2000`` would put a user's sentences,
    without gold trees, among a corpus's gold ones.
    """
    import re

    from ..errors import RankerError
    from ..registries import CORPORA

    if not name:
        return
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", name):
        raise RankerError(f"{option} {name!r}: a corpus name is letters, digits and . _ + - (it begins "
                          "every sentence id: NAME/FILE/LINE)")
    if name in CORPORA and not CORPORA.get(name).reads_files:
        raise RankerError(f"{option} {name!r}: the name of NLTK's corpus; give another")
