"""Peak memory of the training-memory path at the size of the WSJ sample plus all conll2000 sentences.

Issue 13's target: ``configs/wsj-sample-chunks.toml`` with all 8,936 conll2000 sentences in at most
16 GB. Parsing and extracting them takes over an hour on a loaded 2-core machine, so this benchmark
measures the steps that grow with the training data on a stand-in of the same size, made of real
data: the store's WSJ training matrix (Link Grammar forests, default features), and an "extra"
corpus of ``--copies`` copies of it (3 copies: about 700 million nonzeros, the size the 3.2 million
conll2000 candidates give at the WSJ matrix's 218 nonzeros a candidate). Each step runs with the
high-water mark of this process reset (``/proc/self/clear_refs``) and prints its peak resident
memory and what it holds:

1. ``assemble``: the extra matrix assembled from extraction chunks as the parent receives them
   from the workers (:func:`ranker.features.vectorizer._assemble`; each chunk ``--chunk-entries`` long,
   int32 columns and float64 values, as a worker sends them), beside the WSJ matrix.
2. ``training rows``: :func:`ranker.pipeline.training_rows.training_data` over both (cut-off 2 on the
   WSJ block, its consistency weights the first parse of each sentence and every third row).
3. ``objective``: three evaluations of the log-linear objective on the training rows, two threads.

    NLTK_DATA=../shared/nltk_data python benchmarks/bench_scale_memory.py --store STORE [--copies 3]

The store must hold the WSJ training matrix (a ``ranker run`` of ``configs/wsj-sample.toml``); it
is opened read-only. Run it through the machine's big-job slots: it takes about 10 GB.

Measured on 2026-11-23 (20:05, load 4.5-5 from other jobs; 3 copies: 4.30 million rows, 255 + 764
million nonzeros, the real WSJ training matrix plus conll2000 having 4.25 million candidates):
assemble 126 s, peak 7.7 GB (1.8 GB before: +5.9 GB, 7.7 bytes an assembled nonzero); training
rows 60 s, peak 10.4 GB (849 million kept nonzeros, 4.0 GB); objective 23 s for three
evaluations, peak 10.5 GB. That run kept the extra matrix alive after the training rows by a loop
variable (fixed since), which does not change the peaks above: a block is released only after its
own rows are taken.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def _kib(key: str) -> int:
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


class Step:
    """Seconds and peak resident MB of one step (this process's ``VmHWM``, reset at its start)."""

    def __init__(self, name: str, out: dict):
        self.name, self.out = name, out

    def __enter__(self):
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        self.start_mb = _kib("VmRSS") / 1024
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.out[self.name] = {"seconds": round(time.perf_counter() - self.t0, 1),
                               "rss_before_mb": round(self.start_mb), "peak_mb": round(_kib("VmHWM") / 1024),
                               "rss_after_mb": round(_kib("VmRSS") / 1024)}
        print(self.name, json.dumps(self.out[self.name]), file=sys.stderr, flush=True)


def _chunks(m, copies: int, entries: int):
    """Extraction chunks of ``copies`` copies of ``m``, made one at a time as workers send them."""
    from ranker.features.vectorizer import _Chunk

    offsets = np.asarray(m.offsets)
    row_at = sum(p.indptr for p in m.X.parts)
    names = list(m.names)
    for c in range(copies):
        a = 0
        n_sent = len(offsets) - 1
        while a < n_sent:
            b = max(a + 1, int(np.searchsorted(row_at[offsets], row_at[offsets[a]] + entries, side="right")) - 1)
            b = min(b, n_sent)
            part = m.X.row_range(int(offsets[a]), int(offsets[b])).tocsr()   # sorted, one per column
            yield _Chunk(names, part.indptr.astype(np.int64), part.indices.astype(np.int32),
                         part.data.astype(np.float64), np.diff(offsets[a:b + 1]).tolist(),
                         [f"copy{c}/{sid}" for sid in m.sentence_ids[a:b]])
            del part
            a = b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--copies", type=int, default=3)
    ap.add_argument("--chunk-entries", type=int, default=44_000_000)
    ap.add_argument("--selection", default="train", help="the stored matrix to copy (a quick check: heldout)")
    args = ap.parse_args()
    from ranker.features.vectorizer import _assemble
    from ranker.models import LogLinearRanker
    from ranker.models.groups import group_offsets
    from ranker.models.objective import ConditionalObjective
    from ranker.pipeline.feature_cache import MATRIX_KIND, _read_matrix
    from ranker.pipeline.training_rows import training_data
    from ranker.store import Store

    out: dict = {"copies": args.copies}
    with Store.open(args.store, readonly=True) as st:
        keys = [k for k in st.artifact_keys(MATRIX_KIND)
                if st.get_artifact(MATRIX_KIND, k)[1].get("selection") == args.selection]
        if not keys:
            raise SystemExit(f"{args.store}: no stored {args.selection} matrix (run configs/wsj-sample.toml on it)")
        wsj = _read_matrix(st, keys[0])
        qualities = st.forest_qualities("link-grammar")
    out["wsj_nnz"] = wsj.X.nnz
    with Step("assemble", out):
        extra = _assemble(_chunks(wsj, args.copies, args.chunk_entries))
    out["extra_nnz"], out["extra_mb"] = extra.X.nnz, round(extra.X.nbytes / 2**20)
    for sid in extra.sentence_ids:
        qualities[sid] = qualities[sid.split("/", 1)[1]]
    weights = []
    for m in (wsj, extra):
        y = np.zeros(m.X.shape[0])
        y[np.asarray(m.offsets[:-1])] = 1.0
        y[::3] = 1.0
        weights.append(y)
    blocks = [wsj, extra]
    del wsj, extra, m      # training_data releases each block once its rows are taken
    with Step("training rows", out):
        data = training_data(blocks, weights, 2, qualities, LogLinearRanker(), consume=True)
    out["rows"], out["kept_nnz"], out["kept_mb"] = data.X.shape[0], data.X.nnz, round(data.X.nbytes / 2**20)
    with Step("objective", out):
        obj = ConditionalObjective(data.X, data.y, group_offsets(data.groups, len(data.y)), 0.1, n_jobs=2)
        lam = np.zeros(data.X.shape[1])
        for _ in range(3):
            v, g = obj(lam)
            lam = lam - 1e-3 * g
        obj.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
