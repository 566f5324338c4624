"""The annotation economy: test error reduction against the discriminant decisions spent on the training split.

A simulated annotator (:mod:`ranker.pipeline.simulate`) answers the discriminants the ``ranker
serve`` page offers, through the page's path (decisions stored in the store, remaining candidates
and discriminants read back from them), accepting a span exactly when the best-F candidates
(``[annotation] best_f_metric``) hold it. After each point of the curve the log-linear model is
trained from the decisions alone, as ``ranker annotate --kind user`` + ``ranker train`` train it
(annotation kind ``user`` -> consistent sets -> the training stage, sigma^2 chosen on held-out),
and scored on the test split under every metric. Strategies:

  a  random training sentences, each fully disambiguated in the page's order (no model);
  b  the same sentences; the model trained so far answers the discriminants it is confident of
     (probability >= --threshold or <= 1 - threshold), the annotator only the others
     (Baldridge and Osborne 2004), in the page's order under that model;
  c  sentences chosen by the model's uncertainty (entropy of its distribution over the forest),
     each fully disambiguated as in (a) (Baldridge and Osborne 2003).

Reference lines: the model trained from Riezler's partial bracketing (no decisions) and from full
``best_f`` annotation, on the same training matrix. Run from the project folder, on a scratch copy
of a store the main run filled (decisions and models are written into it):

    cp runs/store.sqlite runs/econ.sqlite
    NLTK_DATA=../shared/nltk_data python3 experiments/annotation-economy/run.py --store runs/econ.sqlite

Results go to ``--out`` (default ``runs/annotation-economy``): ``points.jsonl`` (one line per
point, written as it finishes; a rerun skips the points done), ``sentences-<strategy>.jsonl``
(each annotated sentence's answers), ``summary.md`` and ``curves.png``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ranker.errors import RankerError

STRATEGIES = ("a", "b", "c")
TITLES = {"a": "(a) random sentences, fully disambiguated",
          "b": "(b) confident model answers, annotator below the threshold",
          "c": "(c) sentences chosen by model uncertainty",
          "riezler": "Riezler partial bracketing (no decisions)",
          "best_f": "full best_f annotation"}
PRIMARY = "mph"


# ------------------------------------------------------------------------------------ setup
class Setup:
    """The experiment's fixed parts: store, splits, matrices, test and held-out counts."""

    def __init__(self, cfg, store, workers: int, pool: int | None):
        from ranker.features import load_feature_set
        from ranker.pipeline import stages

        self.cfg, self.store = cfg, store
        ctx = stages.StageContext(store, None, workers, False, "annotation-economy")
        self.splits = stages.select_splits(ctx, cfg.data)
        self.ctx = ctx = ctx.with_source(stages.stored_source(store))
        ev, ll = cfg.evaluation, cfg.loglinear
        train = self.splits.train
        say(f"train {len(train.sentences)} sentences; best_f counts, held-out and test counts")
        self.best_f = stages.annotate(ctx, dataclasses.replace(cfg.annotation, kind="best_f"), train.sentences,
                                      evaluation=ev).best_f
        stages.compute_counts(ctx, ev, [*self.splits.heldout.sentences, *self.splits.test.sentences])
        self.metrics = stages.metric_names(ev)
        self.test_counts = stages.load_counts(ctx, ev, self.splits.test, self.metrics)
        held = stages.load_counts(ctx, ev, self.splits.heldout, [ll.select_metric])
        self.heldout_quality = stages.candidate_quality(held[ll.select_metric], ll.select_metric)
        self.template = stages.loglinear_template(ll, workers)
        self.feature_config = load_feature_set(cfg.features.set).to_dict()
        qualities = store.forest_qualities(ctx.source)
        self.ids = [s.id for s in train.sentences if qualities.get(s.id)]   # with candidates, split order
        rng = np.random.default_rng(cfg.experiment.seed)
        self.order = [self.ids[i] for i in rng.permutation(len(self.ids))]
        if pool is not None:
            self.order = self.order[:pool]
        self._matrices = None

    def matrices(self):
        """The feature matrices of the whole training split, held-out and test (extracted once, then stored)."""
        if self._matrices is None:
            from ranker.pipeline import stages

            say("feature matrices (training split whole, held-out, test)")
            ctx, f, sp = self.ctx, self.cfg.features, self.splits
            self._matrices = tuple(stages.extract_features(ctx, f, sel) for sel in (sp.train, sp.heldout, sp.test))
            if list(self._matrices[0].sentence_ids) != self.ids:
                raise RankerError(f"{self.store.path}: the training matrix's sentences are not the forests stored")
        return self._matrices

    @property
    def train_matrix(self):
        return self.matrices()[0]

    @property
    def heldout_matrix(self):
        return self.matrices()[1]

    @property
    def test_matrix(self):
        return self.matrices()[2]

    @property
    def rows(self) -> dict[str, tuple[int, int]]:
        """Each training sentence's rows in the training matrix."""
        m = self.train_matrix
        return {sid: (int(m.offsets[j]), int(m.offsets[j + 1])) for j, sid in enumerate(m.sentence_ids)}

    # -------------------------------------------------------------------- one sentence
    def forest(self, sid: str):
        """Each candidate's labelled spans (as the page computes them) and its best-F score."""
        from ranker.pipeline.best_f import best_f_key, scores_and_unscored
        from ranker.sources.discriminants import candidate_spans

        by_tree: dict[int, frozenset] = {}
        spans = []
        for _, _, t in self.store.candidate_trees(sid, self.ctx.source):
            got = by_tree.get(id(t))
            if got is None:
                got = by_tree[id(t)] = candidate_spans(t)
            spans.append(got)
        metric, settings = self.best_f
        f, unscored = scores_and_unscored(self.store.sentence_bracket_counts(best_f_key(metric, settings), sid,
                                                                             self.ctx.source), metric)
        return spans, f, unscored

    # -------------------------------------------------------------------- training and test
    def train(self, kind: str):
        """The model trained from annotation ``kind`` alone, sigma^2 chosen on held-out (None: nothing to learn)."""
        from sklearn.exceptions import ConvergenceWarning

        from ranker.pipeline import stages
        from ranker.pipeline.config import AnnotationSection
        from ranker.pipeline.annotation_kinds import kind_of

        ctx, cfg = self.ctx, self.cfg
        ann = AnnotationSection(kind=kind, rule=cfg.annotation.rule,
                                best_f_metric=cfg.annotation.best_f_metric)
        best_f = None
        if kind_of(kind).full:
            best_f = self.best_f
        else:   # user: the stored decisions become the annotation, their candidates checked
            stages.annotate(ctx, ann, self.splits.train.sentences)
        w = stages.consistency(ctx, self.train_matrix, kind, self.splits.train, ann.rule, best_f)
        data = stages.training_rows(ctx, cfg.features, self.template, [self.train_matrix], [w])
        if not data.survivors.group_mask.any():
            return None, data, None
        Xh = self.heldout_matrix.restrict(data.names)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = stages.fit_loglinear(ctx, cfg.loglinear, self.template, data, Xh, self.heldout_matrix.groups(),
                                       self.heldout_quality, self.feature_config)
        return fit.model, data, fit

    def test(self, model, names) -> dict:
        """Every metric's test score, error reduction and its 95% interval (paired bootstrap)."""
        from ranker.pipeline import stages
        from ranker.pipeline.tables import metric_table

        test, m = self.splits.test, self.test_matrix
        native = stages.per_sentence(test, m.sentence_ids, np.zeros(len(m.sentence_ids), dtype=np.int64))
        choices = {"native": native}
        if model is not None:
            choices["loglinear"] = stages.per_sentence(test, m.sentence_ids,
                                                       np.asarray(model.predict(m.restrict(names), m.groups())))
        else:
            choices["loglinear"] = native
        out = {}
        for metric in self.metrics:
            t = metric_table(metric, self.test_counts[metric], choices, self.cfg.evaluation,
                             self.cfg.experiment.seed, False)
            r = t.rankers["loglinear"]
            span = t.upper - t.lower
            er_ci = [100.0 * (c - t.lower) / span for c in r.ci95] if span > 0 else [None, None]
            out[metric] = {"score": r.score, "error_reduction": r.error_reduction, "er_ci95": er_ci,
                           "native_error_reduction": t.rankers["native"].error_reduction}
        return out

    def probabilities(self, model, names) -> dict[str, np.ndarray]:
        """The model's distribution over each training forest (what the page shows for the sentence)."""
        from ranker.serve.model import probabilities

        scores = np.asarray(model.decision_function(self.train_matrix.restrict(names)), dtype=np.float64)
        return {sid: probabilities(scores[a:b]) for sid, (a, b) in self.rows.items()}


