"""``ranker models list|export``: the trained models kept in a store (every fit of run and train)."""
from __future__ import annotations

import json
import os


def add_parser(subparsers) -> None:
    from ..pipeline.config import AnnotationSection
    from .options import add_source, add_store, config_option

    p = subparsers.add_parser("models", help="list or export the trained models kept in a store",
                              description="Every log-linear fit (each sigma^2, each learning-curve "
                              "point) is kept in the store by its content key. List them, or export "
                              "one as a model file for ranker select --model.")
    sub = p.add_subparsers(dest="models_command", metavar="{list,export,retrain}")
    sub.required = True
    ls = sub.add_parser("list", help="one line per stored model: key, ranker, features, sigma^2")
    add_store(ls)
    ls.add_argument("--format", choices=("text", "json"), default="text")
    ls.set_defaults(func=run_list)
    ex = sub.add_parser("export", help="write one stored model as a model file")
    add_store(ex)
    ex.add_argument("key", metavar="KEY", nargs="?", default=None,
                    help="the model's key, or a unique prefix of it (from list); default: the one "
                         "model chosen on held-out")
    ex.add_argument("--out", required=True, help="model file (JSON)")
    ex.set_defaults(func=run_export)
    rt = sub.add_parser("retrain", help="adapt a stored log-linear model to collected annotations",
                        description="Adapt a stored log-linear model to an annotation kind (default "
                        "user: the discriminant decisions of ranker serve), its prior centred on the "
                        "model's weights, and keep the new model in the store.")
    add_store(rt)
    rt.add_argument("key", metavar="KEY", help="the model's key, or a unique prefix of it (from list)")
    rt.add_argument("--kind", default="user", help="annotation kind to learn from (default user: the "
                    "decisions of ranker serve, not the run's [annotation] kind)")
    config_option(rt, "--rule", section=AnnotationSection, key="rule",
                  help="when no candidate is consistent (contradicting answers): keep the "
                  "fewest-violation ones, or learn nothing from the sentence (strict); the rules that "
                  "read crossings refuse sentences with rejected brackets, as user decisions have)")
    add_source(rt)
    rt.set_defaults(func=run_retrain)


def _models(store) -> list[dict]:
    from ..pipeline.cache import MODEL_KIND

    out = []
    for key in store.artifact_keys(MODEL_KIND):
        payload, meta = store.get_artifact(MODEL_KIND, key)
        try:
            doc = json.loads(payload)
        except (json.JSONDecodeError, UnicodeDecodeError):
            doc = {}
        doc = doc if isinstance(doc, dict) else {}
        feats = doc.get("features", {})
        out.append({"key": key, "ranker": doc.get("ranker"), "sigma2": doc.get("params", {}).get("sigma2"),
                    "features": feats.get("count"),
                    "feature_set": feats.get("config", {}).get("name"),
                    "chosen_on_heldout": "trials" in meta,
                    "retrained_from": meta.get("retrained_from")})
    return out


def run_list(args) -> int:
    from ..store import Store

    with Store.open(args.store, readonly=True) as st:   # listing and exporting change nothing
        models = _models(st)
    if args.format == "json":
        print(json.dumps(models, indent=1))
        return 0
    for m in models:
        sigma2 = f"{m['sigma2']:g}" if isinstance(m["sigma2"], (int, float)) else "?"
        print(f"{m['key']}  {m['ranker']}  sigma2 {sigma2}  {m['features']} features "
              f"({m['feature_set'] or 'no feature config'})"
              f"{'  chosen on held-out' if m['chosen_on_heldout'] else ''}"
              f"{'  retrained from ' + str(m['retrained_from']) if m['retrained_from'] else ''}")
    if not models:
        print("no models stored")
    return 0


def run_export(args) -> int:
    from ..atomicfile import atomic_write
    from ..errors import RankerError
    from ..models import load_model
    from ..pipeline.cache import MODEL_KIND
    from ..store import Store
    from .train import check_writable

    check_writable(args.out)
    with Store.open(args.store, readonly=True) as st:   # listing and exporting change nothing
        if args.key is None:
            keys = [m["key"] for m in _models(st) if m["chosen_on_heldout"]]
            wanted = "were chosen on held-out"
        else:
            keys = [k for k in st.artifact_keys(MODEL_KIND) if k.startswith(args.key)]
            wanted = f"match {args.key!r}"
        if len(keys) != 1:
            raise RankerError(f"{args.store}: {'no' if not keys else len(keys)} stored models {wanted}; "
                              "name one by its key (ranker models list)")
        payload, _ = st.get_artifact(MODEL_KIND, keys[0])
    with atomic_write(args.out, binary=True) as f:   # a failure leaves an old file as it was
        f.write(payload)
    try:
        saved = load_model(args.out)   # what select will read: leave no broken file behind
    except RankerError:
        os.unlink(args.out)
        raise
    note = "" if saved.feature_config else " (no feature config: rerun ranker run to add it)"
    print(f"wrote {args.out}: {keys[0]}{note}")
    return 0


def run_retrain(args) -> int:
    from ..pipeline.retrain import retrain
    from ..store import Store

    with Store.open(args.store, create=False) as st:
        out = retrain(st, args.key, kind=args.kind, source=args.source, rule=args.rule)
    how = f"{out.n_iter} iterations" if out.n_iter else "stored before"
    print(f"{out.key}: {out.base} adapted to {args.kind!r} ({out.trained} of {out.sentences} annotated "
          f"sentences narrowed; {how})")
    return 0
