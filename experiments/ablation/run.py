"""Feature-family ablation on the held-out split: each new family added alone to the default set.

For every family (``--add``), the default feature set plus that family is trained exactly as the
main experiment trains (partial bracketings of the training split, the same cut-off, sigma^2
chosen on held-out over the config's grid) and its choice is scored on the held-out split under
MPH and untyped dependency F, beside the default set alone and native/random/oracle bounds. The
test split is never read. ``--together`` adds a row for the default set plus several families.

Each family's matrix is extracted alone and kept in the store (so a rerun, or the same family in
another row, extracts nothing), then joined column-wise to the default set's matrix: the rows equal
what extracting the union would give (families add their properties, names never collide). Cost
per family on the training split (nonzeros, extraction seconds with ``--workers`` processes, bytes
as CSR with int32 indices and float64 values) is recorded beside the scores. Run from the project
folder on a store where the main experiment has run (forests, consistent sets, held-out counts):

    ranker run configs/wsj-sample.toml         # fills runs/store.sqlite (once)
    NLTK_DATA=../shared/nltk_data python3 experiments/ablation/run.py --store runs/store.sqlite \\
        [--add heads/1 wproj/1 ...] [--together heads/1 wproj/1] [--out experiments/ablation/results.json]

A family is named ``name/version`` or ``name/version:{"option": value}`` (JSON options).
Results are merged into ``--out`` (JSON, one entry per row) and printed as a Markdown table.
"""
from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ranker.features import CandidateMatrix, feature_set_from_dict, load_feature_set
from ranker.features.datasets import consistency_weights
from ranker.evaluation.bounds import (METRICS, corpus_score, error_reduction, expected_counts,
                                      oracle_choice, selected_counts)
from ranker.models import LogLinearRanker
from ranker.matrices.compact import CompactMatrix
from ranker.pipeline.config import load_config
from ranker.evaluation.scoring import ScoringSettings
from ranker.pipeline.annotation_kinds import kind_of
from ranker.pipeline.best_f import ensure_best_f_counts
from ranker.pipeline.candidate_scoring import load_forest_counts
from ranker.pipeline.splits import select_split
from ranker.pipeline.stages import StageContext, consistency, model_features
from ranker.pipeline.training import select_model
from ranker.pipeline.training_rows import training_data
from ranker.store import Store
from ranker.store.consistency import RULES

SOURCE = "link-grammar"
REPORTED = ("mph", "deps_untyped")
NEW_FAMILIES = ("rule/1", "redwoods_rules/1", "ngram/1", "heads/1", "head_tree/1", "ngram_tree/1",
                "heavy/1", "neighbours/1", "right_branch/1", "copar/1", "colenpar/1", "word/1",
                "wproj/1", "edges/2", "lg_disjuncts/1", "lg_link_pairs/1", "lg_link_lengths/1",
                "lg_nulls/1", "lg_costs/1", "pp_attach/1")


def parse_spec(spec: str) -> dict:
    """``name/1`` or ``name/1:{json options}`` -> a ``[[family]]`` table."""
    name, _, opts = spec.partition(":")
    return {"name": name, **(json.loads(opts) if opts else {})}


def join_columns(mats: list[CandidateMatrix]) -> CandidateMatrix:
    """The matrices' columns side by side (same rows), sorted by name, equal names added up."""
    first = mats[0]
    for m in mats[1:]:
        if m.sentence_ids != first.sentence_ids or not np.array_equal(m.offsets, first.offsets):
            raise SystemExit("matrices of different rows cannot be joined; extract them again")
    names = [n for m in mats for n in m.names]
    union = sorted(set(names))
    where = {n: i for i, n in enumerate(union)}
    X = sp.hstack([m.X.tocsr() for m in mats], format="csr", dtype=np.float64)
    if len(union) != len(names) or names != union:
        cols = np.fromiter((where[n] for n in names), dtype=np.int64, count=len(names))
        X = sp.csr_matrix((X.data, cols[X.indices].astype(X.indices.dtype), X.indptr),
                          shape=(X.shape[0], len(union)))
        X.sum_duplicates()   # sorted columns; a name two families give is added up
    return CandidateMatrix(CompactMatrix.from_csr(X), first.offsets, tuple(union), first.sentence_ids)


