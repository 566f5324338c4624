"""What the Riezler partial bracketing tells the model: its consistent sets on held-out, measured against MPH.

The log-linear objective moves probability mass onto each training sentence's consistent set X(y, z);
how good the candidates in that set are bounds what the model can learn from partial annotation. The
training split's candidates carry no per-candidate scores in the store, so the bracketing is derived
from the held-out split's gold trees here (in memory, the store is only read) and each candidate's
stored MPH and untyped dependency counts show what the set contains: its size, the share of
sentences a training filter would drop (none consistent, or all), the mean and worst F inside the set
against the forest's oracle, and how often the oracle candidate is consistent. Variants: the
consistency rule (every rule of :data:`ranker.store.consistency.RULES`, chosen by the store's own
:func:`~ranker.store.consistency.choose_consistent` from each candidate's missing and crossing counts)
and labelled or unlabelled matching; ``RULE-only`` rows look at the sets a fallback rule keeps
where the strict set is empty, the sentences the strict rule drops.

    NLTK_DATA=../shared/nltk_data python3 experiments/ablation/consistent_sets.py --store runs/wsj-lg.sqlite \\
        [--out experiments/ablation/consistent_sets.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from ranker.evaluation.bounds import METRICS, corpus_score, expected_counts, oracle_choice, selected_counts
from ranker.evaluation.scoring import ScoringSettings
from ranker.pipeline.config import load_config
from ranker.pipeline.candidate_scoring import load_forest_counts
from ranker.pipeline.splits import select_split
from ranker.sources.annotations import (DEFAULT_EQUIVALENCES, LabelEquivalences, check_candidate,
                                        riezler_brackets)
from ranker.store import Store, choose_consistent
from ranker.store.consistency import RULES
from ranker.trees.penn import parse_tree

SOURCE = "link-grammar"
REPORTED = ("mph", "deps_untyped")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/wsj-sample.toml")
    ap.add_argument("--store", default="runs/wsj-lg.sqlite")
    ap.add_argument("--split", default=None, help="documents to look at (default the config's held-out)")
    ap.add_argument("--out", default="experiments/ablation/consistent_sets.json")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    ev = cfg.evaluation
    settings = ScoringSettings(ev.evalb_param, ev.head_rules, ev.flatten_rules)
    variants = {"labelled": LabelEquivalences.load(DEFAULT_EQUIVALENCES, labelled=True),
                "unlabelled": LabelEquivalences.load(DEFAULT_EQUIVALENCES, labelled=False)}
    with Store.open(args.store) as st:
        held = select_split(st, cfg.data.corpus, args.split or cfg.data.heldout, cfg.data.limit)
        fcs = {m: load_forest_counts(st, held, METRICS[m].counts_from, settings, SOURCE) for m in REPORTED}
        checks = {v: [] for v in variants}       # per sentence: (missing, crossing) arrays
        n_brackets = []
        for s in held.sentences:
            brackets = riezler_brackets(st.gold(s.id))
            n_brackets.append(len(brackets))
            trees = [parse_tree(t, f"candidate:{s.id}") for t in st.candidate_texts(s.id, SOURCE)]
            for v, eq in variants.items():
                mc = np.array([check_candidate(t, brackets, eq) for t in trees], dtype=np.int64).reshape(-1, 2)
                checks[v].append((mc[:, 0], mc[:, 1]))
    fc0 = fcs["mph"]
    sizes = np.diff(fc0.offsets)
    out = {"sentences": len(sizes), "with_candidates": int((sizes > 0).sum()),
           "candidates": int(sizes.sum()), "brackets_per_sentence": float(np.mean(n_brackets)),
           "sentences_without_brackets": int(sum(1 for b in n_brackets if b == 0)), "variants": {}}
    for v in variants:
        for rule in RULES:
            sets = [w_all_for(c, rule) for c in checks[v]]
            stats = {"empty": 0, "all": 0, "proper": 0, "set_share": []}
            for ok, n in zip(sets, sizes):
                if n == 0:
                    continue
                k = int(ok.sum())
                stats["empty" if k == 0 else "all" if k == n else "proper"] += 1
                stats["set_share"].append(k / n)
            row = {"sentences_empty": stats["empty"], "sentences_all_consistent": stats["all"],
                   "sentences_proper": stats["proper"],
                   "mean_share_of_candidates_consistent": float(np.mean(stats["set_share"]))}
            for m in REPORTED:
                row[m] = set_quality(fcs[m], METRICS[m], sets)
            out["variants"][f"{v}/{rule}"] = row
            if rule == "strict":
                continue
            # the sets the rule keeps where the strict rule keeps none (its fallback's own quality)
            fallback = [ok & ~(c[0] == 0).any() for ok, c in zip(sets, checks[v])]
            out["variants"][f"{v}/{rule}-only"] = {
                "sentences_kept": int(sum(f.any() for f in fallback)),
                **{m: set_quality(fcs[m], METRICS[m], fallback) for m in REPORTED}}
    Path(args.out).write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    return 0


def set_quality(fc, met, sets: list[np.ndarray]) -> dict:
    """F of the best, a uniformly drawn and the worst candidate of each non-empty set, beside the oracle.

    Over the sentences whose set is non-empty (those a training filter keeps), with the oracle and
    random F of the same sentences, and the share of them whose oracle candidate is in the set.
    """
    has = np.array([s.any() for s in sets])
    sub = fc.subset(has)
    kept = [s for s in sets if s.any()]
    best, worst, mean_counts, hit = [], [], expected_counts(sub), 0
    oracle = oracle_choice(sub, met.score)
    for i, ok in enumerate(kept):
        a, b = sub.offsets[i], sub.offsets[i + 1]
        idx = np.flatnonzero(ok)
        fs = met.score(sub.counts[a:b][idx])
        best.append(int(idx[np.argmax(fs)]))
        worst.append(int(idx[np.argmin(fs)]))
        mean_counts[i] = sub.counts[a:b][idx].mean(axis=0)
        hit += bool(ok[oracle[i]])
    return {"sentences": int(has.sum()),
            "oracle": corpus_score(met, selected_counts(sub, oracle)),
            "random": corpus_score(met, expected_counts(sub)),
            "best_in_set": corpus_score(met, selected_counts(sub, np.array(best, dtype=np.int64))),
            "uniform_in_set": corpus_score(met, mean_counts),
            "worst_in_set": corpus_score(met, selected_counts(sub, np.array(worst, dtype=np.int64))),
            "oracle_consistent_share": hit / max(1, len(kept))}


def w_all_for(check: tuple[np.ndarray, np.ndarray], rule: str) -> np.ndarray:
    """The consistent set of one sentence under ``rule`` (a boolean per candidate), as the store picks it."""
    miss, cross = check
    if len(miss) == 0:
        return np.zeros(0, dtype=bool)
    cs = choose_consistent("", tuple(miss.tolist()), rule, tuple(cross.tolist()))
    return np.array(cs.weights) > 0


if __name__ == "__main__":
    sys.exit(main())
