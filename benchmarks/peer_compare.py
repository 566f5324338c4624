"""Our log-linear objective beside BLLIP's cvlm-lbfgs on the same data and the same prior.

``python benchmarks/bench_train.py peer [--store FILE] [--peer-source DIR]`` runs, on the WSJ
sample's real training matrix from a store (the rows and properties ``ranker run`` trains on:
default features, cut-off, partial bracketings, the paper's filters) or on synthetic data of its
shape (without ``--store``):

* the two objectives at ``λ = 0`` and at a random ``λ``, which must agree (the peer's value minus
  the data constant of :func:`cvlm_format.value_offset`, and the gradients): the proof that the
  data and the regulariser are the same (``σ²`` ↔ ``-c 1/(2σ²) -p 2``, see :mod:`peer_cvlm`);
* with 1 and 2 threads, each side in a fresh process: seconds per evaluation, evaluations and
  seconds until the objective is within ``--rel-gap`` of the best value either side reached, and
  peak memory (the process's ``VmHWM``);
* the memory-bandwidth floor: the bytes one evaluation must stream over the streaming bandwidth
  measured here with numpy, for each side's own layout and for the data's smallest one (an int32
  id per nonzero, a float32 value only where the value is not 1), and each side's ratio to them.

The peer gets the rows our plain objective streams (properties constant over a sentence's
candidates already dropped, as Charniak and Johnson's extractor drops pseudo-constant features).
Ours streams them as the trainer does by default (``--layout delta``, :mod:`ranker.models.delta`),
built once before the timed part, as the peer's reading of its input is not timed either;
``--layout plain`` streams the rows themselves. Converted inputs go to ``--work`` (default
``runs/bench-peer``), never into the project's tracked files. The measurements, dated, are in
``benchmarks/README.md``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import cvlm_format
import peer_cvlm
from bench_train import copy_bandwidth, median_seconds, synthetic

HERE = Path(__file__).resolve().parent

#: The WSJ sample's training matrix as ``ranker run configs/wsj-sample.toml`` trains on it:
#: sentences, candidates, properties, nonzeros per candidate (the synthetic stand-in's shape).
WSJ_SHAPE = {"sentences": 2_900, "candidates": 1_000_000, "features": 500_000, "active": 180}


def store_training_data(path: str, config: str = "configs/wsj-sample.toml", rule: str | None = None):
    """``(X, y, offsets)``: the training rows ``ranker run CONFIG`` fits, from the store at ``path``.

    The config's features, annotation and filters; ``rule`` overrides its consistency rule
    (``fewest`` gives the larger matrix of the older figures in ``benchmarks/README.md``, 2,595 sentences; the config's strict
    rule 1,196). Only the training sentences the rule leaves a consistent candidate are read, as
    ``ranker run`` extracts only those (:func:`ranker.pipeline.stages.trainable`). The store is
    opened read-only; their matrix must be there already (``ranker run``, or ``ranker train
    --rule RULE`` for another rule).
    """
    from dataclasses import replace

    from ranker.features import load_feature_set

    from ranker.errors import RankerError
    from ranker.models.groups import group_offsets
    from ranker.pipeline import stages
    from ranker.pipeline.config import load_config
    from ranker.pipeline.splits import select_split
    from ranker.store import Store

    cfg = load_config(config)
    annotation = cfg.annotation if rule is None else replace(cfg.annotation, rule=rule)
    rule = annotation.rule
    template = stages.loglinear_template(cfg.loglinear)
    with Store.open(path, readonly=True) as st:
        source = stages.stored_source(st)
        ctx = stages.StageContext(st, source)
        sel = stages.trainable(ctx, select_split(st, cfg.data.corpus, cfg.data.train, cfg.data.limit), annotation.kind,
                               rule, template).selection
        try:
            m = stages.model_features(ctx, load_feature_set(cfg.features.set), sel)
        except RankerError as e:
            raise RankerError(f"{path}: no stored training matrix of {config}'s features under the "
                              f"{rule} rule (run ranker run, or ranker train --rule, on it first): {e}") from None
        w = stages.consistency(ctx, m, annotation.kind, sel, rule)
        data = stages.training_rows(ctx, cfg.features, template, [m], [w])
    return data.X.tocsr(), data.y, group_offsets(data.groups, len(data.y))


def synthetic_data(scale: float, seed: int = 0):
    """``(X, y, offsets)`` of :data:`WSJ_SHAPE` times ``scale`` (rows and sentences)."""
    n_sent = max(2, int(WSJ_SHAPE["sentences"] * scale))
    n_cand = max(2 * n_sent, int(WSJ_SHAPE["candidates"] * scale))
    X, y, groups = synthetic(n_sentences=n_sent, n_candidates=n_cand,
                             n_consistent=n_cand // 5, n_features=WSJ_SHAPE["features"],
                             active=WSJ_SHAPE["active"], seed=seed)
    offsets = np.concatenate(([0], np.flatnonzero(np.diff(groups)) + 1, [len(groups)]))
    return X, y, offsets


def layout_bytes(X: sp.csr_matrix, n_rows: int) -> dict[str, int]:
    """Bytes of the matrix in each layout: ours (CSR as given), the peer's, the smallest."""
    ones = int(np.count_nonzero(X.data == 1))
    others = int(X.nnz - ones)
    return {
        "ours": int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes),
        # lmdata.h: an id per count-1 feature, (id, float32) otherwise, a 40-byte parse_type each
        "peer": 4 * ones + 8 * others + 40 * n_rows,
        "smallest": 4 * ones + 8 * others + 4 * (n_rows + 1),
    }


