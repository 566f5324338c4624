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
import os
import platform
import time
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Sequence

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..errors import RankerError
from ..evaluation.bounds import METRICS, ForestCounts, corpus_score, oracle_choice, selected_counts
from ..gcpause import gc_paused
from ..store import Store
from ..store.records import Sentence
from ..trees.penn import write_trees
from .config import ExperimentConfig
from .counts import conversion_ceiling, load_forest_counts, score_candidates
from .report import Plot, Report, write_report
from .scoring import Scorer, ScoringSettings
from .splits import SplitSelection, select_split
from .tables import breakdown, forest_size_plot, metric_table
from .training import learning_curve, select_model, training_data

RANKERS = ("native", "heidorn", "heidorn_tuned", "loglinear")
LINK_GRAMMAR = "link-grammar"
FILE_SOURCES = ("penn", "bllip")


class StageClock:
    """Times named stages and says what is happening, one line per stage."""

    def __init__(self, verbose: bool = True):
        self.seconds: dict[str, float] = {}
        self.verbose = verbose

    @contextmanager
    def __call__(self, name: str):
        if self.verbose:
            print(f"[ranker] {name} ...", flush=True)
        t0 = time.perf_counter()
        with gc_paused():   # stages build millions of cycle-free tuples: see ranker.gcpause
            yield
        gc.collect()        # whatever cycles the stage made, once (paused or not by the caller)
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0


def _check_parse_options(store: Store, options) -> None:
    """Refuse to mix forests parsed with other options into this experiment (a stale cache)."""
    stored = store.source_options().get(LINK_GRAMMAR)
    wanted = dict(options._asdict())
    if stored and store.parsed_ids(LINK_GRAMMAR) and stored != wanted:
        diff = ", ".join(f"{k}={stored.get(k)!r} (config: {wanted.get(k)!r})"
                         for k in sorted(set(stored) | set(wanted)) if stored.get(k) != wanted.get(k))
        raise RankerError(f"{store.path} holds Link Grammar forests parsed with other options: {diff}; "
                          "use another [experiment] store or the same [parse] settings")


# ------------------------------------------------------------------------------------ selection
def _per_sentence(sel: SplitSelection, ids: Sequence[str], per_group: np.ndarray) -> np.ndarray:
    """Spread per-group choices (groups = sentences with candidates) over every sentence, -1 for none."""
    pos = dict(zip(ids, per_group.tolist()))
    return np.array([pos.get(s.id, -1) for s in sel.sentences], dtype=np.int64)


def _candidate_trees(store: Store, sel: SplitSelection, source: str):
    """Every candidate tree of a split in forest order, with per-row groups and the grouped ids."""
    trees, groups, ids = [], [], []
    for s in sel.sentences:
        forest = store.candidate_trees(s.id, source)
        if not forest:
            continue
        trees.extend(t for _, _, t in forest)
        groups.extend([len(ids)] * len(forest))
        ids.append(s.id)
    return trees, np.asarray(groups, dtype=np.int64), ids


def sentence_quality(store: Store, sentences: Sequence[Sentence], source: str) -> list[str]:
    """Crouch et al.'s parse-quality class of each sentence: full, fragment, timeout or no parse.

    A sentence is "full" when all its candidates are full parses, else "fragment" or "timeout" as
    its candidates are; one with no candidate is "timeout" if the parser ran out of time on it.
    """
    qualities = store.forest_qualities(source)
    status = {row[0]: row[2] for row in store.parse_log(source)}
    out = []
    for s in sentences:
        qs = set(qualities.get(s.id, ()))
        if not qs:
            out.append("timeout" if status.get(s.id) == "timeout" else "no parse")
        elif qs == {"full"}:
            out.append("full")
        else:
            out.append("timeout" if "timeout" in qs else "fragment")
    return out


def _candidate_f(fc: ForestCounts, metric: str) -> np.ndarray:
    """Each candidate's own sentence score under ``metric`` (the oracle's and tuner's target)."""
    return METRICS[metric].score(fc.counts) if len(fc.counts) else np.zeros(0)


