"""Importing the BLLIP 50-best lists of the whole WSJ sample (3,914 sentences) into a fresh store.

Setup (not timed): the treebank sample's sentences and gold trees are loaded into a new store.
Timed: importing the three lists (``nbest-{train,heldout,test}.txt.gz``: gzip, parse, match by id,
tokens checked, roots normalised, written in batches; the garbage collector paused as in ``ranker
run``'s stages), then reading every forest back. Prints one
JSON line with seconds, candidates, distinct trees, store bytes before and after, and peak RSS.

Run: ``NLTK_DATA=... python benchmarks/bench_bllip_import.py [LISTS_DIR]``
(default ``../shared/nbest/bllip-wsj-sample``)
"""
from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from ranker.gcpause import gc_paused
from ranker.sources.nbest import import_file
from ranker.sources.treebank import ensure_corpus
from ranker.store import Store


def main(lists: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bllip.sqlite"
        with Store.open(path) as st:
            ensure_corpus(st, "treebank")
        before = path.stat().st_size
        out: dict = {"store_bytes_without_candidates": before}
        with Store.open(path) as st, gc_paused():   # as ranker run's stages do
            t0 = time.perf_counter()
            for split in ("train", "heldout", "test"):
                got = import_file(st, lists / f"nbest-{split}.txt.gz", "bllip", source="bllip:wsj",
                                  corpus="treebank")
                out[f"{split}_forests"] = got.forests
                out[f"{split}_candidates"] = got.candidates
                out[f"{split}_errors"] = len(got.errors)
            out["import_seconds"] = round(time.perf_counter() - t0, 2)
            t0 = time.perf_counter()
            n = sum(len(st.forest(s.id, "bllip:wsj").candidates) for s in st.sentences("treebank"))
            out["read_back_seconds"] = round(time.perf_counter() - t0, 2)
            out["candidates_read_back"] = n
        for suffix in ("-wal", "-shm"):
            extra = Path(str(path) + suffix)
            if extra.exists():
                out[f"store{suffix}_bytes"] = extra.stat().st_size
        out["store_bytes"] = path.stat().st_size
        out["candidate_bytes"] = out["store_bytes"] - before
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/nbest/bllip-wsj-sample"))))
