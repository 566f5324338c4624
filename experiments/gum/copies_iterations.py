"""Iterations of the fits of a dumped training set (copies_dump.py) under preconditioner variants (issue 43, item 2).

Usage: python experiments/gum/copies_iterations.py SETS.pkl MAX_ITER SPACES MODES (LBFGS_M=30: L-BFGS memory)."""
import pickle, warnings, numpy as np, sys, time
warnings.simplefilter("ignore")
from ranker.models.groups import group_offsets
from ranker.models.loglinear import LogLinearRanker
from ranker.models import precondition as P
from ranker.matrices.compact import as_compact
from ranker.models.narrow import NarrowMatrix

def variance(X, offsets, prob):
    if isinstance(X, NarrowMatrix):
        return np.concatenate([variance(X.low, offsets, prob), variance(X.high, offsets, prob)])
    X = as_compact(X); d = X.shape[1]
    second = np.zeros(d); first = np.zeros(d)
    n = len(offsets)-1
    for a in range(0, n, 512):
        b = min(n, a+512); r0, r1 = int(offsets[a]), int(offsets[b])
        sizes = np.diff(offsets[a:b+1]); sor = np.repeat(np.arange(b-a), sizes)
        cols, sents, vals, pr = [], [], [], []
        for p in X.parts:
            e0, e1 = int(p.indptr[r0]), int(p.indptr[r1])
            if e1 == e0: continue
            lens = np.diff(p.indptr[r0:r1+1])
            sents.append(np.repeat(sor, lens)); pr.append(np.repeat(prob[r0:r1], lens))
            cols.append(p.indices[e0:e1].astype(np.int64))
            vals.append(np.ones(e1-e0) if p.data is None else p.data[e0:e1].astype(np.float64))
        if not cols: continue
        col, sent, val, q = map(np.concatenate, (cols, sents, vals, pr))
        second += np.bincount(col, weights=val*val*q, minlength=d)
        key, inv = np.unique(sent*d+col, return_inverse=True)
        sums = np.bincount(inv, weights=val*q, minlength=len(key))
        first += np.bincount(key % d, weights=sums*sums, minlength=d)
    return np.maximum(second-first, 0)

def diag_pq(X, off, y, mode):
    sizes = np.diff(off)
    h = variance(X, off, np.repeat(1.0/sizes, sizes))
    if mode == "p-q":
        z = np.repeat(np.add.reduceat(y, off[:-1]), sizes)
        h = np.maximum(h - variance(X, off, y/z), 0)
    return h

def scales(data, mode, sigma2=1.0):
    off = group_offsets(data.groups, len(data.y)); n = len(off)-1
    inv = np.full(len(data.names), 1.0/sigma2)
    if data.copies is None:
        h = diag_pq(data.X, off, data.y, mode) + inv
    else:
        runs = [(c, diag_pq(data.X.row_range(int(off[a]), int(off[b])), off[a:b+1]-off[a], data.y[off[a]:off[b]], mode))
                for a, b, c in data.copies.runs(off)]
        h = data.copies.curvature(runs, inv, data.X.shape[1])
    h = h / n
    return np.exp2(np.round(-0.5*np.log2(h)))

import os, functools
from ranker.models import solve as S
if os.environ.get("LBFGS_M"):
    S.SOLVERS["lbfgs"] = functools.partial(S.minimize_lbfgs, memory=int(os.environ["LBFGS_M"]))
sets = pickle.load(open(sys.argv[1], 'rb'))
max_iter = int(sys.argv[2])
for space in sys.argv[3].split(","):
    data = sets[space]
    extra = {} if data.copies is None else {"copies": data.copies}
    print(space, "rows", len(data.y), "sentences", len(np.unique(data.groups)), "weights", len(data.names), flush=True)
    for mode in sys.argv[4].split(","):
        orig = P.jacobi_scales
        if mode != "none":
            s = scales(data, mode)
            P.jacobi_scales = lambda X, o, s2, copies=None, s=s: s
        t = time.time()
        m = LogLinearRanker(sigma2=1.0, solver="lbfgs", tol=1e-5, max_iter=max_iter, precondition=mode != "none", n_jobs=1).fit(
            data.X, data.y, data.groups, **extra)
        P.jacobi_scales = orig
        print(f"  {space} {mode}: {m.n_iter_} iterations, {m.n_evaluations_} evaluations, grad_max {m.grad_max_:.3g}, "
              f"converged {m.converged_}, objective/sentence {m.objective_ / m.n_training_sentences_:.6f}, {time.time() - t:.0f} s", flush=True)
