"""Ten-fold cross-validation over treebank files: mean and spread of each ranker's error reduction.

The 199 files of the WSJ sample are cut into ten folds of consecutive files. Fold k is the test
set, fold k+1 (mod 10) the held-out set (sigma^2 and K are chosen there), the other eight folds the
training set. All folds share one store, so Link Grammar parses every sentence once, and once
the main experiment has stored its train, held-out and test feature matrices every fold's matrices
are assembled from their rows instead of being extracted again. Folds draw no learning curve (the
main run's report tables it). Run from the project folder (after ``ranker run
configs/wsj-sample.toml``, for speed):

    NLTK_DATA=../shared/nltk_data python3 experiments/cross-validation/run.py \
        [--config configs/wsj-sample.toml] [--folds 10] [--out runs/cross-validation] \
        [--store STORE] [--only 7,8,9,0,...]

``--only`` runs the folds named, in that order (folds whose sentences the main run already scored
first give results soonest). A fold done before (its ``fold.json`` under the output folder) is
not run again, so the same command resumes an interrupted run; the summary covers every fold done.

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

from ranker.atomicfile import atomic_write
from ranker.errors import RankerError
from ranker.pipeline.config import load_config
from ranker.pipeline.experiment import RANKERS, run_experiment
from ranker.pipeline.folds import (TREEBANK_FILES, cross_validation_folds, fold_config, fold_order,
                                   fold_record, ranges)

#: Each fold's record (:func:`ranker.pipeline.folds.fold_record`), written when the fold is done:
#: a rerun with the same ``--out`` skips those folds, so the runner resumes where it stopped.
RECORD = "fold.json"


def done_folds(out: Path, folds: int) -> list[dict]:
    """The records of the folds done under ``out``, in fold order (whichever process ran them)."""
    return [json.loads((out / f"fold{k}" / RECORD).read_text()) for k in range(folds)
            if (out / f"fold{k}" / RECORD).is_file()]


def metric_names(results: list[dict]) -> list[str]:
    """The metrics of the fold results (every key but the fold's number and counts)."""
    return [m for m in results[0] if m not in ("fold", "counts", "fit")]


def summarize(results: list[dict]) -> dict:
    """Mean and standard deviation over folds of each ranker's error reduction and phi per metric."""
    summary = {}
    for m in metric_names(results):
        summary[m] = {}
        for r in RANKERS:
            vals = [res[m][r] for res in results if res[m][r] is not None]
            phis = [res[m][f"{r}_phi"] for res in results if res[m][f"{r}_phi"] is not None]
            summary[m][r] = {"mean_error_reduction": statistics.fmean(vals) if vals else None,
                             "stdev": statistics.stdev(vals) if len(vals) > 1 else None,
                             "folds": len(vals),
                             "mean_phi": statistics.fmean(phis) if phis else None,
                             "phi_stdev": statistics.stdev(phis) if len(phis) > 1 else None}
    return summary


def _mean_sd(mean: float | None, sd: float | None) -> str:
    if mean is None:
        return "n/a"
    return f"{mean:.1f} ± {sd:.1f}" if sd is not None else f"{mean:.1f}"


def _cell(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1f}"


#: The ranker phi measures from (ranker.pipeline.tables): its own phi is 0, so no column shows it.
PHI_FROM = "native"


def summary_markdown(results: list[dict], summary: dict, folds: int) -> str:
    """``summary.md``: error reduction and phi tables (mean ± sd) and the log-linear ranker per fold."""
    done = ", ".join(str(res.get("fold", "?")) for res in results)
    lines = [f"Error reduction (%), mean ± standard deviation over {len(results)} of {folds} folds "
             f"(folds {done})", "",
             "| metric | " + " | ".join(RANKERS) + " |", "|---" * (len(RANKERS) + 1) + "|"]
    for m, per in summary.items():
        lines.append(f"| {m} | " + " | ".join(_mean_sd(v["mean_error_reduction"], v["stdev"])
                                              for v in per.values()) + " |")
    rankers = [r for r in RANKERS if r != PHI_FROM]
    lines += ["", "phi (%, share of the native-to-oracle gap closed), mean ± standard deviation", "",
              "| metric | " + " | ".join(rankers) + " |", "|---" * (len(rankers) + 1) + "|"]
    for m, per in summary.items():
        lines.append(f"| {m} | " + " | ".join(_mean_sd(per[r]["mean_phi"], per[r]["phi_stdev"])
                                              for r in rankers) + " |")
    shown = [m for m in ("evalb_unlabeled", "mph", "deps_untyped") if m in summary]
    lines += ["", "Log-linear per fold: error reduction (%) and phi (%); native's error reduction under "
              "MPH; sigma^2 chosen on the held-out fold; training sentences kept", "",
              "| fold | " + " | ".join(f"{m} ER | {m} phi" for m in shown)
              + " | native mph ER | sigma^2 | training sentences |",
              "|---" * (2 * len(shown) + 4) + "|"]
    for res in results:
        c = res.get("counts", {})
        cells = [f"{_cell(res[m]['loglinear'])} | {_cell(res[m]['loglinear_phi'])}" for m in shown]
        native = _cell(res["mph"]["native"]) if "mph" in res else "n/a"
        lines.append(f"| {res.get('fold', '?')} | " + " | ".join(cells)
                     + f" | {native} | {res.get('fit', {}).get('sigma2', 'n/a')}"
                     + f" | {c.get('training_kept', 'n/a')} |")
    return "\n".join(lines) + "\n"


def write_summary(results: list[dict], out: Path, folds: int) -> None:
    """``summary.json`` and ``summary.md`` of the folds done so far (written after every fold)."""
    summary = summarize(results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps({"folds": results, "summary": summary}, indent=2))
    (out / "summary.md").write_text(summary_markdown(results, summary, folds))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/wsj-sample.toml")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--out", default="runs/cross-validation")
    ap.add_argument("--store", default=None, help="store instead of the config's (a warm copy)")
    ap.add_argument("--only", default=None, metavar="K,K,...",
                    help="run only these folds, in this order (default: every fold, 0 first)")
    args = ap.parse_args(argv)
    base = load_config(args.config)
    if args.store:
        base = dataclasses.replace(base, experiment=dataclasses.replace(base.experiment, store=args.store))
    fs = cross_validation_folds(TREEBANK_FILES, args.folds)
    out = Path(args.out)
    for k in fold_order(args.only, args.folds):
        fold = fs[k]
        record = out / f"fold{k}" / RECORD
        if record.is_file():
            print(f"fold {k}: done before ({record})", flush=True)
            continue
        print(f"fold {k}: test {ranges(fold.test)}, held-out {ranges(fold.heldout)}", flush=True)
        report = run_experiment(fold_config(base, fold), out / f"fold{k}", progress=False)
        with atomic_write(record) as f:
            f.write(json.dumps(fold_record(k, report), indent=2))
        write_summary(done_folds(out, args.folds), out, args.folds)
    results = done_folds(out, args.folds)
    if results:
        write_summary(results, out, args.folds)
        print((out / "summary.md").read_text())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RankerError as e:
        print(f"cross-validation: error: {e}", file=sys.stderr)
        sys.exit(2)
