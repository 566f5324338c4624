"""A simulated annotator: how many discriminant decisions bring each forest down to its best candidates.

The annotator knows the gold tree and answers each question truthfully: it accepts a labelled span
when gold has it (up to the label equivalences the annotation checks use) and rejects it
otherwise. It is asked in the order of ``ranker serve``'s page (:func:`ranker.sources.discriminants.
discriminants`, uniform over the candidates, or under a stored model's probabilities with
``--model``) or in a random order (a random discriminant of the current set, seeded). A forest is
done when every remaining candidate is one of its best: the candidates of highest sentence F
against gold under ``--metric`` (EVALB labelled by default, from the per-candidate counts the run
stored). Truthful answers about spans need not lead there (gold may share a span with worse
candidates only); such a forest ends when no discriminant is left and counts as a miss, with every
decision it took. A second annotator answers as the first best candidate would (it always gets
there: the lower bound of what a person can do with these questions).

With ``--model KEY`` (a stored log-linear model with its feature configuration) the page order
is also run under the model's probabilities (``page+model``), as the page shows it with a model;
the split's features come from the store (or are extracted and stored first).

Prints, per order and annotator, the mean decisions, the share of forests brought down to their best
candidates, and the target: mean log2(forest size) + 1, over the test forests with more than one
candidate and not all of them best (the others need no decision).

Measured 2026-11-23 on a copy of the WSJ sample's Link Grammar store, test split, EVALB labelled, model
6e6722 (chosen on held-out by ranker run), load 8 on 2 cores: 401 forests to decide (mean 406
candidates, 142 distinct span sets), target mean log2(size) + 1 = 8.96. Mean decisions (share
brought down to the best candidates):

    annotator   page   page+model   random
    best        6.15 (98.3%)   5.06 (98.3%)   8.56 (98.3%)
    gold        6.22 (38.2%)   5.20 (42.6%)   8.25 (42.6%)

The best-candidate annotator misses 1.7%: candidates with the same labelled spans but another
EVALB F (a unary chain or a tag counts in EVALB, not in a span set). Truthful gold answers lead
away from the best candidates in most forests, since Link Grammar's constituents differ from the
treebank's. 76 s of CPU, 1.0 GB (0.13 GB without --model).

Run from the project folder on a copy of a Link Grammar store where ``ranker run`` stored its
counts (``configs/wsj-sample.toml`` fills ``runs/store.sqlite``)::

    cp runs/store.sqlite runs/lg-copy.sqlite
    python benchmarks/bench_discriminants.py runs/lg-copy.sqlite [--split test] [--limit N] [--model KEY]
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from ranker.pipeline import stages
from ranker.pipeline.splits import select_split
from ranker.registries import metric
from ranker.sources.annotations import LabelEquivalences
from ranker.sources.discriminants import Decision, candidate_spans, discriminants, remaining_mask
from ranker.store import Store


def simulate(spans, best: np.ndarray, truth: frozenset, eq, order: str, rng=None, probs=None) -> tuple[int, bool]:
    """``(decisions, reached)``: answer as ``truth`` says until the remaining set is within ``best``."""
    made: list[Decision] = []
    mask = np.ones(len(spans), dtype=bool)
    while not best[mask].all():
        ds = discriminants(spans, mask, probs, eq)
        if not ds:
            return len(made), False
        d = ds[0] if order == "page" else ds[int(rng.integers(len(ds)))]
        yes = Decision(d.label, d.start, d.end, True, "sim", "")
        made.append(yes if remaining_mask([truth], [yes], eq)[0] else yes._replace(accept=False))
        mask = remaining_mask(spans, made, eq)
    return len(made), True


def model_probabilities(st, key: str, sel, source: str) -> dict[str, np.ndarray]:
    """Each sentence's candidate probabilities under the stored model ``key`` (softmax of its scores)."""
    from ranker.features import feature_set_from_dict

    from ranker.pipeline.retrain import stored_model

    _, saved = stored_model(st, key)
    m = stages.model_features(stages.StageContext(st, source, 1), feature_set_from_dict(saved.feature_config), sel)
    scores = saved.ranker.decision_function(m.restrict(saved.feature_names))
    out = {}
    for j, sid in enumerate(m.sentence_ids):
        s = scores[m.offsets[j]:m.offsets[j + 1]]
        p = np.exp(s - s.max())
        out[sid] = p / p.sum()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--split", default="test")
    ap.add_argument("--metric", default="evalb_labeled")
    ap.add_argument("--limit", type=int, default=0, help="the first documents holding N sentences (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", default=None, help="a stored model's key (prefix): also the page order under it")
    args = ap.parse_args()
    eq = LabelEquivalences.load()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    with Store.open(args.store, readonly=not args.model) as st:   # a model may need features stored
        source = stages.stored_source(st)
        ev = stages.stored_evaluation(st, source)   # the settings the store's counts were computed with
        sel = select_split(st, "treebank", args.split, args.limit)
        stages.require_counts(stages.StageContext(st, source), ev, sel)
        fc = stages.load_counts(stages.StageContext(st, source), ev, sel, [args.metric])[args.metric]
        quality = metric(args.metric, "--metric").score(fc.counts)
        probs = model_probabilities(st, args.model, sel, source) if args.model else {}
        rows = []
        for i, s in enumerate(sel.sentences):
            q = quality[fc.offsets[i]:fc.offsets[i + 1]]
            if len(q) < 2:
                continue
            best = q >= q.max() - 1e-9
            if best.all():
                continue
            spans = [candidate_spans(t) for _, _, t in st.candidate_trees(s.id, source)]
            gold = candidate_spans(st.gold(s.id))
            first_best = spans[int(np.flatnonzero(best)[0])]
            row = {"size": len(q), "distinct": len(set(spans))}
            for name, truth in (("gold", gold), ("best", first_best)):
                row[f"page/{name}"] = simulate(spans, best, truth, eq, "page")
                row[f"random/{name}"] = simulate(spans, best, truth, eq, "random", rng)
                if probs:
                    row[f"page+model/{name}"] = simulate(spans, best, truth, eq, "page", probs=probs[s.id])
            rows.append(row)
    sizes = np.array([r["size"] for r in rows], dtype=float)
    out = {"store": args.store, "split": args.split, "metric": args.metric, "forests": len(rows),
           "mean_size": float(sizes.mean()), "mean_distinct": float(np.mean([r["distinct"] for r in rows])),
           "target_mean_log2_size_plus_1": float(np.mean(np.log2(sizes) + 1)),
           "seconds": round(time.perf_counter() - t0, 1)}
    for key in [k for k in rows[0] if "/" in k]:
        n = np.array([r[key][0] for r in rows], dtype=float)
        hit = np.array([r[key][1] for r in rows])
        out[key] = {"mean_decisions": float(n.mean()), "reached_best": float(hit.mean()),
                    "mean_decisions_when_reached": float(n[hit].mean()) if hit.any() else None,
                    "within_target": float(np.mean(n <= np.log2(sizes) + 1))}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
