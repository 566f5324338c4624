"""``ranker store``: look into a store (``stats``), write its candidates out (``export``), copy it safely (``backup``)."""
from __future__ import annotations

import json
import sys


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("store", help="store statistics and export")
    sub = p.add_subparsers(dest="store_command", metavar="ACTION")
    sub.required = True
    s = sub.add_parser("stats", help="what the store holds (opened read-only: the file is never changed)")
    s.add_argument("store", metavar="S", help="store file")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.set_defaults(func=run_stats)
    e = sub.add_parser("export", help="candidates as Penn trees, one per line, a blank line after each "
                       "forest; or (--trees) the treebank people made with ranker serve",
                       description="Without --trees: every candidate as a Penn tree, one per line, a blank "
                       "line after each forest. With --trees: the treebank the annotators made (ranker "
                       "serve), one tree per line for each sentence whose standing decisions (one "
                       "annotator's, agreeing annotators' together, or the adjudicator's pick) leave one "
                       "bracketing; with -o FILE, FILE.tsv lists every sentence with candidates (id, status, "
                       "the tree's line, bracketings left, annotators, adjudicator, the annotator(s) whose "
                       "work the tree follows, comments; --list-empty "
                       "adds those without), and the sentences not finished are counted on stderr (listed "
                       "there without -o).")
    e.add_argument("store", metavar="S", help="store file")
    e.add_argument("--trees", action="store_true",
                   help="the finished sentences' trees (and FILE.tsv listing every sentence), not every candidate")
    e.add_argument("--corpus", default=None, help="only this corpus's sentences (default: every corpus)")
    e.add_argument("--split", default=None)
    e.add_argument("--fileids", default=None, help="glob over file ids")
    e.add_argument("--sentence", default=None, help="one sentence id")
    e.add_argument("--source", default=None, help="only this source's candidates")
    e.add_argument("--list-empty", action="store_true",
                   help="with --trees: list the sentences without candidates in FILE.tsv (and on stderr) "
                        "too; by default they are counted only (they have nothing to disambiguate)")
    e.add_argument("-o", "--output", default=None,
                   help="output file (default stdout), replaced only once the export is complete")
    e.set_defaults(func=run_export)
    b = sub.add_parser("backup", help="copy the store to a new file safely, even while it is being written "
                       "(SQLite's online backup: one consistent snapshot, the -wal log included)",
                       description="Copy a store to a new single file. Copying the .sqlite file alone "
                       "may lose what is still only in its -wal log (a server's recent decisions); "
                       "this copies a consistent snapshot of both.")
    b.add_argument("store", metavar="STORE", help="store file")
    b.add_argument("dest", metavar="DEST", help="the new file to write (must not exist), or an existing "
                   "folder (a name ending in /) to write a file of the store's name into")
    b.set_defaults(func=run_backup)


def _open(path):
    from ..store import Store

    return Store.open(path, readonly=True)   # reading commands never write, not even WAL mode


def run_backup(args) -> int:
    from ..store.connection import backup_destination
    from .signals import Stopped, interrupt_of, stopped_by_signals

    backup_destination(args.store, args.dest)   # refused before the store is even opened
    try:   # SIGTERM as Ctrl-C: the backup's temporary file is removed either way
        with stopped_by_signals(), _open(args.store) as st:
            dest = st.backup(args.dest)
    except Stopped as e:
        raise interrupt_of(e) from None   # "ranker: interrupted", exit 130 (SIGTERM: 143)
    print(f"ranker store backup: {args.store} copied to {dest}")
    return 0


