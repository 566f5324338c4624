"""``ranker counts``: every candidate's counts against gold under every metric (the run's score stage).

The oracle (``ranker select --ranker oracle``), σ² selection (``ranker train --heldout``) and the
report's bounds read these counts; they are kept in the store, keyed by the scoring settings and
by the forests they were computed from, so a forest imported again is counted again.
"""
from __future__ import annotations


def add_parser(subparsers) -> None:
    from ..pipeline.config import EvaluationSection
    from ..pipeline.candidate_scoring import SETTING_OPTIONS as FLAG
    from .options import add_selection, add_source, add_store, add_workers, config_option

    p = subparsers.add_parser("counts", help="compute per-candidate counts against gold (every metric)",
                              description=__doc__.split("\n\n")[0])
    add_store(p)
    add_selection(p, None)
    add_source(p)
    add_workers(p)
    config_option(p, FLAG["evalb_param"], section=EvaluationSection, key="evalb_param",
                  help="EVALB parameter file (name in configs/evalb or path)")
    config_option(p, FLAG["head_rules"], section=EvaluationSection, key="head_rules",
                  help="head rules of the dependency conversion")
    config_option(p, FLAG["flatten_rules"], section=EvaluationSection, key="flatten_rules",
                  help="flattening rules of the flat-key metric")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def evaluation_section(args):
    """The ``[evaluation]`` section the scoring options stand for."""
    from ..pipeline.config import EvaluationSection

    return EvaluationSection(evalb_param=args.evalb_param, head_rules=args.head_rules,
                             flatten_rules=args.flatten_rules)


def run(args) -> int:
    from ..pipeline import stages
    from .options import selection
    from .recorded import recorded_store

    ev = evaluation_section(args)
    stages.scoring_settings(ev)
    with recorded_store(args, "counts") as (st, _):
        source = stages.stored_source(st, args.source)
        sel = selection(st, args)
        ctx = stages.StageContext(st, source, args.workers, not args.no_progress, "ranker counts")
        done = stages.compute_counts(ctx, ev, sel.sentences)
    print(f"counts of {source} candidates: {done.scored} sentences of {sel.corpus}/{sel.name} scored now, "
          f"{len(sel.sentences) - done.scored} already stored or without candidates "
          f"(settings {done.settings.key()})")
    return 0