def say(msg: str) -> None:
    print(time.strftime("%H:%M:%S"), msg, flush=True)


# ------------------------------------------------------------------------------------ decisions in the store
def clear_decisions(store) -> int:
    """Take every stored decision back (the page's undo), so a strategy starts from none."""
    n = 0
    for sid in {sid for sid, _ in store.decisions()}:
        while store.undo_decision(sid) is not None:
            n += 1
    return n


def replay(setup, sid: str, answers) -> None:
    """Store a sentence's recorded answers again, in order, through the simulator's one decide path
    (the page's checked one: each answer checked against the candidates the earlier ones leave)."""
    from ranker.pipeline.simulate import decide

    spans = setup.forest(sid)[0] if answers else []
    for key, accept, who in answers:
        decide(setup.store, sid, spans, key, accept, who)


def sync_decisions(setup, wanted: dict[str, list]) -> None:
    """Make the stored decisions exactly ``wanted`` (sentence -> answers), touching only what differs."""
    store = setup.store
    have: dict[str, list] = {}
    for sid, d in store.decisions():
        have.setdefault(sid, []).append([f"{d.label}:{d.start}-{d.end}", d.accept, d.who])
    for sid in set(have) | set(wanted):
        if have.get(sid, []) != [list(a) for a in wanted.get(sid, [])]:
            while store.undo_decision(sid) is not None:
                pass
            replay(setup, sid, wanted.get(sid, []))