def prepare(args) -> dict:
    """Load the data, write both sides' inputs to the work folder (reused when the data is)."""
    if args.store:
        st = os.stat(args.store)
        ident = (f"store {os.path.abspath(args.store)} {st.st_size} {st.st_mtime_ns} by frequency "
                 f"{os.path.abspath(args.config)} {args.rule}")
    else:
        ident = f"synthetic {args.synthetic_scale} by frequency"
    key = hashlib.sha256(ident.encode()).hexdigest()[:10]
    work = Path(args.work) / key
    meta_file = work / "meta.json"
    if meta_file.is_file():
        return json.loads(meta_file.read_text())
    work.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    X, y, offsets = store_training_data(args.store, args.config, args.rule) if args.store else synthetic_data(args.synthetic_scale)
    from ranker.models.objective import drop_sentence_constants, frequency_order   # what our objective streams

    X = sp.csr_matrix(X.tocsr())
    X.sum_duplicates()
    X = sp.csr_matrix(drop_sentence_constants(X, offsets).tocsr())
    # The columns most frequent first, as our objective numbers its own copy (objective.by_frequency);
    # both sides get this numbering, so ours finds it in place and needs no copy of its own.
    _, new_of_old = frequency_order(np.bincount(X.indices, minlength=X.shape[1]))
    if new_of_old is not None:
        X.indices = new_of_old[X.indices]
        X.has_sorted_indices = False
        X.sort_indices()
    load_seconds = time.perf_counter() - t
    np.savez(work / "ours.npz", data=X.data, indices=X.indices, indptr=X.indptr,
             shape=np.array(X.shape), y=y, offsets=offsets)
    t = time.perf_counter()
    n_peer = cvlm_format.write_cvlm(work / "peer.gz", X, y, offsets)
    cvlm_format.write_feature_classes(work / "peer.classes", n_peer)
    meta = {"data": ident, "work": str(work), "load_seconds": round(load_seconds, 1),
            "convert_seconds": round(time.perf_counter() - t, 1),
            "sentences": int(len(offsets) - 1), "candidates": int(X.shape[0]),
            "consistent": int(np.count_nonzero(y)), "features": int(X.shape[1]),
            "peer_features": n_peer, "nonzeros": int(X.nnz),
            "nonzeros_not_one": int(np.count_nonzero(X.data != 1)),
            "weights": sorted({float(v) for v in np.unique(y)})[:5],
            "value_offset": cvlm_format.value_offset(y, offsets),
            "bytes": layout_bytes(X, X.shape[0]),
            "peer_file_mb": round(os.path.getsize(work / "peer.gz") / 2**20, 1)}
    meta_file.write_text(json.dumps(meta, indent=1))
    return meta


# ------------------------------------------------------------------------------- our side
def trainer_matrix(X: sp.csr_matrix, dtype: str):
    """``X`` in the layout our trainer streams: narrow where the pipeline's training data is
    (``ranker.pipeline.training``: columns most frequent first, as ``X``'s are here, then 16-bit
    ids below 65,536), else compact where the trainer has that, else ``X`` (an older ranker)."""
    try:
        from ranker.models.loglinear import training_matrix
    except ImportError:
        return X
    X = training_matrix(X, dtype)
    try:
        from ranker.memory import release_free_heap
        from ranker.models.narrow import NARROW_COLUMNS, split_columns
    except ImportError:
        return X
    X = split_columns(X, min(NARROW_COLUMNS, X.shape[1]))
    release_free_heap()     # as the pipeline does once its training matrix is built
    return X


