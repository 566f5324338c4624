"""``ranker train``: fit the log-linear ranker on a split of the store and save the model."""
from __future__ import annotations

DEFAULT_STORE = "runs/store.sqlite"


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("train", help="train the log-linear ranker from partial bracketings",
                              description="Extract (or reuse stored) features of a split, keep the "
                              "properties seen in enough consistent candidates, and fit the "
                              "conditional log-linear model of Crouch et al. (2002) section 3.")
    p.add_argument("--store", default=DEFAULT_STORE)
    p.add_argument("--corpus", default="treebank")
    p.add_argument("--split", default="train")
    p.add_argument("--source", default=None, help="only candidates of this source")
    p.add_argument("--features", default="default", help="feature configuration TOML (name or path)")
    p.add_argument("--kind", default="riezler", help="annotation kind defining the consistent sets")
    p.add_argument("--rule", default="strict", choices=["strict", "fewest"])
    p.add_argument("--sigma2", type=float, default=1.0)
    p.add_argument("--solver", default="cg", choices=["cg", "lbfgs"])
    p.add_argument("--max-iter", type=int, default=1000)
    p.add_argument("--max-parses", type=int, default=None)
    p.add_argument("--full-only", action="store_true", help="train on sentences with full parses only")
    p.add_argument("--heldout", default=None,
                   help="choose sigma2 from --sigma2-grid by F of the selected parses of this split")
    p.add_argument("--sigma2-grid", default="0.01,0.1,1,10,100")
    p.add_argument("--metric", default="evalb_labeled", help="bracket counts for held-out F")
    p.add_argument("--threads", type=int, default=1,
                   help="threads evaluating the objective (-1: every core); the model is the same "
                        "for any number")
    p.add_argument("--out", required=True, help="model file (JSON)")
    p.set_defaults(func=run)


def run(args) -> int:
    import numpy as np

    from features import load_feature_set, stored_matrix
    from features.datasets import candidate_f, consistency_weights
    from features.vectorizer import frequency_cutoff

    from ..errors import RankerError
    from ..models import LogLinearRanker, save_model, select_sigma2
    from ..store import Store

    fs = load_feature_set(args.features)
    with Store.open(args.store, create=False) as st:
        m = stored_matrix(st, fs, args.corpus, args.split, args.source)
        if m.X.shape[0] == 0:
            raise RankerError(f"{args.store}: no candidates in {args.corpus}/{args.split}")
        w = consistency_weights(st, m, args.kind, args.corpus, args.split, args.source, args.rule)
        names = frequency_cutoff(m, w, fs.cutoff)
        X = m.restrict(names)
        full = None
        if args.full_only:
            full = np.array([c.quality == "full" for f in st.forests(args.corpus, args.split, source=args.source)
                             for c in f.candidates])
        ranker = LogLinearRanker(sigma2=args.sigma2, solver=args.solver, max_iter=args.max_iter,
                                 max_parses=args.max_parses, full_parses_only=args.full_only,
                                 n_jobs=args.threads)
        if args.heldout:
            h = stored_matrix(st, fs, args.corpus, args.heldout, args.source)
            f = candidate_f(st, h, args.metric, args.corpus, args.heldout, args.source)
            grid = [float(x) for x in args.sigma2_grid.split(",")]
            sel = select_sigma2(ranker, X, w, m.groups(), h.restrict(names), h.groups(), f, grid,
                                fit_params={"full": full})
            ranker = sel.ranker
            for s2, q in sel.trials:
                print(f"sigma2 {s2:g}: held-out {args.metric} F {q:.2f}")
        else:
            ranker.fit(X, w, m.groups(), full=full)
    save_model(args.out, ranker, names, fs.to_dict())
    print(f"trained on {ranker.n_training_sentences_} sentences, {len(names)} features "
          f"(of {len(m.names)}), sigma2 {ranker.sigma2:g}: {ranker.n_iter_} iterations, "
          f"{ranker.n_evaluations_} evaluations, converged {ranker.converged_}; wrote {args.out}")
    return 0
