"""``ranker apply``: a trained model applied to new text or to a parser's lists, one best tree per sentence.

The first thing a parse selector is for. The input is plain text, one sentence a line, parsed here
with Link Grammar (``--text``), or a parser's n-best lists in BLLIP or Penn format (``--lists``);
the model is a file from ``ranker train`` or ``ranker models export``, whose own feature
configuration is used. Text as tokens or raw is tagged first with the tagger the model carries
(trained on its training split's gold tags), so its trees have part-of-speech preterminals, as the
trees the model was trained on do; tagged text keeps its own tags (a model file from before models
carried a tagger leaves untagged text's words directly under their phrases, and says so). The
output holds one line per input line (text) or per list (lists), in input order: the chosen tree,
or an empty line where there is none (an empty or skipped line, a sentence Link Grammar could not
parse, a bad list), counted on stderr.

Lists are streamed: read in chunks of ``--chunk`` sentences, each chunk's features (those the model
has weights for) extracted in memory and its best trees written before the next is read, so memory
is bounded by the chunk and the model whatever the input's length; ``-`` reads standard input
(``parser | ranker apply --lists - --out -``) and writes standard output. Several files, or a large
uncompressed one, are cut into partitions on list boundaries (``--partition-mb``; a .gz file is
one partition): with ``--workers`` above 1 they are applied in a local pool, with ``--executor
dask`` as Dask tasks (``--scheduler ADDRESS``, or a local cluster of ``--workers`` processes), each
writing its part of the output; the parts are joined in input order, the same bytes as one
process writes. With ``--parts DIR`` the finished partitions' outputs stay in DIR until the whole
output is written, so a run cut short resumes: the same command again applies only the partitions
not finished there for the same model and input (one run at a time: a second run given the
same DIR while one works in it is refused). Otherwise one partition (standard input, a .gz
file) is read by this process, which shares each chunk's extraction among ``--workers`` processes.
Text, and lists with ``--store``, go through the same stages as ``ranker run`` (load the corpus, parse or import, extract features, select) in a store:
a temporary one, removed at the end, unless ``--store`` names one to keep, so that a rerun on the
same input parses and extracts nothing again. Text without ``--store`` (nor ``--report``) is
applied a chunk of ``--chunk`` lines at a time, each in a temporary store of its own, so memory
and disk are bounded by the chunk. All give the same trees, and read the same lines (a file's
lines end at its newlines alone). A round bracket in a word or tag of text is escaped as the Penn
Treebank writes it (an opening one is -LRB-). An input that cannot be read or ranked (a bad list,
a list of no candidate, a line not in the encoding or not in the text format) is an empty line
named on stderr, and the exit status is 1 (as ranker import's for a bad forest); an empty line, a
sentence too long or without a parse is an empty line, counted, and the status 0. An option the input would not use (``--parts`` with text, ``--encoding`` with lists, ...) is
refused, as is an output that is an input, the store, or a file of the report.
"""

from __future__ import annotations

import sys

#: Lists, or lines of text, read, ranked and written at a time when streamed (``--chunk``).
CHUNK = 50
#: Megabytes of an uncompressed list file per partition (``--partition-mb``).
PARTITION_MB = 64.0
#: The list format (``--format``).
FORMAT = "bllip"

DESCRIPTION = __doc__.split("\n", 2)[2].strip().replace("``", "")   # the docstring, as help text


