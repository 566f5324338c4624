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
from contextlib import contextmanager
from typing import NamedTuple

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
                  "--store need two names")
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

    _check_options(args)
    _check_outputs(args)
    model = _load(args.model)
    if args.text:
        _tagging_note(args, model[0].tagger)
    if _streamed_lists(args):
        return _stream_lists(args, model)
    given = Path(args.text or args.lists[0])
    if not given.is_file():
        raise RankerError(f"{given}: no such file" if not given.exists() else f"{given}: not a file")
    if args.store is not None:
        return _apply(args, model, args.store)
    if args.text and args.report is None:
        return _stream_text(args, model)
    with tempfile.TemporaryDirectory(prefix="ranker-apply-") as work:
        return _apply(args, model, str(Path(work) / "apply.sqlite"))


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


def _apply(args, model, store_path: str) -> int:
    """The whole input through one store (``--store``, ``--report``, or lists kept): parse or import,
    features, select, write; the report, the messages and the exit status."""
    from ..pipeline.experiment import StageClock
    from .recorded import recorded_store

    # read before the store is opened
    reader, broken = _whole_text(args, model[0].tagger) if args.text else (None, "")
    clock = StageClock(verbose=False)   # the report's costs
    with recorded_store(args, "apply", create=True, path=store_path) as (st, _):
        with _output_stream(args.out) as f:
            got = _rank_in_store(args, model, st, clock, f, reader, progress=not args.no_progress)
        if args.report is not None:
            _write_report(args, st, got.order, got.source, len(got.skipped), got.written, clock, model[0])
    return _finish(args, got.skipped, len(got.skipped), len(got.refused), got.written, got.empty,
                   [broken] if broken else [])


def _whole_text(args, tagger):
    """``(reader, broken)``: the whole of ``--text`` as one :class:`TextCorpus` read by
    :func:`~ranker.sources.text_lines.text_chunks`, as streamed text is read a chunk at a time (the
    same lines, a line that cannot be decoded an empty line named by its file and line: issue 44,
    items 4 and 17); ``broken``, the error of damaged compressed bytes after the lines read.

    Raises
    ------
    RankerError
        When not one line can be read.
    """
    from pathlib import Path

    from ..errors import RankerError
    from ..sources.text_lines import text_chunks

    chunks = text_chunks(Path(args.text), args.encoding, None)
    chunk = next(chunks)
    try:
        next(chunks, None)
    except RankerError as e:
        return _text_reader(args, chunk, tagger), str(e)
    return _text_reader(args, chunk, tagger), ""


def _text_reader(args, chunk, tagger):
    """The :class:`~ranker.sources.text_corpus.TextCorpus` of a chunk of ``--text``'s lines, tokens or
    raw lines tagged by the model's ``tagger``: a line that cannot be read is skipped and named,
    never the end of the job."""
    from ..sources.text_corpus import TextCorpus

    return TextCorpus(args.text, name=args.corpus_name, encoding=args.encoding, text_format=args.text_format,
                      where="--text", lines=chunk.lines, first_line=chunk.first, bad=chunk.bad, skip_bad=True,
                      tagger=tagger)


def _stream_text(args, model) -> int:
    """``--text`` without a store: a chunk of ``--chunk`` lines at a time, each in a temporary store
    of its own (parsed, its features extracted, ranked, its trees written, the store removed), so
    memory and disk are bounded by the chunk whatever the text's length."""
    import gc
    import tempfile
    from pathlib import Path

    from ..errors import RankerError
    from ..sources.link_grammar import import_linkgrammar
    from ..sources.text_lines import text_chunks
    from .recorded import recorded_store

    import_linkgrammar()   # fail before reading when the parser is missing
    written = empty = lines = n_skipped = refused = 0
    skipped: list[str] = []
    broken = ""
    with _output_stream(args.out) as out:
        chunks = text_chunks(Path(args.text), args.encoding, args.chunk)
        while True:
            try:
                chunk = next(chunks, None)
            except RankerError as e:   # damaged compressed bytes: the lines before them are applied
                if not lines:
                    raise   # not one line read: the file is refused, no output written
                broken = str(e)
                break
            if chunk is None:
                break
            with tempfile.TemporaryDirectory(prefix="ranker-apply-") as work, \
                    recorded_store(args, "apply", create=True, path=str(Path(work) / "apply.sqlite")) as (st, _):
                got = _rank_in_store(args, model, st, _untimed, out,
                                     _text_reader(args, chunk, model[0].tagger))
            gc.collect()   # the chunk's cycles, once (a report's clock collected after every stage: 0.3 s a chunk)
            written, empty, lines = written + got.written, empty + got.empty, lines + len(got.order)
            n_skipped += len(got.skipped)
            refused += len(got.refused)
            skipped += got.skipped[:max(0, _SHOWN - len(skipped))]   # the first are shown, the rest counted
            if args.out == "-":
                out.flush()
    return _finish(args, skipped, n_skipped, refused, written, empty, [broken] if broken else [])


