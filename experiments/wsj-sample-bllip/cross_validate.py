"""Ten-fold cross-validation on the BLLIP 50-best lists: ranker's rankers beside the Charniak-Johnson reranker.

The 199 files of the WSJ sample are cut into ten folds of consecutive files
(:mod:`ranker.pipeline.folds`, as ``experiments/cross-validation/run.py`` cuts them). Fold k is
the test set, fold k+1 (mod 10) the held-out set (sigma^2 and Heidorn's K for ranker, the
regulariser search for the peer), the other eight the training set, for ranker and the peer alike.
Every list comes from a parser that never saw its sentence (``../shared/nbest/bllip-wsj-sample``).
Run from the project folder:

    NLTK_DATA=../shared/nltk_data python3 experiments/wsj-sample-bllip/cross_validate.py \\
        [--config configs/wsj-sample-bllip.toml] [--peer-source DIR] [--out runs/cv-bllip] \\
        [--store STORE] [--folds 10] [--only 0,1,...]

For each fold it runs ``ranker run``'s experiment for the config with the fold's document ranges
(``foldK/``: report, ``gold.mrg``, ``selected/*.mrg``) and the peer built from ``--peer-source``
(``foldK/peer/``; see ``peer_reranker.py``; no source, no peer, said in one line), scores every
selection with EVALB's COLLINS.prm against the fold's ``gold.mrg`` (the first parse, Heidorn,
Heidorn tuned, log-linear, the peer, the oracle under EVALB labelled F) and rewrites
``summary.json`` and ``summary.md``: per fold and pooled over the folds done (counts summed over
every sentence, then divided), phi = (system - first) / (oracle - first), and paired approximate
randomization tests over all pooled sentences, each ranker against the peer. A fold whose parts
are on disk is not run again (``foldK/fold.json`` for ranker, ``foldK/peer/best-parses.mrg`` for
the peer), so an interrupted run resumes where it stopped; ``--part ranker`` and ``--part peer``
run one side each, so two processes can share the two cores (several ``--part peer`` processes
may run too: each claims a fold before running the peer on it).
"""
from __future__ import annotations

import argparse
import dataclasses
import fcntl
import json
import os
import sys
from pathlib import Path

import numpy as np

from ranker.atomicfile import atomic_write
from ranker.errors import RankerError
from ranker.evaluation.evalb_params import load_params
from ranker.evaluation.pooled import evalb_sentence_counts, pooled_f, pooled_scores
from ranker.evaluation.significance import paired_randomization_test
from ranker.pipeline.config import load_config
from ranker.pipeline.folds import (TREEBANK_FILES, cross_validation_folds, fold_config, fold_order,
                                   fold_record, ranges)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peer_reranker  # noqa: E402

#: Systems scored per fold: name -> the file under the fold's folder holding its selections.
SYSTEMS = {"first": "selected/native.mrg", "heidorn": "selected/heidorn.mrg",
           "heidorn_tuned": "selected/heidorn_tuned.mrg", "loglinear": "selected/loglinear.mrg",
           "peer": "selected/peer.mrg", "oracle": "selected/oracle-evalb_labeled.mrg"}
#: The rankers tested against the peer.
RANKERS = ("heidorn", "heidorn_tuned", "loglinear")
#: The issue's targets for the log-linear ranker, pooled: F at least the peer's plus this, ...
TARGET_GAIN = 0.5
#: ... with p below this, and phi (percent) at least this.
TARGET_P, TARGET_PHI = 0.05, 20.0


def claim(work: Path):
    """The claim of this process on the peer's run of the fold of ``work``, or None when another
    live process holds it, so several ``--part peer`` processes can share one ``--out``.

    The claim is an exclusive ``flock`` on ``running.pid`` (which names the holder's pid for
    people): the kernel takes and releases it atomically and drops it when its process dies, so
    two processes never both hold it and a dead one's claim never blocks. Close the returned
    file to let it go.
    """
    work.mkdir(parents=True, exist_ok=True)
    f = open(work / "running.pid", "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        return None
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()))
    f.flush()
    return f