def add_parser(subparsers) -> None:
    import argparse

    from ..pipeline.candidate_sources import file_sources
    from .options import add_parse_options, add_workers, config_option

    from ..pipeline.config import DataSection, ExperimentSection

    p = subparsers.add_parser("apply", help="apply a trained model to new text or parser lists: best tree each",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="model file (ranker train --out, ranker models export)")
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("--text", default=None, metavar="FILE",
                       help="plain text, one sentence a line, parsed with Link Grammar")
    given.add_argument("--lists", default=None, metavar="FILE", nargs="+",
                       help="a parser's n-best lists, one file or several, applied in turn (see --format; "
                       ".gz read as gzip; - for standard input)")
    p.add_argument("--format", default=None, choices=file_sources(), help=f"--lists: file format (default {FORMAT})")
    config_option(p, "--text-format", section=DataSection, key="text_format",
                  help="--text: tokens (space-separated), raw (tokenized here with NLTK's Treebank "
                  "tokenizer), both tagged with the model's tagger, or tagged (word/TAG: these tags, not "
                  "the model's, become the trees' preterminals)")
    config_option(p, "--encoding", section=DataSection, key="encoding", help="encoding of --text")
    config_option(p, "--corpus-name", dest="corpus_name", section=DataSection, key="name",
                  help="--text, or --lists with --store: the store's name of the input's corpus (\"\" = "
                  "text, or lists), the first part of its sentence ids; two files of one name in one "
                  "--store need two names; a model with a copy of its features per treebank scores input "
                  "named as one of its treebanks with that treebank's copies, any other by its shared weights")
    p.add_argument("--out", required=True,
                   help="output file: one tree (or empty line) per input sentence (- for standard output; "
                   "a name ending in .gz is written gzip-compressed)")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="also write a report of the input (no gold: sentences, forest sizes and "
                   "qualities, trees written, time and memory per step) as DIR/report.md, .json, .html; "
                   "text, or lists with --store")
    p.add_argument("--chunk", type=int, default=None, metavar="N",
                   help="without --store (nor --report for text): lists, or lines of --text, read, ranked "
                   f"and written at a time; memory grows with it, speed hardly (default {CHUNK})")
    p.add_argument("--store", default=None,
                   help="keep the work in this store (made if missing) so that a rerun is fast "
                   "(default: a temporary store, removed at the end)")
    p.add_argument("--partition-mb", type=float, default=None, metavar="MB",
                   help="--lists without --store: cut uncompressed files into partitions of about MB "
                   f"megabytes on list boundaries, one task each (default {PARTITION_MB:g})")
    p.add_argument("--parts", default=None, metavar="DIR",
                   help="--lists without --store: keep each partition's output in DIR until the whole "
                   "output is written; a rerun with the same DIR (a run cut short) applies only the "
                   "partitions not finished there for this model and input")
    config_option(p, "--executor", section=ExperimentSection, key="executor",
                  help="--lists without --store: where the partitions are applied: local (--workers "
                  "processes) or dask (the dask extra)")
    config_option(p, "--scheduler", section=ExperimentSection, key="scheduler",
                  help="--executor dask: the scheduler's address (tcp://host:8786); empty: a local "
                  "cluster of --workers processes")
    add_parse_options(p)
    add_workers(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args) -> int:
    import tempfile
    from pathlib import Path

    from ..errors import RankerError
    from .apply_in_store import apply_in_store, stream_text
    from .apply_streamed import stream_lists

    _check_options(args)
    _check_outputs(args)
    model = _load(args.model)
    if args.text:
        _tagging_note(args, model[0].tagger)
    if _streamed_lists(args):
        return stream_lists(args, model)
    given = Path(args.text or args.lists[0])
    if not given.is_file():
        raise RankerError(f"{given}: no such file" if not given.exists() else f"{given}: not a file")
    if args.store is not None:
        return apply_in_store(args, model, args.store)
    if args.text and args.report is None:
        return stream_text(args, model)
    with tempfile.TemporaryDirectory(prefix="ranker-apply-") as work:
        return apply_in_store(args, model, str(Path(work) / "apply.sqlite"))


def _streamed_lists(args) -> bool:
    """Lists read without a store (standard input, or no ``--store``): chunks ranked in memory."""
    return bool(args.lists) and ("-" in args.lists or args.store is None)


def _check_options(args) -> None:
    """Refuse, before any work, a value out of range and an option the input given would not use;
    then give the input's options their defaults.

    An option the input ignores was ignored without a word (``--parts`` with ``--store``,
    ``--encoding`` with lists): the user believed it did something (issue 44, item 14). An option
    left at its default is never refused.
    """
    import codecs
    import math

    from ..errors import RankerError
    from ..pipeline.config import DataSection, ExperimentSection, ParseSection, default
    from ..registries import EXECUTORS
    from ..sources.corpus import check_encoding
    from .options import check_corpus_name

    if args.chunk is not None and args.chunk < 1:
        raise RankerError(f"--chunk must be >= 1, not {args.chunk}")
    if args.partition_mb is not None and not 0 < args.partition_mb < math.inf:
        raise RankerError(f"--partition-mb must be a number of megabytes above 0, not {args.partition_mb}")
    check_encoding(args.encoding, "--encoding")
    check_corpus_name("--corpus-name", args.corpus_name)
    streamed = _streamed_lists(args)
    stdin = bool(args.lists) and "-" in args.lists
    if stdin and (args.store is not None or len(args.lists) > 1):
        raise RankerError("--lists - (standard input) is streamed alone: it takes no --store and no other file")
    if streamed and args.report is not None:
        raise RankerError("--report describes the forests a store keeps: give --lists a --store "
                          "(streamed lists keep none)")
    if args.lists and not streamed and len(args.lists) > 1:
        raise RankerError("--store takes one --lists file")

    def changed(section, key: str, value) -> bool:
        return value != default(section, key)

    text = "--text (Link Grammar parses text; lists come parsed)"
    files = "--lists FILE... without --store (files, not standard input)"
    unused = [   # (option, given where it would be ignored, what it applies to)
        ("--format", args.format is not None and not args.lists, "--lists"),
        ("--text-format", changed(DataSection, "text_format", args.text_format) and not args.text, "--text"),
        ("--encoding", codecs.lookup(args.encoding) != codecs.lookup(default(DataSection, "encoding"))
         and not args.text,
         "--text (lists are read as UTF-8)"),
        ("--linkage-limit", changed(ParseSection, "linkage_limit", args.linkage_limit) and not args.text, text),
        ("--max-parse-time", changed(ParseSection, "max_parse_time", args.max_parse_time) and not args.text, text),
        ("--no-null-links", changed(ParseSection, "allow_null", args.allow_null) and not args.text, text),
        ("--corpus-name", bool(args.corpus_name) and streamed,
         "--text, and --lists with --store (streamed lists are stored nowhere)"),
        ("--chunk", args.chunk is not None and not streamed and (args.store is not None or args.report is not None),
         "streamed input, --lists or --text without --store (nor --report): a store's input is read whole"),
        ("--parts", args.parts is not None and (not streamed or stdin), files),
        ("--partition-mb", args.partition_mb is not None and (not streamed or stdin), files),
        ("--executor", changed(ExperimentSection, "executor", args.executor) and (not streamed or stdin),
         f"{files}; --text and --store run in this machine's pool (--workers)"),
        ("--scheduler", bool(args.scheduler) and not _takes_scheduler(args.executor),
         " or ".join(f"--executor {n}" for n in EXECUTORS.names(bare=True) if _takes_scheduler(n))),
    ]
    for option, ignored, where in unused:
        if ignored:
            raise RankerError(f"{option} applies to {where}; here it would be ignored: leave it out")
    args.format = args.format or FORMAT
    args.chunk = args.chunk or CHUNK
    args.partition_mb = args.partition_mb or PARTITION_MB