@contextmanager
def _untimed(name: str):
    """A stage clock that measures nothing (a chunk of streamed text has no report)."""
    yield


class _Ranked(NamedTuple):
    """What one store's input gave: its sentence per input line or list (``None``: skipped), the
    skipped inputs' messages (``refused``: those that could not be read), trees and empty lines."""

    order: list
    skipped: list[str]
    refused: list[str]
    written: int
    empty: int
    source: str


def _rank_in_store(args, model, st, clock, out, reader=None, progress: bool = False) -> _Ranked:
    """Parse the text of ``reader`` (or import the lists) into the store ``st``, extract the model's
    features, choose, and write one line per input line to ``out`` (``progress``: bars on stderr)."""
    import numpy as np

    from ..models.persistence import applying
    from ..pipeline import stages
    from ..pipeline.splits import SplitSelection

    saved, fs = model
    ctx = stages.StageContext(st, None, args.workers, progress, "ranker apply")
    with clock("parse" if args.text else "import"):
        if args.text:
            corpus, document, order, skipped = _parse_text(ctx, args, reader)
            refused = reader.refused()
            source = stages.LINK_GRAMMAR
        else:
            corpus, document, order, skipped, source = _import_lists(ctx, args)
            refused = skipped   # a list not ranked is one that could not be read
    ids = [sid for sid in order if sid is not None]
    sentences = tuple(st.sentence(sid) for sid in ids)
    sel = SplitSelection("apply", corpus, None, (document,), tuple(sorted(sentences, key=lambda s: s.index)))
    texts = {s.id: st.candidate_texts(s.id, source) for s in sel.sentences}
    have = [s.id for s in sel.sentences if texts[s.id]]
    chosen: dict[str, int] = {}
    if have:
        with clock("features"):
            m = stages.model_features(ctx.with_source(source), fs, sel, progress="features")
        with clock("select"):
            X, groups = m.restrict(saved.feature_names), m.groups()
            with applying(args.model, saved):
                picks = stages.rank({"model": saved.ranker},
                                    stages.ranker_inputs(groups, features=lambda: (X, groups)))["model"]
            chosen = dict(zip(list(m.sentence_ids), np.asarray(picks).tolist()))
    written = empty = 0
    with clock("write"):
        for sid in order:
            c = chosen.get(sid, -1) if sid is not None else -1
            if c >= 0:
                out.write(texts[sid][c] + "\n")
                written += 1
            else:
                out.write("\n")
                empty += 1
    return _Ranked(order, skipped, refused, written, empty, source)


#: Skipped lines named one by one on stderr; the others are counted.
_SHOWN = 20


def _finish(args, shown: list[str], skipped: int, refused: int, written: int, empty: int,
            broken: list[str]) -> int:
    """Say what an apply did and give its exit status: the first skipped inputs (``shown``; ``skipped``
    of them in all), the lines without a tree, the trees written, the breaks (a file that could not
    be read on). The one rule of every input and path: 1 when an input could not be read (a bad list,
    a line not in the encoding or the text format: ``refused``) or a file broke off, as ``ranker
    import`` says of a bad forest; 0 when every input was read, even if some have no tree (an empty
    line, a sentence too long or without a parse)."""
    where = "standard output" if args.out == "-" else args.out
    for line in shown[:_SHOWN]:
        print(f"ranker: skipped: {line}", file=sys.stderr)
    if empty:
        print(f"ranker: {empty} of {written + empty} input sentences have no tree (empty lines in {where}): "
              f"{skipped} skipped input, {empty - skipped} without a parse", file=sys.stderr)
    print(f"wrote {written} trees to {where} ({written + empty} input sentences)",
          file=sys.stderr if args.out == "-" else sys.stdout)
    before = "lines" if args.text else "lists"
    for b in broken:   # the trees of what was read are written; the rest of that input is not there
        print(f"ranker: error: {b}; the trees of the {before} before it are written", file=sys.stderr)
    return 1 if broken or refused else 0


