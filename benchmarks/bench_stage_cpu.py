"""CPU seconds of the score and features stages on a slice of a parsed store, parent and workers apart.

Issue 13 asks for the main job cold in 10 minutes on 2 cores, and the machine is shared, so wall
time lies: this prints user+sys CPU of the stage's own process and of its worker processes
(``resource.getrusage``), for the same slice before and after a change. Each stage runs as
``ranker run`` runs it, through the process pool:

* score: :func:`ranker.pipeline.stages.compute_counts` on the first ``--score`` held-out
  sentences, after forgetting which forests their stored counts came from (so they are scored
  and written again, as in a cold run);
* features: :func:`ranker.features.extract_stored` on the first ``--features`` training sentences (the
  matrix is not stored).

It prints JSON with both figures and digests of the counts written and of the matrix, which must
not change with a speed-up. The store is written to (counts replaced by equal ones): give it a
copy, never a store you care about::

    cp runs/store.sqlite runs/copy.sqlite
    NLTK_DATA=../shared/nltk_data python benchmarks/bench_stage_cpu.py runs/copy.sqlite --score 120 --features 200
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import sys
import time


def _cpu() -> tuple[float, float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime, time.perf_counter()


def _since(start: tuple[float, float, float]) -> dict:
    now = _cpu()
    return {"parent_cpu_s": round(now[0] - start[0], 2), "workers_cpu_s": round(now[1] - start[1], 2),
            "wall_s": round(now[2] - start[2], 1)}


def score_stage(st, n: int, workers: int, source: str) -> dict:
    """Score the first ``n`` held-out sentences again; their counts' digest and the CPU it took."""
    from ranker.pipeline import stages
    from ranker.pipeline.candidate_scoring import DIGEST_KIND

    sents = st.sentences("treebank", "heldout")[:n]
    with st.batch():   # forget what the counts were computed from: everything is scored again
        st._conn.execute("DELETE FROM artifacts WHERE kind=?", (DIGEST_KIND,))
    start = _cpu()
    stages.compute_counts(stages.StageContext(st, source, workers), stages.stored_evaluation(st, source), sents)
    out = _since(start)
    h = hashlib.sha256()
    ids = [s.id for s in sents]
    for row in st._conn.execute("SELECT * FROM bracket_counts WHERE sentence_id IN (%s) "
                                "ORDER BY metric, sentence_id, source, rank" % ",".join("?" * len(ids)), ids):
        h.update(repr(row).encode())
    return {"sentences": len(sents), **out, "counts_digest": h.hexdigest()[:16]}


def features_stage(st, n: int, workers: int, source: str, feature_set: str) -> dict:
    """Extract the first ``n`` training sentences' matrix; its digest and the CPU it took."""
    from ranker.features import extract_stored, load_feature_set
    from ranker.features.matrix_bytes import to_bytes
    from ranker.pipeline.feature_cache import fit_families

    fams = load_feature_set(feature_set).build()
    fit_families(st, fams)
    ids = [s.id for s in st.sentences("treebank", "train")[:n]]
    start = _cpu()
    m = extract_stored(st, ids, source, fams, workers)
    out = _since(start)
    return {"sentences": len(ids), "candidates": int(m.X.shape[0]), **out,
            "matrix_digest": hashlib.sha256(to_bytes(m)).hexdigest()[:16]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", help="a COPY of a parsed store (its counts are rewritten)")
    ap.add_argument("--score", type=int, default=120, help="held-out sentences to score")
    ap.add_argument("--features", type=int, default=200, help="training sentences to extract")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--source", default="link-grammar")
    ap.add_argument("--feature-set", default="default")
    args = ap.parse_args()
    from ranker.store import Store

    if not os.path.isfile(args.store):
        sys.exit(f"bench_stage_cpu: {args.store}: no such store")
    result = {"store": args.store, "workers": args.workers, "load_average_before": list(os.getloadavg())}
    with Store.open(args.store) as st:
        if args.score:
            result["score"] = score_stage(st, args.score, args.workers, args.source)
        if args.features:
            result["features"] = features_stage(st, args.features, args.workers, args.source,
                                                args.feature_set)
    result["load_average_after"] = list(os.getloadavg())
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
