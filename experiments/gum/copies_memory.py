"""Peak memory of building both feature spaces' training sets and fitting each, as fit_rules holds them (issue 43).

Usage: /usr/bin/time -v python experiments/gum/copies_memory.py CONFIG
(the previous space's rows and model kept while the next is fitted); few iterations: the peak does not
depend on them."""
import sys, time, warnings
warnings.simplefilter("ignore")
from sklearn.base import clone
from ranker.pipeline.config import load_config
from ranker.pipeline import stages
from ranker.pipeline.training import _fit_arrays
from ranker.store import Store

cfg = load_config(sys.argv[1])
t = time.time()
with Store.writing(cfg.experiment.store) as st:
    ctx = stages.StageContext(st, None, 2, False, "t", None)
    splits = stages.select_splits(ctx, cfg.data)
    ctx = ctx.with_source(stages.parse_or_import(ctx, cfg.parse, splits.sentences(), cfg.data.corpus).source)
    corpora = splits.corpora()
    ann = stages.annotate(ctx, cfg.annotation, [s for c in corpora for s in c.train.sentences], False,
                          evaluation=cfg.evaluation)
    template = stages.loglinear_template(cfg.loglinear, 2)
    best = None
    for _, got in stages.training_sets(ctx, ann, cfg.features, template, [c.train for c in corpora],
                                       (ann.rule,), 2, ("shared", "per-corpus")):
        data = got.data.rows()
        m = clone(template).set_params(sigma2=1.0, max_iter=3).fit(data.X, data.y, data.groups, **_fit_arrays(data))
        print(got.domains, "layout", template.layout, len(m.coef_), round(time.time() - t), "s", flush=True)
        if best is None:
            best = (data, m)
        del data, got