def _write_report(args, store, order, source: str, skipped: int, written: int, clock, saved) -> None:
    """Write ``--report DIR``: the input's counts and costs (it has no gold to be scored against)."""
    from ..pipeline.apply.no_gold_report import apply_report, input_counts
    from ..pipeline.report import write_report
    from ..pipeline.experiment import software_versions

    given = args.text or args.lists[0]
    counts = input_counts(store, order, source, skipped, written)
    notes = [f"ranker apply of {'text' if args.text else args.format + ' lists'} {given} with the model "
             f"{args.model} ({len(saved.feature_names):,} features); the chosen trees are in {args.out}, one "
             "line per input sentence (an empty line where there is none)."]
    report = apply_report(f"apply {given}", counts, clock, notes, software_versions())
    path = write_report(report, args.report, plots=False)["md"]
    print(f"wrote the report to {path}", file=sys.stderr)


def _parse_text(ctx, args, reader):
    """Load the text (the chunk of its lines ``reader`` holds, tagged by the model's tagger unless it
    gives tags) as a corpus and parse it: (corpus, document, sentence id per line, skipped)."""
    from ..pipeline import stages
    from ..sources.link_grammar import import_linkgrammar
    from ..sources.text_corpus import TextCorpus
    from .options import parse_section

    import_linkgrammar()   # fail before parsing when the parser is missing
    items = list(reader.items())
    skipped = reader.skipped()
    stages.load_corpus(ctx.store, reader)
    by_line = {item.sentence.index: item.sentence for item in items}
    lines = reader.lines   # not read back out of the skipped lines' messages (a path may hold ':')
    sentences = [by_line[no] for no in sorted(by_line)]
    stages.parse_or_import(ctx, parse_section(args), sentences, reader.name)
    first = reader.first_line
    order = [by_line[no].id if no in by_line else None for no in range(first, first + lines)]
    return reader.name, reader.document, order, skipped


def _import_lists(ctx, args):
    """Import the lists as sentences of corpus ``lists`` (or ``--corpus-name``): (corpus, document,
    id per list, skipped, source)."""
    from pathlib import Path

    from ..pipeline import stages

    path = Path(args.lists[0])
    source = f"{args.format}:{path.name}"
    corpus = args.corpus_name or "lists"
    got = stages.import_forests(ctx, args.format, [path], source, corpus, new_corpus=corpus)
    summary = got.summaries[0]
    document = path.name[:-3] if path.name.endswith(".gz") else path.name
    return corpus, document, list(summary.order), list(summary.errors), source


def _stream_lists(args, model) -> int:
    """``--lists`` without a store: chunks of lists read, ranked in memory and written in input order.

    One process reads the files in turn (standard input, one partition, or ``--workers 1``);
    otherwise the partitions go to the executor's workers (:func:`_partitioned`).
    """
    from pathlib import Path

    from ..errors import RankerError
    from ..pipeline.apply.lists import ListRanker, apply_stream
    from ..pipeline.stages import resolve_workers
    from ..sources.partitions import Partition, plan, read_bytes

    saved, fs = model
    families = fs.build()
    if any(f.needs_fit for f in families):
        raise RankerError(f"{args.model}: the model's features fit tables on a training store "
                          f"({', '.join(f.name for f in families if f.needs_fit)}); apply it with --store")
    from ..registries import EXECUTORS

    executor = EXECUTORS.get(args.executor, "--executor")   # an unknown name is refused before any work
    if not executor.available():
        try:
            executor.check()
        except RankerError as e:
            raise RankerError(f"--executor {args.executor}: {e}") from None
    workers = resolve_workers(args.workers)
    if args.parts is not None:
        if Path(args.parts).exists() and not Path(args.parts).is_dir():
            raise RankerError(f"--parts {args.parts}: not a folder")
    if args.lists != ["-"]:
        for name in args.lists:
            path = Path(name)
            if "://" not in name and not path.is_file():
                raise RankerError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
        parts = plan(args.lists, max(1, int(args.partition_mb * (1 << 20))))
        if not executor.forked or args.parts is not None or (workers > 1 and len(parts) > 1):
            if executor.forked:   # the forked workers inherit the loaded model
                from ..pipeline.apply.lists import preload

                preload(ListRanker(str(args.model), saved, families))
            results = _partitioned(args, parts, workers)
            return _lists_finish(args, results)
    ranker = ListRanker(args.model, saved, families, workers)
    results = []
    with _output_stream(args.out) as out:
        if args.lists == ["-"]:
            results.append(apply_stream(ranker, sys.stdin.buffer, "<stdin>", args.format, out, args.chunk,
                                        flush=True))
        for name in (n for n in args.lists if n != "-"):
            with read_bytes(Partition(name)) as raw:
                results.append(apply_stream(ranker, raw, name, args.format, out, args.chunk,
                                            flush=args.out == "-"))
    return _lists_finish(args, results)


