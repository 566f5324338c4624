"""``ranker parse``: parse a corpus split with Link Grammar into the store."""
from __future__ import annotations

import sys

DEFAULT_STORE = "runs/store.sqlite"


def add_parser(subparsers) -> None:
    from ..sources.link_grammar import LinkGrammarOptions

    d = LinkGrammarOptions()
    p = subparsers.add_parser("parse", help="parse corpus sentences with Link Grammar into the store",
                              description="Parse sentences from their gold tokens with Link Grammar; every "
                              "linkage becomes a candidate. Resumable: sentences already parsed are skipped.")
    p.add_argument("--store", default=DEFAULT_STORE, help=f"store file (default {DEFAULT_STORE})")
    p.add_argument("--corpus", default="treebank", choices=["treebank"], help="corpus to parse")
    p.add_argument("--split", default=None, help="named split: train, heldout, test (default: all)")
    p.add_argument("--fileids", default=None, help="glob over file ids, e.g. 'wsj_000*'")
    p.add_argument("--limit", type=int, default=None, help="parse only the first N selected sentences")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--linkage-limit", type=int, default=d.linkage_limit,
                   help=f"linkages kept per sentence (default {d.linkage_limit})")
    p.add_argument("--max-parse-time", type=int, default=d.max_parse_time,
                   help=f"seconds per sentence before it is marked timeout (default {d.max_parse_time})")
    p.add_argument("--no-null-links", action="store_true",
                   help="do not reparse with null links when no complete linkage exists")
    p.add_argument("--batch-size", type=int, default=20, help="sentences per committed transaction")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..errors import RankerError
    from ..sources.link_grammar import LinkGrammarOptions, import_linkgrammar
    from ..sources.parse_run import parse_into_store
    from ..sources.treebank import ensure_corpus
    from ..store import Store

    import_linkgrammar()   # fail before touching the store when the parser is missing
    if args.limit is not None and args.limit < 0:
        raise RankerError("--limit must be >= 0")
    options = LinkGrammarOptions(linkage_limit=args.linkage_limit, null_links=not args.no_null_links,
                                 max_parse_time=args.max_parse_time)
    with Store.open(args.store) as st:
        ensure_corpus(st, args.corpus)
        sentences = st.sentences(args.corpus, args.split, args.fileids)
        if args.limit is not None:
            sentences = sentences[:args.limit]
        if not sentences:
            raise RankerError(f"no sentences selected from {args.corpus} "
                              f"(split {args.split}, fileids {args.fileids})")
        summary = parse_into_store(st, sentences, options, workers=args.workers, batch_size=args.batch_size,
                                   progress=not args.no_progress)
    s = summary
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