def split_matrix(st, fs, sel, workers: int) -> CandidateMatrix:
    """The matrix of a split selection under feature set ``fs`` (stored after the first extraction)."""
    return model_features(StageContext(st, SOURCE, workers), fs, sel)


def family_matrix(st, table: dict, sel, workers: int):
    """One family's matrix of a split selection and its extraction seconds (0 when stored before)."""
    fs = feature_set_from_dict({"name": "ablation", "cutoff": 0, "family": [table]},
                               f"<{table['name']}>")
    t0 = time.perf_counter()
    m = split_matrix(st, fs, sel, workers)
    return m, time.perf_counter() - t0


def family_prefixes(st, table: dict, sel, workers: int) -> set[str]:
    """The name prefixes (up to the first colon) of one family's properties on a split selection."""
    m, _ = family_matrix(st, table, sel, workers)
    return {n.split(":", 1)[0] for n in m.names}


def without_prefixes(m: CandidateMatrix, prefixes: set[str]) -> CandidateMatrix:
    """The matrix without the properties whose name prefix (up to the first colon) is in ``prefixes``.

    A family removed this way takes along any property of another family with the same prefix
    (rule/1 and redwoods_rules/1 share ``R2``); the default set's families share none.
    """
    names = tuple(n for n in m.names if n.split(":", 1)[0] not in prefixes)
    return m._replace(X=m.restrict(names), names=names)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/wsj-sample.toml")
    ap.add_argument("--store", default="runs/wsj-lg.sqlite")
    ap.add_argument("--base", default="default", help="feature set the families are added to")
    ap.add_argument("--add", nargs="*", default=list(NEW_FAMILIES))
    ap.add_argument("--together", nargs="*", default=[], help="also one row with all of these")
    ap.add_argument("--train", default=None,
                    help="training documents (split name or ranges such as wsj_0001-0069) instead of the config's")
    ap.add_argument("--sigma2", type=float, nargs="*", default=None,
                    help="sigma^2 values to choose from on held-out instead of the config's grid")
    ap.add_argument("--remove", nargs="*", default=[],
                    help="also one row per base family without it (its properties' prefixes dropped)")
    ap.add_argument("--signal", default=None,
                    help="training signal instead of the config's: riezler, chunks or best_f[:metric]")
    ap.add_argument("--rule", choices=RULES, default=None,
                    help="consistency rule instead of the config's")
    ap.add_argument("--cutoff", type=int, default=None, help="frequency cut-off instead of the config's")
    ap.add_argument("--max-iter", type=int, default=None, help="CG iterations per fit instead of the config's")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--choices", default=None,
                    help="also write each row's held-out choice (sentence id -> candidate index) to this JSON")
    ap.add_argument("--out", default="experiments/ablation/results.json")
    args = ap.parse_args(argv)

    cfg = load_config(args.config)
    d, ll = cfg.data, cfg.loglinear
    ev = cfg.evaluation
    settings = ScoringSettings(ev.evalb_param, ev.head_rules, ev.flatten_rules)
    out = Path(args.out)
    results = json.loads(out.read_text()) if out.exists() else {}
    rule = args.rule or cfg.annotation.rule
    kind, _, best_f_metric = (args.signal or cfg.annotation.kind).partition(":")
    cutoff = cfg.features.cutoff if args.cutoff is None else args.cutoff
    max_iter = args.max_iter or ll.max_iter
    # Rows trained otherwise than the config says are labelled so; the plain labels stay the config's.
    suffix = "".join(f" [{k}={v}]" for k, v in (("signal", args.signal), ("rule", args.rule),
                                                 ("cutoff", args.cutoff), ("max_iter", args.max_iter))
                     if v is not None)
    rows = [(spec + suffix, [spec], None) for spec in args.add]
    if args.together:
        rows.append(("+".join(args.together) + suffix, list(args.together), None))
    rows += [(f"-{spec}{suffix}", [], spec) for spec in args.remove]
    base = load_feature_set(args.base)
    template = LogLinearRanker(solver=ll.optimizer, max_iter=max_iter, tol=ll.tol,
                               max_parses=ll.max_parses or None, full_parses_only=ll.full_only,
                               proper_subset=ll.proper_subset, n_jobs=args.workers)
    with Store.open(args.store) as st:
        train, held = (select_split(st, d.corpus, s, d.limit) for s in (args.train or d.train, d.heldout))
        fcs = {m: load_forest_counts(st, held, METRICS[m].counts_from, settings, SOURCE)
               for m in {*REPORTED, ll.select_metric}}
        qualities = st.forest_qualities(SOURCE)
        base_train = split_matrix(st, base, train, args.workers)
        base_held = split_matrix(st, base, held, args.workers)
        if kind_of(kind).full:
            bf = (best_f_metric or cfg.annotation.best_f_metric, settings)
            ensure_best_f_counts(st, train.sentences, SOURCE, bf[0], settings, args.workers)
            y = consistency(StageContext(st, SOURCE), base_train, kind, train, rule, bf)
        else:
            y = consistency_weights(st, base_train, kind, d.corpus, train.split, SOURCE, rule)
        results.setdefault("setup", {"train": args.train or d.train, "heldout": d.heldout,
                                     "training_sentences": len(train.sentences),
                                     "sigma2_grid": list(args.sigma2 or ll.sigma2_grid),
                                     "max_iter": ll.max_iter, "cutoff": cfg.features.cutoff})
        ids = {sid: k for k, sid in enumerate(s.id for s in held.sentences)}
        if "bounds" not in results:
            results["bounds"] = {}
            for m in REPORTED:
                fc, met = fcs[m], METRICS[m]
                results["bounds"][m] = {
                    "oracle": corpus_score(met, selected_counts(fc, oracle_choice(fc, met.score))),
                    "random": corpus_score(met, expected_counts(fc)),
                    "native": corpus_score(met, selected_counts(fc, np.where(np.diff(fc.offsets) > 0, 0, -1))),
                }
        for label, specs, removed in [(args.base + suffix, [], None)] + rows:
            if label in results:
                print(f"{label}: done before, kept", file=sys.stderr)
                continue
            print(f"{label} ...", file=sys.stderr, flush=True)
            cost = {}
            trains, helds = [base_train], [base_held]
            for spec in specs:
                table = parse_spec(spec)
                mt, secs = family_matrix(st, table, train, args.workers)
                mh, _ = family_matrix(st, table, held, args.workers)
                cost[spec] = {"nonzeros": int(mt.X.nnz), "properties": len(mt.names),
                              "extraction_seconds": round(secs, 1),
                              "bytes": int(mt.X.nbytes),
                              "binary": mt.X.parts[1].nnz == mt.X.parts[2].nnz == 0}
                trains.append(mt)
                helds.append(mh)
            Xt = join_columns(trains) if specs else base_train
            Xh = join_columns(helds) if specs else base_held
            if removed:
                table = parse_spec(removed)
                if ":" not in removed:   # the base set's own options of that family
                    table = next((t for t in base.to_dict()["family"] if t["name"] == table["name"]), table)
                drop = family_prefixes(st, table, held, args.workers)
                Xt, Xh = without_prefixes(Xt, drop), without_prefixes(Xh, drop)
                if Xt.X.nnz == base_train.X.nnz:
                    raise SystemExit(f"{removed}: none of its properties ({sorted(drop)}) is in the base set")
                cost[removed] = {"nonzeros": -int(base_train.X.nnz - Xt.X.nnz), "properties": -len(drop),
                                 "extraction_seconds": 0.0, "bytes": 0, "binary": None}
            del trains, helds
            t0 = time.perf_counter()
            data = training_data([Xt], [y], cutoff, qualities, template)
            del Xt
            gc.collect()
            Xhr, gh = Xh.restrict(data.names), Xh.groups()
            sel = fcs[ll.select_metric]
            qh = METRICS[ll.select_metric].score(sel.counts)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                chosen = select_model(st, template, data, Xhr, gh, qh, args.sigma2 or ll.sigma2_grid)
            pred = chosen.ranker.predict(Xhr, gh)
            choice = np.full(len(held.sentences), -1, dtype=np.int64)
            for g, sid in enumerate(Xh.sentence_ids):
                choice[ids[sid]] = pred[g]
            entry = {"families": specs, "cost": cost, "sigma2": chosen.sigma2,
                     "properties_after_cutoff": len(data.names),
                     "training_nonzeros": int(data.X.nnz),
                     "training_sentences_kept": int(data.survivors.group_mask.sum()),
                     "training_dropped": {k: int(v) for k, v in data.survivors.dropped.items()},
                     "training_seconds": round(time.perf_counter() - t0, 1)}
            for m in REPORTED:
                b = results["bounds"][m]
                score = corpus_score(METRICS[m], selected_counts(fcs[m], choice))
                entry[m] = {"f": score, "error_reduction": error_reduction(score, b["random"], b["oracle"]),
                            "phi": error_reduction(score, b["native"], b["oracle"])}
            results[label] = entry
            if args.choices:
                cpath = Path(args.choices)
                saved = json.loads(cpath.read_text()) if cpath.exists() else {}
                saved[label] = {s.id: int(c) for s, c in zip(held.sentences, choice)}
                cpath.write_text(json.dumps(saved))
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(results, indent=1))
            print(f"{label}: " + ", ".join(f"{m} {entry[m]['f']:.2f}" for m in REPORTED), file=sys.stderr,
                  flush=True)
            del data, Xh, Xhr
            gc.collect()
    print(markdown_table(results, args.base))
    return 0


