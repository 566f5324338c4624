"""``ranker apply``: a trained model applied to new text or to a parser's lists, one best tree per sentence.

The first thing a parse selector is for. The input is plain text, one sentence a line, parsed here
with Link Grammar (``--text``), or a parser's n-best lists in BLLIP or Penn format (``--lists``);
the model is a file from ``ranker train`` or ``ranker models export``, whose own feature
configuration is used. The output holds one line per input line (text) or per list (lists), in
input order: the chosen tree, or an empty line where there is none (an empty or skipped line, a
sentence Link Grammar could not parse, a bad list), counted on stderr.

Lists are streamed: read in chunks of ``--chunk`` sentences, each chunk's features extracted in
memory and its best trees written before the next is read, so memory is bounded by the chunk and
the model whatever the input's length; ``-`` reads standard input (``parser | ranker apply --lists
- --out -``) and writes standard output. Text, and lists with ``--store``, go through the same
stages as ``ranker run`` (load the corpus, parse or import, extract features, select) in a store:
a temporary one, removed at the end, unless ``--store`` names one to keep, so that a rerun on the
same input parses and extracts nothing again. Both give the same trees.
"""
from __future__ import annotations

import sys

DESCRIPTION = __doc__.split("\n", 2)[2].strip().replace("``", "")   # the docstring, as help text


def add_parser(subparsers) -> None:
    import argparse

    from ..pipeline.candidate_sources import file_sources
    from .options import add_parse_options, add_workers, config_option

    from ..pipeline.config import DataSection

    p = subparsers.add_parser("apply", help="apply a trained model to new text or parser lists: best tree each",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="model file (ranker train --out, ranker models export)")
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("--text", default=None, metavar="FILE",
                       help="plain text, one sentence a line, parsed with Link Grammar")
    given.add_argument("--lists", default=None, metavar="FILE",
                       help="a parser's n-best lists (see --format; .gz read as gzip; - for standard input)")
    p.add_argument("--format", default="bllip", choices=file_sources(), help="--lists: file format (default bllip)")
    config_option(p, "--text-format", section=DataSection, key="text_format",
                  help="--text: tokens (space-separated), raw (tokenized here with NLTK's Treebank "
                  "tokenizer) or tagged (word/TAG, the tags becoming the trees' preterminals)")
    config_option(p, "--encoding", section=DataSection, key="encoding", help="encoding of --text")
    p.add_argument("--out", required=True,
                   help="output file: one tree (or empty line) per input sentence (- for standard output)")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="also write a report of the input (no gold: sentences, forest sizes and "
                   "qualities, trees written, time and memory per step) as DIR/report.md, .json, .html; "
                   "text, or lists with --store")
    p.add_argument("--chunk", type=int, default=500, metavar="N",
                   help="--lists without --store: sentences read, ranked and written at a time (default 500)")
    p.add_argument("--store", default=None,
                   help="keep the work in this store (made if missing) so that a rerun is fast "
                   "(default: a temporary store, removed at the end)")
    add_parse_options(p)
    add_workers(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args) -> int:
    import tempfile
    from pathlib import Path

    from .train import check_writable

    from ..errors import RankerError

    if args.chunk < 1:
        raise RankerError(f"--chunk must be >= 1, not {args.chunk}")
    if args.out != "-":
        check_writable(args.out, args.store)   # an --out that is the store is refused too
    if args.report is not None and Path(args.report).exists() and not Path(args.report).is_dir():
        raise RankerError(f"--report {args.report}: not a folder (the report is DIR/report.md, .json, .html)")
    model = _load(args.model)
    if args.lists == "-" or (args.lists and args.store is None):
        if args.lists == "-" and args.store is not None:
            raise RankerError("--lists - (standard input) is streamed: it takes no --store")
        if args.report is not None:
            raise RankerError("--report describes the forests a store keeps: give --lists a --store "
                              "(streamed lists keep none)")
        return _stream_lists(args, model)
    given = Path(args.text or args.lists)
    if not given.is_file():
        from ..errors import RankerError

        raise RankerError(f"{given}: no such file" if not given.exists() else f"{given}: not a file")
    if args.store is not None:
        return _apply(args, model, args.store)
    with tempfile.TemporaryDirectory(prefix="ranker-apply-") as work:
        return _apply(args, model, str(Path(work) / "apply.sqlite"))


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


