"""Ten-fold cross-validation over treebank files: mean and spread of each ranker's error reduction.

The 199 files of the WSJ sample are cut into ten folds of consecutive files. Fold k is the test
set, fold k+1 (mod 10) the held-out set (sigma^2 and K are chosen there), the other eight folds the
training set. All folds share one store, so Link Grammar parses every sentence once, and once
the main experiment has stored its train, held-out and test feature matrices every fold's matrices
are assembled from their rows instead of being extracted again. Folds draw no learning curve. Run
from the project folder (after ``ranker run configs/wsj-sample.toml``, for speed):

    NLTK_DATA=../shared/nltk_data python3 experiments/cross-validation/run.py \
        [--config configs/wsj-sample.toml] [--folds 10] [--out runs/cross-validation]

It writes one report per fold under the output folder and a summary (``summary.json`` and
``summary.md``) with the mean and standard deviation of every ranker's error reduction per metric.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
from pathlib import Path

from ranker.errors import RankerError
from ranker.pipeline.config import load_config
from ranker.pipeline.experiment import RANKERS, run_experiment

FILES = [f"wsj_{i:04d}" for i in range(1, 200)]


def folds(n: int) -> list[list[str]]:
    """``n`` folds of consecutive files, sizes differing by at most one."""
    size, extra = divmod(len(FILES), n)
    out, start = [], 0
    for k in range(n):
        end = start + size + (1 if k < extra else 0)
        out.append(FILES[start:end])
        start = end
    return out


def ranges(files: list[str]) -> str:
    """Consecutive runs of files as document ranges (``wsj_0001-0019 wsj_0040-0199``)."""
    nums = sorted(int(f[4:]) for f in files)
    parts, a = [], nums[0]
    for prev, cur in zip(nums, nums[1:] + [None]):
        if cur != prev + 1:
            parts.append(f"wsj_{a:04d}-{prev:04d}")
            a = cur
    return " ".join(parts)


def write_summary(results: list[dict], out: Path, folds: int) -> None:
    """``summary.json`` and ``summary.md`` of the folds done so far (written after every fold)."""
    summary = {}
    for m in results[0]:
        summary[m] = {}
        for r in RANKERS:
            vals = [res[m][r] for res in results if res[m][r] is not None]
            phis = [res[m][f"{r}_phi"] for res in results if res[m][f"{r}_phi"] is not None]
            summary[m][r] = {"mean_error_reduction": statistics.fmean(vals) if vals else None,
                             "stdev": statistics.stdev(vals) if len(vals) > 1 else None,
                             "folds": len(vals),
                             "mean_phi": statistics.fmean(phis) if phis else None,
                             "phi_stdev": statistics.stdev(phis) if len(phis) > 1 else None}
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps({"folds": results, "summary": summary}, indent=2))
    lines = ["| metric | " + " | ".join(RANKERS) + " |", "|---" * (len(RANKERS) + 1) + "|"]
    for m, per in summary.items():
        cells = [f"{v['mean_error_reduction']:.1f} ± {v['stdev'] or 0:.1f}"
                 if v["mean_error_reduction"] is not None else "n/a" for v in per.values()]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    lines += ["", "phi (%, share of the native-to-oracle gap closed), mean ± standard deviation", "",
              "| metric | " + " | ".join(r for r in RANKERS if r != "native") + " |",
              "|---" * len(RANKERS) + "|"]
    for m, per in summary.items():
        cells = [f"{v['mean_phi']:.1f} ± {v['phi_stdev'] or 0:.1f}" if v["mean_phi"] is not None else "n/a"
                 for r, v in per.items() if r != "native"]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    (out / "summary.md").write_text("Error reduction (%), mean ± standard deviation over "
                                    f"{len(results)} of {folds} folds\n\n" + "\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/wsj-sample.toml")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--out", default="runs/cross-validation")
    ap.add_argument("--store", default=None, help="store instead of the config's (a warm copy)")
    args = ap.parse_args(argv)
    base = load_config(args.config)
    if args.store:
        base = dataclasses.replace(base, experiment=dataclasses.replace(base.experiment, store=args.store))
    fs = folds(args.folds)
    results = []
    for k in range(args.folds):
        test, held = fs[k], fs[(k + 1) % args.folds]
        train = [f for j, f in enumerate(fs) if j not in (k, (k + 1) % args.folds) for f in f]
        data = dataclasses.replace(base.data, train=ranges(train), heldout=ranges(held),
                                   test=ranges(test))
        cfg = dataclasses.replace(base, data=data, experiment=dataclasses.replace(
            base.experiment, name=f"{base.experiment.name}-fold{k}"),
            report=dataclasses.replace(base.report, learning_curve=()))
        print(f"fold {k}: test {ranges(test)}, held-out {ranges(held)}", flush=True)
        report = run_experiment(cfg, Path(args.out) / f"fold{k}", progress=False)
        results.append({m: {r: t.rankers[r].error_reduction for r in RANKERS} | {
            "upper": t.upper, "lower": t.lower} | {f"{r}_score": t.rankers[r].score for r in RANKERS}
            | {f"{r}_phi": t.rankers[r].phi for r in RANKERS}
            for m, t in report.metrics.items()})
        write_summary(results, Path(args.out), args.folds)
    print((Path(args.out) / "summary.md").read_text())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RankerError as e:
        print(f"cross-validation: error: {e}", file=sys.stderr)
        sys.exit(2)