def peer_selection(best_parses: Path, out: Path) -> None:
    """The peer's trees with the gold's root convention (``S1`` removed as on import), one a line.

    A line that is not one tree becomes an empty line, which EVALB skips as no parse.
    """
    from ranker.trees.penn import format_tree, parse_tree
    from ranker.trees.transforms import normalize_root

    with atomic_write(out) as f:
        for i, line in enumerate(best_parses.read_text().splitlines(), 1):
            try:
                f.write(format_tree(normalize_root(parse_tree(line, str(best_parses), i))) + "\n")
            except (RankerError, ValueError):
                f.write("\n")


def fold_scores(folder: Path, params) -> dict[str, np.ndarray]:
    """EVALB ``(gold, test, matched)`` per test sentence of every system the fold has a file for."""
    gold = folder / "gold.mrg"
    return {name: evalb_sentence_counts(gold, folder / rel, params)
            for name, rel in SYSTEMS.items() if (folder / rel).is_file()}


def _peer_seconds(folder: Path) -> dict | None:
    """The peer's seconds per step on a fold (``foldK/peer/peer.json``), if it ran there."""
    path = folder / "peer" / "peer.json"
    return json.loads(path.read_text())["seconds"] if path.is_file() else None


def _p(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> float:
    from ranker.evaluation.bounds import f1_score

    return paired_randomization_test(a, b, score=f1_score, n_resamples=resamples, seed=seed)


def summarize(out: Path, n: int, params, resamples: int, seed: int) -> dict:
    """Per-fold and pooled scores of every fold finished under ``out`` (read from its files)."""
    folds, counts = [], {}
    for k in range(n):
        folder = out / f"fold{k}"
        if not (folder / "fold.json").is_file():
            continue
        record = json.loads((folder / "fold.json").read_text())
        c = fold_scores(folder, params)
        counts[k] = c
        scores = pooled_scores({s: [v] for s, v in c.items()}, "first", "oracle")
        row = {"fold": k, "test": record["test"], "heldout": record["heldout"],
               "sentences": int(len(c["first"])),
               "evalb_errors": {s: int(np.count_nonzero(v.sum(axis=1) == 0)) for s, v in c.items()},
               "f": {s: v["f"] for s, v in scores.items()}, "phi": {s: v["phi"] for s, v in scores.items()},
               "sigma2": record["ranker"]["fit"].get("sigma2"),
               "training sentences kept": record["ranker"]["counts"].get("training_kept"),
               "report_evalb_labeled": {r: record["ranker"].get("evalb_labeled", {}).get(f"{r}_score")
                                        for r in ("native", "heidorn", "heidorn_tuned", "loglinear")},
               "peer_seconds": _peer_seconds(folder)}
        if "peer" in c:
            row["p_vs_peer"] = {r: _p(c[r], c["peer"], resamples, seed) for r in RANKERS}
        folds.append(row)
    with_peer = [k for k in counts if "peer" in counts[k]]
    pooled_folds = with_peer if with_peer else sorted(counts)
    pooled = None
    if pooled_folds:
        systems = [s for s in SYSTEMS if all(s in counts[k] for k in pooled_folds)]
        arrays = {s: [counts[k][s] for k in pooled_folds] for s in systems}
        scores = pooled_scores(arrays, "first", "oracle")
        pooled = {"folds": pooled_folds, "sentences": int(sum(len(counts[k]["first"]) for k in pooled_folds)),
                  "f": {s: v["f"] for s, v in scores.items()}, "phi": {s: v["phi"] for s, v in scores.items()},
                  "p_vs_first": {r: _p(np.concatenate(arrays[r]), np.concatenate(arrays["first"]),
                                       resamples, seed) for r in RANKERS}}
        if "peer" in arrays:
            pooled["p_vs_peer"] = {r: _p(np.concatenate(arrays[r]), np.concatenate(arrays["peer"]),
                                         resamples, seed) for r in RANKERS}
            f, phi, p = pooled["f"], pooled["phi"]["loglinear"], pooled["p_vs_peer"]["loglinear"]
            gain = f["loglinear"] - f["peer"]
            pooled["targets"] = {
                "gain_over_peer": {"value": gain, "target": TARGET_GAIN, "met": gain >= TARGET_GAIN},
                "p_vs_peer": {"value": p, "target": TARGET_P, "met": p < TARGET_P and gain > 0},
                "phi": {"value": phi, "target": TARGET_PHI, "met": phi is not None and phi >= TARGET_PHI}}
    return {"folds": folds, "pooled": pooled, "resamples": resamples, "folds_total": n}


def _f(v, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def summary_markdown(s: dict) -> str:
    """``summary.md``: a row per fold and the pooled row, then the targets."""
    cols = [c for c in SYSTEMS if any(c in f["f"] for f in s["folds"])]
    head = ("| fold | test files | sentences | " + " | ".join(cols)
            + " | phi loglinear | phi peer | p loglinear vs peer | sigma^2 |")
    lines = [f"EVALB labelled F (COLLINS.prm, all lengths) per fold and pooled over the folds done "
             f"({len(s['folds'])} of {s['folds_total']}); phi = (system - first) / (oracle - first), "
             f"%; p: paired approximate randomization, {s['resamples']} resamples.", "",
             head, "|---" * (head.count("|") - 1) + "|"]
    for f in s["folds"]:
        lines.append(f"| {f['fold']} | {f['test']} | {f['sentences']} | "
                     + " | ".join(_f(f["f"].get(c)) for c in cols)
                     + f" | {_f(f['phi'].get('loglinear'), 1)} | {_f(f['phi'].get('peer'), 1)}"
                     + f" | {_f(f.get('p_vs_peer', {}).get('loglinear'), 3)} | {f['sigma2']} |")
    p = s["pooled"]
    if p:
        lines.append(f"| **pooled** ({', '.join(map(str, p['folds']))}) | | {p['sentences']} | "
                     + " | ".join(f"**{_f(p['f'].get(c))}**" for c in cols)
                     + f" | {_f(p['phi'].get('loglinear'), 1)} | {_f(p['phi'].get('peer'), 1)}"
                     + f" | {_f(p.get('p_vs_peer', {}).get('loglinear'), 4)} | |")
        lines += ["", "Pooled, each ranker against the peer and the first parse (p):", "",
                  "| ranker | F | phi | p vs peer | p vs first |", "|---|---|---|---|---|"]
        for r in RANKERS:
            lines.append(f"| {r} | {_f(p['f'][r])} | {_f(p['phi'][r], 1)} | "
                         f"{_f(p.get('p_vs_peer', {}).get(r), 4)} | {_f(p['p_vs_first'][r], 4)} |")
        t = p.get("targets")
        if t:
            g, q, ph = t["gain_over_peer"], t["p_vs_peer"], t["phi"]
            lines += ["", "Targets (log-linear, pooled):",
                      f"- F at least the peer's + {g['target']}: {'met' if g['met'] else 'missed'} "
                      f"(log-linear - peer = {g['value']:+.2f}"
                      + ("" if g["met"] else f", {g['target'] - g['value']:.2f} short") + ")",
                      f"- p < {q['target']} against the peer: {'met' if q['met'] else 'missed'} "
                      f"(p = {q['value']:.4f})",
                      f"- phi at least {ph['target']:.0f}%: {'met' if ph['met'] else 'missed'} "
                      f"(phi = {_f(ph['value'], 1)}%"
                      + ("" if ph["met"] or ph["value"] is None else f", {ph['target'] - ph['value']:.1f} short")
                      + ")"]
    errs = {k: v for f in s["folds"] for k, v in f["evalb_errors"].items() if v}
    if errs:
        lines += ["", "Sentences EVALB scores as errors or skips (they add nothing, as in `evalb`'s "
                  "totals), per fold: " + "; ".join(
                      f"fold {f['fold']}: " + ", ".join(f"{k} {v}" for k, v in f["evalb_errors"].items())
                      for f in s["folds"])]
    return "\n".join(lines) + "\n"


def write_summary(out: Path, n: int, params, resamples: int, seed: int) -> dict:
    """Rewrite ``summary.json`` and ``summary.md`` from every fold done so far."""
    s = summarize(out, n, params, resamples, seed)
    with atomic_write(out / "summary.json") as f:
        f.write(json.dumps(s, indent=2))
    with atomic_write(out / "summary.md") as f:
        f.write(summary_markdown(s))
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/wsj-sample-bllip.toml")
    ap.add_argument("--peer-source", default=None, metavar="DIR",
                    help=f"a checkout of github.com/BLLIP/bllip-parser (or ${peer_reranker.SOURCE_ENV}); "
                         "without one the peer is skipped")
    ap.add_argument("--out", default="runs/cv-bllip")
    ap.add_argument("--store", default=None, help="store instead of the config's")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--only", default=None, metavar="K,K,...",
                    help="run only these folds, in this order (default: every fold, 0 first)")
    ap.add_argument("--part", choices=("both", "ranker", "peer"), default="both",
                    help="run ranker's side, the peer's, or both (default); two processes, one per "
                         "part, may share --out and run side by side")
    ap.add_argument("--peer-threads", type=int, default=None,
                    help="OpenMP threads of the peer (default: the machine's cores)")
    args = ap.parse_args(argv)
    from ranker.pipeline.experiment import run_experiment
    from ranker.pipeline.forest_files import forest_files

    base = load_config(args.config)
    if args.store:
        base = dataclasses.replace(base, experiment=dataclasses.replace(base.experiment, store=args.store))
    folds = cross_validation_folds(TREEBANK_FILES, args.folds)
    order = fold_order(args.only, args.folds)
    params = load_params(base.evaluation.evalb_param)
    nbest = forest_files(base.parse, args.config).files
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    progs = None
    if args.part != "ranker":
        try:
            progs = peer_reranker.build(peer_reranker.find_programs(args.peer_source))
        except peer_reranker.PeerUnavailable as e:
            print(f"peer skipped: {e}", file=sys.stderr, flush=True)
    resamples, seed = base.evaluation.randomization_resamples, base.experiment.seed
    for k in order:
        fold, folder = folds[k], out / f"fold{k}"
        print(f"fold {k}: test {ranges(fold.test)}, held-out {ranges(fold.heldout)}", flush=True)
        record_file = folder / "fold.json"
        record = json.loads(record_file.read_text()) if record_file.is_file() else None
        if record is None and args.part != "peer":
            report = run_experiment(fold_config(base, fold), folder, progress=False)
            record = {"fold": k, "test": ranges(fold.test), "heldout": ranges(fold.heldout),
                      "ranker": fold_record(k, report), "timings": dict(report.timings)}
            with atomic_write(record_file) as f:
                f.write(json.dumps(record, indent=2))
        if progs is not None and not (folder / SYSTEMS["peer"]).is_file():
            work = folder / "peer"
            if not (work / "best-parses.mrg").is_file():
                held = claim(work)
                if held is None:
                    print(f"fold {k}: the peer runs in another process", flush=True)
                    continue
                try:
                    if not (work / "best-parses.mrg").is_file():   # not finished meanwhile
                        done = peer_reranker.run_fold(progs, work, nbest, fold.train, fold.heldout,
                                                      fold.test, args.peer_threads)
                        with atomic_write(work / "peer.json") as f:
                            f.write(json.dumps(done, indent=2))
                finally:
                    (work / "running.pid").unlink(missing_ok=True)
                    held.close()
            (folder / "selected").mkdir(exist_ok=True)
            peer_selection(work / "best-parses.mrg", folder / SYSTEMS["peer"])
        write_summary(out, args.folds, params, resamples, seed)
        print(f"fold {k} done", flush=True)
    s = write_summary(out, args.folds, params, resamples, seed)
    print(summary_markdown(s))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RankerError as e:
        print(f"ranker: error: {e}", file=sys.stderr)
        sys.exit(2)