# ------------------------------------------------------------------------------------ records
class Records:
    """Per-sentence answers and per-point results, appended as they finish (a rerun resumes)."""

    def __init__(self, out: Path):
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        self.points_file = out / "points.jsonl"
        self.points = self._read(self.points_file)

    @staticmethod
    def _read(path: Path) -> list[dict]:
        if not path.exists():
            return []
        out = []
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    raise RankerError(f"{path}:{n}: not a JSON line (a run stopped mid-write? delete the line)")
        return out

    def sentences(self, strategy: str) -> dict[str, dict]:
        return {r["sentence"]: r for r in self._read(self.out / f"sentences-{strategy}.jsonl")}

    def add_sentence(self, strategy: str, rec: dict) -> None:
        with open(self.out / f"sentences-{strategy}.jsonl", "a") as f:
            f.write(json.dumps(rec) + "\n")

    def point(self, strategy: str, fraction: float) -> dict | None:
        return next((p for p in self.points if p["strategy"] == strategy and p["fraction"] == fraction), None)

    def add_point(self, rec: dict) -> None:
        self.points.append(rec)
        with open(self.points_file, "a") as f:
            f.write(json.dumps(rec) + "\n")


# ------------------------------------------------------------------------------------ strategies
def annotate_one(setup: Setup, sid: str, probs=None, confident=None) -> dict:
    """Simulate the annotator on one sentence (its decisions cleared first) and record its answers."""
    from ranker.pipeline.simulate import annotate_sentence

    store = setup.store
    while store.undo_decision(sid) is not None:
        pass
    t = time.perf_counter()
    spans, f, unscored = setup.forest(sid)
    got = annotate_sentence(store, sid, spans, f, unscored, probs=probs, confident=confident)
    answers = [[f"{d.label}:{d.start}-{d.end}", d.accept, d.who] for d in store.decisions(sid)]
    return {"sentence": sid, "answers": answers, **got._asdict(), "seconds": time.perf_counter() - t}


