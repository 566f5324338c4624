"""``ranker apply``: a trained model applied to new text or to a parser's lists, one best tree per sentence.

The first thing a parse selector is for. The input is plain text, one sentence a line, parsed here
with Link Grammar (``--text``), or a parser's n-best lists in BLLIP or Penn format (``--lists``);
the model is a file from ``ranker train`` or ``ranker models export``, whose own feature
configuration is used. The output holds one line per input line (text) or per list (lists), in
input order: the chosen tree, or an empty line where there is none (an empty or skipped line, a
sentence Link Grammar could not parse, a bad list), counted on stderr.

The work goes through the same stages as ``ranker run`` (load the corpus, parse or import,
extract features, select) in a store: a temporary one, removed at the end, unless ``--store``
names one to keep, so that a rerun on the same input parses and extracts nothing again.
"""
from __future__ import annotations

import sys

DESCRIPTION = __doc__.split("\n", 2)[2].strip()


def add_parser(subparsers) -> None:
    import argparse

    from ..registries import file_sources
    from .options import add_parse_options, add_workers, config_option

    from ..pipeline.config import DataSection

    p = subparsers.add_parser("apply", help="apply a trained model to new text or parser lists: best tree each",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="model file (ranker train --out, ranker models export)")
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("--text", default=None, metavar="FILE",
                       help="plain text, one sentence a line, parsed with Link Grammar")
    given.add_argument("--lists", default=None, metavar="FILE", help="a parser's n-best lists (see --format)")
    p.add_argument("--format", default="bllip", choices=file_sources(), help="--lists: file format (default bllip)")
    config_option(p, "--text-format", section=DataSection, key="text_format",
                  help="--text: tokens (space-separated), raw (tokenized here with NLTK's Treebank "
                  "tokenizer) or tagged (word/TAG, the tags becoming the trees' preterminals)")
    config_option(p, "--encoding", section=DataSection, key="encoding", help="encoding of --text")
    p.add_argument("--out", required=True, help="output file: one tree (or empty line) per input sentence")
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

    check_writable(args.out, args.store)   # an --out that is the store is refused too
    model = _load(args.model)
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

    saved, fs = model
    progress = not args.no_progress
    with recorded_store(args, "apply", create=True, path=store_path) as (st, _):
        ctx = stages.StageContext(st, None, args.workers, progress, "ranker apply")
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
            m = cached_matrix(st, fs, sel, source, stages.resolve_workers(args.workers),
                              progress="features" if progress else None)
            X, groups = m.restrict(saved.feature_names), m.groups()
            with applying(args.model, saved):
                picks = stages.choose(saved.ranker, {"features": lambda: (X, groups)})
            chosen = dict(zip(list(m.sentence_ids), np.asarray(picks).tolist()))
    from ..atomicfile import atomic_write

    written = empty = 0
    with atomic_write(args.out) as f:
        for sid in order:
            c = chosen.get(sid, -1) if sid is not None else -1
            if c >= 0:
                f.write(texts[sid][c] + "\n")
                written += 1
            else:
                f.write("\n")
                empty += 1
    for line in skipped[:20]:
        print(f"ranker: skipped: {line}", file=sys.stderr)
    if empty:
        print(f"ranker: {empty} of {len(order)} input sentences have no tree (empty lines in {args.out}): "
              f"{len(skipped)} skipped input, {empty - len(skipped)} without a parse", file=sys.stderr)
    print(f"wrote {written} trees to {args.out} ({len(order)} input sentences)")
    return 0


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
    lines = max([*by_line, *(int(s.split(":")[1]) for s in skipped)], default=0)
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
