"""One fit of a config's training split traced: objective, gradient and held-out score by iteration (issue 43, item 2).

Usage (from the folder the config's store path is relative to, on a store the config has run on):
    python experiments/gum/fit_trace.py configs/gum.toml fewest 1.0 600 trace.json
The config's optimiser (CG or L-BFGS) is wrapped to keep each iteration's point; every tenth is scored on held-out as the
σ² search scores a fit (``selected_quality``). experiments/gum/README.md has the GUM figures.
"""
import json, sys, time, warnings
import numpy as np
from ranker.pipeline.config import load_config
from ranker.pipeline import stages
from ranker.store import Store
from ranker.models import solve as S
from ranker.models.tuning import selected_quality
from ranker.models.groups import group_offsets

cfg_path, rule, s2, maxiter, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
cfg = load_config(cfg_path)
t0 = time.time()
with Store.writing(cfg.experiment.store) as st:
    ctx = stages.StageContext(st, None, 2, False, cfg.source, None)
    splits = stages.select_splits(ctx, cfg.data)
    parsed = stages.parse_or_import(ctx, cfg.parse, splits.sentences(), cfg.data.corpus)
    ctx = ctx.with_source(parsed.source)
    ann = stages.annotate(ctx, cfg.annotation, splits.train.sentences, False, evaluation=cfg.evaluation)
    ann = ann._replace(rule=rule)
    ll = cfg.loglinear
    held = stages.load_counts(ctx, cfg.evaluation, splits.heldout, [ll.select_metric])
    hr = stages.heldout_rows(ctx, cfg.features, splits.heldout, held[ll.select_metric], ll.select_metric)
    template = stages.loglinear_template(ll, 2)
    (_, ts), = stages.training_sets(ctx, ann, cfg.features, template, [splits.train], (rule,))
    data = ts.data.rows()
    print("rows", data.X.shape, "features", len(data.names), "%.0fs" % (time.time() - t0), flush=True)
    from ranker.pipeline.training import _fit_arrays
    Xh = hr.matrix.restrict(data.names)
    gh = hr.matrix.groups()
    qh = hr.quality

trace = []
m = template.set_params(sigma2=s2, max_iter=maxiter)
orig = S.SOLVERS[m.solver]
def wrapped(fun, x0, max_iter, tol, callback=None, gmax=S._gmax, **kw):
    last = {}
    def f2(mu):
        v, g = fun(mu)
        last["mu"], last["v"], last["g"] = mu.copy(), v, g
        return v, g
    def cb(k):
        trace.append((k, float(last["v"]), float(gmax(last["g"])), last["mu"]))
        if callback: callback(k)
    return orig(f2, x0, max_iter, tol, callback=cb, gmax=gmax, **kw)
S.SOLVERS[m.solver] = wrapped
t1 = time.time()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    m.fit(data.X, data.y, data.groups, **_fit_arrays(data))
print("fit", m.n_iter_, "%.0fs" % (time.time() - t1), "gmax", m.grad_max_, flush=True)
# the optimiser's point is mu with the weights lambda = s mu (the preconditioner's powers of two):
# s read off the last point (a weight the fit never moved is 0 in both)
mu_final = trace[-1][3]
coef = np.asarray(m.coef_)
scale = np.where(mu_final != 0, coef / np.where(mu_final != 0, mu_final, 1), 1.0)
offs = group_offsets(gh, len(qh))
print("dev final", selected_quality(m.decision_function(Xh), qh, offs), flush=True)
rows = []
for k, v, g, mu in trace:
    r = {"k": k, "f": v, "gmax": g}
    if k % 10 == 0 or k == trace[-1][0] or k < 10:
        m.coef_ = mu * scale
        r["dev"] = float(selected_quality(m.decision_function(Xh), qh, offs))
    rows.append(r)
    print(r, flush=True)
json.dump({"trace": rows}, open(out, "w"))
print("saved", len(trace))
