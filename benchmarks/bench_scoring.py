"""Speed of the pipeline's scoring stage: every metric of one candidate tree against its gold side.

Setup (not timed): 400 sentences of NLTK's treebank sample with empty elements removed (as the
store holds them), and for each five distinct perturbed copies (fixed seed) as candidates, roughly
what Link Grammar gives per sentence once identical trees are merged. Timed, on one core: per
sentence, :meth:`Scorer.gold_side` once, then :meth:`Scorer.count` for each candidate. Prints one
JSON line with microseconds per candidate tree (all seven metrics together, gold side amortised),
per gold side, each metric's own step timed separately, and the projected time of the
pipeline's ~350,000 candidate trees on one core.

Run: ``NLTK_DATA=... python benchmarks/bench_scoring.py``
"""
from __future__ import annotations

import json
import random
import time

from nltk.corpus import treebank

from ranker.evaluation.perturb import perturb_tree
from ranker.evaluation.scoring import Scorer
from ranker.trees.transforms import remove_empty_elements
from ranker.trees.tree import Tree

SENTENCES = 400
CANDIDATES = 5
PIPELINE_TREES = 350_000


def main() -> None:
    rng = random.Random(0)
    gold = []
    for t in treebank.parsed_sents()[:SENTENCES]:
        g = remove_empty_elements(Tree.from_nltk(t))
        if g is not None:
            gold.append(g)
    cands = [[perturb_tree(g, rng) for _ in range(CANDIDATES)] for g in gold]
    scorer = Scorer()

    t0 = time.process_time()
    sides = [scorer.gold_side(g) for g in gold]
    t1 = time.process_time()
    n = 0
    for side, cs in zip(sides, cands):
        for c in cs:
            scorer.count(side, c)
            n += 1
    t2 = time.process_time()
    per_tree = (t2 - t1) / n * 1e6
    breakdown = _breakdown(scorer, sides, cands, n)
    per_gold = (t1 - t0) / len(gold) * 1e6
    words = sum(len(g.words) for g in gold) / len(gold)
    print(json.dumps({
        "sentences": len(gold), "candidates": n, "mean_words": round(words, 1),
        "us_per_candidate_all_metrics": round(per_tree, 1),
        "us_per_gold_side": round(per_gold, 1),
        "candidates_per_second": round(n / (t2 - t1), 1),
        "projected_seconds_for_350k_trees_one_core": round(PIPELINE_TREES * per_tree / 1e6, 1),
        "us_per_candidate_by_metric": breakdown,
    }))


def _breakdown(scorer, sides, cands, n) -> dict:
    """Microseconds per candidate of each metric's own step, timed separately."""
    from ranker.evaluation.dependencies import score_tree_dependencies
    from ranker.evaluation.evalb import score_evalb
    from ranker.evaluation.flat import flat_constituents, flat_counts
    from ranker.evaluation.mph import mph_side, score_mph_sides
    from ranker.evaluation.parseval import constituent_spans, span_counts
    from ranker.trees.black import black_erase

    steps = {
        "evalb_labeled": lambda g, t: score_evalb(g.tree, t, scorer.evalb),
        "evalb_unlabeled": lambda g, t: score_evalb(g.tree, t, scorer.evalb_unlabeled),
        "parseval": lambda g, t: span_counts(g.parseval, constituent_spans(black_erase(t, g.erasure))),
        "mph": lambda g, t: score_mph_sides(g.mph, mph_side(t, scorer.mph_rules)),
        "flat": lambda g, t: flat_counts(g.flat_key, flat_constituents(t)),
        "deps (both)": lambda g, t: score_tree_dependencies(g.deps, t, scorer.rules, scorer.labels),
    }
    out = {}
    for name, f in steps.items():
        t0 = time.process_time()
        for side, cs in zip(sides, cands):
            for c in cs:
                f(side, c)
        out[name] = round((time.process_time() - t0) / n * 1e6, 1)
    return out


if __name__ == "__main__":
    main()