def matrix_bytes(X) -> int:
    """Bytes of the arrays of a scipy CSR matrix or of a matrix that reports ``nbytes``."""
    if sp.issparse(X):
        return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)
    return int(X.nbytes)


def reset_peak() -> float:
    """Reset this process's ``VmHWM`` to what is resident now (Linux ``clear_refs`` 5); that, in MB."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def ours_worker(argv) -> None:
    """In a fresh process: load our input, time evaluations, fit; print a JSON line."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--sigma2", type=float, required=True)
    ap.add_argument("--solver", default="cg")
    ap.add_argument("--dtype", default="float64")
    ap.add_argument("--tol", type=float, required=True)
    ap.add_argument("--max-iter", type=int, required=True)
    ap.add_argument("--evaluations", type=int, required=True)
    ap.add_argument("--target", type=float, default=None, help="stop the fit at this value")
    ap.add_argument("--check", action="store_true", help="also save values for the agreement check")
    ap.add_argument("--layout", default="delta")
    a = ap.parse_args(argv)
    from ranker.models import LogLinearRanker
    from ranker.models import loglinear
    from ranker.models.objective import ConditionalObjective

    work = Path(a.work)
    t = time.perf_counter()
    z = np.load(work / "ours.npz")
    X = sp.csr_matrix((z["data"].astype(a.dtype, copy=False), z["indices"], z["indptr"]),
                      shape=tuple(z["shape"]))
    y, offsets = z["y"], z["offsets"]
    del z
    X = trainer_matrix(X, a.dtype)
    out = {"load_seconds": time.perf_counter() - t}
    if a.layout == "delta":
        # the difference rows the objective streams with layout "delta", built once (as the
        # peer's reading of its input, not part of the timed fit); their time is reported
        from ranker.memory import release_free_heap
        from ranker.models.delta import delta_rows

        t = time.perf_counter()
        X = delta_rows(X, offsets)
        out["delta_build_seconds"] = time.perf_counter() - t
        release_free_heap()
    out.update({"matrix_bytes": matrix_bytes(X), "matrix_type": type(X).__name__, "matrix_nnz": int(X.nnz)})
    # What loading and converting left behind is not the trainer's: measure from what is resident.
    out["resident_after_load_mb"] = reset_peak()
    meta = json.loads((work / "meta.json").read_text())
    n_peer = meta["peer_features"]

    objective = ConditionalObjective(X, y, offsets, a.sigma2, n_jobs=a.threads, layout=a.layout)
    rng = np.random.default_rng(1)
    lam = rng.normal(0, 0.1, size=X.shape[1])
    lam[n_peer:] = 0     # beyond the peer's last feature it has no weight (and no prior term)
    if a.check:
        v0, g0 = objective(np.zeros(X.shape[1]))
        v1, g1 = objective(lam)
        np.save(work / "check-lambda.npy", lam[:n_peer])
        np.save(work / "check-grad0.npy", g0[:n_peer])
        np.save(work / "check-grad1.npy", g1[:n_peer])
        out["check_values"] = [v0, v1]
    objective(lam)
    cpu = time.process_time()
    out["seconds_per_evaluation"] = median_seconds(objective, lam, a.evaluations)
    # CPU seconds (all threads) per evaluation: what the evaluation costs when other jobs share the cores
    out["cpu_seconds_per_evaluation"] = (time.process_time() - cpu) / a.evaluations
    objective.close()
    del objective

    trace: list[tuple[float, float]] = []
    cpu_trace: list[float] = []

    class Reached(Exception):
        """The fit got to the target value: the optimum for this comparison."""

    class TimedObjective(ConditionalObjective):
        """The objective, noting when each evaluation ends and its value (for the fit's trace)."""

        def __call__(self, lam):
            v, g = super().__call__(lam)
            trace.append((time.perf_counter(), v))
            cpu_trace.append(time.process_time())
            if a.target is not None and v <= a.target:
                np.save(work / f"ours-coef-{a.solver}-{a.dtype}-{a.threads}.npy", np.asarray(lam)[:n_peer])
                raise Reached
            return v, g

    loglinear.ConditionalObjective = TimedObjective   # the fit below builds its objective by name
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    ranker = LogLinearRanker(sigma2=a.sigma2, solver=a.solver, tol=a.tol, max_iter=a.max_iter,
                             n_jobs=a.threads, dtype=a.dtype, layout=a.layout)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranker.fit(X, y, groups)
        out["stopped"] = "own test (converged)" if ranker.converged_ else "max_iter"
        np.save(work / f"ours-coef-{a.solver}-{a.dtype}-{a.threads}.npy", ranker.coef_[:n_peer])
    except Reached:
        out["stopped"] = "target"
    out["seconds"] = time.perf_counter() - t0
    out["trace"] = [(t - t0, v) for t, v in trace]
    out["cpu_trace"] = [c - c0 for c in cpu_trace]
    out["peak_rss_mb"] = peer_cvlm.vm_hwm_mb()
    print(json.dumps(out))


