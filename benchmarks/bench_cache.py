"""What keying caches by content costs: the forest digests a warm run computes before any cache hit.

Every feature matrix and every sentence's per-candidate counts are found in the store by a digest
of the sentence ids and their candidates' stored texts (``ranker.pipeline.feature_cache``,
``ranker.pipeline.candidate_scoring``). This times those digests over every sentence of a store with
candidates (read-only: nothing is written) and prints JSON: sentences, candidates, megabytes of
tree text, seconds, microseconds per candidate. Run: ``python benchmarks/bench_cache.py STORE``.
On the quickstart store (3,914 sentences, 487 of them parsed: 26,339 Link Grammar candidates,
8.5 MB of text) on 2 loaded cores: 0.30 s in all; over the parsed sentences alone 3.0 µs per
candidate, so about 3 s for the 1.07 million candidates of the WSJ training split.
"""
from __future__ import annotations

import argparse
import json
import time

from ranker.pipeline.feature_cache import _sentence_digests
from ranker.pipeline.stages import stored_source
from ranker.store import Store


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("store")
    p.add_argument("--source", default=None)
    args = p.parse_args()
    with Store.open(args.store, create=False) as st:
        source = stored_source(st, args.source)
        ids = [s.id for s in st.sentences()]
        texts = sum(len(t) for sid in ids for t in st.candidate_texts(sid, source))
        n = sum(len(st.candidate_texts(sid, source)) for sid in ids)
        t0 = time.perf_counter()
        _sentence_digests(st, ids, source)
        seconds = time.perf_counter() - t0
    print(json.dumps({"sentences": len(ids), "candidates": n, "text_mb": round(texts / 1e6, 2),
                      "seconds": round(seconds, 3),
                      "us_per_candidate": round(1e6 * seconds / max(n, 1), 2)}))


if __name__ == "__main__":
    main()
