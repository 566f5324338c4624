"""Speed of the log-linear trainer on synthetic data of Crouch et al.'s (2002) training-set shape.

The paper trained on 10,000 sentences with 650,000 parses, 150,000 of them consistent with the
partial bracketing, over about 500 properties (after the frequency cut-off). We build random data of
that shape (about 50 active properties per parse, small integer counts, consistent sets given by a
hidden weight vector plus noise), then report as JSON:

* ``seconds_per_evaluation``: one objective-and-gradient evaluation (median of several);
* ``train_seconds``: a full conjugate-gradient training run from zero;
* ``ns_per_nonzero``: evaluation time per stored nonzero;
* ``floor_seconds``: the bytes one evaluation must read (the matrix twice: ``X λ`` and
  ``Xᵀ (p - q)``; plus the weight vector) over the copy bandwidth measured here and now (bytes read
  plus bytes written by a large ``np.copyto``, STREAM's convention), and ``floor_ratio``.

* ``threads``: seconds per evaluation with 1, 2, ... threads (up to the cores here) and the
  speed-up over one thread; the objective's fixed row blocks make every count give the same bits
  (``same_result``).

Targets: an evaluation in at most 0.12 s on one core and within 1.5x of the floor (issue 13; 2x
before); training in at most 30 s. The objective streams its default difference rows (:mod:`ranker.models.delta`); the
synthetic candidates are independent random rows with nothing in common, so each keeps its own
entries and the figures are those of the rows themselves (a parser's forest is another matter:
``peer`` on a store). Run alone: ``python benchmarks/bench_train.py [--dtype float32]``.

2026-11-25, 06:05, idle machine, main at 4df5f02: 0.0315 s an evaluation on one thread (0.97 ns
an entry), 0.016 s on two (1.97x, the same bits); the floor at the 32.7 GB/s measured then is
0.024 s, a ratio of 1.30; training 9.4 s (34 iterations, converged). The copy bandwidth measured
here varies between runs (28 to 41 GB/s on an idle machine this day) while the evaluation stays
at 0.030-0.033 s, so the ratio ranges from about 1.2 to 1.6: the pass costs about 3 cycles an
entry in loads and arithmetic (it reads each row from memory once; the floor counts the float64
CSR matrix twice), not in waiting for memory.

``python benchmarks/bench_train.py peer [--store FILE] [--peer-source DIR]`` runs the peer, BLLIP's
``cvlm-lbfgs``, beside our objective and fit on the same data with the same prior, with one and two
threads (:mod:`peer_compare`; ``--help`` there). It builds the peer under /tmp from a source folder
(``--peer-source`` or ``BLLIP_PARSER_SOURCE``; needs ``apt-get install liblbfgs-dev``) and skips the
comparison with a one-line message when it cannot.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from ranker.models import LogLinearRanker  # noqa: E402
from ranker.models.loglinear import as_csr  # noqa: E402
from ranker.models.objective import ConditionalObjective  # noqa: E402


def synthetic(n_sentences=10_000, n_candidates=650_000, n_consistent=150_000, n_features=500,
              active=50, seed=0, dtype=np.float64):
    """Random grouped candidates of the paper's shape; returns ``(X, y, groups)``."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 2 * n_candidates // n_sentences, size=n_sentences, endpoint=True)
    sizes = np.maximum(2, np.round(sizes * n_candidates / sizes.sum()).astype(np.int64))
    sizes[-1] += n_candidates - sizes.sum()
    groups = np.repeat(np.arange(n_sentences), sizes)
    # One property from each of ``active`` blocks of features: distinct and sorted by construction.
    block = n_features // active
    cols = (np.arange(active) * block)[None, :] + rng.integers(0, block, size=(n_candidates, active))
    data = rng.choice(np.array([1, 1, 1, 1, 2, 3], dtype=dtype), size=cols.size)
    indptr = np.arange(0, cols.size + 1, active, dtype=np.int64)
    X = as_csr(sp.csr_matrix((data, cols.ravel().astype(np.int32), indptr),
                             shape=(n_candidates, n_features)), dtype=dtype)
    hidden = rng.normal(0, 0.3, size=n_features)
    noisy = X @ hidden + rng.normal(0, 1.0, size=n_candidates)
    # Consistent = each sentence's best noisy candidates, about n_consistent in all, a proper subset.
    order = np.lexsort((-noisy, groups))
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    rank = np.empty(n_candidates, dtype=np.int64)
    rank[order] = np.arange(n_candidates) - np.repeat(offsets[:-1], sizes)
    k = np.clip(np.round(sizes * n_consistent / n_candidates), 1, sizes - 1)
    y = (rank < np.repeat(k, sizes)).astype(np.float64)
    return X, y, groups