def _apply(args, model, store_path: str) -> int:
    import numpy as np

    from ..models.persistence import applying
    from ..pipeline import stages
    from ..pipeline.feature_cache import cached_matrix
    from ..pipeline.splits import SplitSelection
    from .recorded import recorded_store

    from ..atomicfile import atomic_write
    from ..pipeline.experiment import StageClock

    saved, fs = model
    progress = not args.no_progress
    clock = StageClock(verbose=False)   # the report's costs
    with recorded_store(args, "apply", create=True, path=store_path) as (st, _):
        ctx = stages.StageContext(st, None, args.workers, progress, "ranker apply")
        with clock("parse" if args.text else "import"):
            if args.text:
                corpus, document, order, skipped = _parse_text(ctx, args)
                source = stages.LINK_GRAMMAR
            else:
                corpus, document, order, skipped, source = _import_lists(st, args)
        ids = [sid for sid in order if sid is not None]
        sentences = tuple(st.sentence(sid) for sid in ids)
        sel = SplitSelection("apply", corpus, None, (document,), tuple(sorted(sentences, key=lambda s: s.index)))
        texts = {s.id: st.candidate_texts(s.id, source) for s in sel.sentences}
        have = [s.id for s in sel.sentences if texts[s.id]]
        chosen: dict[str, int] = {}
        if have:
            with clock("features"):
                m = cached_matrix(st, fs, sel, source, stages.resolve_workers(args.workers),
                                  progress="features" if progress else None)
            with clock("select"):
                X, groups = m.restrict(saved.feature_names), m.groups()
                with applying(args.model, saved):
                    picks = stages.choose(saved.ranker, {"features": lambda: (X, groups)})
                chosen = dict(zip(list(m.sentence_ids), np.asarray(picks).tolist()))
        written = empty = 0
        with clock("write"), atomic_write(args.out) as f:
            for sid in order:
                c = chosen.get(sid, -1) if sid is not None else -1
                if c >= 0:
                    f.write(texts[sid][c] + "\n")
                    written += 1
                else:
                    f.write("\n")
                    empty += 1
        if args.report is not None:
            _report(args, st, order, source, len(skipped), written, clock, saved)
    for line in skipped[:20]:
        print(f"ranker: skipped: {line}", file=sys.stderr)
    if empty:
        print(f"ranker: {empty} of {len(order)} input sentences have no tree (empty lines in {args.out}): "
              f"{len(skipped)} skipped input, {empty - len(skipped)} without a parse", file=sys.stderr)
    print(f"wrote {written} trees to {args.out} ({len(order)} input sentences)")
    return 0


def _report(args, store, order, source: str, skipped: int, written: int, clock, saved) -> None:
    """Write ``--report DIR``: the input's counts and costs (it has no gold to be scored against)."""
    from ..pipeline.apply_report import apply_report, input_counts, write_apply_report
    from ..pipeline.experiment import software_versions

    given = args.text or args.lists
    counts = input_counts(store, order, source, skipped, written)
    notes = [f"ranker apply of {'text' if args.text else args.format + ' lists'} {given} with the model "
             f"{args.model} ({len(saved.feature_names):,} features); the chosen trees are in {args.out}, one "
             "line per input sentence (an empty line where there is none)."]
    path = write_apply_report(apply_report(f"apply {given}", counts, clock, notes, software_versions()), args.report)
    print(f"wrote the report to {path}", file=sys.stderr)


def _parse_text(ctx, args):
    """Load the text file as a corpus and parse it: (corpus, document, sentence id per line, skipped)."""
    from ..pipeline import stages
    from ..pipeline.config import DataSection
    from ..sources.link_grammar import import_linkgrammar
    from .options import parse_section

    data = DataSection(corpus="text", path=args.text, encoding=args.encoding, text_format=args.text_format)
    reader = stages.corpus_reader(data, "--text")
    import_linkgrammar()   # fail before parsing when the parser is missing
    items = list(reader.items())
    skipped = reader.skipped()
    stages.load_corpus(ctx.store, reader)
    by_line = {item.sentence.index: item.sentence for item in items}
    lines = reader.lines   # not read back out of the skipped lines' messages (a path may hold ':')
    sentences = [by_line[no] for no in sorted(by_line)]
    stages.parse_or_import(ctx, parse_section(args), sentences, reader.name)
    order = [by_line[no].id if no in by_line else None for no in range(1, lines + 1)]
    return reader.name, reader.document, order, skipped


def _import_lists(st, args):
    """Import the lists as sentences of corpus ``lists``: (corpus, document, id per list, skipped, source)."""
    from pathlib import Path

    from ..pipeline.forest_files import ForestFiles, import_forest_files

    path = Path(args.lists)
    source = f"{args.format}:{path.name}"
    corpus = "lists"
    got = import_forest_files(st, ForestFiles(args.format, (path,), source), corpus, reimport=True,
                              new_corpus=corpus)
    summary = got.summaries[0]
    document = path.name[:-3] if path.name.endswith(".gz") else path.name
    return corpus, document, list(summary.order), list(summary.errors), source


