"""``ranker run``: one experiment end to end, every stage reading what the previous one stored.

corpus -> parse (Link Grammar, cached in the store) -> partial annotations and consistent sets ->
per-candidate counts under every metric (held-out and test) -> features -> log-linear model (sigma^2
chosen on held-out) and Heidorn's K (tuned on held-out) -> one selection per test sentence and
ranker -> bounds, intervals, p-values, breakdowns -> report files.

Every expensive stage caches its output in the store, keyed by what it depends on, so a rerun with a
warm store only repeats training, selection and reporting. The test split is touched only by
selection and evaluation: nothing is tuned on it.
"""
from __future__ import annotations

import gc
import platform
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..atomicfile import atomic_write
from ..errors import RankerError
from ..evaluation.bounds import METRICS, PRIMARY_METRIC, corpus_score, oracle_choice, selected_counts
from ..gcpause import gc_paused
from ..parallel import use_executor
from ..store import Store
from . import domains, stages
from .config import ExperimentConfig
from .domains import domain_modes
from .report import Plot, Report, write_report
from .run_counts import ForestSizes, RunCounts
from .splits import distinct
from .stages import LINK_GRAMMAR, sentence_quality, tune_heidorn  # noqa: F401  (public names of old)
from .training import learning_curve

RANKERS = stages.REPORTED   # the rankers a report shows (one list: ranker.pipeline.stages.select)


class StageClock:
    """Times named stages, measures their peak memory (workers included) and says what is happening."""

    def __init__(self, verbose: bool = True):
        self.seconds: dict[str, float] = {}
        self.peak_mb: dict[str, float | None] = {}
        self.verbose = verbose

    @contextmanager
    def __call__(self, name: str):
        from ..memory import PeakMemory

        if self.verbose:
            print(f"[ranker] {name} ...", flush=True)
        t0 = time.perf_counter()
        with PeakMemory() as mem:
            with gc_paused():   # stages build millions of cycle-free tuples: see ranker.gcpause
                yield
            gc.collect()        # whatever cycles the stage made, once (paused or not by the caller)
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0
        if mem.peak_mb is not None:
            self.peak_mb[name] = max(mem.peak_mb, self.peak_mb.get(name) or 0.0)


