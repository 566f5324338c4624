"""``ranker import``: store candidate forests from Penn or BLLIP n-best files."""
from __future__ import annotations

import sys


def add_parser(subparsers) -> None:
    from ..pipeline.config import DataSection
    from ..registries import file_sources
    from .options import add_store, config_option

    p = subparsers.add_parser("import", help="import candidate forests from Penn or BLLIP n-best files",
                              description="Import candidates; each forest is matched to a stored sentence "
                              "by id or tokens. Bad forests are reported with file and line and skipped.")
    add_store(p)
    p.add_argument("--format", required=True, choices=file_sources(), help="file format")
    p.add_argument("--source", default=None, help="source name (default <format>:<file name>)")
    config_option(p, "--corpus", section=DataSection, key="corpus", help="corpus the sentences belong to")
    p.add_argument("files", nargs="+", metavar="FILE", help="n-best files")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..pipeline import stages
    from ..pipeline.config import ParseSection
    from ..registries import CORPORA
    from .recorded import recorded_store

    bad = 0
    with recorded_store(args, "import", create=True) as (st, _):
        if args.corpus in CORPORA:
            stages.load_corpus(st, CORPORA.get(args.corpus))
        for path in args.files:
            s = stages.parse_or_import(st, ParseSection(source=args.format, forests=path), (),
                                       args.corpus, where="ranker import", name=args.source,
                                       reimport=True).summary
            print(f"{path}: stored {s.forests} forests, {s.candidates} candidates; {len(s.errors)} forests skipped")
            for e in s.errors:
                print(f"ranker: error: {e}", file=sys.stderr)
            bad += len(s.errors)
    return 1 if bad else 0