def _stream_lists(args, model) -> int:
    """``--lists`` without a store: chunks of lists read, ranked in memory and written in input order."""
    import gzip
    import io
    from contextlib import nullcontext
    from pathlib import Path

    from ..atomicfile import atomic_write
    from ..errors import RankerError
    from ..pipeline.stages import resolve_workers
    from ..sources.nbest import stream_blocks

    saved, fs = model
    families = fs.build()
    if any(f.needs_fit for f in families):
        raise RankerError(f"{args.model}: the model's features fit tables on a training store "
                          f"({', '.join(f.name for f in families if f.needs_fit)}); apply it with --store")
    workers = resolve_workers(args.workers)
    if args.lists == "-":
        name, raw = "<stdin>", sys.stdin.buffer
    else:
        path = Path(args.lists)
        if not path.is_file():
            raise RankerError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
        name, raw = str(path), open(path, "rb")
    written = empty = 0
    skipped: list[str] = []
    broken = ""
    try:
        if raw.peek(2)[:2] == b"\x1f\x8b" if hasattr(raw, "peek") else False:
            raw = gzip.open(raw, "rb")
        lines = io.TextIOWrapper(raw, encoding="utf-8")
        blocks = stream_blocks(lines, name, args.format)
        out_cm = nullcontext(sys.stdout) if args.out == "-" else atomic_write(args.out)
        with out_cm as out:
            number, more = 0, True
            while more:
                chunk = []
                try:   # a damaged stream ends the input: the lists read before it are still ranked
                    for block in blocks:
                        chunk.append(block)
                        if len(chunk) >= args.chunk:
                            break
                    else:
                        more = False
                except (UnicodeDecodeError, OSError, EOFError) as e:
                    broken = f"{name}: cannot be read after its {number + len(chunk)}th list ({e})"
                    more = False
                if not chunk:
                    break
                for text in _rank_chunk(chunk, number, name, args.model, saved, families, workers, skipped):
                    out.write(text + "\n")
                    written += bool(text)
                    empty += not text
                number += len(chunk)
                if args.out == "-":
                    out.flush()
    finally:
        if args.lists != "-":
            raw.close()
    for line in skipped[:20]:
        print(f"ranker: skipped: {line}", file=sys.stderr)
    if empty:
        print(f"ranker: {empty} of {written + empty} input sentences have no tree (empty lines in "
              f"{args.out}): {len(skipped)} skipped input", file=sys.stderr)
    where = "standard output" if args.out == "-" else args.out
    print(f"wrote {written} trees to {where} ({written + empty} input sentences)", file=sys.stderr
          if args.out == "-" else sys.stdout)
    if broken:   # the trees of the lists read are written; the rest of the input is not there
        print(f"ranker: error: {broken}; the trees of the lists before it are written", file=sys.stderr)
    # as ranker import: a list skipped is a status of 1, so a wrong file or format never passes for 0
    return 1 if broken or skipped else 0


def _rank_chunk(chunk, first: int, name: str, model_path: str, saved, families, workers: int,
                skipped: list) -> list[str]:
    """The chosen tree's text (or ``""``) for each block of ``chunk``, in order; bad blocks go to ``skipped``."""
    import numpy as np

    from ..features.vectorizer import extract
    from ..models.persistence import applying
    from ..pipeline.stages import choose
    from ..sources.nbest import NbestError
    from ..store.encoding import penn_text
    from ..store.records import Candidate, Forest, Sentence
    from ..trees.transforms import normalize_root

    forests, texts = [], []
    for k, block in enumerate(chunk):
        if isinstance(block, NbestError):
            skipped.append(str(block))
            texts.append(None)
            continue
        words = block.trees[0].words
        bad = next((i for i, t in enumerate(block.trees) if t.words != words), None)
        if bad is not None:
            skipped.append(f"{name}:{block.line}: candidate {bad} has other words than candidate 0 "
                           f"({len(block.trees[bad].words)} tokens against {len(words)}); list not ranked")
            texts.append(None)
            continue
        trees = [normalize_root(t) for t in block.trees]
        sid = f"lists/{first + k}"
        sentence = Sentence(sid, "lists", name, first + k, tuple(words),
                            tuple(t or "" for t in trees[0].tags()))
        cands = tuple(Candidate(sid, "lists", r, t, "full", dict(sc)) for r, (t, sc) in
                      enumerate(zip(trees, block.scores)))
        forests.append(Forest(sentence, None, cands))
        texts.append([penn_text(t) for t in trees])
    if not forests:
        return ["" for _ in chunk]
    m = extract(forests, families, workers if len(forests) > 1 else 1)
    X, groups = m.restrict(saved.feature_names), m.groups()
    with applying(model_path, saved):
        picks = np.asarray(choose(saved.ranker, {"features": lambda: (X, groups)})).tolist()
    chosen = dict(zip(list(m.sentence_ids), picks))
    out = []
    for k, t in enumerate(texts):
        c = chosen.get(f"lists/{first + k}", -1) if t is not None else -1
        out.append(t[c] if c >= 0 else "")
    return out
