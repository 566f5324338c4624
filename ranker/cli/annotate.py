"""``ranker annotate``: store partial bracketings and check every candidate against them."""
from __future__ import annotations

def add_parser(subparsers) -> None:
    from .options import add_store, add_workers

    p = subparsers.add_parser("annotate", help="derive or read partial bracketings and compute X(y, z)",
                              description="Store an annotation kind (riezler: Crouch et al. 2.1 bracketing "
                              "from gold trees; chunks: CoNLL-2000; file: a user bracket file) and check "
                              "every candidate against it.")
    add_store(p)
    p.add_argument("--kind", required=True, choices=["riezler", "chunks", "file"])
    p.add_argument("--file", default=None, help="bracket file for --kind file "
                   "(sentence_id<TAB>label<TAB>start<TAB>end; label * = unlabelled)")
    p.add_argument("--name", default=None, help="annotation kind name for --kind file (default: file)")
    p.add_argument("--equivalences", default=None, help="label equivalence TSV "
                   "(default configs/labels/annotation-equivalences.tsv)")
    p.add_argument("--unlabelled", action="store_true", help="match spans only, ignoring labels")
    p.add_argument("--recheck", action="store_true", help="recheck candidates checked before")
    add_workers(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..errors import RankerError
    from ..pipeline import stages
    from ..pipeline.config import AnnotationSection
    from ..pipeline.stages import load_corpus, resolve_workers
    from ..sources.annotations import DEFAULT_EQUIVALENCES, LabelEquivalences, check_store, read_bracket_file
    from ..store import Store

    eq = LabelEquivalences.load(args.equivalences or DEFAULT_EQUIVALENCES, labelled=not args.unlabelled)
    with Store.open(args.store) as st:
        if args.kind == "riezler":   # the run's annotate stage, over every treebank sentence
            kind = "riezler"
            load_corpus(st, "treebank")
            sents = st.sentences("treebank")
            out = stages.annotate(st, AnnotationSection(kind=kind), sents, workers=args.workers,
                                  where="ranker annotate", equivalences=args.equivalences,
                                  labelled=not args.unlabelled, recheck=args.recheck)
            n, done = len(sents), out.checked
        elif args.kind == "chunks":
            kind = "chunks"
            load_corpus(st, "conll2000")
            n = len(st.annotations("chunks"))
        else:
            if not args.file:
                raise RankerError("--kind file needs --file BRACKETS.tsv")
            kind = args.name or "file"
            known = {s.id: len(s.tokens) for s in st.sentences()}
            anns = read_bracket_file(args.file, kind, known)
            n = st.add_annotations(anns)
            args.recheck = True   # a user file may have changed since the last check
        if args.kind != "riezler":
            done = check_store(st, kind, eq, recheck=args.recheck, workers=resolve_workers(args.workers))
        counts = st.stats().consistent_sets.get(kind, {})
    print(f"{kind}: {n} sentences annotated; checked {done.candidates} candidates of {done.sentences} sentences")
    print(f"consistent sets: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0
