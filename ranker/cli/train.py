"""``ranker train``: fit the log-linear ranker on a split and save the model (the run's fit stage)."""
from __future__ import annotations


def add_parser(subparsers) -> None:
    from ..pipeline.config import (AnnotationSection, DataSection, FeaturesSection, LogLinearSection)
    from .options import (add_evaluation_settings, add_evidence, add_selection, add_source, add_store,
                          add_workers, config_option)

    p = subparsers.add_parser("train", help="train the log-linear ranker from an annotation kind (partial "
                              "bracketings; full trees with --kind best_f)",
                              description="Extract (or reuse stored) features of a split, keep the "
                              "properties seen in enough consistent candidates, and fit the "
                              "conditional log-linear model of Crouch et al. (2002) section 3, one "
                              "model per sigma^2 of the grid, keeping the best on the held-out split "
                              "(its counts from ranker counts). Options and defaults are those of a "
                              "config's sections.")
    add_store(p)
    add_selection(p, "train")
    add_source(p)
    add_evidence(p)
    config_option(p, "--features", section=FeaturesSection, key="set",
                  help="feature configuration TOML (name in configs/features or path)")
    config_option(p, "--cutoff", section=FeaturesSection, key="cutoff", type=int,
                  help="keep properties seen in at least N consistent training candidates")
    config_option(p, "--kind", section=AnnotationSection, key="kind",
                  help="annotation kind defining the consistent sets")
    config_option(p, "--best-f-metric", section=AnnotationSection, key="best_f_metric",
                  help="with --kind best_f: the metric whose best candidates form the consistent set")
    config_option(p, "--rule", section=AnnotationSection, key="rule",
                  help="consistency rule: which candidates the annotation picks out (strict: those "
                  "holding every bracket; fewest: else the fewest-violation ones; compatible: those "
                  "crossing none; strict-else-compatible; lexicographic; graded: else each weighted by the "
                  "share of brackets it holds; auto: the best of them on --heldout)")
    config_option(p, "--screen-iterations", section=AnnotationSection, key="screen_iterations", type=int,
                  help="with --rule auto: screen each rule by a fit of at most N iterations at the sigma^2 "
                  "grid's middle value and fit the best one's grid in full (0: every rule's grid in full)")
    config_option(p, "--solver", section=LogLinearSection, key="optimizer",
                  help="optimiser")
    config_option(p, "--layout", section=LogLinearSection, key="layout",
                  help="training rows: differences along a spanning tree of each sentence's "
                  "candidates, or the rows themselves (the same model to rounding)")
    config_option(p, "--max-iter", section=LogLinearSection, key="max_iter", type=int,
                  help="iterations at most")
    config_option(p, "--tol", section=LogLinearSection, key="tol", type=float, help="gradient tolerance")
    config_option(p, "--max-parses", section=LogLinearSection, key="max_parses", type=int,
                  help="training filter: at most N parses per sentence, 0 = no limit")
    config_option(p, "--full-only", section=LogLinearSection, key="full_only", action="store_true",
                  help="training filter: sentences with full parses only")
    config_option(p, "--heldout", section=DataSection, key="heldout",
                  help="split whose parses chosen by each model pick sigma^2 ('' with --sigma2: none)")
    config_option(p, "--sigma2-grid", section=LogLinearSection, key="sigma2_grid", to_cli=list,
                  type=float, nargs="+", help="the sigma^2 values tried")
    config_option(p, "--extend-grid", section=LogLinearSection, key="extend_grid", type=int,
                  help="when held-out picks the grid's smallest or largest sigma^2, try up to N values "
                  "beyond it (one step of the grid's ratio each) while the best stays at the edge")
    p.add_argument("--sigma2", type=float, default=None,
                   help="fit this one sigma^2 instead of choosing from the grid on held-out")
    config_option(p, "--metric", section=LogLinearSection, key="select_metric",
                  help="held-out metric that picks sigma^2")
    add_evaluation_settings(p)
    add_workers(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--out", required=True, help="model file (JSON)")
    p.set_defaults(func=run)


def check_writable(path: str, store: str) -> None:
    """Fail now, not after fitting, when ``path`` cannot be written or is one of ``store``'s files."""
    from ..atomicfile import check_output

    check_output(path, store, "--out")


def run(args) -> int:
    from ..features import load_feature_set

    from ..errors import RankerError
    from ..models import save_model
    from ..pipeline import stages
    from ..pipeline.annotation_kinds import kind_of
    import dataclasses

    from ..pipeline.config import AnnotationSection, FeaturesSection, LogLinearSection
    from ..pipeline.domains import HeldoutSplits
    from ..pipeline.splits import select_split
    from ..pipeline.training import fit_sigma2
    from ..pipeline.validate import check_cutoff
    from ..pipeline.stages import stored_evaluation
    from .options import check_metric, selection
    from .recorded import recorded_store

    check_writable(args.out, args.store)
    fs = load_feature_set(args.features)
    check_cutoff(args.features, args.cutoff, "--cutoff")
    if args.sigma2 is None and not args.heldout:
        raise RankerError("--heldout '' (no held-out selection) needs one --sigma2")
    if args.screen_iterations >= args.max_iter:
        raise RankerError(f"--screen-iterations {args.screen_iterations} is not below --max-iter {args.max_iter}: "
                          "a screening fit as long as a full one screens nothing (0 = no screen)")
    features = FeaturesSection(set=args.features, cutoff=args.cutoff)
    grid = (args.sigma2,) if args.sigma2 is not None else tuple(args.sigma2_grid)
    ll = LogLinearSection(sigma2_grid=grid, optimizer=args.solver, layout=args.layout,
                          max_iter=args.max_iter, tol=args.tol,
                          max_parses=args.max_parses, full_only=args.full_only,
                          select_metric=args.metric, extend_grid=args.extend_grid)
    heldout = args.heldout if args.sigma2 is None else ""
    check_metric("--metric", ll.select_metric)
    if kind_of(args.kind).full:
        check_metric("--best-f-metric", args.best_f_metric)
    with recorded_store(args, "train") as (st, settings):
        source = stages.stored_source(st, args.source)
        ev = stored_evaluation(st, source, args)   # the settings the store's counts were computed with
        settings["evaluation"] = dataclasses.asdict(ev)
        evidence = None if args.evidence is None else stages.stored_source(st, args.evidence)
        # as resolved: serve and retrain read a model's sources back from its run's record
        settings["source"], settings["evidence"] = source, evidence
        ctx = stages.StageContext(st, source, args.workers, not args.no_progress, "ranker train",
                                  evidence=evidence)
        sel = selection(st, args)
        with_forest = st.forest_qualities(source)
        if not any(s.id in with_forest for s in sel.sentences):
            raise RankerError(f"{args.store}: no candidates from {source} in {sel.corpus}/{sel.name}")
        hsel = select_split(st, args.corpus, heldout, args.limit) if heldout else None
        if hsel is not None and not any(s.id in with_forest for s in hsel.sentences):
            # every sigma^2 would score 0.00 there and the first be "chosen" on nothing
            raise RankerError(f"{args.store}: no candidates from {source} in the held-out selection "
                              f"{hsel.corpus}/{hsel.name} (--heldout {heldout}); sigma^2 is chosen on "
                              "its parses: parse or import its forests, name another --heldout, or give --sigma2")
        best_f = None
        if kind_of(args.kind).full:   # full annotation: its counts are computed here when missing
            best_f = stages.annotate(ctx, AnnotationSection(kind=args.kind, best_f_metric=args.best_f_metric),
                                     sel.sentences, evaluation=ev).best_f
        annotation = stages.AnnotationOutcome(args.kind, AnnotationSection().extra_kind, args.rule,
                                              best_f=best_f)
        template = stages.loglinear_template(ll, args.workers)
        tagger = stages.train_tagger(ctx, [sel])   # saved with the model: ranker apply tags text with it
        rules = stages.rule_grid(AnnotationSection(rule=args.rule))   # "auto": every rule (the outcome has no grid)
        if len(rules) > 1 and hsel is None:
            raise RankerError("--rule auto chooses the consistency rule on held-out, as sigma^2 is: "
                              "give --heldout (without --sigma2), or name a rule")
        sets = stages.training_sets(ctx, annotation, features, template, [sel], rules)
        if hsel is not None:
            stages.require_counts(ctx, ev, hsel)
            held = stages.heldout_rows(ctx, features, hsel, stages.load_counts(ctx, ev, hsel, [ll.select_metric])
                                       [ll.select_metric], ll.select_metric)
            ruled = stages.fit_rules(ctx, ll, template, sets, len(rules),
                                     HeldoutSplits([held.matrix], [None], [held.key]), held.quality, fs.to_dict(),
                                     tagger, screen=args.screen_iterations)
            data, fit, before = ruled.data, ruled.fit, ruled.features_before_cutoff
            screened = "screening fit, " if args.screen_iterations and len(rules) > 1 else ""
            for t in ruled.trials if len(rules) > 1 else ():
                print(f"rule {t.rule}: {t.kept} training sentences kept, {screened}held-out {ll.select_metric} "
                      f"{'-' if t.heldout is None else format(t.heldout, '.2f')}"
                      f"{'' if t.iterations is None else f' ({t.iterations} iterations)'}")
            for s2, q in fit.chosen.trials if fit.chosen else ():
                print(f"sigma2 {s2:g}: held-out {ll.select_metric} {q:.2f}")
            ranker, names = fit.model, fit.names   # (the model's: a stored fit builds no rows)
        else:
            (_, train_set), = sets
            data, before, ranker, names = train_set.data, train_set.features_before_cutoff, None, ()
        if not data.survivors.group_mask.any():
            raise RankerError(f"no training sentence of {sel.corpus}/{sel.name} survives the filters "
                              f"({data.survivors.dropped}); is the split annotated (ranker annotate)?")
        if ranker is None:
            ranker, names = fit_sigma2(st, template, data, grid[0], fs.to_dict(), tagger=tagger), data.names
    save_model(args.out, ranker, names, fs.to_dict(), tagger)
    tagged = (f", and a tagger for untagged text trained on {tagger.sentences:,} sentences' gold tags"
              if tagger is not None else ", and no tagger (the training sentences have no tags)")
    print(f"trained on {ranker.n_training_sentences_} sentences, {len(names)} features "
          f"(of {before}), sigma2 {ranker.sigma2:g}: {ranker.n_iter_} iterations, "
          f"{ranker.n_evaluations_} evaluations, converged {ranker.converged_}{tagged}; wrote {args.out}")
    return 0
