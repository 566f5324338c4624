"""``ranker import``: store candidate forests from Penn or BLLIP n-best files."""
from __future__ import annotations

import sys

DESCRIPTION = """\
Import candidates; each forest is matched to a stored sentence by id or tokens. Without
--corpus, a forest no stored sentence matches adds its sentence (corpus 'lists', or
--corpus-name; id <corpus>/<file>/<block>, its words the first candidate's leaves, which every
candidate must share). With --corpus (treebank, conll2000, a penn treebank on disk with --path,
or a corpus the store holds), forests are matched to that corpus's sentences only. Files of one
source (each file is the source <format>:<file name>, or all are --source NAME) are imported in
one transaction with the source's record (files and their sha256).

A file is refused, and the store stays unchanged (exit status 2, one 'ranker: error:' line),
when it cannot be read as UTF-8 text (through gzip for .gz), is empty (holds no forest), gives
one sentence a forest twice (both places are named), or has no forest that can be stored. Any
refused file refuses the whole command.

Otherwise a bad forest is skipped and the rest stored: a malformed block (header, log
probability, tree), a forest no stored sentence matches, or one whose leaves are not its
sentence's tokens. Each skipped forest is one 'ranker: skipped: FILE:LINE: ...' line on stderr,
and the command ends with exit status 1 (0 when every forest was stored).
"""


def add_parser(subparsers) -> None:
    import argparse

    from ..pipeline.candidate_sources import file_sources
    from .options import add_corpus_files, add_store

    p = subparsers.add_parser("import", help="import candidate forests from Penn or BLLIP n-best files",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_store(p)
    p.add_argument("--format", required=True, choices=file_sources(), help="file format")
    p.add_argument("--source", default=None, help="one source name for all files (default <format>:<file name>)")
    p.add_argument("--corpus", default=None,
                   help="match forests to this corpus's sentences only: treebank, conll2000 (loaded from "
                   "NLTK), penn (tree files of --path), or a corpus the store holds (default: every "
                   "stored sentence, and forests of other sentences add them)")
    add_corpus_files(p)
    p.add_argument("files", nargs="+", metavar="FILE", help="n-best files")
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from ..errors import RankerError
    from ..pipeline import stages
    from ..registries import CORPORA
    from .recorded import recorded_store

    groups: dict[str, list[Path]] = {}   # source -> its files, each once
    for name in args.files:
        if not Path(name).is_file():
            raise RankerError(f"{name}: no such file" if not Path(name).exists() else f"{name}: not a file")
        files = groups.setdefault(args.source or f"{args.format}:{Path(name).name}", [])
        if Path(name) not in files:
            files.append(Path(name))
    done = []
    corpus = new_corpus = reader = None
    if args.corpus is not None or args.path:
        from .options import data_section

        args.corpus = args.corpus or "penn"
        data = data_section(args)
        if data.corpus in CORPORA and not CORPORA.get(data.corpus).matches_lists:
            raise RankerError("--corpus text: plain text has no forests to match; import into the store "
                              "without --corpus, or parse it (ranker parse --path FILE)")
        if data.corpus in CORPORA:
            reader = stages.corpus_reader(data, "--corpus")   # files checked before any write
            corpus = reader.name
        else:
            corpus = args.corpus
    else:
        new_corpus = args.corpus_name or "lists"
    # one transaction: a refused file changes nothing (the run's row, written in it, goes too; a
    # new store goes as well: recorded_store)
    with recorded_store(args, "import", create=True) as (st, _), st.batch():
        if reader is not None:
            stages.load_corpus(st, reader)
        ctx = stages.StageContext(st, where="ranker import")
        for source, files in groups.items():
            got = stages.import_forests(ctx, args.format, files, source, corpus, new_corpus=new_corpus)
            done.extend(zip(files, got.summaries))
    skipped = 0
    for path, s in done:
        added = f" ({s.new_sentences} of new sentences, corpus {new_corpus})" if s.new_sentences else ""
        print(f"{path}: stored {s.forests} forests{added}, {s.candidates} candidates; "
              f"{len(s.errors)} forests skipped")
        for e in s.errors:
            print(f"ranker: skipped: {e}", file=sys.stderr)
        skipped += len(s.errors)
    return 1 if skipped else 0
