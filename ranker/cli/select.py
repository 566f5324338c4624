"""``ranker select``: one candidate per sentence of a split, chosen by a ranker (the run's select stage)."""
from __future__ import annotations


def add_parser(subparsers) -> None:
    import argparse

    from ..pipeline.config import ExperimentSection, HeidornSection, LogLinearSection
    from ..registries import RANKERS
    from .options import (add_evaluation_settings, add_evidence, add_selection, add_source, add_store,
                          add_workers, config_option)

    p = subparsers.add_parser("select", help="pick one parse per sentence with a ranker",
                              description="Write the chosen tree of every sentence of the selection, one "
                              "per line in split order (an empty line where a sentence has no parse), "
                              "exactly as ranker run writes selected/<ranker>.mrg.")
    add_store(p)
    add_selection(p, "test")
    add_source(p)
    add_evidence(p)
    p.add_argument("--ranker", required=True, choices=RANKERS.names(bare=True) + RANKERS.names(),
                   help="ranker (a bare name is its newest version)")
    p.add_argument("--model", default=None, help="model file (loglinear; optional for heidorn)")
    config_option(p, "--k-table", section=HeidornSection, key="k_table",
                  help="heidorn: K table (name or path)")
    p.add_argument("--heads", default=None,
                   help="heidorn: head-rule table, or 'star' (default: the head rules of the store's "
                        "counts, as ranker run gives Heidorn its [evaluation] head_rules)")
    config_option(p, "--pp-as-np", section=HeidornSection, key="pp_as_np",
                  action=argparse.BooleanOptionalAction,
                  help="heidorn: read a PP as a noun phrase, the preposition a premodifier (--no-pp-as-np: "
                  "keep the preposition as PP head)")
    config_option(p, "--metric", section=LogLinearSection, key="select_metric",
                  help="oracle: the metric whose sentence score it maximises (counts from ranker counts)")
    config_option(p, "--seed", section=ExperimentSection, key="seed", type=int, help="random: seed")
    add_evaluation_settings(p)
    add_workers(p)
    p.add_argument("--out", required=True, help="output .mrg file")
    p.add_argument("--force", action="store_true",
                   help="select with a model whose record (the model in the store that --model is a copy "
                        "of) says it was trained on another source's candidates: refused without it")
    p.set_defaults(func=run)


