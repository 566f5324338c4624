"""How fast the store takes imported candidate trees (target: at least 50,000 candidates per second).

Candidates are the treebank sample's gold trees written as a Penn n-best file (10 candidates per
sentence) and read back with the n-best reader, so the trees are real imported trees. Timed: the
store writes alone (encode + insert in batched transactions), then the whole ``import_file``
(reading and matching included), then reading forests back. Prints JSON.
"""
from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from ranker.sources.nbest import import_file, read_blocks
from ranker.sources.treebank import treebank_sentences
from ranker.store import Candidate, Store
from ranker.trees.penn import format_tree

PER_SENTENCE = 10
TARGET = 50_000


def main() -> None:
    gold = list(treebank_sentences())
    with tempfile.TemporaryDirectory() as tmp:
        nbest = Path(tmp) / "sample.mrg"
        with open(nbest, "w") as f:
            for g in gold:
                line = format_tree(g.tree)
                f.write((line + "\n") * PER_SENTENCE + "\n")
        blocks = list(read_blocks(nbest, "penn"))
        cands = [Candidate(g.sentence.id, "penn:bench", k, t, "full", {})
                 for g, b in zip(gold, blocks) for k, t in enumerate(b.trees)]
        with Store.open(Path(tmp) / "write.sqlite") as st:
            st.add_sentences(g.sentence for g in gold)
            t0 = time.perf_counter()
            for i in range(0, len(cands), 5000):
                st.add_candidates(cands[i:i + 5000])
            write = time.perf_counter() - t0
        with Store.open(Path(tmp) / "import.sqlite") as st:
            st.add_sentences(g.sentence for g in gold)
            t0 = time.perf_counter()
            summary = import_file(st, nbest, "penn")
            whole = time.perf_counter() - t0
            assert summary.candidates == len(cands) and not summary.errors
            t0 = time.perf_counter()
            read = sum(len(f.candidates) for f in st.forests("treebank"))
            reading = time.perf_counter() - t0
    print(json.dumps({
        "candidates": len(cands),
        "candidates_stored_per_second": round(len(cands) / write),
        "target_candidates_per_second": TARGET,
        "meets_target": len(cands) / write >= TARGET,
        "import_file_candidates_per_second": round(len(cands) / whole),
        "forest_read_candidates_per_second": round(read / reading),
        "cpu_count": os.cpu_count(),
    }, indent=2))


if __name__ == "__main__":
    main()
