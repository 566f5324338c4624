"""``ranker models list|export``: the trained models kept in a store (every fit of run and train)."""
from __future__ import annotations

import json
import os


def add_parser(subparsers) -> None:
    from ..pipeline.config import AnnotationSection
    from .options import EVIDENCE_OF_MODEL, add_evidence, add_source, add_store, add_workers, config_option

    p = subparsers.add_parser("models", help="list, export or retrain the models kept in a store",
                              description="Every fit (each sigma^2 of a grid, each learning-curve "
                              "point, a given sigma^2, a retrain, Heidorn's tuned K table) is kept in "
                              "the store by its content key, with its registry entry, settings, "
                              "training-data digest, parent and what it was chosen on. List them, "
                              "export one as a model file for ranker select --model, or adapt one to "
                              "people's decisions.")
    sub = p.add_subparsers(dest="models_command", metavar="{list,export,retrain}")
    sub.required = True
    ls = sub.add_parser("list", help="one line per stored model: key, registry entry, sigma^2, "
                        "features, what it was chosen on, its parent and the run that fitted it")
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
    rt.add_argument("--split", default=None,
                    help="learn only from the annotated sentences of this split (a name, document ranges, a "
                    "glob or @FILE; 'all': every one). Default: train for the kinds derived from gold trees "
                    "(riezler, best_f, chunks), which annotate the test sentences too; every annotated "
                    "sentence for the others (user decisions, bracket files)")
    add_source(rt)
    add_evidence(rt, EVIDENCE_OF_MODEL)
    add_workers(rt)
    rt.set_defaults(func=run_retrain)


def _models(store) -> list[dict]:
    """Every stored model as ``ranker models list`` shows it: its record and its file's facts."""
    out = []
    runs = {r.id: r for r in store.runs()}
    for rec in store.model_records():
        try:
            doc = json.loads(store.model_file(rec.key) or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            doc = {}
        doc = doc if isinstance(doc, dict) else {}
        feats = doc.get("features", {})
        run = runs.get(rec.run)
        out.append({"key": rec.key, "ranker": rec.ranker or doc.get("ranker"),
                    "sigma2": doc.get("params", {}).get("sigma2"),
                    "features": feats.get("count"), "feature_set": feats.get("config", {}).get("name"),
                    "chosen": rec.chosen, "parent": rec.parent, "data": rec.data, "run": rec.run,
                    "command": run.command if run else None, "created": rec.created,
                    "settings": rec.settings, "summary": rec.summary})
    return out


def _describe(m: dict) -> str:
    sigma2 = f"  sigma2 {m['sigma2']:g}" if isinstance(m["sigma2"], (int, float)) else ""
    features = f"  {m['features']} features ({m['feature_set'] or 'no feature config'})" \
        if m["features"] else ""
    made = f"  run {m['run']} ({m['command']}, {m['created']})" if m["run"] is not None else \
        (f"  {m['created']}" if m["created"] else "")
    return (f"{m['key']}  {m['ranker'] or '?'}{sigma2}{features}"
            f"{'  chosen on ' + m['chosen'] if m['chosen'] else ''}"
            f"{'  retrained from ' + str(m['parent']) if m['parent'] else ''}{made}")


def run_list(args) -> int:
    from ..store import Store

    with Store.open(args.store, readonly=True) as st:   # listing and exporting change nothing
        models = _models(st)
    if args.format == "json":
        print(json.dumps(models, indent=1))
        return 0
    for m in models:
        print(_describe(m))
    if not models:
        print("no models stored")
    return 0


def run_export(args) -> int:
    from ..atomicfile import atomic_write
    from ..errors import RankerError
    from ..models import load_model
    from ..store import Store
    from .train import check_writable

    check_writable(args.out, args.store)
    if args.key is not None and not args.key.strip():   # '' is a prefix of every key: it exported one
        raise RankerError("models export: an empty model key; name one by its key (ranker models list)")
    with Store.open(args.store, readonly=True) as st:   # listing and exporting change nothing
        models = _models(st)
        if args.key is None:
            found = [m for m in models if "heldout" in m["chosen"] and m["features"]]
            wanted = "were chosen on held-out"
        else:
            found = [m for m in models if m["key"].startswith(args.key)]
            wanted = f"match {args.key!r}"
        if len(found) != 1:
            listed = "; ".join(f"{m['key']} ({m['ranker']}, sigma2 {m['sigma2']}, "
                               f"{'run ' + str(m['run']) + ' ' + str(m['command']) if m['run'] else 'no run'}, "
                               f"{m['created'] or 'undated'})" for m in found[:20])
            raise RankerError(f"{args.store}: {'no' if not found else len(found)} stored models {wanted}; "
                              f"name one by its key (ranker models list){': ' + listed if found else ''}")
        key = found[0]["key"]
        payload = st.model_file(key)
    with atomic_write(args.out, binary=True) as f:   # a failure leaves an old file as it was
        f.write(payload)
    try:
        saved = load_model(args.out)   # what select will read: leave no broken file behind
    except RankerError:
        os.unlink(args.out)
        raise
    note = "" if saved.feature_config else " (no feature config: rerun ranker run to add it)"
    if saved.tagger is None:
        note += " (no tagger: ranker apply parses untagged text without tags; rerun ranker run to add one)"
    print(f"wrote {args.out}: {key}{note}")
    return 0


def run_retrain(args) -> int:
    from ..pipeline.annotation_kinds import kind_of
    from ..pipeline.retrain import retrain
    from .recorded import recorded_store

    import dataclasses

    from ..pipeline.stages import stored_evaluation, stored_source

    with recorded_store(args, "models retrain") as (st, settings):
        # recorded with the run: the settings of the counts beside the decisions it learns from
        settings["evaluation"] = dataclasses.asdict(stored_evaluation(st, stored_source(st, args.source)))
        # a kind derived from the corpus's gold annotates the test sentences too: held out by default
        split = args.split or ("train" if kind_of(args.kind.partition("/")[0]).from_gold else "all")
        out = retrain(st, args.key, kind=args.kind, source=args.source, rule=args.rule, workers=args.workers,
                      evidence=args.evidence, split=None if split == "all" else split)
    how = f"{out.n_iter} iterations" if out.n_iter else "nothing to fit: stored before from the same annotations"
    within = "" if split == "all" else f" of split {split}"
    print(f"{out.key}: {out.base} adapted to {args.kind!r} ({out.trained} of {out.sentences} annotated "
          f"sentences{within} narrowed; {how})")
    return 0
