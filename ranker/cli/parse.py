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
                              "`ranker run --store` accepts the store. With --reparse STATUS, only the "
                              "stored sentences whose parse came to STATUS (e.g. timeout) are parsed again, "
                              "with --max-parse-time's budget; their forests replace the old ones, and "
                              "what was derived from those (counts, checks, feature matrices) goes, so a "
                              "later `ranker run --store` with the same config uses the new forests. At "
                              "its end the command prints the selection's parse statuses by sentence length.")
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
    p.add_argument("--reparse", metavar="STATUS[,STATUS...]", default=None,
                   help="parse again only the selected sentences the store holds with one of these statuses "
                   "(" + ", ".join(_statuses()) + "), with --max-parse-time's budget (e.g. --reparse timeout "
                   "--max-parse-time 30); nothing else in the store changes")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (sentences done, rate, time left)")
    p.set_defaults(func=run)


def _statuses() -> tuple[str, ...]:
    from ..store.records import PARSE_STATUSES

    return PARSE_STATUSES


def run(args) -> int:
    if args.reparse is not None:
        return run_reparse(args)
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
    print_summary(out, sel.sentences, args)
    return 0


def run_reparse(args) -> int:
    """``ranker parse --reparse STATUS``: the stored sentences of those statuses, parsed again."""
    from pathlib import Path

    from ..errors import RankerError
    from ..pipeline import stages
    from ..pipeline.reparse import check_statuses, reparse_targets
    from ..serve.choices import forget_choices
    from ..sources.link_grammar import import_linkgrammar
    from ..store import Store
    from .options import parse_section, selection, store_corpus
    from .recorded import recorded_store

    statuses = check_statuses([s.strip() for s in args.reparse.split(",") if s.strip()], f"--reparse {args.reparse}")
    import_linkgrammar()
    if not Path(args.store).is_file():
        raise RankerError(f"--store {args.store}: no such store; --reparse parses again sentences a store "
                          "holds (parse them first: ranker parse without --reparse)")
    parse = parse_section(args)
    with Store.open(args.store, readonly=True) as st:   # every refusal before the store is opened to write
        corpus = store_corpus(args, st)
        if not st.has_corpus(corpus):
            held = ", ".join(sorted(st.stats().corpora)) or "none"
            raise RankerError(f"--corpus {corpus}: {args.store} holds no sentence of this corpus (it holds: "
                              f"{held}); --reparse parses again sentences the store holds")
        sel = selection(st, args)
        todo = reparse_targets(st, parse, sel.sentences, statuses)
    if not todo:
        print(f"no sentence of the {len(sel.sentences):,} selected has status {' or '.join(statuses)}: "
              "nothing parsed again")
        _print_lengths(args.store, sel.sentences)
        return 0
    with recorded_store(args, "parse") as (st, _):
        sel = selection(st, args)
        ctx = stages.StageContext(st, None, args.workers, not args.no_progress, "ranker parse")
        out = stages.reparse(ctx, parse, sel.sentences, statuses, args.batch_size, also_forget=(forget_choices,))
    print_summary(out, sel.sentences, args)
    return 0


def print_summary(out, sentences, args) -> None:
    """What a parse did (stdout), the sentences that failed (stderr), then the statuses by length."""
    s = out.summary
    what = (f"parsed again {s.parsed} sentences of status {' or '.join(s.reparsed)} with a budget of "
            f"{args.max_parse_time:g} s" if s.reparsed else
            f"parsed {s.parsed} sentences ({s.skipped} already stored)")
    print(f"{what} in {s.seconds:.1f}s ({s.sentences_per_second:.1f} sentences/s): {s.candidates} candidates; "
          + ", ".join(f"{k} {v}" for k, v in sorted(s.statuses.items())))
    print(f"unmapped tokens/pieces: {s.unmapped}")
    for note in out.notes:
        print(f"ranker: note: {note}", file=sys.stderr)
    if s.failures:
        print(f"{len(s.failures)} sentences without a full or fragment parse:", file=sys.stderr)
        for sid, status, detail in s.failures[:20]:
            print(f"  {sid}: {status}: {detail}", file=sys.stderr)
        if len(s.failures) > 20:
            print(f"  ... and {len(s.failures) - 20} more (ranker store stats)", file=sys.stderr)
    _print_lengths(args.store, sentences)


def _print_lengths(store_path, sentences) -> None:
    """The parse statuses of the selected sentences as stored, by length (:mod:`ranker.sources.parse_statuses`)."""
    from ..sources.link_grammar import SOURCE
    from ..sources.parse_statuses import format_table, stored_statuses_by_length
    from ..store import Store

    with Store.open(store_path, readonly=True) as st:
        table = stored_statuses_by_length(st, SOURCE, [x.id for x in sentences])
    lines = format_table(table)
    if lines:
        n = sum(sum(row.values()) for row in table.values())
        print(f"parse statuses by sentence length ({n:,} of the {len(sentences):,} selected sentences "
              "as stored; ranker parse --reparse timeout --max-parse-time N parses the timeouts again):")
        for line in lines:
            print("  " + line)
