"""``ranker import``: store candidate forests from Penn or BLLIP n-best files."""
from __future__ import annotations

import sys

DEFAULT_STORE = "runs/store.sqlite"


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("import", help="import candidate forests from Penn or BLLIP n-best files",
                              description="Import candidates; each forest is matched to a stored sentence "
                              "by id or tokens. Bad forests are reported with file and line and skipped.")
    p.add_argument("--store", default=DEFAULT_STORE, help=f"store file (default {DEFAULT_STORE})")
    p.add_argument("--format", required=True, choices=["penn", "bllip"], help="file format")
    p.add_argument("--source", default=None, help="source name (default <format>:<file name>)")
    p.add_argument("--corpus", default="treebank", help="corpus the sentences belong to (default treebank)")
    p.add_argument("files", nargs="+", metavar="FILE", help="n-best files")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..sources.nbest import import_file
    from ..sources.treebank import CORPORA, ensure_corpus
    from ..store import Store

    bad = 0
    with Store.open(args.store) as st:
        if args.corpus in CORPORA:
            ensure_corpus(st, args.corpus)
        for path in args.files:
            s = import_file(st, path, args.format, source=args.source, corpus=args.corpus)
            print(f"{path}: stored {s.forests} forests, {s.candidates} candidates; {len(s.errors)} forests skipped")
            for e in s.errors:
                print(f"ranker: error: {e}", file=sys.stderr)
            bad += len(s.errors)
    return 1 if bad else 0
