"""Held-out sweep for the BLLIP job: objective, sigma^2 and cut-off, scored by held-out corpus EVALB F.

Reads a store a ``ranker run`` of ``configs/wsj-sample-bllip.toml`` has filled (forests, best_f
counts, held-out counts, feature matrices), so nothing is parsed or extracted again (best_f counts
missing for a training sentence are computed and stored); fits
the log-linear ranker (log-likelihood of the best-F set) and the minimum-risk ranker (expected
F) for each sigma^2 and cut-off given, and prints held-out corpus EVALB labelled F (the peer's
convention) and mean sentence F (what ``ranker run`` picks sigma^2 by). Never reads test.

    PYTHONPATH=. NLTK_DATA=../shared/nltk_data python3 \\
        experiments/wsj-sample-bllip/heldout_sweep.py CONFIG --cutoff 2 --sigma2 0.01 0.03 \\
        --objective loglik expected_f

``--test`` scores on test the one fit with the best held-out corpus F (and no other); ``--metric``
scores every fit by another metric than EVALB labelled F (evalb_unlabeled, mph, ...); more than
one metric adds the others' held-out corpus F to each row (``heldout_also``), the first choosing.
``--drop-each`` ablates each family (a kind pattern) in turn after the full set; ``--varying-cutoff``
applies Charniak and Johnson's selection (a property kept when it varies over the parses of at least
K training sentences) after ``--cutoff 0``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from ranker.errors import RankerError
from ranker.evaluation.bounds import METRICS, corpus_score, selected_counts
from ranker.models.groups import group_offsets
from ranker.models.groups import first_argmax
from ranker.models.tuning import selected_quality
from ranker.pipeline import stages
from ranker.pipeline.best_f import best_f_gains, ensure_best_f_counts
from ranker.pipeline.config import load_config
from ranker.registries import OBJECTIVES, RANKERS
from ranker.store import Store


def kept_columns(data, keep):
    """``data`` with only the properties (columns) where the boolean ``keep`` holds."""
    from ranker.matrices.compact import CompactMatrix

    X = CompactMatrix.from_csr(data.X.tocsr()[:, np.flatnonzero(keep)])
    return data._replace(X=X, names=tuple(n for n, k in zip(data.names, keep) if k))


def without_kinds(data, patterns):
    """``data`` without the properties whose kind (name up to the first ':') matches a pattern."""
    import re

    drop = np.array([any(re.search(p, n.split(":", 1)[0]) for p in patterns) for n in data.names],
                    dtype=bool)
    print(json.dumps({"drop": list(patterns), "dropped_properties": int(drop.sum()),
                      "kept": int((~drop).sum())}), flush=True)
    return kept_columns(data, ~drop)


def varying_sentences(data) -> np.ndarray:
    """Per property, the training sentences whose candidates do not all give it one value.

    Charniak and Johnson's (2005) count for their feature selection: a property whose value on
    the best parse equals its value on every other parse of a sentence cannot tell them apart
    there. The training rows have the sentence constants dropped already
    (``drop_sentence_constants``), so a sentence counts for a property exactly when the property
    has an entry in one of its rows.
    """
    X = data.X.tocsr()
    _, sentence = np.unique(data.groups, return_inverse=True)
    rows = np.repeat(sentence.astype(np.int64), np.diff(X.indptr))
    pairs = np.unique(rows * X.shape[1] + X.indices)
    return np.bincount(pairs % X.shape[1], minlength=X.shape[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--cutoff", type=int, nargs="+", default=[2])
    ap.add_argument("--sigma2", type=float, nargs="+", default=[0.01])
    ap.add_argument("--objective", nargs="+", default=["loglik"], choices=["loglik", "expected_f"])
    ap.add_argument("--max-iter", type=int, default=0, help="0: the config's")
    ap.add_argument("--drop", nargs="*", default=[], metavar="REGEX",
                    help="leave out the properties whose kind (the name before its first ':') "
                         "matches one of these (a family's ablation, e.g. '^R[0-9]+$' for rule/1)")
    ap.add_argument("--drop-each", nargs="*", default=[], metavar="REGEX",
                    help="one ablation per REGEX in turn (a kind pattern as for --drop), after the "
                         "full set; every variant's matrix goes the same way (compact), so they "
                         "compare with each other")
    ap.add_argument("--varying-cutoff", type=int, nargs="*", default=[], metavar="K",
                    help="Charniak and Johnson's selection instead of --drop: after --cutoff (give "
                         "0), keep the properties whose value varies over the candidates of at "
                         "least K training sentences (one variant per K)")
    ap.add_argument("--metric", nargs="+", default=["evalb_labeled"], choices=sorted(METRICS),
                    help="the held-out (and --test) corpus metric every fit is scored by and the best "
                         "is chosen by (rows: metric, heldout_f, test_f); further metrics are reported "
                         "beside it on held-out (heldout_also)")
    ap.add_argument("--workers", type=int, default=1, help="feature extraction processes")
    ap.add_argument("--test", action="store_true",
                    help="after every fit, score on test the one fit with the best held-out corpus "
                         "EVALB F (chosen on held-out alone; no other fit is scored on test)")
    ap.add_argument("--unregularised", nargs="*", default=[],
                    help="properties named so (or starting so) get no prior (sigma^2 = inf)")
    args = ap.parse_args()
    cfg = load_config(args.config)
    ll, ev = cfg.loglinear, cfg.evaluation
    if args.max_iter:
        ll = ll.__class__(**{**ll.__dict__, "max_iter": args.max_iter})
    metric = args.metric[0]
    also = [m for m in dict.fromkeys(args.metric[1:]) if m != metric]   # reported beside it
    with Store.open(cfg.experiment.store) as st:
        # the config's candidates (and its [evidence] source's, for the evidence families)
        ev_parse = stages.evidence_parse(cfg.parse, cfg.evidence, cfg.source)
        ctx = stages.StageContext(st, stages.stored_source(st, stages.candidate_source(cfg.parse)),
                                  args.workers,
                                  evidence=None if ev_parse is None else stages.candidate_source(ev_parse))
        source = ctx.source
        splits = stages.select_splits(ctx, cfg.data)
        loaded = stages.load_counts(ctx, ev, splits.heldout, [metric, *also])
        held = loaded[metric]
        held_also = {m: loaded[m] for m in also}
        mats = {n: stages.extract_features(ctx, cfg.features, s)
                for n, s in (("train", splits.train), ("heldout", splits.heldout))}
        best_f = (cfg.annotation.best_f_metric, stages.scoring_settings(ev))
        # the counts best_f reads (a run of another config or split may not have stored them all)
        ensure_best_f_counts(st, splits.train.sentences, source, *best_f, workers=args.workers)
        y = stages.consistency(ctx, mats["train"], "best_f", splits.train, "", best_f)
        gain_all = best_f_gains(st, mats["train"], *best_f, source)
        qh = stages.candidate_quality(held, metric)
        gh = mats["heldout"].groups()
        offs_h = group_offsets(gh, len(qh))
        best: list = []   # [held-out corpus F, row, model, feature names] of the best fit so far
        for cutoff in args.cutoff:
            feats = cfg.features.__class__(**{**cfg.features.__dict__, "cutoff": cutoff})
            template = stages.loglinear_template(ll, 1)
            data = stages.training_rows(ctx, feats, template, [mats["train"]], [y])
            gain = gain_all[data.survivors.row_mask]
            for label, variant in variants(args, cutoff, data):   # one matrix in memory at a time
                fit_variant(args, label, cutoff, variant, gain, mats["heldout"], held, qh, offs_h,
                            metric, ll, best, held_also)
                del variant
        if args.test and best:
            _, row, model, names = best
            test = stages.extract_features(ctx, cfg.features, splits.test)
            counts = stages.load_counts(ctx, ev, splits.test, [metric])[metric]
            gt = test.groups()
            choice = first_argmax(model.decision_function(test.restrict(names)),
                                  group_offsets(gt, len(gt)))   # as on held-out above
            print(json.dumps({"chosen_on_heldout": row, "metric": metric, "test_f": round(corpus_score(
                METRICS[metric], selected_counts(counts, choice)), 2)}), flush=True)


def variants(args, cutoff, data):
    """``(label, training data)`` of each variant asked for, built one at a time."""
    if args.varying_cutoff:
        varying = varying_sentences(data)
        for k in args.varying_cutoff:
            yield f"cutoff {cutoff}, varying in >= {k} sentences", kept_columns(data, varying >= k)
    elif args.drop_each:
        for r in ["", *args.drop_each]:
            yield (f"drop {r}" if r else "full set"), without_kinds(data, [r] if r else [])
    elif args.drop:
        yield f"drop {' '.join(args.drop)}", without_kinds(data, args.drop)
    else:
        yield f"cutoff {cutoff}", data


def fit_variant(args, label, cutoff, data, gain, heldout, held, qh, offs_h, metric, ll, best=None,
                held_also=None):
    """Fit each objective over the sigma^2 chain (warm-started upwards) on ``data``; a row per fit.

    ``held_also`` maps further metrics to their held-out counts: each row adds their corpus F.
    """
    Xh = heldout.restrict(data.names)
    free = np.array([any(n == p or n.startswith(p) for p in args.unregularised)
                     for n in data.names], dtype=bool)
    if args.unregularised:
        print(json.dumps({"unregularised": [n for n, f in zip(data.names, free) if f]}), flush=True)
    for objective in args.objective:
        previous = None
        for s2 in sorted(args.sigma2):
            t0 = time.time()
            cls = RANKERS.get(OBJECTIVES.get(objective))   # the ranker that minimises the objective
            extra = {"gain": gain} if cls.needs_gain else {}
            prior = np.where(free, np.inf, s2) if free.any() else s2
            m = cls(sigma2=prior, solver=ll.optimizer, max_iter=ll.max_iter, tol=ll.tol)
            m.fit(data.X, data.y, data.groups, full=data.full,
                  coef_init=None if previous is None else previous.coef_, **extra)
            previous = m
            scores = m.decision_function(Xh)
            choice = first_argmax(scores, offs_h)
            corpus = corpus_score(METRICS[metric], selected_counts(held, choice))
            mean = selected_quality(scores, qh, offs_h)
            row = {"variant": label, "cutoff": cutoff, "features": len(data.names),
                   "objective": objective, "unregularised": int(free.sum()),
                   "max_iter": ll.max_iter, "sigma2": s2, "metric": metric,
                   "heldout_f": round(corpus, 2),
                   "heldout_mean_sentence_f": round(mean, 2),
                   **({"heldout_also": {m2: round(corpus_score(METRICS[m2], selected_counts(c2, choice)), 2)
                                        for m2, c2 in held_also.items()}} if held_also else {}),
                   "iterations": m.n_iter_,
                   "seconds": round(time.time() - t0, 1)}
            print(json.dumps(row), flush=True)
            if best is not None and (not best or corpus > best[0]):
                best[:] = [corpus, row, m, data.names]


if __name__ == "__main__":
    try:
        main()
    except RankerError as e:
        print(f"heldout_sweep: error: {e}", file=sys.stderr)
        sys.exit(2)
