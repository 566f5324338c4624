"""The compact matrix against scipy's CSR on a real training matrix: bytes, ``X λ`` and ``Xᵀ r``.

Reads the largest stored feature matrix of a store (the WSJ sample's training split after a
``ranker run``), and prints as JSON, for scipy CSR with float64 and float32 data and for
:class:`~ranker.matrices.compact.CompactMatrix` with scipy's and numba's kernels: bytes held, seconds
of one ``X λ`` and one ``Xᵀ r`` (median of several, one thread), and the largest difference from
float64 CSR. Also one whole objective evaluation with each kernel on one and two threads, and the
copy-bandwidth floor of the compact matrix (its bytes read twice). Run alone::

    python benchmarks/bench_compact.py STORE.sqlite
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sqlite3  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def _median_seconds(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def copy_bandwidth(n_bytes=256 * 2**20, repeats=5) -> float:
    """Bytes per second moved by a large array copy (read + write), best of several."""
    src = np.ones(n_bytes // 8)
    dst = np.empty_like(src)
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t)
    return 2 * n_bytes / best


def main(argv=None) -> None:
    from ranker.features.matrix_bytes import from_bytes
    from ranker.matrices import kernels
    from ranker.matrices.compact import as_compact
    from ranker.models.objective import ConditionalObjective

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    con = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    (payload,) = con.execute("SELECT payload FROM artifacts WHERE kind='feature-matrix' "
                             "ORDER BY length(payload) DESC LIMIT 1").fetchone()
    con.close()
    m = from_bytes(payload)
    del payload
    C = as_compact(m.X)
    X64 = C.tocsr()
    n, d = X64.shape
    rng = np.random.default_rng(0)
    lam = rng.normal(0, 0.1, d)
    r = rng.normal(0, 0.1, n)
    ref_fwd, ref_bwd = X64 @ lam, X64.T @ r
    out = {"rows": n, "columns": d, "nonzeros": int(X64.nnz),
           "parts_nonzeros": [p.nnz for p in C.parts], "kernels_available": kernels.BACKEND}
    res = {}
    X32 = X64.astype(np.float32)
    for name, X in (("csr_float64", X64), ("csr_float32", X32)):
        XT = X.T
        lam_t, r_t = lam.astype(X.dtype), r.astype(X.dtype)
        res[name] = {"bytes": int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes),
                     "seconds_X_lam": round(_median_seconds(lambda: X @ lam_t, args.repeats), 4),
                     "seconds_XT_r": round(_median_seconds(lambda: XT @ r_t, args.repeats), 4),
                     "max_abs_diff": float(max(np.abs(X @ lam_t - ref_fwd).max(),
                                               np.abs(XT @ r_t - ref_bwd).max()))}
    del X32
    backends = ["scipy"] + (["numba"] if kernels.BACKEND == "numba" else [])
    for b in backends:
        C._csr = None
        fwd = _median_seconds(lambda: C.dot(lam, backend=b), args.repeats)
        bwd = _median_seconds(lambda: C.rdot(r, backend=b), args.repeats)
        extra = 0 if C._csr is None else C._csr.data.nbytes + C._csr.indices.nbytes + C._csr.indptr.nbytes
        res[f"compact_{b}"] = {
            "bytes": int(C.nbytes + extra), "seconds_X_lam": round(fwd, 4), "seconds_XT_r": round(bwd, 4),
            "max_abs_diff": float(max(np.abs(C.dot(lam, backend=b) - ref_fwd).max(),
                                      np.abs(C.rdot(r, backend=b) - ref_bwd).max()))}
    C._csr = None
    out["products"] = res
    # one whole evaluation on the real rows (consistency: each sentence's first candidate)
    offsets = np.asarray(m.offsets, dtype=np.int64)
    y = np.zeros(n)
    y[offsets[:-1]] = 1.0
    bw = copy_bandwidth()
    out["copy_bandwidth_gb_per_s"] = round(bw / 1e9, 2)
    evals = {}
    for b in backends:
        for n_jobs in (1, 2):
            obj = ConditionalObjective(C, y, offsets, 1.0, n_jobs=n_jobs, backend=b)
            floor = 2 * obj.X.nbytes / bw
            secs = _median_seconds(lambda: obj(lam), max(2, args.repeats // 2))
            held = sum(blk.X.nbytes + (0 if blk.X._csr is None else blk.X._csr.data.nbytes
                                       + blk.X._csr.indices.nbytes) for blk in obj.blocks)
            evals[f"{b}_{n_jobs}_threads"] = {
                "seconds_per_evaluation": round(secs, 4), "nonzeros_streamed": obj.nnz,
                "bytes": int(held), "floor_seconds": round(floor, 4),
                "floor_ratio": round(secs / floor, 2)}
            obj.close()
            del obj
    out["objective"] = evals
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