def run_stats(args) -> int:
    from ..sources.adjudication import store_spans, store_team_work
    from ..sources.parse_statuses import format_table

    with _open(args.store) as st:
        stats = st.stats()
        runs = st.runs()
        scorings = st.scorings()
        models = len(st.model_records())
        agreement = store_team_work(st).agreement(store_spans(st))
        assigned = _assigned_counts(st)
        by_length = _parse_statuses(st)
    if args.format == "json":
        doc = {**stats._asdict(), "models": models, "agreement": _agreement_doc(agreement),
               "parse_statuses_by_length": by_length,
               "assignments": assigned,
               "scorings": [sc._asdict() for sc in scorings], "runs": [r._asdict() for r in runs]}
        print(json.dumps(doc, indent=2, sort_keys=True))
        return 0
    for k, v in stats._asdict().items():
        if isinstance(v, dict):
            v = ", ".join(f"{a}: {b}" for a, b in v.items()) or "-"
        elif isinstance(v, float):
            v = f"{v:.2f}"
        print(f"{k:26} {v}")
    print(f"{'models':26} {models} (ranker models list)")
    for source, table in by_length.items():
        print(f"parse statuses of {source} by sentence length:")
        for line in format_table(table):
            print("  " + line)
    for sc in scorings:
        print(f"{'counts of ' + sc.source:26} " + ", ".join(f"{k} {v}" for k, v in sc.settings.items()))
    _print_agreement(agreement)
    if assigned:
        print(f"{'assigned':26} " + ", ".join(f"{who} {n['sentences']} ({n['double']} double-annotated, "
                                             f"{n['done']} done, {n['started']} started, {n['conflict']} in conflict)"
                                             for who, n in assigned.items()) + " (ranker serve assign list)")
    print(f"runs ({len(runs)}, oldest first):" if runs else f"{'runs':26} none recorded")
    for r in runs:
        print(f"  {r.id:>4}  {r.started} .. {r.ended or '?':20}  {r.command:15} {r.outcome}  "
              f"(ranker {r.version})")
    return 0


def _parse_statuses(st) -> dict:
    """``source -> length bin -> status -> sentences`` of every source with a parse log (Link Grammar's)."""
    from ..sources.parse_statuses import stored_statuses_by_length

    return {src: table for src in st.parse_log_sources() if (table := stored_statuses_by_length(st, src))}


def _assigned_counts(st) -> dict:
    """``annotator -> {"sentences", "double", "done", "started", "conflict"}``: each annotator's part of the work
    plan (:mod:`ranker.store.assignments`) and their progress on it, counted as the page and
    ``ranker serve assign list`` count it (:class:`ranker.serve.listing.Statuses`)."""
    assignments = st.assignments()
    if not assignments:
        return {}
    from ..pipeline.provenance import stored_sources
    from ..serve.assignment import StoreForests, progress
    from ..serve.listing import Statuses

    sources = stored_sources(st)   # the one source served; with several, every candidate (no --source here)
    statuses = Statuses(st, StoreForests(st, sources[0] if len(sources) == 1 else None))
    return {p.who: {"sentences": p.assigned, "double": p.double, "done": p.done, "started": p.started,
                    "conflict": p.conflict}
            for p in progress(assignments, lambda sid, who: statuses.of(sid, who)[1])}


def _agreement_doc(a) -> dict:
    """The annotators' agreement (:class:`ranker.sources.adjudication.Agreement`) as plain JSON."""
    doc = {k: v for k, v in a._asdict().items() if k not in ("sentences", "pairs")}
    doc["pairs"] = [{**p._asdict(), "answers": p.answers, "agreed": p.agreed} for p in a.pairs]
    doc["sentences"] = [{**r._asdict(), "annotators": list(r.annotators), "contradicted": list(r.contradicted)}
                        for r in a.sentences]
    return doc


def _print_agreement(a) -> None:
    """Overall agreement on one line, then one line per sentence two or more annotators worked on."""
    def pct(x):
        return "-" if x is None else f"{100 * x:.1f}%"

    if not a.sentences:
        print(f"{'agreement':26} no sentence has two annotators")
        return
    kappa = "-" if a.kappa is None else f"{a.kappa:.3f}"
    print(f"{'agreement':26} {len(a.sentences)} sentences with 2+ annotators: Cohen's kappa {kappa} over "
          f"{a.answers} shared answers (observed {pct(a.observed)}; each pair's raters in name order), "
          f"final selections match on {pct(a.exact_match)}; {a.conflicts} conflicts, {a.adjudicated} adjudicated")
    for p in a.pairs:
        print(f"  {p.first} (rater 1) and {p.second} (rater 2): Cohen's kappa "
              f"{'-' if p.kappa is None else f'{p.kappa:.3f}'} over {p.answers} shared answers on {p.sentences} "
              f"sentences: both accept {p.both_accept}, both reject {p.both_reject}, only {p.first} accepts "
              f"{p.first_only}, only {p.second} accepts {p.second_only}")
    for r in a.sentences:
        left = ", ".join(f"{w} {'none correct' if n is None else n}" for w, n in r.remaining.items())
        print(f"  {r.sentence_id}: {r.agreed} of {r.shared} shared answers agree; remaining {left}; "
              f"selections {'match' if r.same_selection else 'differ'}"
              f"{'; conflict: ' + r.why if r.conflict else ''}")


