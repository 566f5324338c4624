"""How fast features are extracted from real Link Grammar forests (target: 10,000 candidates/s overall).

The full experiment extracts features for about 1.6 million Link Grammar candidates (3,914 WSJ
sentences x ~415 linkages) inside a 15-minute budget on 2 cores, so extraction must run at roughly
10,000 candidates per second or better. Build a store first, for example::

    NLTK_DATA=/work/shared/nltk_data ranker parse --store /tmp/f.sqlite --corpus treebank \\
        --split heldout --limit 60

then run ``python benchmarks/bench_features.py --store /tmp/f.sqlite``. Timed separately: reading
the forests back from the store (``store.forests`` re-parses every candidate's Penn text), each
family of the feature set alone, and the whole set (one process, then ``--workers`` processes).
Families that must be fitted (the auxiliary distribution) are fitted on the store's training
sentences first, untimed. ``--profile`` prints the top of a cProfile of the whole-set extraction
to stderr. Prints JSON.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time

from features import load_feature_set
from features.vectorizer import extract
from ranker.pipeline.feature_cache import fit_families
from ranker.store import Store

TARGET = 10_000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", default="/tmp/f.sqlite")
    ap.add_argument("--corpus", default="treebank")
    ap.add_argument("--split", default="heldout")
    ap.add_argument("--features", default="default")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    fs = load_feature_set(args.features)
    with Store.open(args.store) as st:
        fams = fs.build()
        fit_families(st, fams)
        t0 = time.perf_counter()
        forests = [f for f in st.forests(args.corpus, args.split) if f.candidates]
        read = time.perf_counter() - t0
    n = sum(len(f.candidates) for f in forests)
    if not n:
        sys.exit(f"{args.store}: no candidates in {args.corpus}/{args.split}; run ranker parse first")

    per_family = {}
    for spec, fam in zip(fs.families, fams):
        t0 = time.perf_counter()
        extract(forests, [fam])
        per_family[spec[0]] = round(n / (time.perf_counter() - t0))

    prof = cProfile.Profile() if args.profile else None
    t0 = time.perf_counter()
    if prof:
        prof.enable()
    m = extract(forests, fams)
    if prof:
        prof.disable()
    whole = time.perf_counter() - t0

    t0 = time.perf_counter()
    mp = extract(forests, fams, workers=args.workers)
    pooled = time.perf_counter() - t0
    same = mp.names == m.names and (mp.X != m.X).nnz == 0

    with Store.open(args.store) as st:
        t0 = time.perf_counter()
        texts = sum(len(st.candidate_texts(f.sentence.id)) for f in forests)
        sql_only = time.perf_counter() - t0

    print(json.dumps({
        "sentences": len(forests),
        "candidates": n,
        "features": len(m.names),
        "nonzeros": int(m.X.nnz),
        "candidates_per_second": round(n / whole),
        f"candidates_per_second_{args.workers}_workers": round(n / pooled),
        "pool_matrix_identical": bool(same),
        "target_candidates_per_second": TARGET,
        "meets_target": n / pooled >= TARGET,
        "per_family_candidates_per_second": per_family,
        "store_forests_candidates_per_second": round(n / read),
        "store_sql_only_candidates_per_second": round(texts / sql_only),
        "store_forests_share_of_read_plus_extract": round(read / (read + whole), 3),
        "cpu_count": os.cpu_count(),
    }, indent=2))
    if prof:
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