def run_ours(args, work: Path, threads: int, check: bool, target: float | None) -> dict:
    """Our side in a fresh process (so that its peak memory is its own); its JSON result."""
    cmd = [sys.executable, str(HERE / "bench_train.py"), "peer-worker", "--work", str(work),
           "--threads", str(threads), "--sigma2", repr(args.sigma2), "--solver", args.solver,
           "--tol", repr(args.tol), "--max-iter", str(args.max_iter), "--dtype", args.dtype,
           "--evaluations", str(args.evaluations), "--layout", args.layout] + (["--check"] if check else [])
    if target is not None:
        cmd += ["--target", repr(target)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"our worker failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------- comparison
def reached(trace, target: float, offset: float = 0.0):
    """``(evaluations, seconds)`` until a value of the trace is at most ``target``, or Nones."""
    for k, (t, v) in enumerate(trace, 1):
        if v - offset <= target:
            return k, t
    return None, None


def in_fit_seconds_per_evaluation(trace) -> float:
    """Median gap between consecutive evaluations of a fit (its own optimiser's work included)."""
    if len(trace) < 2:
        return float("nan")
    return float(np.median(np.diff([t for t, _ in trace])))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench_train.py peer", description=__doc__.splitlines()[0])
    ap.add_argument("--store", help="a store holding the WSJ sample's training matrix "
                                    "(default: synthetic data of its shape)")
    ap.add_argument("--config", default="configs/wsj-sample.toml",
                    help="with --store: the config whose training rows are read (features, rule, filters)")
    ap.add_argument("--rule", default=None,
                    help="with --store: another consistency rule than the config's (fewest: the larger matrix)")
    ap.add_argument("--synthetic-scale", type=float, default=1.0,
                    help="without --store: the synthetic data's size as a fraction of the WSJ sample's")
    ap.add_argument("--peer-source", help=f"the BLLIP parser's source folder (or ${peer_cvlm.SOURCE_ENV})")
    ap.add_argument("--work", default="runs/bench-peer", help="where converted inputs go")
    ap.add_argument("--sigma2", type=float, default=0.01,
                    help="prior variance (0.01: the value ranker run chose on held-out)")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--solver", default="cg", choices=["cg", "lbfgs"], help="our optimiser")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"],
                    help="our matrix's values (the trainer's dtype)")
    ap.add_argument("--layout", default="delta", choices=["delta", "plain"],
                    help="our training rows: differences along each sentence's spanning tree (ranker.models.delta) or plain")
    ap.add_argument("--tol", type=float, default=1e-6, help="our fit's gradient tolerance (per sentence)")
    ap.add_argument("--max-iter", type=int, default=2000)
    ap.add_argument("--peer-tol", type=float, default=1e-4, help="cvlm-lbfgs -t")
    ap.add_argument("--rel-gap", type=float, default=1e-5,
                    help="'at the optimum': within this relative gap of the best value reached")
    ap.add_argument("--evaluations", type=int, default=5, help="timed direct evaluations (ours)")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args(argv)

    try:
        exe, value_exe = peer_cvlm.build(peer_cvlm.find_source(args.peer_source))
        peer_error = None
    except peer_cvlm.PeerUnavailable as e:
        exe = value_exe = None
        peer_error = str(e)
    meta = prepare(args)
    work = Path(meta["work"])
    c = 1.0 / (2.0 * args.sigma2)
    offset = meta["value_offset"]
    result = {"data": meta, "sigma2": args.sigma2, "peer_c": c, "load_average": os.getloadavg(),
              "peer_skipped": peer_error, "runs": {}}
    bw = {k: copy_bandwidth(512 * 2**20, threads=k) for k in args.threads}
    result["bandwidth_gb_per_s"] = {k: round(v / 1e9, 2) for k, v in bw.items()}
    # The peer first: L-BFGS at a tight tolerance finds the optimum, and our fits run until they
    # are as close to it (our CG would take many more evaluations to pass its own gradient test).
    for k in args.threads if exe is not None else ():
        r = peer_cvlm.run_cvlm(exe, work / "peer.gz", work / "peer.classes", c, k, args.peer_tol,
                               work / f"peer-weights-{k}.txt")
        if r["returncode"] != 0:
            raise RuntimeError(f"cvlm-lbfgs failed ({r['returncode']}): {r['stderr_tail']}")
        result["runs"][f"peer/{k}"] = r
    target = None
    if exe is not None:
        best = min(v for name, r in result["runs"].items() for _, v in r["trace"]) - offset
        target = best + args.rel_gap * abs(best)
    for k in args.threads:
        result["runs"][f"ours/{k}"] = run_ours(args, work, k, check=(k == args.threads[0]),
                                               target=target)

    if exe is not None:
        first = result["runs"][f"ours/{args.threads[0]}"]
        lam = np.load(work / "check-lambda.npy")
        checks = []
        for name, point, ours_v, ours_g in (("lambda=0", np.zeros_like(lam), first["check_values"][0],
                                             np.load(work / "check-grad0.npy")),
                                            ("random lambda", lam, first["check_values"][1],
                                             np.load(work / "check-grad1.npy"))):
            L, R, grad, n_sent = peer_cvlm.peer_value(value_exe, work / "peer.gz", point, c)
            peer_v = L + R - offset
            checks.append({"at": name, "ours": ours_v, "peer_minus_offset": peer_v,
                           "relative_difference": abs(peer_v - ours_v) / abs(ours_v),
                           "gradient_max_difference": float(np.max(np.abs(grad - ours_g))),
                           "gradient_max": float(np.max(np.abs(ours_g))), "peer_sentences": n_sent})
        result["agreement"] = checks
    summarise(result, bw, args)
    print(report(result, args))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


