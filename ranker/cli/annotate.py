"""``ranker annotate``: store partial bracketings and check every candidate against them (the run's annotate stage)."""
from __future__ import annotations


def add_parser(subparsers) -> None:
    from ..pipeline.config import AnnotationSection
    from .options import add_evaluation_settings, add_store, add_workers, config_option

    p = subparsers.add_parser("annotate", help="derive or read partial bracketings and compute X(y, z)",
                              description="Store an annotation kind (riezler: Crouch et al. 2.1 bracketing "
                              "from gold trees; chunks: CoNLL-2000; user: the discriminant decisions made in "
                              "ranker serve; file: a user bracket file) and check "
                              "every candidate against it; best_f (full annotation, Charniak and "
                              "Johnson's signal) instead stores each candidate's counts under "
                              "--best-f-metric against the gold tree.")
    add_store(p)
    from ..registries import ANNOTATIONS

    p.add_argument("--kind", required=True, choices=[*ANNOTATIONS.names(bare=True), "file"])
    p.add_argument("--file", default=None, help="bracket file for --kind file "
                   "(sentence_id<TAB>label<TAB>start<TAB>end[<TAB>accept|reject]; label * = unlabelled; "
                   "the optional fifth column reject marks a span no candidate may contain, accept is "
                   "the default)")
    p.add_argument("--name", default=None, help="annotation kind name for --kind file (default: file); not "
                   "a built-in kind's (riezler, best_f, chunks, user), whose annotations it would replace")
    p.add_argument("--export", default=None, metavar="FILE",
                   help="with --kind user: also write the stored annotation (the adjudicated decisions of "
                        "ranker serve) as a bracket file, rejected spans marked reject, which --kind file reads back")
    p.add_argument("--equivalences", default=None, help="label equivalence TSV "
                   "(default configs/labels/annotation-equivalences.tsv)")
    p.add_argument("--unlabelled", action="store_true", help="match spans only, ignoring labels")
    p.add_argument("--recheck", action="store_true", help="recheck candidates checked before")
    config_option(p, "--best-f-metric", section=AnnotationSection, key="best_f_metric",
                  help="with --kind best_f: the metric whose best candidates form the consistent set")
    p.add_argument("--source", default=None,
                   help="candidate source in the store whose candidates are checked (default: every "
                        "source's), or, with --kind best_f, scored (default: the only one there)")
    add_evaluation_settings(p)
    add_workers(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import dataclasses

    from ..atomicfile import check_output
    from ..errors import RankerError
    from ..pipeline import stages
    from ..pipeline.annotation_kinds import kind_of
    from ..pipeline.config import AnnotationSection
    from .recorded import recorded_store

    if args.kind == "file" and not args.file:
        raise RankerError("--kind file needs --file BRACKETS.tsv")
    for option, value in (("--file", args.file), ("--name", args.name)):
        if value is not None and args.kind != "file":   # ignored, it said nothing of it: exit 0
            raise RankerError(f"{option} is for --kind file: --kind {args.kind} reads no bracket file")
    if args.export and not kind_of(args.kind).from_decisions:
        raise RankerError(f"--export writes the user decisions: it needs --kind user, not --kind {args.kind}")
    check_output(args.export, args.store, "--export")   # before the annotation is stored
    kind = (args.name or "file") if args.kind == "file" else args.kind
    if args.kind == "file":
        _own_name(kind)
    # the run's [annotation] defaults, with this command's kind
    annotation = dataclasses.replace(AnnotationSection(), kind=kind)
    if kind_of(kind).full:
        return _best_f(args, annotation)
    # a kind read from a corpus may start a new store; decisions and bracket files annotate the
    # sentences of an existing one (a new, empty store would "annotate" nothing in silence)
    corpus = kind_of(kind).corpus   # the corpus whose sentences the kind annotates (None: the store's)
    if args.equivalences is not None:   # checked before the corpus is loaded into the store
        from ..sources.annotations import LabelEquivalences

        LabelEquivalences.load(args.equivalences)
    with recorded_store(args, "annotate", create=corpus is not None) as (st, _):
        added = None
        # --source: whose candidates are checked (and whose forests the decisions are read over);
        # a source the store does not hold is refused (it was ignored; then refused only after the
        # corpus was loaded); by default every source's
        source = stages.stored_source(st, args.source) if args.source is not None else None
        if kind_of(kind).from_decisions:
            _require_decisions(st, kind)   # nothing is written before
        if corpus is not None:
            before = st.stats().corpora
            stages.load_corpus(st, corpus)
            grown = st.stats().corpora.get(corpus, 0) - before.get(corpus, 0)
            others = sorted(c for c, n in before.items() if n and c != corpus)
            if grown and others:   # not silently: a treebank store gained conll2000's 8,936 sentences
                added = (f"{st.path}: added the {grown:,} sentences of corpus {corpus}, which --kind {args.kind} "
                         f"annotates, beside the store's {', '.join(others)}")
        ctx = stages.StageContext(st, source, args.workers, False, "ranker annotate")
        out = stages.annotate(ctx, annotation, st.sentences(corpus) if corpus else [],
                              equivalences=args.equivalences,
                              labelled=not args.unlabelled, recheck=args.recheck,
                              brackets=args.file if args.kind == "file" else None)
        stored = st.annotations(kind)
        n = len(stored)
        counts = st.stats().consistent_sets.get(kind, {})
        if args.export:
            from ..sources.annotations import write_bracket_file

            written = write_bracket_file(args.export, stored.values(),
                                         f"{kind} annotation of {st.path.name}: the adjudicated decisions of "
                                         "ranker serve\nsentence_id<TAB>label<TAB>start<TAB>end[<TAB>reject]")
    done = out.checked
    if added:
        print(added)
    print(f"{kind}: {n} sentences annotated; checked {done.candidates} candidates of {done.sentences} sentences")
    print(f"consistent sets: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if args.export:
        print(f"{args.export}: {written} brackets of {n} sentences (ranker annotate --kind file --file "
              f"{args.export} reads them back)")
    return 0


def _require_decisions(st, kind: str) -> None:
    """Refuse, before the store is written, a kind read from decisions when none is stored: it
    said "0 sentences annotated" with exit 0, and ranker train then advised this very command.
    Decisions all withdrawn (undone in ranker serve) after an annotation was made from them are
    not refused: the annotation is emptied, so nothing is trained from decisions no one stands by."""
    from ..errors import RankerError

    if not st.decisions() and not st.annotations(kind):
        raise RankerError(f"{st.path}: no discriminant decisions are stored, so annotation {kind!r} would be "
                          f"empty: make some in ranker serve first (ranker serve --store {st.path})")


def _own_name(name: str) -> None:
    """Refuse a built-in kind's name for a bracket file: ``--name user`` replaced the decisions made in
    ranker serve by the file's (5 sentences became 1), ``--name riezler`` merged into the gold's."""
    from ..errors import RankerError
    from ..registries import ANNOTATIONS

    builtin = ANNOTATIONS.names(bare=True)
    if name.partition("/")[0] in builtin:
        raise RankerError(f"--name {name}: the name of a built-in annotation kind ({', '.join(builtin)}), "
                          "whose annotations a bracket file would replace or merge into: give it a name "
                          "of its own (default: file)")


def _best_f(args, annotation) -> int:
    """Store the counts kind ``best_f`` reads (the run's annotate stage with that kind)."""
    import dataclasses

    from ..pipeline import stages
    from ..pipeline.stages import stored_evaluation
    from .options import check_metric
    from .recorded import recorded_store

    check_metric("--best-f-metric", args.best_f_metric)
    annotation = dataclasses.replace(annotation, best_f_metric=args.best_f_metric)
    with recorded_store(args, "annotate") as (st, settings):
        source = stages.stored_source(st, args.source)
        ev = stored_evaluation(st, source, args)   # the settings the store's counts were computed with
        settings["evaluation"] = dataclasses.asdict(ev)
        stages.load_corpus(st, "treebank")
        sentences = st.sentences("treebank")
        ctx = stages.StageContext(st, source, args.workers, False, "ranker annotate")
        out = stages.annotate(ctx, annotation, sentences, evaluation=ev)
    print(f"best_f: counts under {args.best_f_metric} of the candidates from {source}: "
          f"{out.annotated} sentences scored now (the others have none or were scored before)")
    return 0