def markdown_table(results: dict, base: str) -> str:
    """The results as a Markdown table, gains against the base set (ER: error reduction, %)."""
    b = results.get(base)
    lines = ["| feature set | MPH F | gain | ER | phi | deps F | gain | ER | phi | nonzeros added "
             "(extracted) | training nonzeros | extraction s | MB | properties kept |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, e in results.items():
        if label in ("bounds", "setup"):
            continue
        cost = e["cost"]
        cells = [label if label != base else f"{base} (today)"]
        for m in REPORTED:
            er, phi = e[m]["error_reduction"], e[m]["phi"]
            cells += [f"{e[m]['f']:.2f}", f"{e[m]['f'] - b[m]['f']:+.2f}" if b else "",
                      f"{er:.1f}" if er is not None else "-", f"{phi:.1f}" if phi is not None else "-"]
        cells += [f"{sum(c['nonzeros'] for c in cost.values()):+,}" if cost else "",
                  f"{e['training_nonzeros']:,}",
                  f"{sum(c['extraction_seconds'] for c in cost.values()):.0f}" if cost else "",
                  f"{sum(c['bytes'] for c in cost.values()) / 1e6:.0f}" if cost else "",
                  f"{e['properties_after_cutoff']:,}"]
        lines.append("| " + " | ".join(cells) + " |")
    bd = results.get("bounds", {})
    if bd:
        lines.append("")
        lines.append("Held-out bounds: " + "; ".join(
            f"{m}: oracle {v['oracle']:.2f}, random {v['random']:.2f}, native {v['native']:.2f}"
            for m, v in bd.items()))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
