"""``ranker apply`` through a store: text, or lists with ``--store`` or ``--report``, by the stages ``ranker run`` uses.

The input is loaded, parsed (text, by Link Grammar) or imported (lists), its features extracted and
its trees chosen by :mod:`ranker.pipeline.stages` in a store (``--store``, or a temporary one);
text without a store is applied a chunk at a time, each in a temporary store of its own
(:func:`stream_text`). Apart from :mod:`.apply_streamed` because lists read without a store go
through no stage (no store to hold them), and from the command (:mod:`.apply`), which checks the
options and chooses the path.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import NamedTuple

from .apply_output import SHOWN, finish, output_stream


def apply_in_store(args, model, store_path: str) -> int:
    """The whole input through one store (``--store``, ``--report``, or lists kept): parse or import,
    features, select, write; the report, the messages and the exit status."""
    from ..pipeline.experiment import StageClock
    from .recorded import recorded_store

    # read before the store is opened
    reader, broken = _whole_text(args, model[0].tagger) if args.text else (None, "")
    clock = StageClock(verbose=False)   # the report's costs
    with recorded_store(args, "apply", create=True, path=store_path) as (st, _):
        with output_stream(args.out) as f:
            got = _rank_in_store(args, model, st, clock, f, reader, progress=not args.no_progress)
        if args.report is not None:
            _write_report(args, st, got.order, got.source, len(got.skipped), got.written, clock, model[0])
    return finish(args, got.skipped, len(got.skipped), len(got.refused), got.written, got.empty,
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



def stream_text(args, model) -> int:
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
    with output_stream(args.out) as out:
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
            skipped += got.skipped[:max(0, SHOWN - len(skipped))]   # the first are shown, the rest counted
            if args.out == "-":
                out.flush()
    return finish(args, skipped, n_skipped, refused, written, empty, [broken] if broken else [])



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
    from ..pipeline.domains import model_rows
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
            # the model's copies of the input's corpus (--corpus-name) where it has them, as ranker run
            # scores that corpus; text of no corpus it knows is scored by the shared weights alone
            X, groups = model_rows(m, corpus, saved.feature_names), m.groups()
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
