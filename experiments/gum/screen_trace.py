"""Each rule of a config's grid fitted a few iterations at one σ², scored on held-out along the way (issue 43).

Usage (from the folder the config's store path is relative to, on a store the config has run on):
    python experiments/gum/screen_trace.py configs/gum.toml 1.0 60 screen.json
Every rule of ``[annotation] rules`` gets the rows the rule grid gives it (one extraction, the sentences
some rule keeps), is fitted from zero weights with the config's optimiser for at most the given
iterations at the given σ², and its point after 1, 2, 3, 5, 8, 10, 15, 20, 25, 30, 40, 50, 60, ...
iterations is scored on held-out as the σ² search scores a fit (``selected_quality``): the held-out
score a screening fit of that many iterations gets (the solver's path does not depend on its cap).
The fit is the screen's own (``data.X``, preconditioned as the config says: ranker.pipeline.training.fit_screen):
strict's point at 30 iterations scored 68.8557986305547 on GUM dev, the stored 30-iteration screening fit of
``ranker run configs/gum.toml`` the same to the last bit. GUM's figures (2026-11-29, σ² = 1, 60 iterations):
experiments/gum/screen_trace-gum-sigma1.json.
"""
import json, sys, time, warnings
import numpy as np
from ranker.pipeline.config import load_config
from ranker.pipeline import stages
from ranker.store import Store
from ranker.models import solve as S
from ranker.models.tuning import selected_quality
from ranker.models.groups import group_offsets
from ranker.pipeline.training import _fit_arrays

cfg_path, s2, maxiter, out = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
marks = {1, 2, 3, 5, 8, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200, 300} | {maxiter}
cfg = load_config(cfg_path)
ll = cfg.loglinear
rules = stages.rule_grid(cfg.annotation)
result = {"config": cfg_path, "sigma2": s2, "max_iter": maxiter, "rules": {}}
orig = S.SOLVERS[ll.optimizer]
t0 = time.time()
with Store.writing(cfg.experiment.store) as st:
    ctx = stages.StageContext(st, None, 2, False, cfg.source, None)
    splits = stages.select_splits(ctx, cfg.data)
    parsed = stages.parse_or_import(ctx, cfg.parse, splits.sentences(), cfg.data.corpus)
    ctx = ctx.with_source(parsed.source)
    ann = stages.annotate(ctx, cfg.annotation, splits.train.sentences, False, evaluation=cfg.evaluation)
    held = stages.load_counts(ctx, cfg.evaluation, splits.heldout, [ll.select_metric])
    hr = stages.heldout_rows(ctx, cfg.features, splits.heldout, held[ll.select_metric], ll.select_metric)
    template = stages.loglinear_template(ll, 2)
    gh = hr.matrix.groups()
    qh = hr.quality
    offs = group_offsets(gh, len(qh))
    for rule, ts in stages.training_sets(ctx, ann, cfg.features, template, [splits.train], rules):
        data = ts.data.rows()
        t1 = time.time()
        print(rule, "rows", data.X.shape, "features", len(data.names), "built %.0fs" % (t1 - t0), flush=True)
        Xh = hr.matrix.restrict(data.names)
        points = {}

        def wrapped(fun, x0, max_iter, tol, callback=None, gmax=S._gmax, **kw):
            last = {}

            def f2(mu):
                v, g = fun(mu)
                last["mu"] = mu.copy()
                return v, g

            def cb(k):
                if k in marks:
                    points[k] = last["mu"]
                if callback:
                    callback(k)
            return orig(f2, x0, max_iter, tol, callback=cb, gmax=gmax, **kw)

        S.SOLVERS[ll.optimizer] = wrapped
        m = template.set_params(sigma2=s2, max_iter=maxiter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(data.X, data.y, data.groups, **_fit_arrays(data))
        S.SOLVERS[ll.optimizer] = orig
        fit_s = time.time() - t1
        coef = np.asarray(m.coef_)
        final = selected_quality(m.decision_function(Xh), qh, offs)
        # the optimiser's point is mu with weights lambda = s mu: s read off the last point
        mu_last = points[max(points)]
        scale = np.where(mu_last != 0, coef / np.where(mu_last != 0, mu_last, 1), 1.0)
        dev = {}
        for k in sorted(points):
            m.coef_ = points[k] * scale
            dev[k] = float(selected_quality(m.decision_function(Xh), qh, offs))
        r = {"kept": int(data.survivors.group_mask.sum()), "features": len(data.names), "rows": int(data.X.shape[0]),
             "n_iter": int(m.n_iter_), "fit_seconds": round(fit_s, 1), "dev_final": float(final), "dev": dev}
        print(rule, json.dumps(r), flush=True)
        result["rules"][rule] = r
        json.dump(result, open(out, "w"), indent=1)
        del data, ts, Xh, points, m
        t0 = time.time()
print("done")
