"""Speed of EVALB scoring: the WSJ sample against a perturbed copy, ten times over (39,140 pairs).

Setup (not timed): the 3,914 trees of NLTK's treebank sample are written one per line, and a
perturbed copy (relabelled, removed, added and re-attached brackets, wrong tags, a few empty and
mismatched lines; fixed seed) beside it, each repeated ten times. Timed: reading both files and
scoring every pair with EVALB semantics (COLLINS.prm), summaries included, on one core;
``pairs_per_second`` uses the best CPU time of three runs (the wall-clock median is given too). The
per-pair reference path is timed on one copy for comparison. Prints one JSON line.

Run: ``NLTK_DATA=... python benchmarks/bench_evaluate.py``
"""
from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from nltk.corpus import treebank

from ranker.evaluation.evalb import EvalbAccumulator, score_evalb
from ranker.evaluation.evalb_fast import score_evalb_files
from ranker.evaluation.evalb_params import load_params
from ranker.evaluation.perturb import perturb_tree
from ranker.trees.penn import format_tree, iter_trees

REPEAT = 10


def sample_lines(seed: int = 0) -> tuple[list[str], list[str]]:
    gold = [t for f in treebank.fileids() for t in iter_trees(treebank.raw(f), f)]
    rng = random.Random(seed)
    test = []
    for i, t in enumerate(gold):
        if i % 97 == 5:
            test.append("")  # no parse: a skip sentence
            continue
        s = format_tree(perturb_tree(t, rng))
        if i % 211 == 7:
            s = s.replace("(DT the)", "(DT teh)", 1)  # word mismatch: an error sentence
        test.append(s)
    return [format_tree(t) for t in gold], test


def main() -> None:
    params = load_params("COLLINS")
    gold, test = sample_lines()
    with tempfile.TemporaryDirectory() as tmp:
        gp, tp = Path(tmp, "gold.txt"), Path(tmp, "test.txt")
        gp.write_text("\n".join(gold * REPEAT) + "\n")
        tp.write_text("\n".join(test * REPEAT) + "\n")
        runs = []
        for _ in range(3):  # the machine is shared: report the best and the median of three
            t0, c0 = time.perf_counter(), time.process_time()
            cols = score_evalb_files(gp, tp, params)
            acc = EvalbAccumulator(params)
            acc.add_columns(cols)
            summary = acc.result()
            runs.append((time.perf_counter() - t0, time.process_time() - c0))
    pairs = cols.size

    t0 = time.process_time()
    ref = EvalbAccumulator(params)
    for g, t in zip(gold, test):
        gt = next(iter_trees(g))
        tt = next(iter_trees(t)) if t else None
        ref.add(score_evalb(gt, tt, params))
    slow = time.process_time() - t0

    print(json.dumps({
        "benchmark": "evalb_wsj_sample_x10",
        "pairs": pairs,
        "seconds_wall": [round(w, 3) for w, _ in runs],
        "seconds_cpu": [round(c, 3) for _, c in runs],
        "pairs_per_second": round(pairs / min(c for _, c in runs)),
        "pairs_per_second_median_wall": round(pairs / sorted(w for w, _ in runs)[1]),
        "deferred_to_per_pair_path": cols.deferred,
        "per_pair_path_pairs_per_second": round(len(gold) / slow),
        "speedup_over_per_pair_path": round((pairs / min(c for _, c in runs)) / (len(gold) / slow), 1),
        "f1_all": round(summary.all.f1, 2),
        "target_pairs_per_second": 20000,
    }))


if __name__ == "__main__":
    main()