def copy_bandwidth(n_bytes=256 * 2**20, repeats=5, threads=1) -> float:
    """Bytes per second moved by a large array copy (read + write), best of several.

    With ``threads`` > 1, each thread copies its share at once (numpy releases the GIL).
    """
    from concurrent.futures import ThreadPoolExecutor

    src = np.ones(n_bytes // 8)
    dst = np.empty_like(src)
    cuts = np.linspace(0, len(src), threads + 1).astype(int)
    shares = [(dst[a:b], src[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    best = np.inf
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(repeats):
            t = time.perf_counter()
            list(pool.map(lambda share: np.copyto(*share), shares))
            best = min(best, time.perf_counter() - t)
    return 2 * n_bytes / best


def median_seconds(objective, lam: np.ndarray, repeats: int) -> float:
    """Median seconds of ``repeats`` evaluations of ``objective`` at ``lam`` (warm it first)."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        objective(lam)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main(argv=None) -> None:
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["peer"]:
        from peer_compare import main as peer_main
        peer_main(argv[1:])
        return
    if argv[:1] == ["peer-worker"]:
        from peer_compare import ours_worker
        ours_worker(argv[1:])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    ap.add_argument("--evaluations", type=int, default=7)
    ap.add_argument("--no-train", action="store_true", help="skip the full training run")
    args = ap.parse_args(argv)
    dtype = np.dtype(args.dtype)

    t0 = time.perf_counter()
    X, y, groups = synthetic(dtype=dtype)
    build_seconds = time.perf_counter() - t0
    offsets = np.concatenate(([0], np.flatnonzero(np.diff(groups)) + 1, [len(groups)]))
    lam = np.random.default_rng(1).normal(0, 0.1, size=X.shape[1])

    def seconds_per_evaluation(n_jobs: int) -> tuple[float, tuple[float, np.ndarray]]:
        objective = ConditionalObjective(X, y, offsets, 1.0, n_jobs=n_jobs)
        first = objective(lam)  # warm the buffers and caches
        seconds = median_seconds(objective, lam, args.evaluations)
        objective.close()
        return seconds, first

    per_eval, reference = seconds_per_evaluation(1)
    threads = {"1": {"seconds_per_evaluation": round(per_eval, 4), "speedup": 1.0}}
    same = True
    for k in range(2, (os.cpu_count() or 1) + 1):
        secs, got = seconds_per_evaluation(k)
        same = same and got[0] == reference[0] and np.array_equal(got[1], reference[1])
        threads[str(k)] = {"seconds_per_evaluation": round(secs, 4),
                           "speedup": round(per_eval / secs, 2)}

    matrix_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    must_read = 2 * matrix_bytes + y.nbytes
    bandwidth = copy_bandwidth()
    floor = must_read / bandwidth

    result = {
        "shape": {"sentences": int(len(offsets) - 1), "candidates": int(X.shape[0]),
                  "consistent": int(np.count_nonzero(y)), "features": int(X.shape[1]),
                  "nonzeros": int(X.nnz), "data_dtype": str(X.dtype),
                  "index_dtype": str(X.indices.dtype)},
        "build_seconds": round(build_seconds, 3),
        "seconds_per_evaluation": round(per_eval, 4),
        "ns_per_nonzero": round(per_eval / X.nnz * 1e9, 3),
        "copy_bandwidth_gb_per_s": round(bandwidth / 1e9, 2),
        "bytes_per_evaluation": int(must_read),
        "floor_seconds": round(floor, 4),
        "floor_ratio": round(per_eval / floor, 2),
        "threads": threads,
        "same_result": same,
        "targets": {"seconds_per_evaluation": 0.12, "floor_ratio": 1.5, "train_seconds": 30.0},
    }
    if not args.no_train:
        ranker = LogLinearRanker(sigma2=1.0, dtype=args.dtype)
        t = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ranker.fit(X, y, groups)
        result["train_seconds"] = round(time.perf_counter() - t, 2)
        result["train_iterations"] = ranker.n_iter_
        result["train_evaluations"] = ranker.n_evaluations_
        result["train_converged"] = ranker.converged_
        result["train_warnings"] = [str(w.message) for w in caught]
        result["train_accuracy"] = round(ranker.score(X, y, groups), 4)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    import sys

    from ranker.errors import RankerError

    try:
        main()
    except (RankerError, OSError) as e:   # bad input (a missing store, one without the matrix): one line, exit 2
        print(f"bench_train: error: {e}", file=sys.stderr)
        sys.exit(2)