def _takes_scheduler(name: str) -> bool:
    """Whether the executor ``name`` reads a scheduler address (an unknown name: no)."""
    from ..registries import EXECUTORS

    return name in EXECUTORS and EXECUTORS.get(name).takes_scheduler


def _partitioned(args, parts, workers: int) -> list:
    """The partitions applied as tasks of the executor, each writing its part; the parts joined in order."""
    import tempfile
    import uuid
    from contextlib import ExitStack, nullcontext

    from ..errors import RankerError
    from ..parallel import ordered_map, use_executor
    from ..pipeline.apply.lists import Applied, apply_partition, count_partition
    from ..pipeline.apply.parts import (finished_parts, hold_folder, join_parts, make_folder, part_key,
                                        remove_folder, remove_parts)
    from ..registries import EXECUTORS
    from ..sources.nbest import file_digest
    from ..sources.partitions import number_lines

    cls = EXECUTORS.get(args.executor, "--executor")
    with cls(scheduler=args.scheduler, workers=workers) as executor, use_executor(executor), \
            (tempfile.TemporaryDirectory(prefix="ranker-apply-") if args.out == "-" else nullcontext()) as tmp, \
            ExitStack() as held:
        cut = [p for p in parts if p.start or p.end is not None]   # their first lines are counted first
        counts = dict(zip(cut, ordered_map(count_partition, cut, workers, state={})))
        parts = number_lines(parts, counts)
        state = {"model": str(args.model), "format": args.format, "chunk": args.chunk}
        done: dict = {}
        if args.parts is not None:   # the user's folder, kept until the output is whole
            folder = state["parts"] = args.parts
            make_folder(folder, exist_ok=True)
            held.enter_context(hold_folder(folder))   # a second run on it is refused, not left to remove it
            model = file_digest(args.model)
            keys = state["keys"] = [part_key(model, args.format, p) for p in parts]
            done = finished_parts(folder, keys)
            if done:
                print(f"ranker: {len(done)} of {len(parts)} partitions were finished in {folder} by an "
                      f"earlier run: applying the other {len(parts) - len(done)}", file=sys.stderr)
        else:   # a name of this run's own beside the output: an older folder of that name is never touched
            folder = state["parts"] = f"{tmp}/parts" if tmp else f"{args.out}.parts-{uuid.uuid4().hex[:12]}"
            make_folder(folder)
        whole = False
        try:
            todo = [(k, p) for k, p in enumerate(parts) if k not in done]
            got = dict(zip((k for k, _ in todo), ordered_map(apply_partition, todo, workers,
                                                              "apply" if not args.no_progress else None,
                                                              state=state)))
            results = [got[k] if k in got else Applied.from_record(done[k]) for k in range(len(parts))]
            with _output_stream(args.out) as out:
                join_parts(folder, len(parts), out)
            whole = not any(r.broken for r in results)
        except OSError as e:   # a part gone or unwritable: the folder is at fault, not the output
            where = f"--parts {folder}" if args.parts is not None else f"the partitions' folder {folder}"
            raise RankerError(f"{where}: {e.strerror or e}: {e.filename} (was the folder removed or changed "
                              "while the run used it?)") from None
        finally:
            if args.parts is None:
                remove_folder(folder)
            elif whole:
                remove_parts(folder)
            else:
                print(f"ranker: the finished partitions stay in {folder}: a rerun with --parts {folder} "
                      "applies only the others", file=sys.stderr)
    return results


def _output_stream(path):
    """The output as a text stream: standard output for ``-``, else the file, written whole (:func:`output`)."""
    from contextlib import nullcontext

    return nullcontext(sys.stdout) if path == "-" else output(path)


@contextmanager
def output(path):
    """The output file as a text stream, written whole or not at all; gzip-compressed when its name
    ends in ``.gz`` (a large corpus's trees take a tenth of the room), with no time in the gzip
    header and no name (the temporary file's would be), so one input and model give the same bytes
    whenever and however they are applied."""
    import gzip
    import io

    from ..atomicfile import atomic_write

    if not str(path).endswith(".gz"):
        with atomic_write(path) as f:
            yield f
        return
    with atomic_write(path, binary=True) as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as z, \
            io.TextIOWrapper(z, encoding="utf-8") as f:
        yield f


def _lists_finish(args, results: list) -> int:
    """Messages and exit status of streamed lists (:func:`_finish`): each stream's or partition's :class:`Applied`."""
    skipped = [line for r in results for line in r.skipped]
    return _finish(args, skipped, len(skipped), len(skipped), sum(r.written for r in results),
                   sum(r.empty for r in results), [r.broken for r in results if r.broken])