def summarise(result: dict, bw: dict, args) -> None:
    """Add to every run: time per evaluation, the optimum reached, the floors and the ratios."""
    offset = result["data"]["value_offset"]
    # The optimum is the best value the peer reached (it ran first, to a tight tolerance), or ours
    # when the peer is skipped.
    side = "peer" if any(n.startswith("peer") for n in result["runs"]) else "ours"
    best = min(v - (offset if side == "peer" else 0.0)
               for name, r in result["runs"].items() if name.startswith(side) for _, v in r["trace"])
    target = best + args.rel_gap * abs(best)
    result["optimum"] = {"best_value": best, "target": target, "rel_gap": args.rel_gap}
    nbytes = result["data"]["bytes"]
    result["ours_matrix_type"] = next(r["matrix_type"] for n, r in result["runs"].items() if n.startswith("ours"))
    result["ours_bytes"] = next(r["matrix_bytes"] for n, r in result["runs"].items() if n.startswith("ours"))
    for name, r in result["runs"].items():
        side, k = name.split("/")
        k = int(k)
        off = offset if side == "peer" else 0.0
        r["in_fit_seconds_per_evaluation"] = in_fit_seconds_per_evaluation(r["trace"])
        r["evaluations"] = len(r["trace"])
        r["final_value"] = (r["trace"][-1][1] - off) if r["trace"] else None
        r["evaluations_to_optimum"], r["seconds_to_optimum"] = reached(r["trace"], target, off)
        k_opt = r["evaluations_to_optimum"]
        r["cpu_seconds_to_optimum"] = r["cpu_trace"][k_opt - 1] if k_opt and r.get("cpu_trace") else None
        per_eval = r.get("seconds_per_evaluation", r["in_fit_seconds_per_evaluation"])
        own = nbytes["peer"] if side == "peer" else r["matrix_bytes"]
        r["floor_seconds_own"] = 2 * own / bw[k]
        r["floor_seconds_smallest"] = 2 * nbytes["smallest"] / bw[k]
        r["floor_ratio_own"] = per_eval / r["floor_seconds_own"]
        r["floor_ratio_smallest"] = per_eval / r["floor_seconds_smallest"]
    work = Path(result["data"]["work"])
    n = result["data"]["peer_features"]
    for k in args.threads:
        ours_coef = work / f"ours-coef-{args.solver}-{args.dtype}-{k}.npy"
        peer_w = work / f"peer-weights-{k}.txt"
        if ours_coef.is_file() and peer_w.is_file() and f"peer/{k}" in result["runs"]:
            a, b = np.load(ours_coef), peer_cvlm.read_weights(peer_w, n)
            result["runs"][f"peer/{k}"]["weights_max_difference_to_ours"] = float(np.max(np.abs(a - b)))
            result["runs"][f"peer/{k}"]["weights_max"] = float(np.max(np.abs(a)))