def run_export(args) -> int:
    from contextlib import nullcontext

    from ..atomicfile import atomic_write, check_not_store

    check_not_store(args.output, args.store, "--output")
    if args.trees:
        return _export_trees(args)
    # Written beside the target and renamed at the end, so a failure leaves an old FILE intact.
    with _open(args.store) as st, (atomic_write(args.output) if args.output else nullcontext(sys.stdout)) as out:
        if args.source is not None:   # a source the store lacks exported nothing, exit 0
            from ..pipeline.stages import stored_source

            stored_source(st, args.source)
        sents = _selected_sentences(st, args)
        for s in sents:
            for text in st.candidate_texts(s.id, args.source):
                out.write(text)
                out.write("\n")
            out.write("\n")
    return 0


def _export_trees(args) -> int:
    """``store export --trees``: finished sentences as trees, every sentence listed with its status."""
    from contextlib import nullcontext

    from ..atomicfile import atomic_write, check_not_store
    from ..pipeline.stages import stored_source
    from ..sources.finished import COLUMNS, finished_trees

    listing = f"{args.output}.tsv" if args.output else None
    check_not_store(listing, args.store, "--output (its .tsv listing)")
    with _open(args.store) as st:
        source = stored_source(st, args.source)
        sents = _selected_sentences(st, args)
        outcomes = finished_trees(st, sents, source)
    empty = sum(o.status == "no candidates" for o in outcomes)
    if not args.list_empty:   # nothing to disambiguate: counted, not listed
        outcomes = [o for o in outcomes if o.status != "no candidates"]
    done = [o for o in outcomes if o.tree is not None]
    with (atomic_write(args.output) if args.output else nullcontext(sys.stdout)) as out:
        for o in done:
            out.write(o.tree + "\n")
    if listing:
        with atomic_write(listing) as f:
            f.write("\t".join(COLUMNS) + "\n")
            line = 0
            for o in outcomes:
                line += o.tree is not None
                f.write("\t".join(o.row(line if o.tree is not None else None)) + "\n")
    rest = [o for o in outcomes if o.tree is None]
    if not listing:
        for o in rest:
            print(f"ranker: not finished: {o.sentence_id}: {o.status}"
                  + (f" ({o.left} bracketings left)" if o.status in ("untouched", "started") else ""),
                  file=sys.stderr)
    where = f"{args.output}: " if args.output else ""
    print(f"{where}{len(done)} finished sentences of {len(outcomes)}; {len(rest)} not finished"
          + (f" (listed in {listing})" if listing and rest else "")
          + (f"; {empty} sentences without candidates not listed (--list-empty lists them)"
             if empty and not args.list_empty else ""), file=sys.stderr)
    return 0


def _selected_sentences(st, args) -> list:
    """The sentences ``store export`` writes (one, or a corpus, split and files); none is an error,
    not an empty export that looks like an empty store."""
    from ..errors import RankerError

    if args.sentence:
        return [st.sentence(args.sentence)]
    sents = st.sentences(args.corpus, args.split, args.fileids)
    if not sents:
        asked = ", ".join(f"{k} {v}" for k, v in (("corpus", args.corpus), ("split", args.split),
                                                   ("fileids", args.fileids)) if v)
        raise RankerError(f"{args.store}: no stored sentence{' of ' + asked if asked else ''} "
                          f"(stored: {', '.join(f'{c} {n}' for c, n in st.stats().corpora.items()) or 'none'})")
    return sents
