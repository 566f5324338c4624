"""``ranker select``: choose one candidate per sentence of a split and write the chosen trees."""
from __future__ import annotations

DEFAULT_STORE = "runs/store.sqlite"
RANKERS = ("heidorn", "loglinear", "native", "random", "oracle")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("select", help="pick one parse per sentence with a ranker",
                              description="Write the chosen tree of every sentence of the split, one "
                              "per line in corpus order (an empty line where a sentence has no parse).")
    p.add_argument("--store", default=DEFAULT_STORE)
    p.add_argument("--corpus", default="treebank")
    p.add_argument("--split", default="test")
    p.add_argument("--source", default=None, help="only candidates of this source")
    p.add_argument("--ranker", required=True, choices=RANKERS)
    p.add_argument("--model", default=None, help="model file (loglinear; optional for heidorn)")
    p.add_argument("--k-table", default="penn", help="heidorn: K table (name or path)")
    p.add_argument("--heads", default="collins", help="heidorn: head-rule table, or 'star'")
    p.add_argument("--no-pp-as-np", action="store_true", help="heidorn: keep the preposition as PP head")
    p.add_argument("--metric", default="evalb_labeled", help="oracle: metric whose F it maximises")
    p.add_argument("--seed", type=int, default=0, help="random: seed")
    p.add_argument("--out", required=True, help="output .mrg file")
    p.set_defaults(func=run)


def run(args) -> int:
    import numpy as np

    from features import load_feature_set, stored_matrix
    from features.datasets import candidate_f
    from features.vectorizer import CandidateMatrix, extract, feature_set_from_dict

    from ..errors import RankerError
    from ..models import (HeidornRanker, LogLinearRanker, NativeRanker, OracleRanker, RandomRanker,
                          load_model)
    from ..store import Store
    from ..trees.penn import write_trees

    with Store.open(args.store, create=False) as st:
        forests = list(st.forests(args.corpus, args.split, source=args.source))
        with_cands = [f for f in forests if f.candidates]
        groups = np.repeat(np.arange(len(with_cands)), [len(f.candidates) for f in with_cands])
        cands = [c for f in with_cands for c in f.candidates]
        if args.ranker == "loglinear":
            if not args.model:
                raise RankerError("--ranker loglinear needs --model (from ranker train)")
            saved = load_model(args.model)
            if not isinstance(saved.ranker, LogLinearRanker):
                raise RankerError(f"{args.model}: not a log-linear model")
            fs = feature_set_from_dict(saved.feature_config, args.model)
            m = stored_matrix(st, fs, args.corpus, args.split, args.source)
            if m.sentence_ids != tuple(f.sentence.id for f in with_cands):
                m = extract(with_cands, fs.build())
            ranker, X = saved.ranker, m.restrict(saved.feature_names)
        elif args.ranker == "heidorn":
            ranker = (load_model(args.model).ranker if args.model else
                      HeidornRanker(k_table=args.k_table, heads=args.heads,
                                    pp_as_np=not args.no_pp_as_np).fit())
            X = [c.tree for c in cands]
        elif args.ranker == "native":
            ranker, X = NativeRanker().fit(), np.array([c.rank for c in cands], dtype=float)
        elif args.ranker == "random":
            ranker, X = RandomRanker(seed=args.seed).fit(), np.zeros(len(cands))
        else:
            offsets = np.concatenate(([0], np.cumsum([len(f.candidates) for f in with_cands])))
            rows = CandidateMatrix(None, offsets, (), tuple(f.sentence.id for f in with_cands))
            ranker = OracleRanker().fit()
            X = candidate_f(st, rows, args.metric, args.corpus, args.split, args.source)
    chosen = ranker.predict(X, groups) if len(cands) else np.zeros(0, dtype=np.int64)
    pick = {f.sentence.id: f.candidates[i].tree for f, i in zip(with_cands, chosen)}
    write_trees(args.out, (pick.get(f.sentence.id) for f in forests))
    print(f"{args.ranker}: chose among {len(cands)} candidates of {len(with_cands)} sentences "
          f"({len(forests) - len(with_cands)} without a parse); wrote {args.out}")
    return 0
