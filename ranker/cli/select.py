"""``ranker select``: one candidate per sentence of a split, chosen by a ranker (the run's select stage)."""
from __future__ import annotations


def add_parser(subparsers) -> None:
    from ..pipeline.config import ExperimentSection, HeidornSection, LogLinearSection
    from ..registries import RANKERS
    from .options import (add_evaluation_settings, add_selection, add_source, add_store, add_workers,
                          config_option)

    p = subparsers.add_parser("select", help="pick one parse per sentence with a ranker",
                              description="Write the chosen tree of every sentence of the selection, one "
                              "per line in split order (an empty line where a sentence has no parse), "
                              "exactly as ranker run writes selected/<ranker>.mrg.")
    add_store(p)
    add_selection(p, "test")
    add_source(p)
    p.add_argument("--ranker", required=True, choices=RANKERS.names(bare=True) + RANKERS.names(),
                   help="ranker (a bare name is its newest version)")
    p.add_argument("--model", default=None, help="model file (loglinear; optional for heidorn)")
    config_option(p, "--k-table", section=HeidornSection, key="k_table",
                  help="heidorn: K table (name or path)")
    p.add_argument("--heads", default=None,
                   help="heidorn: head-rule table, or 'star' (default: the head rules of the store's "
                        "counts, as ranker run gives Heidorn its [evaluation] head_rules)")
    p.add_argument("--no-pp-as-np", action="store_true", help="heidorn: keep the preposition as PP head")
    config_option(p, "--metric", section=LogLinearSection, key="select_metric",
                  help="oracle: the metric whose sentence score it maximises (counts from ranker counts)")
    config_option(p, "--seed", section=ExperimentSection, key="seed", type=int, help="random: seed")
    add_evaluation_settings(p)
    add_workers(p)
    p.add_argument("--out", required=True, help="output .mrg file")
    p.set_defaults(func=run)


def run(args) -> int:
    import numpy as np

    from ..features import feature_set_from_dict

    from ..errors import RankerError
    from ..evaluation.bounds import oracle_choice
    from contextlib import nullcontext

    from ..models import HeidornRanker, RandomRanker, load_model
    from ..models.persistence import applying
    from ..pipeline import stages
    import dataclasses

    from ..pipeline.feature_cache import cached_matrix
    from ..registries import RANKERS, metric
    from .options import selection, stored_evaluation
    from .recorded import recorded_store
    from .train import check_writable

    name = RANKERS.resolve(args.ranker).partition("/")[0]
    check_writable(args.out)
    if name == "loglinear" and not args.model:
        raise RankerError("--ranker loglinear needs --model (from ranker train or ranker models export)")
    if args.model and name not in ("loglinear", "heidorn"):
        raise RankerError(f"--model is read by the loglinear and heidorn rankers, not by {name}")
    # the file's kind is checked on load, before a model is applied to data it cannot read
    saved = load_model(args.model, kind=name) if args.model and name in ("loglinear", "heidorn") else None
    fs = None
    if name == "loglinear":
        if not saved.feature_config:
            raise RankerError(f"{args.model}: the model file carries no feature configuration; "
                              "export it again (ranker models export) or retrain")
        fs = feature_set_from_dict(saved.feature_config, args.model)
    with recorded_store(args, "select") as (st, settings):
        source = stages.stored_source(st, args.source)
        ev = stored_evaluation(st, source, args)   # the settings the store's counts were computed with
        settings["evaluation"] = dataclasses.asdict(ev)
        sel = selection(st, args)
        texts = {s.id: st.candidate_texts(s.id, source) for s in sel.sentences}
        ids = [s.id for s in sel.sentences if texts[s.id]]
        if not ids:   # as ranker train says: a file of empty lines would pass for a selection
            raise RankerError(f"{args.store}: no candidates from {source} in {sel.corpus}/{sel.name}; "
                              "nothing to select from (parse or import its forests, or name another --split)")
        sizes = [len(texts[sid]) for sid in ids]
        groups = np.repeat(np.arange(len(ids)), sizes)
        if name == "oracle":
            chosen_metric = metric(args.metric, "--metric")
            stages.require_counts(st, ev, sel, source)
            fc = stages.load_counts(st, ev, sel, [chosen_metric.name], source)[chosen_metric.name]
            choice = oracle_choice(fc, chosen_metric.score)
        else:
            if name == "loglinear":
                m = cached_matrix(st, fs, sel, source, stages.resolve_workers(args.workers))
                with applying(args.model, saved):
                    picked = saved.ranker.predict(m.restrict(saved.feature_names), m.groups())
            elif name == "heidorn":
                ranker = saved.ranker if saved else HeidornRanker(
                    k_table=args.k_table, heads=args.heads or ev.head_rules,
                    pp_as_np=not args.no_pp_as_np).fit()
                trees, tgroups, _ = stages.candidate_trees(st, sel, source)
                with applying(args.model, saved) if saved else nullcontext():
                    picked = ranker.predict(trees, tgroups) if trees else np.zeros(0, dtype=np.int64)
            elif name == "native":
                picked = np.zeros(len(ids), dtype=np.int64)
            else:
                picked = RandomRanker(seed=args.seed).fit().predict(np.zeros(len(groups)), groups) \
                    if len(groups) else np.zeros(0, dtype=np.int64)
            choice = stages.per_sentence(sel, ids, np.asarray(picked))
    stages.write_selected(args.out, sel, texts, choice)
    print(f"{name}: chose among {int(sum(sizes))} candidates of {len(ids)} sentences "
          f"({len(sel.sentences) - len(ids)} without a parse); wrote {args.out}")
    return 0
