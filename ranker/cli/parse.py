"""``ranker parse``: parse a corpus selection with Link Grammar into the store (the run's parse stage)."""
from __future__ import annotations

import sys


def add_parser(subparsers) -> None:
    from ..pipeline.config import DataSection
    from .options import (add_corpus_files, add_parse_options, add_selection, add_store, add_workers, at_least_one,
                          config_option)

    p = subparsers.add_parser("parse", help="parse corpus sentences with Link Grammar into the store",
                              description="Parse sentences from their tokens with Link Grammar; every "
                              "linkage becomes a candidate. The sentences are a corpus's: NLTK's, Penn tree "
                              "files of your own (--path DIR), or plain text, one sentence a line (--path "
                              "FILE, --text-format; --tagger MODEL tags tokens or raw text with a model's "
                              "tagger, so the trees carry preterminals). Resumable: sentences already "
                              "parsed are skipped. "
                              "The options and defaults are those of a config's [parse] section, so "
                              "`ranker run --store` accepts the store.")
    add_store(p)
    add_selection(p, None)
    add_corpus_files(p)
    config_option(p, "--tagger", section=DataSection, key="tagger", metavar="MODEL",
                  help="text in tokens or raw: tag the lines with this model file's tagger before parsing, "
                  "so the trees carry preterminals (ranker apply tags with its own model's); without it "
                  "their words stand directly under their phrases")
    add_workers(p)
    add_parse_options(p)
    p.add_argument("--batch-size", type=at_least_one, default=20, help="sentences per committed transaction")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..errors import RankerError
    from ..pipeline import stages
    from ..sources.link_grammar import import_linkgrammar
    from ..sources.text_corpus import untagged_note
    from .recorded import recorded_store
    from .options import check_selection, data_section, parse_section, selection

    data = data_section(args)
    reader = stages.corpus_reader(data, "--corpus")   # files checked before any write
    if data.tagger and not reader.takes_tagger:
        raise RankerError(f"--tagger {data.tagger}: tags plain text (--path FILE); corpus {reader.name!r} "
                          "brings its own tags")
    import_linkgrammar()   # fail before touching the store when the parser is missing
    if reader.takes_tagger:
        note = untagged_note(data.path, reader.text_format, reader.tagger, "give --tagger MODEL (a model file "
                             "of ranker train or ranker models export) to tag it")
        if data.tagger and reader.text_format == "tagged":
            note = (f"--text-format tagged: the text's own tags are the trees' preterminals; --tagger "
                    f"{data.tagger} is not used")
        if note:
            print(f"ranker: note: {note}", file=sys.stderr)
    check_selection(reader, args)   # a split that selects nothing, before the corpus is loaded
    parse = parse_section(args)
    with recorded_store(args, "parse", create=True) as (st, _):
        stages.load_corpus(st, reader)
        sel = selection(st, args)
        ctx = stages.StageContext(st, None, args.workers, not args.no_progress, "ranker parse")
        out = stages.parse_or_import(ctx, parse, sel.sentences, reader.name, args.batch_size)
    for line in reader.skipped()[:20]:
        print(f"ranker: skipped: {line}", file=sys.stderr)
    if reader.skipped():
        print(f"{len(reader.skipped())} lines of {args.path} skipped (empty or too long)", file=sys.stderr)
    s = out.summary
    print(f"parsed {s.parsed} sentences ({s.skipped} already stored) in {s.seconds:.1f}s "
          f"({s.sentences_per_second:.1f} sentences/s): {s.candidates} candidates; "
          + ", ".join(f"{k} {v}" for k, v in sorted(s.statuses.items())))
    print(f"unmapped tokens/pieces: {s.unmapped}")
    if s.failures:
        print(f"{len(s.failures)} sentences without a full or fragment parse:", file=sys.stderr)
        for sid, status, detail in s.failures[:20]:
            print(f"  {sid}: {status}: {detail}", file=sys.stderr)
        if len(s.failures) > 20:
            print(f"  ... and {len(s.failures) - 20} more (ranker store stats)", file=sys.stderr)
    return 0