def _check_outputs(args) -> None:
    """Refuse, before anything is written, an output that cannot be written or would overwrite what
    the command reads or writes: the store (or its companions), an input (the text, a list file, the
    model: issue 44, item 1), or one file written twice (``--out DIR/report.md`` with ``--report
    DIR``: item 2)."""
    from pathlib import Path

    from ..atomicfile import check_not_input, check_not_store, same_file
    from ..errors import RankerError
    from ..pipeline.report import REPORT_NAMES
    from .train import check_writable

    inputs = [("--model", args.model), ("--text", args.text),
              *(("--lists", name) for name in args.lists or () if name != "-" and "://" not in name)]
    if args.report is not None and Path(args.report).exists() and not Path(args.report).is_dir():
        raise RankerError(f"--report {args.report}: not a folder (the report is DIR/report.md, .json, .html)")
    reports = [str(Path(args.report) / name) for name in REPORT_NAMES.values()] if args.report is not None else []
    for report in reports:
        check_not_store(report, args.store, "--report")
        check_not_input(report, inputs, "--report")
    if args.out != "-":
        check_writable(args.out, args.store)   # an --out that is the store is refused too
        check_not_input(args.out, inputs, "--out")
        for report in reports:
            if same_file(args.out, report):
                raise RankerError(f"{args.out}: --out is {report}, a file of the report --report {args.report} "
                                  "writes; give another path (nothing was written)")


def _load(path):
    """The model and its feature set, checked before any work (kind, features, families of this install)."""
    from ..errors import RankerError
    from ..features import feature_set_from_dict
    from ..models import load_model

    saved = load_model(path, kind="loglinear")
    if not saved.feature_config:
        raise RankerError(f"{path}: the model file carries no feature configuration; export it again "
                          "(ranker models export) or retrain")
    try:
        fs = feature_set_from_dict(saved.feature_config, path)
        fs.build()   # a family this install lacks is named now, not after parsing
    except (RankerError, KeyError, ValueError) as e:
        raise RankerError(f"{path}: the model's feature configuration cannot be used here: {e}") from None
    wanting = fs.evidence_families()
    if wanting:
        raise RankerError(f"{path}: the model reads a second source's candidates ({', '.join(wanting)}); "
                          "ranker apply gives it none: rank with ranker select on a store holding both")
    return saved, fs


def _tagging_note(args, tagger) -> None:
    """Say once how ``--text`` is tagged when it is not by the model's tagger: tags given (they win),
    or a model without a tagger (a file from before models carried one: trees as they were then)."""
    from ..sources.text_corpus import untagged_note

    if args.text_format == "tagged" and tagger is not None:
        print(f"ranker: note: --text-format tagged: the text's own tags are the trees' preterminals; the "
              f"model's tagger (trained on {tagger.sentences:,} sentences) is not used", file=sys.stderr)
    note = untagged_note(args.text, args.text_format, tagger, f"the model {args.model} carries no tagger (a "
                         "file from before models carried one), so the trees are as they were: retrain it to tag "
                         "text, or give --text-format tagged")
    if note:
        print(f"ranker: note: {note}", file=sys.stderr)


def _takes_scheduler(name: str) -> bool:
    """Whether the executor ``name`` reads a scheduler address (an unknown name: no)."""
    from ..registries import EXECUTORS

    return name in EXECUTORS and EXECUTORS.get(name).takes_scheduler