def run_point(setup: Setup, records: Records, strategy: str, fraction: float, done: list[dict],
              model_seconds: float, extra: dict | None = None, need_model: bool = True):
    """Train from the decisions stored now, test, and record the point (or read it back if recorded).

    ``model_seconds``: the model's time so far in the annotation loop (scoring the forests, fitting
    the earlier rounds' models), this point's own fit excluded (it is ``train_seconds``).
    """
    got = records.point(strategy, fraction)
    if got is not None and not need_model:
        return None, None, got
    t = time.perf_counter()
    model, data, fit = setup.train("user")
    train_seconds = time.perf_counter() - t
    if got is not None:
        return model, data, got
    asked = sum(r["asked"] for r in done)
    rec = {"strategy": strategy, "fraction": fraction, "sentences": len(done), "decisions": asked,
           "automatic": sum(r["automatic"] for r in done),
           "sentences_without_best_f": sum(1 for r in done if r["best_remaining"] == 0),
           "annotator_seconds": sum(r["seconds"] for r in done), "train_seconds": train_seconds,
           "model_seconds": model_seconds,
           "sigma2": None if fit is None or fit.chosen is None else fit.chosen.sigma2,
           "trained_sentences": int(data.survivors.group_mask.sum()),
           "test": setup.test(model, data.names), **(extra or {})}
    records.add_point(rec)
    write_summary(records, setup.order)
    er = rec["test"][PRIMARY]["error_reduction"]
    say(f"{strategy} {fraction:g}%: {len(done)} sentences, {asked} decisions, {PRIMARY} ER "
        f"{'n/a' if er is None else f'{er:.1f}'}%, trained on {rec['trained_sentences']} ({train_seconds:.0f} s)")
    return model, data, rec


def counts_at(fractions, n: int) -> list[tuple[float, int]]:
    return [(f, max(1, int(round(n * f / 100.0)))) for f in fractions]


def simulate_a(setup: Setup, records: Records) -> dict[str, dict]:
    """(a)'s annotation of every sentence of the pool, in the page's order without a model (recorded once).

    A sentence's answers do not depend on what was annotated before it, so (a) and (c) replay them.
    """
    recorded = records.sentences("a")
    todo = [sid for sid in setup.order if sid not in recorded]
    if todo:
        say(f"simulating the annotator on {len(todo)} sentences (no model)")
    for n, sid in enumerate(todo, 1):
        rec = recorded[sid] = annotate_one(setup, sid)
        records.add_sentence("a", rec)
        while setup.store.undo_decision(sid) is not None:   # the strategies store what they need
            pass
        if n % 200 == 0:
            say(f"  {n} of {len(todo)}")
    return recorded


def strategy_a(setup: Setup, records: Records, fractions) -> None:
    """Random sentences in a fixed order, each fully disambiguated in the page's order without a model."""
    recorded = simulate_a(setup, records)
    for fraction, k in counts_at(fractions, len(setup.order)):
        if records.point("a", fraction) is not None:
            continue
        done = [recorded[sid] for sid in setup.order[:k]]
        sync_decisions(setup, {r["sentence"]: r["answers"] for r in done})
        run_point(setup, records, "a", fraction, done, 0.0, need_model=False)


def strategy_b(setup: Setup, records: Records, fractions, threshold: float) -> None:
    """(a)'s sentences; the model trained so far answers where it is confident, the annotator elsewhere."""
    sync_decisions(setup, {})
    recorded = records.sentences("b")
    done: list[dict] = []
    model = names = None
    model_seconds = 0.0
    for fraction, k in counts_at(fractions, len(setup.order)):
        batch = setup.order[len(done):k]
        probs = {}
        if model is not None and any(sid not in recorded for sid in batch):
            t = time.perf_counter()
            probs = setup.probabilities(model, names)
            model_seconds += time.perf_counter() - t
        for sid in batch:
            rec = recorded.get(sid)
            if rec is None:
                p = probs.get(sid)
                rec = annotate_one(setup, sid, probs=p, confident=threshold if p is not None else None)
                records.add_sentence("b", rec)
            else:
                while setup.store.undo_decision(sid) is not None:
                    pass
                replay(setup, sid, rec["answers"])
            done.append(rec)
        model, data, rec = run_point(setup, records, "b", fraction, done, model_seconds, {"threshold": threshold})
        model_seconds += rec["train_seconds"]
        names = data.names


def entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def strategy_c(setup: Setup, records: Records, fractions) -> None:
    """Sentences chosen by the model's uncertainty, each disambiguated as in (a) (its recorded answers)."""
    sync_decisions(setup, {})
    recorded_a = simulate_a(setup, records)
    chosen_before = [r["sentence"] for r in records._read(records.out / "sentences-c.jsonl")]
    done: list[dict] = []
    left = list(setup.order)
    model = names = None
    model_seconds = 0.0
    for fraction, k in counts_at(fractions, len(setup.order)):
        if fraction >= 100:
            continue   # every sentence: (a)'s point, the same decisions in another order
        need = k - len(done)
        if len(chosen_before) >= k:
            batch = chosen_before[len(done):k]
        elif model is None:
            batch = left[:need]
        else:
            t = time.perf_counter()
            probs = setup.probabilities(model, names)
            h = {sid: entropy(probs[sid]) for sid in left}
            model_seconds += time.perf_counter() - t
            place = {sid: i for i, sid in enumerate(setup.order)}
            batch = sorted(left, key=lambda s: (-h[s], place[s]))[:need]
        for sid in batch:
            rec = recorded_a.get(sid)
            if rec is None:
                rec = annotate_one(setup, sid)
                records.add_sentence("a", rec)
                recorded_a[sid] = rec
            else:
                while setup.store.undo_decision(sid) is not None:
                    pass
                replay(setup, sid, rec["answers"])
            if sid not in chosen_before:
                records.add_sentence("c", {"sentence": sid})
            done.append(rec)
        chosen = set(batch)
        left = [s for s in left if s not in chosen]
        model, data, rec = run_point(setup, records, "c", fraction, done, model_seconds)
        model_seconds += rec["train_seconds"]
        names = data.names


REFERENCES = ("riezler", "best_f")


def references(setup: Setup, records: Records, kinds=REFERENCES) -> None:
    """The reference lines: the model trained from Riezler's bracketing and from ``best_f`` (no decisions)."""
    for kind in kinds:
        if records.point(kind, 100.0) is not None:
            continue
        t = time.perf_counter()
        model, data, fit = setup.train(kind)
        records.add_point({"strategy": kind, "fraction": 100.0, "sentences": len(setup.order), "decisions": 0,
                           "train_seconds": time.perf_counter() - t,
                           "sigma2": None if fit is None else fit.chosen.sigma2,
                           "trained_sentences": int(data.survivors.group_mask.sum()),
                           "test": setup.test(model, data.names)})
        write_summary(records, setup.order)
        say(f"{kind}: {PRIMARY} ER {records.points[-1]['test'][PRIMARY]['error_reduction']:.1f}%")


# ------------------------------------------------------------------------------------ summary
def targets(points: list[dict], total: int | None, sentences: int) -> list[str]:
    """The issue's two targets against ``total``, the decisions (a) needs for the whole training split
    (its ``sentences``), met or missed by how much."""
    refs = {p["strategy"]: p for p in points if p["strategy"] in ("riezler", "best_f")}
    if not total or len(refs) < 2:
        return ["Targets: not evaluated yet (needs (a)'s answers for every sentence and both reference lines)."]
    lines = [f"(a) needs {total} decisions for the whole training split ({sentences} sentences)."]
    for ref, budget in (("best_f", 0.20), ("riezler", 0.05)):
        r = refs[ref]["test"][PRIMARY]
        lo = r["er_ci95"][0]
        cap = budget * total
        cands = [p for p in points if p["strategy"] in STRATEGIES and p["test"][PRIMARY]["error_reduction"] is not None]
        within = [p for p in cands if p["decisions"] <= cap]
        best = max(within, key=lambda p: p["test"][PRIMARY]["error_reduction"], default=None)
        reach = sorted((p for p in cands if p["test"][PRIMARY]["error_reduction"] >= lo), key=lambda p: p["decisions"])
        first = reach[0] if reach else None
        head = (f"Target: {ref}'s {PRIMARY} error reduction {r['error_reduction']:.1f}% (95% interval "
                f"{lo:.1f} to {r['er_ci95'][1]:.1f}) with at most {budget:.0%} of (a)'s decisions ({cap:.0f}): ")
        if best is not None and best["test"][PRIMARY]["error_reduction"] >= lo:
            head += (f"MET by ({best['strategy']}) at {best['decisions']} decisions "
                     f"({100 * best['decisions'] / total:.1f}%): {best['test'][PRIMARY]['error_reduction']:.1f}%.")
        else:
            got = "none" if best is None else (f"{best['test'][PRIMARY]['error_reduction']:.1f}% "
                                               f"(({best['strategy']}) at {best['decisions']} decisions)")
            head += (f"MISSED: the best within the budget is {got}, "
                     + (f"{lo - best['test'][PRIMARY]['error_reduction']:.1f} points below the interval; "
                        if best is not None else "")
                     + (f"first reached by ({first['strategy']}) at {first['decisions']} decisions "
                        f"({100 * first['decisions'] / total:.1f}% of (a)'s)." if first else "no point reaches it."))
        lines.append(head)
    return lines