def software_versions() -> dict[str, str]:
    """The versions a report names: Python, ranker, its numeric libraries and Link Grammar."""
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for pkg in ("ranker", "numpy", "scipy", "scikit-learn", "nltk"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    try:
        from ..sources.link_grammar import import_linkgrammar

        out["link-grammar"] = str(getattr(import_linkgrammar(), "__version__", "installed"))
    except RankerError:
        pass
    return out


# ------------------------------------------------------------------------------------ the run
def run_experiment(cfg: ExperimentConfig, out_dir: str | Path, progress: bool = True) -> Report:
    """Run every stage of ``cfg`` and write the report, selections and resolved config to ``out_dir``.

    The config and every file it names are checked first (:func:`.validate.validate_config`);
    ``config.resolved.toml`` is written only for a valid config, before any work starts.

    Returns
    -------
    Report
        What was written to ``report.json``.
    """
    from ..features import load_feature_set

    from .validate import validate_config

    validate_config(cfg)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_write(out / "config.resolved.toml") as f:   # a full disk names the file, leaves none half written
        f.write(cfg.to_toml())
    clock = StageClock(verbose=progress)
    d, ev, ll = cfg.data, cfg.evaluation, cfg.loglinear
    workers = cfg.experiment.workers
    counts = RunCounts()
    notes: list[str] = []
    stages.candidate_source(cfg.parse, cfg.source)
    metric_names = stages.metric_names(ev)
    # the metric of the plots: MPH, the targets' metric, when the scorer provides it
    primary = PRIMARY_METRIC if PRIMARY_METRIC in metric_names else metric_names[0]

    Path(cfg.experiment.store).parent.mkdir(parents=True, exist_ok=True)
    # every stage's pools and the objective run on the configured executor (local or Dask)
    with stages.make_executor(cfg.experiment) as executor, use_executor(executor), \
            Store.writing(cfg.experiment.store) as st, \
            st.recording("run", {"config": cfg.to_dict(), "out": str(out.resolve())}):
        ctx = stages.StageContext(st, None, workers, progress, cfg.source, executor)
        with clock("corpus"):
            splits = stages.select_splits(ctx, d)
        counts.sentences = {name: len(s.sentences) for name, s in splits.main().items()}
        counts.sentences.update({f"{s.corpus} {name}": len(s.sentences) for c in splits.also
                                 for name, s in zip(("train", "heldout", "test"), c)})
        counts.extra_sentences = {s.corpus: len(s.sentences) for s in splits.extra}

        with clock("parse"):
            parsed = stages.parse_or_import(ctx, cfg.parse, splits.sentences(), d.corpus)
            source = parsed.source
            ctx = ctx.with_source(source)
            counts.source = parsed.counts
            counts.parse_statuses = stages.parse_statuses(ctx, splits.sentences())
            notes.extend(parsed.notes)
            evidence = stages.parse_evidence(ctx, cfg.parse, cfg.evidence, splits.sentences(), d.corpus)
            if evidence is not None:
                ctx = ctx.with_evidence(evidence.source)
                counts.evidence = evidence.counts
                notes.extend(evidence.notes)

        corpora = splits.corpora()   # the main treebank, then those of [[data.also]]
        with clock("annotate"):
            ann = stages.annotate(ctx, cfg.annotation, [s for c in corpora for s in c.train.sentences],
                                  bool(splits.extra), evaluation=ev)

        with clock("score"):
            stages.compute_counts(ctx, ev, distinct([s for c in corpora for sel in (c.heldout, c.test)
                                                     for s in sel.sentences]))
            counts.deps_ceiling = stages.test_ceiling(ctx, ev, splits.test.sentences)
            fcs = stages.load_counts(ctx, ev, splits.test, metric_names)
            held = stages.load_counts(ctx, ev, splits.heldout,
                                      sorted({ll.select_metric, cfg.heidorn.tune_metric}))
            # the other treebanks' held-out (sigma^2, rule and feature space chosen on all) and test
            held_also = [stages.load_counts(ctx, ev, c.heldout, [ll.select_metric]) for c in corpora[1:]]
            tests_also = [stages.load_counts(ctx, ev, c.test, metric_names) for c in corpora[1:]]

        with clock("features"):
            # Every held-out and test matrix is extracted and stored first, none of them held: a
            # worker forked by a large process counts that process's pages in its own resident
            # size, so each extraction's workers are forked while this process is small (held-out
            # and test forked beside GUM's best_f training rows: 3 GB counted three times).
            for sel in (splits.heldout, splits.test, *(s for c in corpora[1:] for s in (c.heldout, c.test))):
                stages.extract_features(ctx, cfg.features, sel, on_demand=True)
            template = stages.loglinear_template(ll, workers)
            rules = stages.rule_grid(cfg.annotation)
            spaces = domain_modes(cfg.features.domains, len(corpora))
            trains = [*(c.train for c in corpora), *splits.extra]
            sets = stages.training_sets(ctx, ann, cfg.features, template, trains, rules, len(corpora), spaces)
            first = [next(sets)]   # the extraction, clocked here; each rule's fit below (handed over)
            # each treebank's held-out rows (the main one, then those of [[data.also]]), read from
            # the store a slab at a time when a fit's held-out rows are made; the test matrices are
            # read where they are scored (select, treebanks), not held through training (issue 45)
            held_rows = [stages.heldout_rows(ctx, cfg.features, c.heldout, h[ll.select_metric], ll.select_metric,
                                             on_demand=True) for c, h in zip(corpora, [held, *held_also])]
        counts.features_before_cutoff = first[0][1].features_before_cutoff

        with clock("train"):
            held_mats = [r.matrix for r in held_rows]
            qhs = [r.quality for r in held_rows]
            held_keys = [r.key for r in held_rows]
            del held_rows
            # every treebank's held-out together, made in each fit's space and columns as it is scored
            heldout = domains.HeldoutSplits(held_mats, [c.heldout.corpus for c in corpora], held_keys)
            feature_config = load_feature_set(cfg.features.set).to_dict()
            # for untagged text the model is applied to
            tagger = stages.train_tagger(ctx, [c.train for c in corpora])
            ruled = stages.fit_rules(ctx, ll, template, stages.handed_over(first, sets), len(rules) * len(spaces),
                                     heldout, np.concatenate(qhs), feature_config, tagger,
                                     screen=cfg.annotation.screen_iterations if cfg.annotation.rule == "auto" else 0)
            del first, sets, heldout
            data, fit = ruled.data, ruled.fit
            counts.features_after_cutoff = len(fit.names)   # (the model's: a stored fit builds no rows)
            notes.extend(fit.notes)
        counts.training_kept, counts.training_dropped = fit.kept, fit.dropped
        model, chosen = fit.model, fit.chosen
        fits = {"loglinear": fit.summary} if fit.summary else {}

        with clock("learning curve"):
            # The models of the test score against training-set size (the first k kept training
            # sentences, sigma^2 fixed), fitted while the training rows are at hand and scored
            # after the test split's selection: the rows go before it (issue 45).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                curve_models = learning_curve(st, template, data, chosen, cfg.report.learning_curve,
                                              progress, feature_config) if model is not None else []
        # the training rows are done with: the treebanks stage builds each treebank's own
        names = fit.names
        ruled = ruled._replace(data=None)
        del data

        with clock("heidorn"):
            hq = stages.candidate_quality(held[cfg.heidorn.tune_metric], cfg.heidorn.tune_metric)
            heid = stages.fit_heidorn(ctx, cfg.heidorn, ev.head_rules, splits.heldout, hq)
            with atomic_write(out / "k-table.tuned.toml") as f:
                f.write(heid.tuned.k_table_.to_toml(f"Heidorn K table tuned on {d.heldout} for "
                                                    f"{cfg.heidorn.tune_metric} by ranker run"))
        fits["heidorn_tuned"] = heid.summary

        test = splits.test
        with clock("select"):
            picked = stages.select_test(ctx, test, stages.extract_features(ctx, cfg.features, test), names,
                                        heid, model, cfg.experiment.seed)
            choices = picked.rankers

        with clock("evaluate"):
            scored = stages.evaluate(ctx, ev, cfg.experiment.seed, test, fcs, choices, primary,
                                     cfg.report.group_documents)
            tables, by_quality, by_length = scored.tables, scored.by_quality, scored.by_length
            plots = [scored.forest_size]
            plots.append(Plot("k_sensitivity", "Heidorn: held-out score against a uniform K",
                              "K (every modifier type)", f"held-out {cfg.heidorn.tune_metric} "
                              "(mean sentence %)", {"heidorn": (tuple(k for k, _ in heid.k_curve),
                                                                 tuple(q for _, q in heid.k_curve))}))

        with clock("learning curve"):
            # Test score against training-set size, each model scored on the test split
            def test_score(m) -> float:
                inputs = stages.ranker_inputs(picked.groups, features=lambda: (picked.X, picked.groups))
                c = stages.per_sentence(test, picked.ids, stages.rank({"curve": m}, inputs)["curve"])
                return corpus_score(METRICS[primary], selected_counts(fcs[primary], c))

            curve = [(k, float(test_score(m))) for k, m in curve_models]
            del curve_models
            if curve:
                plots.append(Plot("learning_curve", f"Log-linear: test {primary} against training "
                                  "sentences", "training sentences kept by the filters",
                                  f"{primary} (%)", {"loglinear": (tuple(x for x, _ in curve),
                                                                   tuple(v for _, v in curve))}))

        # the test rows in the model's columns are done with: the treebanks stage reads each test
        # split again (issue 45)
        picked = picked._replace(X=None)

        by_treebank = []
        if len(corpora) > 1 and model is not None:
            with clock("treebanks"):   # the combined model beside one trained on each treebank alone
                singles = stages.single_models(ctx, ll, template, ann, cfg.features, corpora, held_mats, qhs,
                                               ruled.rule, feature_config, tagger, held_keys)
                models = {**singles, f"trained on all {len(corpora)} (features {ruled.domains})": (model, names)}
                by_treebank = stages.score_treebanks(ctx, cfg.features, corpora, [fcs, *tests_also], models,
                                                     metric_names)

        sizes = np.diff(fcs[metric_names[0]].offsets)
        counts.forests["test"] = ForestSizes.of(sizes)

        with clock("report"):
            sel_dir = out / "selected"
            sel_dir.mkdir(exist_ok=True)
            texts = {s.id: st.candidate_texts(s.id, source) for s in test.sentences}
            stages.write_gold(st, test, out / "gold.mrg")
            for r, c in {**choices, "random": picked.random}.items():
                stages.write_selected(sel_dir / f"{r}.mrg", test, texts, c)
            for m in metric_names:
                stages.write_selected(sel_dir / f"oracle-{m}.mrg", test, texts,
                                      oracle_choice(fcs[m], METRICS[m].score))
            if (sizes == 0).any():
                notes.append(f"{int((sizes == 0).sum())} test sentences have no candidate: every "
                             "system is charged their gold brackets (EVALB would skip their empty "
                             "lines in selected/*.mrg).")
            report = Report(cfg.experiment.name, tables, by_quality, by_length, counts,
                            dict(clock.seconds), plots, notes, software_versions(), dict(clock.peak_mb), fits,
                            scored.by_group, [t.to_dict() for t in by_treebank])
            write_report(report, out, plots=cfg.report.plots)
    return report
