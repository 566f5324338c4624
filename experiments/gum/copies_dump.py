"""Dump the training sets of both feature spaces of a config's treebanks, as ranker run makes them (issue 43).

Usage: python experiments/gum/copies_dump.py CONFIG OUT.pkl (OUT "-": build only). The iterations of
experiments/gum/README.md: copies_iterations.py OUT.pkl MAX_ITER shared,per-corpus none,p,p-q."""
import sys, pickle, time
from ranker.pipeline.config import load_config
from ranker.pipeline import stages
from ranker.store import Store

cfg = load_config(sys.argv[1])
t = time.time()
with Store.writing(cfg.experiment.store) as st:
    ctx = stages.StageContext(st, None, 2, True, "t", None)
    splits = stages.select_splits(ctx, cfg.data)
    ctx = ctx.with_source(stages.parse_or_import(ctx, cfg.parse, splits.sentences(), cfg.data.corpus).source)
    corpora = splits.corpora()
    ann = stages.annotate(ctx, cfg.annotation, [s for c in corpora for s in c.train.sentences], False,
                          evaluation=cfg.evaluation)
    template = stages.loglinear_template(cfg.loglinear, 2)
    sets = {got.domains: got.data.rows() for _, got in stages.training_sets(
        ctx, ann, cfg.features, template, [c.train for c in corpora], (ann.rule,), 2, ("shared", "per-corpus"))}
print("built in", time.time() - t, "s", {k: (len(v.y), len(v.names)) for k, v in sets.items()})
if sys.argv[2] != "-":
    pickle.dump(sets, open(sys.argv[2], "wb"), protocol=5)
