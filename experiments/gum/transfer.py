"""A model trained on one treebank applied to another's test split: the transfer rows of experiments/gum.

    python experiments/gum/transfer.py --config configs/gum.toml --model wsj.json [--label wsj-on-gum]
        [--against gum.json --against-label gum]

reads the target experiment's store and test split (its config, after ``ranker run`` of it), applies
the exported model (``ranker models export``) with its own feature configuration, and prints, per
metric of the report, the bounds, the target's own native choice and the transferred model's score
with its error reduction and phi, computed exactly as the report computes them (the stored
per-candidate counts, :func:`ranker.pipeline.tables.metric_table`).

``--against`` applies a second model to the same sentences and adds its score, the difference and
the p-value of the paired approximate randomization test the report gives its rankers (the config's
``[evaluation] randomization_resamples`` and seed): whether one treebank's model really ranks
another's text worse than that treebank's own model, or only by the noise of a test split.
"""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="the target experiment's config (its store and test split)")
    p.add_argument("--model", required=True, help="an exported log-linear model (ranker models export)")
    p.add_argument("--label", default="transfer", help="the row's name")
    p.add_argument("--against", help="a second exported model, compared with the first on the same sentences")
    p.add_argument("--against-label", default="against", help="the second model's name")
    p.add_argument("--workers", type=int, default=0)
    args = p.parse_args(argv)
    if args.against and args.against_label == args.label:
        p.error(f"--against-label {args.against_label!r} is the first model's --label: name them apart")
    try:
        rows = transfer(args.config, args.model, args.label, args.workers, args.against, args.against_label)
    except Exception as e:   # a research script: one line, not a traceback, for the usual mistakes
        from ranker.errors import RankerError

        if not isinstance(e, (RankerError, OSError)):
            raise
        print(f"transfer: error: {e}", file=sys.stderr)
        return 2
    head = ["metric", "upper", "lower", "native", args.label, "error red.", "phi"]
    if args.against:
        head += [args.against_label, "error red.", f"{args.label} - {args.against_label}", "p"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0


def transfer(config: str, model_path: str, label: str, workers: int = 0, against: str | None = None,
             against_label: str = "against") -> list[list[str]]:
    import numpy as np

    from ranker.evaluation.bounds import METRICS, selected_counts
    from ranker.evaluation.significance import paired_randomization_test
    from ranker.features import feature_set_from_dict
    from ranker.models import load_model
    from ranker.models.persistence import applying
    from ranker.pipeline import stages
    from ranker.pipeline.config import load_config
    from ranker.pipeline.domains import model_rows
    from ranker.pipeline.splits import select_split
    from ranker.pipeline.tables import metric_table
    from ranker.pipeline.validate import validate_config
    from ranker.store import Store

    cfg = load_config(config)
    validate_config(cfg)
    with Store.open(cfg.experiment.store, create=False) as st:   # the matrix is cached in it
        reader = stages.corpus_reader(cfg.data)
        test = select_split(st, reader.name, cfg.data.test, cfg.data.limit, documents=reader.documents())
        source = stages.stored_source(st, None if len(stages.stored_sources(st)) == 1 else "link-grammar")
        ctx = stages.StageContext(st, source, workers, False, config)
        names = stages.metric_names(cfg.evaluation)
        stages.require_counts(ctx, cfg.evaluation, test)
        counts = stages.load_counts(ctx, cfg.evaluation, test, names)

        def choice_of(path: str) -> tuple[np.ndarray, list[str]]:
            """The model's choice per test sentence, as the report indexes them, and the rows' sentence ids."""
            saved = load_model(path, kind="loglinear")
            m = stages.model_features(ctx, feature_set_from_dict(saved.feature_config, path), test)
            with applying(path, saved):
                # a combined model with copies per treebank scores the target's sentences with its copies
                X = model_rows(m, test.corpus, saved.feature_names)
                picks = stages.choose(saved.ranker, {"features": lambda: (X, m.groups())})
            ids = list(m.sentence_ids)
            return stages.per_sentence(test, ids, np.asarray(picks)), ids

        choice, ids = choice_of(model_path)
        native = stages.per_sentence(test, ids, np.zeros(len(ids), dtype=np.int64))
        choices = {label: choice}
        if against:
            choices[against_label] = choice_of(against)[0]
    rows = []
    for name in names:
        t = metric_table(name, counts[name], {"native": native, **choices}, cfg.evaluation,
                         cfg.experiment.seed, False)
        r = t.rankers[label]
        row = [name, f"{t.upper:.1f}", f"{t.lower:.1f}", f"{t.rankers['native'].score:.1f}",
               f"{r.score:.1f}", f"{r.error_reduction:.0f}%", f"{r.phi:.0f}%"]
        if against:
            a = t.rankers[against_label]
            p = paired_randomization_test(selected_counts(counts[name], choices[label]),
                                          selected_counts(counts[name], choices[against_label]),
                                          score=METRICS[name].score,
                                          n_resamples=cfg.evaluation.randomization_resamples,
                                          seed=cfg.experiment.seed)
            row += [f"{a.score:.1f}", f"{a.error_reduction:.0f}%", f"{r.score - a.score:+.2f}", f"{p:.4f}"]
        rows.append(row)
    return rows


if __name__ == "__main__":
    sys.exit(main())
