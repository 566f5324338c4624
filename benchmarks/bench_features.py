"""How fast features are extracted from real Link Grammar forests (target: 10,000 candidates/s overall).

The full experiment extracts features for about 1.6 million Link Grammar candidates (3,914 WSJ
sentences x ~415 linkages) inside a 15-minute budget on 2 cores, so extraction must run at roughly
10,000 candidates per second or better. Build a store first, for example::

    NLTK_DATA=../shared/nltk_data ranker parse --store runs/bench-features.sqlite \\
        --corpus treebank --split heldout --limit 60

then run ``python benchmarks/bench_features.py`` (``--store`` names another store). Timed separately: reading
the forests back from the store (``store.forests`` re-parses every candidate's Penn text), each
family of the feature set alone, and the whole set (one process, then ``--workers`` processes).
Families that must be fitted (the auxiliary distribution) are fitted on the store's training
sentences first, untimed. ``--profile`` prints the top of a cProfile of the whole-set extraction
to stderr. Prints JSON.

``--costs`` measures instead what each family costs over a whole split, streaming its sentences
in batches (one process, so the split need not fit in memory): nonzeros, distinct properties,
extraction seconds, and bytes as CSR (int32 indices and float64 values), and for a binary family
(every value 1) the bytes of its indices alone, what it would cost without a value array. The
families are every registered one with default options unless ``--families`` names some::

    python benchmarks/bench_features.py --store runs/wsj-lg.sqlite --split train --costs

With ``--source`` only that source's candidates are read (a store may hold several), and with
``--evidence`` each forest carries a second source's candidates for the evidence families
(``features/evidence.py``); reading that evidence is timed apart (``evidence_read_seconds``), and
the peak memory of the whole measurement is reported (``peak_mb``)::

    python benchmarks/bench_features.py --store STORE --split heldout --costs \
        --source bllip:nbest-train.txt.gz+nbest-heldout.txt.gz+nbest-test.txt.gz \
        --evidence link-grammar --families evidence_spans/1 evidence_deps/1
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time

from ranker.features import load_feature_set
from ranker.features.vectorizer import extract
from ranker.pipeline.feature_cache import fit_families
from ranker.store import Store

TARGET = 10_000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", default="runs/bench-features.sqlite")
    ap.add_argument("--corpus", default="treebank")
    ap.add_argument("--split", default="heldout")
    ap.add_argument("--features", default="default")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--costs", action="store_true", help="per-family cost over the whole split")
    ap.add_argument("--families", nargs="*", default=None, help="with --costs: these families only")
    ap.add_argument("--batch", type=int, default=100, help="with --costs: sentences per batch")
    ap.add_argument("--source", default=None, help="with --costs: this source's candidates only")
    ap.add_argument("--evidence", default=None,
                    help="with --costs: the second source the evidence families read")
    args = ap.parse_args()
    if args.costs:
        from ranker.memory import PeakMemory

        with PeakMemory() as mem:
            got = family_costs(args)
        print(json.dumps({**got, "peak_mb": mem.peak_mb}, indent=2))
        return

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
    same = mp.names == m.names and (mp.X.tocsr() != m.X.tocsr()).nnz == 0

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


def family_costs(args) -> dict:
    """Per family: nonzeros, properties, seconds and bytes over every candidate of the split."""
    from ranker.features import family_names, make_family

    names = args.families or family_names()
    fams = [make_family(n) for n in names]
    totals = {n: {"nonzeros": 0, "seconds": 0.0, "binary": True} for n in names}
    seen: dict[str, set] = {n: set() for n in names}
    candidates = read = evidence_read = 0.0
    with Store.open(args.store) as st:
        fit_families(st, fams)
        ids = [s.id for s in st.sentences(args.corpus, args.split)]
        for a in range(0, len(ids), args.batch):
            t0 = time.perf_counter()
            forests = [f for f in (st.forest(sid, args.source) for sid in ids[a:a + args.batch])
                       if f.candidates]
            read += time.perf_counter() - t0
            if args.evidence is not None:
                t0 = time.perf_counter()
                forests = [f._replace(evidence=st.forest(f.sentence.id, args.evidence).candidates)
                           for f in forests]
                evidence_read += time.perf_counter() - t0
            candidates += sum(len(f.candidates) for f in forests)
            for n, fam in zip(names, fams):
                t0 = time.perf_counter()
                m = extract(forests, [fam])
                totals[n]["seconds"] += time.perf_counter() - t0
                totals[n]["nonzeros"] += int(m.X.nnz)
                totals[n]["binary"] &= m.X.parts[1].nnz == m.X.parts[2].nnz == 0
                seen[n].update(m.names)
    for n in names:
        t = totals[n]
        t["properties"] = len(seen[n])
        t["seconds"] = round(t["seconds"], 1)
        t["bytes_csr"] = t["nonzeros"] * 12                 # int32 index + float64 value
        t["bytes_without_values"] = t["nonzeros"] * 4 if t["binary"] else None
        t["nonzeros_per_candidate"] = round(t["nonzeros"] / max(candidates, 1), 1)
    return {"store": str(args.store), "split": args.split, "sentences": len(ids),
            "candidates": int(candidates), "read_seconds": round(read, 1),
            "evidence": args.evidence, "evidence_read_seconds": round(evidence_read, 1),
            "families": totals}



if __name__ == "__main__":
    main()
