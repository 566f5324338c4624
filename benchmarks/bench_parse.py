"""Link Grammar parsing throughput with 1 and 2 worker processes (target: ratio at least 1.8).

Parses the same 300 treebank sample sentences (every 10th sentence of the sample) into a fresh
store with each worker count, through the same code path as ``ranker parse`` (process pool,
batched writes). Prints JSON with ``sentences_per_second`` for each and their ratio. Run on a quiet
machine: other load on the two cores lowers the ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from ranker.sources.link_grammar import LinkGrammarOptions
from ranker.sources.parse_run import parse_into_store
from ranker.sources.treebank import treebank_sentences
from ranker.store import Store

TARGET_RATIO = 1.8


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--linkage-limit", type=int, default=LinkGrammarOptions().linkage_limit)
    ap.add_argument("--max-parse-time", type=int, default=LinkGrammarOptions().max_parse_time)
    args = ap.parse_args()
    gold = list(treebank_sentences())
    step = max(1, len(gold) // args.sentences)
    sample = [g for g in gold[::step]][:args.sentences]
    options = LinkGrammarOptions(linkage_limit=args.linkage_limit, max_parse_time=args.max_parse_time)
    out: dict = {"sentences": len(sample), "linkage_limit": options.linkage_limit, "cpu_count": os.cpu_count()}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "s.sqlite") as st:
            st.add_sentences(g.sentence for g in sample)
            s = parse_into_store(st, [g.sentence for g in sample], options, workers=workers, progress=False)
            out[f"workers_{workers}"] = {"sentences_per_second": round(s.sentences_per_second, 2),
                                         "seconds": round(s.seconds, 2), "candidates": s.candidates,
                                         "statuses": s.statuses, "unmapped": s.unmapped}
    ratio = out["workers_2"]["sentences_per_second"] / out["workers_1"]["sentences_per_second"]
    out["ratio"] = round(ratio, 3)
    out["target_ratio"] = TARGET_RATIO
    out["meets_target"] = ratio >= TARGET_RATIO
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
