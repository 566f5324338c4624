"""``ranker select``: one candidate per sentence of a split, chosen by a ranker (the run's select stage)."""
from __future__ import annotations


def add_parser(subparsers) -> None:
    import argparse

    from ..pipeline.config import EvaluationSection, ExperimentSection, HeidornSection, LogLinearSection
    from ..registries import RANKERS
    from .options import add_selection, add_source, add_store, add_workers, config_option

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
    config_option(p, "--heads", section=EvaluationSection, key="head_rules",
                  help="heidorn: head-rule table, or 'star'")
    config_option(p, "--pp-as-np", section=HeidornSection, key="pp_as_np",
                  action=argparse.BooleanOptionalAction,
                  help="heidorn: read a PP as a noun phrase, the preposition a premodifier (--no-pp-as-np: "
                  "keep the preposition as PP head)")
    config_option(p, "--metric", section=LogLinearSection, key="select_metric",
                  help="oracle: the metric whose sentence score it maximises (counts from ranker counts)")
    config_option(p, "--seed", section=ExperimentSection, key="seed", type=int, help="random: seed")
    add_workers(p)
    p.add_argument("--out", required=True, help="output .mrg file")
    p.set_defaults(func=run)


def run(args) -> int:
    import numpy as np

    from features import feature_set_from_dict

    from ..errors import RankerError
    from ..evaluation.bounds import oracle_choice
    from ..models import HeidornRanker, RandomRanker, load_model
    from ..pipeline import stages
    from ..pipeline.config import EvaluationSection
    from ..pipeline.feature_cache import cached_matrix
    from ..registries import RANKERS, metric
    from ..store import Store
    from .options import selection
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
    ev = EvaluationSection()
    with Store.open(args.store, create=False) as st:
        source = stages.stored_source(st, args.source)
        sel = selection(st, args)
        texts = {s.id: st.candidate_texts(s.id, source) for s in sel.sentences}
        ids = [s.id for s in sel.sentences if texts[s.id]]
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
                picked = saved.ranker.predict(m.restrict(saved.feature_names), m.groups())
            elif name == "heidorn":
                ranker = saved.ranker if saved else HeidornRanker(
                    k_table=args.k_table, heads=args.heads, pp_as_np=args.pp_as_np).fit()
                trees, tgroups, _ = stages.candidate_trees(st, sel, source)
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