def run(args) -> int:
    import dataclasses
    from contextlib import nullcontext

    import numpy as np

    from ..errors import RankerError
    from ..evaluation.bounds import candidate_scores
    from ..features import feature_set_from_dict
    from ..models import load_model
    from ..models.persistence import applying, savable_rankers
    from ..pipeline import stages
    from ..pipeline.config import ExperimentConfig, ExperimentSection, HeidornSection
    from ..pipeline.domains import model_rows
    from ..registries import RANKERS, metric
    from ..pipeline.stages import stored_evaluation
    from .options import selection
    from .recorded import recorded_store
    from .train import check_writable

    full_name = RANKERS.resolve(args.ranker, "--ranker")
    name, cls = full_name.partition("/")[0], RANKERS.get(full_name)
    check_writable(args.out, args.store)
    if cls.needs_model and not args.model:
        raise RankerError(f"--ranker {name} needs --model (from ranker train or ranker models export)")
    learners = savable_rankers()
    if args.model and full_name not in learners:
        raise RankerError(f"--model is read by the {', '.join(n.partition('/')[0] for n in learners)} "
                          f"rankers, not by {name}")
    # the file's kind is checked on load, before a model is applied to data it cannot read
    saved = load_model(args.model, kind=full_name) if args.model else None
    if saved and cls.reads == "features" and not saved.feature_config:
        raise RankerError(f"{args.model}: the model file carries no feature configuration; "
                          "export it again (ranker models export) or retrain")
    with recorded_store(args, "select") as (st, settings):
        source = stages.stored_source(st, args.source)
        if args.model and not args.force:
            _check_trained_on(st, args.model, source)
        evidence = None if args.evidence is None else stages.stored_source(st, args.evidence)
        ev = stored_evaluation(st, source, args)   # the settings the store's counts were computed with
        settings["evaluation"] = dataclasses.asdict(ev)
        # the ranker the options describe (each option is the config key it stands for)
        config = ExperimentConfig(experiment=ExperimentSection(seed=args.seed),
                                  heidorn=HeidornSection(k_table=args.k_table, pp_as_np=args.pp_as_np),
                                  evaluation=dataclasses.replace(ev, head_rules=args.heads or ev.head_rules))
        ranker = saved.ranker if saved else stages.ready_ranker(full_name, config)
        sel = selection(st, args)
        texts = {s.id: st.candidate_texts(s.id, source) for s in sel.sentences}
        ids = [s.id for s in sel.sentences if texts[s.id]]
        if not ids:   # as ranker train says: a file of empty lines would pass for a selection
            raise RankerError(f"{args.store}: no candidates from {source} in {sel.corpus}/{sel.name}; "
                              "nothing to select from (parse or import its forests, or name another --split)")
        sizes = [len(texts[sid]) for sid in ids]
        groups = np.repeat(np.arange(len(ids)), sizes)

        ctx = stages.StageContext(st, source, args.workers, False, "ranker select", evidence=evidence)

        def features():
            fs = feature_set_from_dict(saved.feature_config, args.model)
            m = stages.model_features(ctx, fs, sel)
            # with the copies of the selection's corpus where the model has them, as ranker run scores it
            return model_rows(m, sel.corpus, saved.feature_names), m.groups()

        def trees():
            found, tgroups, _ = stages.candidate_trees(st, sel, source)
            return found, tgroups

        def quality():
            chosen_metric = metric(args.metric, "--metric")
            stages.require_counts(ctx, ev, sel)
            fc = stages.load_counts(ctx, ev, sel, [chosen_metric.name])[chosen_metric.name]
            # a candidate the scorer left out is chosen only when every candidate was (bounds.oracle_choice)
            q = candidate_scores(fc, chosen_metric)
            if len(q) != len(groups):
                raise RankerError(f"{args.store}: the counts of {sel.corpus}/{sel.name} and its candidates "
                                  "disagree; compute them again: ranker counts")
            return q, groups

        inputs = stages.ranker_inputs(groups, features=features, trees=trees, quality=quality)
        with applying(args.model, saved) if saved else nullcontext():
            choice = stages.per_sentence(sel, ids, stages.rank({name: ranker}, inputs)[name])
    stages.write_selected(args.out, sel, texts, choice)
    if len(ids) < len(sel.sentences) / 2:   # the lists likely cover other documents than this range
        import sys

        print(f"ranker: warning: {len(sel.sentences) - len(ids)} of {len(sel.sentences)} sentences of "
              f"{sel.corpus}/{sel.name} have no candidate from {source}: do the forests cover this "
              "selection?", file=sys.stderr)
    print(f"{name}: chose among {int(sum(sizes))} candidates of {len(ids)} sentences "
          f"({len(sel.sentences) - len(ids)} without a parse); wrote {args.out}")
    return 0


def _check_trained_on(store, model: str, source: str) -> None:
    """Refuse a model file the store records as trained on another source's candidates.

    A model file is a copy of a stored model (``ranker train --out``, ``ranker models export``) when
    its bytes are that model's; the model's record names the source of its training run
    (:func:`ranker.pipeline.retrain.model_sources`). Another parser's candidates have other
    structures and features: the weights would rank them, but mean something else (a Link Grammar
    model selected on BLLIP lists with exit 0). A file the store has no record of is not checked.
    """
    from pathlib import Path

    from ..errors import RankerError
    from ..pipeline.retrain import model_sources

    key = store.model_key_of(Path(model).read_bytes())
    trained_on = model_sources(store, key)[0] if key else None
    if trained_on is not None and trained_on != source:
        raise RankerError(f"{model}: a model trained on the candidates of {trained_on} (stored model "
                          f"{key[:12]}), not of {source}: give --source {trained_on}, a model trained on "
                          f"{source}, or --force to select with it anyway")