def _versions() -> dict[str, str]:
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

    Returns
    -------
    Report
        What was written to ``report.json``.
    """
    from features import load_feature_set, stored_matrix
    from features.datasets import consistency_weights

    from ..models import HeidornRanker, LogLinearRanker, RandomRanker
    from ..sources.annotations import DEFAULT_EQUIVALENCES, LabelEquivalences, check_store, riezler_annotations
    from ..sources.dependencies import ensure_dependency_gold
    from ..sources.link_grammar import LinkGrammarOptions
    from ..sources.nbest import import_file
    from ..sources.parse_run import parse_into_store
    from ..sources.treebank import ensure_corpus

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.resolved.toml").write_text(cfg.to_toml(), encoding="utf-8")
    clock = StageClock(verbose=progress)
    d, ev = cfg.data, cfg.evaluation
    workers = cfg.experiment.workers or os.cpu_count() or 1
    counts: dict[str, float] = {}
    notes: list[str] = []
    settings = ScoringSettings(ev.evalb_param, ev.head_rules, ev.flatten_rules)
    if cfg.parse.source == LINK_GRAMMAR:
        source = LINK_GRAMMAR
    elif cfg.parse.source in FILE_SOURCES:
        if not cfg.parse.forests:
            raise RankerError(f"{cfg.source}: [parse] source {cfg.parse.source!r} needs "
                              "forests = \"FILE\" (the n-best file to read)")
        if not Path(cfg.parse.forests).is_file():
            raise RankerError(f"{cfg.source}: [parse] forests: no such file {cfg.parse.forests}")
        source = f"{cfg.parse.source}:{Path(cfg.parse.forests).name}"
    else:
        raise RankerError(f"{cfg.source}: [parse] source {cfg.parse.source!r} is not known "
                          f"(known: {LINK_GRAMMAR}, {', '.join(FILE_SOURCES)})")
    metric_names = [m for m in METRICS if METRICS[m].counts_from in Scorer(settings).metrics]
    # the metric of the plots: MPH, the targets' metric, when the scorer provides it
    primary = "mph" if "mph" in metric_names else metric_names[0]
    for m in (cfg.loglinear.select_metric, cfg.heidorn.tune_metric):
        if m not in metric_names:
            raise RankerError(f"{cfg.source}: unknown metric {m!r} (known: {', '.join(metric_names)})")

    Path(cfg.experiment.store).parent.mkdir(parents=True, exist_ok=True)
    with Store.open(cfg.experiment.store) as st:
        with clock("corpus"):
            ensure_corpus(st, d.corpus)
            if d.corpus == "treebank":
                ensure_dependency_gold(st)
            for extra in d.extra_training:
                ensure_corpus(st, extra)
            sel = {name: select_split(st, d.corpus, split, d.limit)
                   for name, split in (("train", d.train), ("heldout", d.heldout), ("test", d.test))}
            extra_sel = [select_split(st, extra, "train", d.extra_limit) for extra in d.extra_training]
        for name, s in sel.items():
            counts[f"{name} sentences"] = len(s.sentences)
        for s in extra_sel:
            counts[f"{s.corpus} sentences (partial annotation only)"] = len(s.sentences)

        with clock("parse"):
            everything = [x for s in (*sel.values(), *extra_sel) for x in s.sentences]
            if source == LINK_GRAMMAR:
                options = LinkGrammarOptions(linkage_limit=cfg.parse.linkage_limit,
                                             null_links=cfg.parse.allow_null,
                                             max_parse_time=int(round(cfg.parse.max_parse_time)))
                _check_parse_options(st, options)
                summary = parse_into_store(st, everything, options, workers=workers,
                                           progress=progress)
                counts["sentences parsed now"] = summary.parsed
                counts["unmapped tokens (this run)"] = summary.unmapped
            else:
                imported = import_file(st, cfg.parse.forests, cfg.parse.source, source=source,
                                       corpus=d.corpus)
                for k, v in imported._asdict().items():
                    if isinstance(v, (int, float)):
                        counts[f"import: {k}"] = v
                if getattr(imported, "errors", None):
                    notes.append(f"{len(imported.errors)} forests of {cfg.parse.forests} were "
                                 f"rejected, e.g. {imported.errors[0]}")

        eq = LabelEquivalences.load(DEFAULT_EQUIVALENCES, labelled=True)
        with clock("annotate"):
            kind = cfg.annotation.kind
            if kind != "riezler":
                raise RankerError(f"{cfg.source}: [annotation] kind {kind!r} is not derivable from "
                                  "gold trees here (known: riezler)")
            have = st.annotations(kind, d.corpus)
            new = [s for s in sel["train"].sentences if s.id not in have]
            if new:
                st.add_annotations(riezler_annotations((s.id, st.gold(s.id)) for s in new))
            check_store(st, kind, eq, progress=progress, workers=workers)
            if extra_sel:
                check_store(st, cfg.annotation.extra_kind, eq, progress=progress, workers=workers)

        with clock("score"):
            gold_deps = {s.id: st.gold_dependencies(s.id)
                         for s in (*sel["heldout"].sentences, *sel["test"].sentences)}
            score_candidates(st, [*sel["heldout"].sentences, *sel["test"].sentences], settings,
                             gold_deps, workers, progress, source)
            counts["deps_untyped ceiling: gold trees converted by head rules (test)"] = \
                conversion_ceiling(st, sel["test"].sentences, settings, gold_deps)
            fcs = {m: load_forest_counts(st, sel["test"], METRICS[m].counts_from, settings, source)
                   for m in metric_names}
            held = {m: load_forest_counts(st, sel["heldout"], METRICS[m].counts_from, settings, source)
                    for m in {cfg.loglinear.select_metric, cfg.heidorn.tune_metric}}

        rule = "fewest" if cfg.annotation.fewest_violations else "strict"
        with clock("features"):
            fs = load_feature_set(cfg.features.set)
            mats = {}
            for name, s in sel.items():
                mats[name] = stored_matrix(st, fs, d.corpus, s.split, source,
                                           fileids=list(s.fileids) if s.fileids else None,
                                           workers=workers,
                                           progress=f"features {name}" if progress else None)
            extra_mats = [stored_matrix(st, fs, s.corpus, s.split, source,
                                        fileids=list(s.fileids) if s.fileids else None,
                                        workers=workers,
                                        progress=f"features {s.corpus}" if progress else None)
                          for s in extra_sel]
            y_train = consistency_weights(st, mats["train"], kind, d.corpus, sel["train"].split,
                                          source, rule)
            y_extra = [consistency_weights(st, m, cfg.annotation.extra_kind, s.corpus, s.split,
                                           source, rule) for m, s in zip(extra_mats, extra_sel)]
        counts["features before cut-off"] = len(mats["train"].names)

        with clock("train"):
            template = LogLinearRanker(solver=cfg.loglinear.optimizer, max_iter=cfg.loglinear.max_iter,
                                       tol=cfg.loglinear.tol,
                                       max_parses=cfg.loglinear.max_parses or None,
                                       full_parses_only=cfg.loglinear.full_only,
                                       proper_subset=cfg.loglinear.proper_subset,
                                       n_jobs=workers)
            data = training_data([mats["train"], *extra_mats], [y_train, *y_extra],
                                 cfg.features.cutoff, st.forest_qualities(source), template)
            names, survivors = data.names, data.survivors
            del mats["train"], extra_mats    # the kept rows are in data; free the rest (GBs)
            counts["features after cut-off"] = len(names)
            Xh = mats["heldout"].restrict(names)
            gh = mats["heldout"].groups()
            qh = _candidate_f(held[cfg.loglinear.select_metric], cfg.loglinear.select_metric)
            if len(qh) != Xh.shape[0]:
                raise RankerError("held-out counts and feature rows disagree; rerun with a fresh store")
            model = chosen = None
            if survivors.group_mask.any():
                with warnings.catch_warnings():   # reported once, below, not once per fit
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    chosen = select_model(st, template, data, Xh, gh, qh, cfg.loglinear.sigma2_grid,
                                          progress)
                model = chosen.ranker
                if not model.converged_:
                    notes.append(f"The chosen log-linear model stopped at [loglinear] max_iter = "
                                 f"{cfg.loglinear.max_iter} iterations before its gradient reached "
                                 f"tol = {cfg.loglinear.tol:g} (early stopping).")
            else:
                notes.append("The log-linear model was not trained: no training sentence survives the "
                             f"filters ({survivors.dropped}); with nothing to learn it selects the "
                             "source's first candidate, like native.")
        counts["training sentences kept"] = int(survivors.group_mask.sum())
        for why, k in survivors.dropped.items():
            counts[f"training sentences dropped: {why}"] = k
        if model is not None:
            counts["sigma2 (chosen on held-out)"] = chosen.sigma2
            counts["CG iterations"] = model.n_iter_
            counts["objective evaluations"] = model.n_evaluations_
            for s2, q in chosen.trials:
                counts[f"held-out {cfg.loglinear.select_metric} at sigma2={s2:g}"] = q

        with clock("heidorn"):
            hq = _candidate_f(held[cfg.heidorn.tune_metric], cfg.heidorn.tune_metric)
            heads = ev.head_rules
            plain = HeidornRanker(k_table=cfg.heidorn.k_table, heads=heads, pp_as_np=True).fit()
            tuned, k_curve = tune_heidorn(st, sel["heldout"], source, hq, cfg.heidorn.k_table, heads,
                                          cfg.heidorn.tune_rounds)
            (out / "k-table.tuned.toml").write_text(tuned.k_table_.to_toml(
                f"Heidorn K table tuned on {d.heldout} for {cfg.heidorn.tune_metric} by ranker run"),
                encoding="utf-8")
        counts["Heidorn K changes accepted in tuning"] = len(tuned.tuning_history_)

        with clock("select"):
            test = sel["test"]
            tt, tg, tids = _candidate_trees(st, test, source)
            mt = mats["test"]
            if list(mt.sentence_ids) != tids:
                raise RankerError("test features and forests disagree; rerun with a fresh store")
            Xt = mt.restrict(names)
            choices = {
                "native": _per_sentence(test, tids, np.zeros(len(tids), dtype=np.int64)),
                "heidorn": _per_sentence(test, tids, plain.predict(tt, tg)),
                "heidorn_tuned": _per_sentence(test, tids, tuned.predict(tt, tg)),
                "loglinear": _per_sentence(test, tids, model.predict(Xt, mt.groups()) if model
                                           else np.zeros(len(tids), dtype=np.int64)),
            }
            random_choice = _per_sentence(test, tids, RandomRanker(seed=cfg.experiment.seed).fit()
                                          .predict(np.zeros(len(tt)), tg))

        with clock("evaluate"):
            tables = {m: metric_table(m, fcs[m], choices, cfg, True) for m in metric_names}
            quality = sentence_quality(st, test.sentences, source)
            by_quality = breakdown(quality, ("all", "full", "fragment", "timeout", "no parse"),
                                    fcs, choices, cfg)
            lengths = [f"< {ev.length_cutoff} words" if len(s.tokens) < ev.length_cutoff else
                       f">= {ev.length_cutoff} words" for s in test.sentences]
            by_length = breakdown(lengths, (f"< {ev.length_cutoff} words", "all"), fcs, choices, cfg)
            plots = [forest_size_plot(fcs[primary], choices, primary)]
            plots.append(Plot("k_sensitivity", "Heidorn: held-out score against a uniform K",
                              "K (every modifier type)", f"held-out {cfg.heidorn.tune_metric} "
                              "(mean sentence %)", {"heidorn": (tuple(k for k, _ in k_curve),
                                                                 tuple(q for _, q in k_curve))}))

        with clock("learning curve"):
            # Test score against training-set size: the first k kept training sentences, sigma^2 fixed.
            def test_score(m) -> float:
                c = _per_sentence(test, tids, m.predict(Xt, mt.groups()))
                return corpus_score(METRICS[primary], selected_counts(fcs[primary], c))

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                curve = learning_curve(st, template, data, chosen, cfg.report.learning_curve,
                                       test_score, progress) if model is not None else []
            if curve:
                plots.append(Plot("learning_curve", f"Log-linear: test {primary} against training "
                                  "sentences", "training sentences kept by the filters",
                                  f"{primary} (%)", {"loglinear": (tuple(x for x, _ in curve),
                                                                   tuple(v for _, v in curve))}))

        sizes = np.diff(fcs[metric_names[0]].offsets)
        counts["test candidates"] = int(sizes.sum())
        counts["test candidates per sentence (mean)"] = float(sizes.mean()) if len(sizes) else 0.0
        counts["test candidates per sentence (median)"] = float(np.median(sizes)) if len(sizes) else 0.0
        counts["test sentences without candidates"] = int((sizes == 0).sum())

        with clock("report"):
            sel_dir = out / "selected"
            sel_dir.mkdir(exist_ok=True)
            texts = {s.id: st.candidate_texts(s.id, source) for s in test.sentences}
            write_trees(out / "gold.mrg", (st.gold(s.id) for s in test.sentences))
            for r, c in {**choices, "random": random_choice}.items():
                _write_selected(sel_dir / f"{r}.mrg", test, texts, c)
            for m in metric_names:
                _write_selected(sel_dir / f"oracle-{m}.mrg", test, texts,
                                oracle_choice(fcs[m], METRICS[m].score))
            if (sizes == 0).any():
                notes.append(f"{int((sizes == 0).sum())} test sentences have no candidate: every "
                             "system is charged their gold brackets (EVALB would skip their empty "
                             "lines in selected/*.mrg).")
            report = Report(cfg.experiment.name, tables, by_quality, by_length, counts,
                            dict(clock.seconds), plots, notes, _versions())
            write_report(report, out, plots=cfg.report.plots)
    return report


def tune_heidorn(store: Store, heldout: SplitSelection, source: str, quality: np.ndarray,
                 k_table, heads: str, rounds: int):
    """Heidorn's K tuned on held-out, and the held-out score of uniform K's (the sensitivity plot).

    Both are kept in the store keyed by the held-out forests, their quality and the settings, so
    a warm rerun compiles no tree. Returns the fitted tuned ranker and ``[(K, score), ...]``.
    """
    from ..models import HeidornRanker
    from ..models.groups import group_offsets
    from ..models.heidorn import compile_trees, head_finder
    from ..models.ktable import KTable
    from ..models.tuning import selected_quality
    from .cache import cached_result, data_digest, text_digest

    texts = text_digest(t for s in heldout.sentences for t in store.candidate_texts(s.id, source))
    template = HeidornRanker(k_table=k_table, heads=heads, pp_as_np=True, tune=True, max_rounds=rounds)
    params = {k: (v.to_dict() if isinstance(v, KTable) else v)
              for k, v in template.get_params().items()}
    uniform = (0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)

    def compute() -> dict:
        trees, groups, _ = _candidate_trees(store, heldout, source)
        tuned = template.fit(trees, quality, groups)
        compiled = compile_trees(trees, head_finder(heads), True)
        offsets = group_offsets(groups, len(trees))
        curve = [[k, selected_quality(-compiled.scores(KTable(default=k)), quality, offsets)]
                 for k in uniform]
        return {"state": tuned._get_state(), "curve": curve}

    got = cached_result(store, data_digest([quality], {"texts": texts, "params": params,
                                                        "uniform": uniform, "what": "heidorn"}),
                        compute)
    tuned = HeidornRanker(**template.get_params())
    tuned._set_state(got["state"])
    return tuned, [(float(k), float(q)) for k, q in got["curve"]]


def _write_selected(path: Path, sel: SplitSelection, texts: dict[str, list[str]],
                    choice: np.ndarray) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for s, c in zip(sel.sentences, choice.tolist()):
            f.write((texts[s.id][c] if c >= 0 else "") + "\n")