def summary_markdown(points: list[dict], total: int | None, sentences: int) -> str:
    lines = ["| strategy | % of sentences | sentences | decisions | automatic | MPH ER (95% interval) | "
             "untyped dep. ER | EVALB lab. ER | sigma^2 | trained on | model s / decision |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def er(p, m):
        t = p["test"].get(m)
        if not t or t["error_reduction"] is None:
            return "n/a"
        return f"{t['error_reduction']:.1f}" + (f" ({t['er_ci95'][0]:.1f}-{t['er_ci95'][1]:.1f})" if m == PRIMARY else "")

    order = {s: i for i, s in enumerate((*STRATEGIES, "riezler", "best_f"))}
    for p in sorted(points, key=lambda p: (order[p["strategy"]], p["fraction"])):
        ms = p.get("model_seconds", 0.0) + p["train_seconds"]
        per = f"{ms / p['decisions']:.3f}" if p["decisions"] else "-"
        lines.append(f"| {p['strategy']} | {p['fraction']:g} | {p['sentences']} | {p['decisions']} | "
                     f"{p.get('automatic', 0)} | {er(p, PRIMARY)} | {er(p, 'deps_untyped')} | "
                     f"{er(p, 'evalb_labeled')} | {p['sigma2']} | {p['trained_sentences']} | {per} |")
    return "\n".join(targets(points, total, sentences) + [""] + lines) + "\n"


def plot(points: list[dict], path: Path, total: int | None) -> bool:
    """The curves as a PNG (False when matplotlib is not installed)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, x_of, xlabel in ((axes[0], "decisions", "decisions spent by the annotator (log scale)"),
                             (axes[1], "sentences", "training sentences annotated (log scale)")):
        for s, style in zip(STRATEGIES, ("o-", "s-", "^-")):
            ps = sorted((p for p in points if p["strategy"] == s and p["decisions"] > 0), key=lambda p: p[x_of])
            if ps:
                ax.plot([p[x_of] for p in ps], [p["test"][PRIMARY]["error_reduction"] or 0 for p in ps], style,
                        label=TITLES[s])
        for ref, colour in (("riezler", "tab:grey"), ("best_f", "tab:red")):
            r = next((p for p in points if p["strategy"] == ref), None)
            if r:
                t = r["test"][PRIMARY]
                ax.axhline(t["error_reduction"], color=colour, ls="--", label=TITLES[ref])
                ax.axhspan(t["er_ci95"][0], t["er_ci95"][1], color=colour, alpha=0.12)
        if x_of == "decisions" and total:
            for share in (0.05, 0.20):
                ax.axvline(share * total, color="black", ls=":", lw=0.8)
                ax.text(share * total, ax.get_ylim()[1], f" {share:.0%} of (a)'s decisions", fontsize=8, va="top")
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"test {PRIMARY} error reduction (%)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write_summary(records: Records, order: list[str] | None = None) -> None:
    """``summary.md`` and ``curves.png`` of the points recorded so far (by any process writing to ``--out``).

    The targets' budget is (a)'s answers for every sentence of ``order`` (default: every sentence
    (a) has answered), once it has answered them all.
    """
    records.points = records._read(records.points_file)
    answered = records.sentences("a")
    order = list(answered) if order is None else order
    total = sum(answered[sid]["asked"] for sid in order) if order and all(s in answered for s in order) else None
    (records.out / "summary.md").write_text(summary_markdown(records.points, total, len(order)))
    plot(records.points, records.out / "curves.png", total)


# ------------------------------------------------------------------------------------ main
def parse_fractions(text: str) -> list[float]:
    try:
        out = sorted({float(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise RankerError(f"--fractions: {text!r} is not a comma-separated list of percentages") from None
    if not out or out[0] <= 0 or out[-1] > 100:
        raise RankerError(f"--fractions: {text!r}: percentages must be in (0, 100]")
    return out


def main(argv=None) -> int:
    from ranker.pipeline.config import load_config
    from ranker.store import Store

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/wsj-sample.toml")
    ap.add_argument("--store", required=True,
                    help="a scratch copy of a store the main run filled (decisions and models are written to it)")
    ap.add_argument("--out", default="runs/annotation-economy")
    ap.add_argument("--fractions", default="1,2,5,10,20,50,100", help="percentages of the training sentences")
    ap.add_argument("--strategies", default="a,b,c", help="which of a, b, c to run, in this order")
    ap.add_argument("--threshold", type=float, default=0.9,
                    help="(b): the model answers a discriminant whose probability is >= this or <= 1 - this")
    ap.add_argument("--bc-max", type=float, default=100.0,
                    help="(b) and (c): run only the points up to this percentage (the machine's time)")
    ap.add_argument("--pool", type=int, default=None, help="use only the first N training sentences (a smoke run)")
    ap.add_argument("--references", default="riezler,best_f",
                    help="which reference lines to train (riezler, best_f; 'none' for neither)")
    ap.add_argument("--summary-only", action="store_true",
                    help="only rewrite summary.md and curves.png from the points recorded in --out")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    if args.summary_only:
        records = Records(Path(args.out))
        write_summary(records)
        print((records.out / "summary.md").read_text())
        return 0
    fractions = parse_fractions(args.fractions)
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip() not in ("", "none")]
    refs = [r.strip() for r in args.references.split(",") if r.strip() not in ("", "none")]
    if any(r not in REFERENCES for r in refs):
        raise RankerError(f"--references: {args.references!r}: choose among {', '.join(REFERENCES)}, or none")
    if any(s not in STRATEGIES for s in strategies):
        raise RankerError(f"--strategies: {args.strategies!r}: choose among {', '.join(STRATEGIES)}")
    if not 0.5 < args.threshold <= 1.0:
        raise RankerError(f"--threshold must be in (0.5, 1], not {args.threshold}")
    if not Path(args.store).exists():
        raise RankerError(f"{args.store}: no such store (copy the store the main run filled)")
    cfg = load_config(args.config)
    records = Records(Path(args.out))
    with Store.open(args.store) as st:
        setup = Setup(cfg, st, args.workers, args.pool)
        say(f"{len(setup.order)} training sentences with candidates in the pool")
        if "a" in strategies or "c" in strategies:
            simulate_a(setup, records)
        if "a" in strategies:   # the small points first: they are quick
            strategy_a(setup, records, [f for f in fractions if f <= 20])
        references(setup, records, refs)
        write_summary(records, setup.order)
        for s in strategies:
            say(f"strategy {TITLES[s]}")
            if s == "a":   # the whole split's point last: it costs most, and the targets need only its answers
                strategy_a(setup, records, [f for f in fractions if f < 100])
            elif s == "b":
                strategy_b(setup, records, [f for f in fractions if f <= args.bc_max], args.threshold)
            else:
                strategy_c(setup, records, [f for f in fractions if f <= args.bc_max])
            write_summary(records, setup.order)
        if "a" in strategies:
            strategy_a(setup, records, fractions)
            write_summary(records, setup.order)
        if strategies:   # take the simulated decisions back (a process drawing references alone has none)
            clear_decisions(st)
    print((records.out / "summary.md").read_text())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RankerError as e:
        print(f"annotation-economy: error: {e}", file=sys.stderr)
        sys.exit(2)