def _fmt(v, spec: str) -> str:
    return "-" if v is None or (isinstance(v, float) and not np.isfinite(v)) else format(v, spec)


def report(result: dict, args) -> str:
    """The side-by-side table (the JSON holds every number, traces included)."""
    d = result["data"]
    lines = [f"data: {d['data']}: {d['sentences']} sentences, {d['candidates']} candidates "
             f"({d['consistent']} consistent), {d['features']} properties, {d['nonzeros']} nonzeros "
             f"({d['nonzeros_not_one']} not 1); sigma2 {args.sigma2:g} = cvlm -c {result['peer_c']:g} "
             f"-p 2; load average {', '.join(f'{x:.1f}' for x in result['load_average'])}"]
    for c in result.get("agreement", []):
        lines.append(f"agreement at {c['at']}: ours {c['ours']:.10g}, peer - {d['value_offset']:.6g} = "
                     f"{c['peer_minus_offset']:.10g} (relative {c['relative_difference']:.1e}); "
                     f"gradients differ by at most {c['gradient_max_difference']:.1e} "
                     f"(largest component {c['gradient_max']:.3g})")
    o = result["optimum"]
    lines.append(f"optimum: best value {o['best_value']:.8g}; 'reached' = within {o['rel_gap']:g} "
                 f"relative ({o['target']:.8g})")
    names = sorted(result["runs"], key=lambda n: (int(n.split("/")[1]), n.split("/")[0] != "ours"))
    rows = [("s / evaluation (direct)", "seconds_per_evaluation", ".3f"),
            ("CPU s / evaluation (direct)", "cpu_seconds_per_evaluation", ".3f"),
            ("s / evaluation (in fit)", "in_fit_seconds_per_evaluation", ".3f"),
            ("floor s (own layout)", "floor_seconds_own", ".3f"),
            ("  ratio", "floor_ratio_own", ".2f"),
            ("floor s (smallest layout)", "floor_seconds_smallest", ".3f"),
            ("  ratio", "floor_ratio_smallest", ".2f"),
            ("evaluations to optimum", "evaluations_to_optimum", "d"),
            ("s to optimum", "seconds_to_optimum", ".1f"),
            ("CPU s to optimum", "cpu_seconds_to_optimum", ".1f"),
            ("evaluations at stop", "evaluations", "d"),
            ("s at stop", "seconds", ".1f"),
            ("value at stop", "final_value", ".8g"),
            ("stopped by", "stopped", "s"),
            ("data load s", "load_seconds", ".1f"),
            ("difference rows build s", "delta_build_seconds", ".1f"),
            ("entries streamed", "matrix_nnz", "d"),
            ("peak memory MB (after load)", "peak_rss_mb", ".0f"),
            ("resident after load MB", "resident_after_load_mb", ".0f")]
    head = f"{'':28s}" + "".join(f"{n:>14s}" for n in names)
    lines += [head] + [f"{label:28s}" + "".join(f"{_fmt(result['runs'][n].get(key), spec):>14s}"
                                               for n in names) for label, key, spec in rows]
    bw = ", ".join(f"{k} thread(s) {v} GB/s" for k, v in result["bandwidth_gb_per_s"].items())
    lines.append(f"streaming bandwidth (numpy copy, read + write): {bw}; bytes per evaluation "
                 f"= 2 x matrix: ours ({args.dtype}, {result['ours_matrix_type']}) {2 * result['ours_bytes'] / 1e9:.2f} GB, peer "
                 f"{2 * d['bytes']['peer'] / 1e9:.2f} GB, smallest {2 * d['bytes']['smallest'] / 1e9:.2f} GB")
    if result["peer_skipped"]:
        lines.append(f"peer comparison skipped: {result['peer_skipped']}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
