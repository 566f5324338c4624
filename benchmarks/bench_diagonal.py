"""The preconditioner's Hessian diagonal of a config's training rows: numpy's sums against numba's pass.

Builds the training rows a rule keeps (the rows a preconditioned fit of ``ranker run`` reads:
stored features, cut-off, filters; nothing is fitted) from a store the config has run on, then
times :func:`ranker.models.precondition.hessian_diagonal` with each backend and says whether both
give the same bytes (they must: the scales, and every fit scaled by them, keep their bits). Run
from the folder the config's store path is relative to, on an otherwise idle machine::

    python benchmarks/bench_diagonal.py configs/gum.toml fewest

Prints one JSON line: the rows' shape and entries, seconds of the rows' build, of numba's first
call (its compiled pass loaded from numba's cache, or compiled) and its second, of numpy's, and
the ratio.
"""
from __future__ import annotations

import argparse
import json
import time


def main(argv=None) -> int:
    from ranker.models.groups import group_offsets
    from ranker.models.precondition import hessian_diagonal
    from ranker.pipeline import stages
    from ranker.pipeline.config import load_config
    from ranker.store import Store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("rule", help="the consistency rule whose training rows are built (e.g. fewest)")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    t0 = time.perf_counter()
    with Store.writing(cfg.experiment.store) as st:
        ctx = stages.StageContext(st, None, 2, False, cfg.source, None)
        splits = stages.select_splits(ctx, cfg.data)
        parsed = stages.parse_or_import(ctx, cfg.parse, splits.sentences(), cfg.data.corpus)
        ctx = ctx.with_source(parsed.source)
        ann = stages.annotate(ctx, cfg.annotation, splits.train.sentences, False,
                              evaluation=cfg.evaluation)._replace(rule=args.rule)
        template = stages.loglinear_template(cfg.loglinear, 2)
        (_, planned), = stages.training_sets(ctx, ann, cfg.features, template, [splits.train], (args.rule,))
        data = planned.data.rows()
    built = time.perf_counter() - t0
    offsets = group_offsets(data.groups, data.X.shape[0])
    seconds, out = {}, {}
    for label, backend in (("numba_first", "numba"), ("numba", "numba"), ("numpy", "scipy")):
        t = time.perf_counter()
        out[backend] = hessian_diagonal(data.X, offsets, backend)
        seconds[label] = round(time.perf_counter() - t, 2)
    print(json.dumps({"config": args.config, "rule": args.rule, "rows": data.X.shape[0],
                      "columns": data.X.shape[1], "entries": int(data.X.nnz), "sentences": len(offsets) - 1,
                      "rows_built_s": round(built, 1), **{f"{k}_s": v for k, v in seconds.items()},
                      "numpy_over_numba": round(seconds["numpy"] / max(seconds["numba"], 1e-9), 1),
                      "same_bytes": out["numba"].tobytes() == out["scipy"].tobytes()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
