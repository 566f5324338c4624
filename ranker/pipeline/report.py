"""The experiment report: plain result types, and writers for Markdown, JSON and self-contained HTML.

The writers only format what the pipeline computed; nothing here scores anything, so the three
files always agree. Tables follow Crouch et al. (2002): upper bound, each ranker, lower bound and
error reduction per metric (their Table 1), broken down by parse quality (their Tables 2 and 4) and
by sentence length (their Table 3). Beyond what the classic tools print, every ranker's score has a
paired-bootstrap interval and p-values against the source's own first choice and against Heidorn.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .run_counts import RunCounts, SourceCounts
from ..evaluation.bounds import error_reduction

REPORT_FORMAT = 2   # 2: counts are typed fields (ranker.pipeline.run_counts), not prose keys


@dataclass(frozen=True)
class RankerScore:
    """One ranker under one metric."""

    score: float
    error_reduction: float | None
    ci95: tuple[float, float]
    p_vs_native: float | None = None
    p_vs_heidorn: float | None = None
    phi: float | None = None          # share (%) of the native-to-oracle gap closed; Alpino's phi


@dataclass(frozen=True)
class MetricTable:
    """Crouch et al.'s Table 1 for one metric: bounds and every ranker (percentages)."""

    metric: str
    title: str
    upper: float
    lower: float
    rankers: dict[str, RankerScore]
    sentences: int = 0


@dataclass(frozen=True)
class BreakdownGroup:
    """One column of a breakdown: a subset of the test sentences and its tables."""

    group: str
    sentences: int
    share: float                       # percent of the test sentences
    tables: dict[str, MetricTable]


@dataclass(frozen=True)
class Plot:
    """Data for one figure: named series of (x, y) points."""

    name: str
    title: str
    xlabel: str
    ylabel: str
    series: dict[str, tuple[tuple[float, ...], tuple[float, ...]]]
    xscale: str = "linear"


@dataclass
class Report:
    """Everything ``ranker run`` reports."""

    name: str
    metrics: dict[str, MetricTable]
    by_quality: list[BreakdownGroup] = field(default_factory=list)
    by_length: list[BreakdownGroup] = field(default_factory=list)
    counts: RunCounts = field(default_factory=RunCounts)   # typed; worded by count_rows
    timings: dict[str, float] = field(default_factory=dict)
    plots: list[Plot] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    peak_memory_mb: dict[str, float | None] = field(default_factory=dict)   # per stage, workers included
    fits: dict[str, dict] = field(default_factory=dict)   # ranker -> typed fit record (FitSummary + choice)
    by_group: list[BreakdownGroup] = field(default_factory=list)   # by document group ([report] group_documents)
    # several treebanks ([[data.also]]): each test split's scores of every model (TreebankTest.to_dict)
    by_treebank: list[dict] = field(default_factory=list)


def _clean(x):
    """JSON-safe copy: NaN/inf become None so no NaN ever reaches a report file."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def _fit_rows(fits: dict[str, dict]) -> list[list[str]]:
    """The words for the typed fit records (the only place they are made)."""
    rows = []
    for name, f in fits.items():
        if f.get("sigma2") is not None:   # a log-linear fit
            chosen = f.get("chosen_on", "")
            rows.append([f"{name}: sigma2 (chosen on {chosen})" if chosen else f"{name}: sigma2",
                         _num(f["sigma2"])])
            rows.append([f"{name}: {f.get('optimizer', '').upper() or 'solver'} iterations",
                         _num(f["iterations"])])
            rows.append([f"{name}: objective evaluations", _num(f["evaluations"])])
            rows.append([f"{name}: converged", "yes" if f.get("converged") else "no"])
            if f.get("grad_max") is not None:
                rows.append([f"{name}: final gradient (largest component per sentence)", f"{f['grad_max']:.2g}"])
            metric = chosen.removeprefix("heldout ")
            for s2, q in f.get("trials", ()):
                rows.append([f"{name}: held-out {metric} at sigma2={s2:g}", _num(q)])
            if f.get("domains"):   # several treebanks: the feature space chosen like sigma2
                rows.append([f"{name}: feature space of the treebanks (chosen on {chosen})", f["domains"]])
            if f.get("rules"):   # [annotation] rule = "auto" or several feature spaces: chosen like sigma2
                screen = f.get("screen")   # [annotation] screen_iterations: the trials are short fits
                if f.get("rule"):
                    how = (f", by screening fits of at most {screen['iterations']} iterations at sigma2="
                           f"{screen['sigma2']:g}; its sigma2 grid fitted in full" if screen else "")
                    rows.append([f"{name}: consistency rule (chosen on {chosen}{how})", f["rule"]])
                for rule, kept, s2, q, *rest in f["rules"]:
                    space, iters = (rest + [None, None])[:2]   # older reports: no space or iterations
                    what = f"rule {rule}" + (f", features {space}" if f.get("domains") and space else "")
                    fitted = "" if iters is None else f", {iters} iterations"
                    rows.append([f"{name}: {what}: {'screening fit ' if screen else ''}held-out {metric} (sigma2 "
                                 f"{'-' if s2 is None else format(s2, 'g')}{fitted}, {kept:,} training sentences kept)",
                                 "-" if q is None else _num(q)])
        else:                            # Heidorn's K search
            rows.append([f"{name}: K changes accepted in tuning", _num(f["iterations"])])
    return rows


#: Under the Fits table when a choice was made on held-out: why its held-out figures are not the
#: metric tables' (:func:`ranker.models.tuning.selected_quality`; on GUM's dev five points apart).
_FITS_TEXT = ("A held-out score here is what the choice maximises: the mean, over the held-out sentences with "
              "candidates, of the chosen candidate's own sentence score, so short sentences count as much as "
              "long ones; the metric tables give corpus scores (counts summed over sentences), which can differ "
              "by several points.")


def _fits_text(fits: dict[str, dict]) -> str:
    """:data:`_FITS_TEXT` when some fit lists held-out scores, else nothing."""
    return _FITS_TEXT if any(f.get("sigma2") is not None and (f.get("trials") or f.get("rules"))
                             for f in fits.values()) else ""


def _source_rows(c: SourceCounts | None, prefix: str = "") -> list[tuple[str, float]]:
    if c is None:
        return []
    rows = [("sentences parsed now", c.parsed_now), ("unmapped tokens (this run)", c.unmapped_tokens),
            ("import: forests", c.imported_forests), ("import: candidates", c.imported_candidates)]
    return [(prefix + k, v) for k, v in rows if v is not None]


_PARSE_STATUSES_TEXT = ("Link Grammar's outcome for every sentence of the run, by its length in tokens: full "
                        "(a complete linkage), fragment (null links), timeout (the budget, [parse] "
                        "max_parse_time, ran out: skimmed candidates or none), nolinkage, error, crash. "
                        "ranker parse --reparse timeout --max-parse-time N parses the timeouts again with "
                        "another budget.")


def _parse_status_table(c: RunCounts) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the parse statuses by length (:func:`ranker.sources.parse_statuses.table_rows`)."""
    from ..sources.parse_statuses import table_rows

    return table_rows(c.parse_statuses)


def count_rows(c: RunCounts) -> list[tuple[str, float]]:
    """The words for the typed counts (the only place they are made), in the report's order."""
    rows: list[tuple[str, float]] = [(f"{name} sentences", n) for name, n in c.sentences.items()]
    if c.skipped is not None:
        rows.append((f"{next(iter(c.sentences), 'input')} sentences skipped (unreadable, empty or too long)",
                     c.skipped))
    rows += [(f"{corpus} sentences (partial annotation only)", n) for corpus, n in c.extra_sentences.items()]
    rows += _source_rows(c.source) + _source_rows(c.evidence, "evidence: ")
    if c.deps_ceiling is not None:
        rows.append(("deps_untyped ceiling: gold trees converted by head rules (test)", c.deps_ceiling))
    for label, v in (("features before cut-off", c.features_before_cutoff),
                     ("features after cut-off", c.features_after_cutoff),
                     ("training sentences kept", c.training_kept)):
        if v is not None:
            rows.append((label, v))
    rows += [(f"training sentences dropped: {why}", n) for why, n in c.training_dropped.items()]
    for what, f in c.forests.items():
        rows += [(f"{what} candidates", f.candidates), (f"{what} candidates per sentence (mean)", f.mean),
                 (f"{what} candidates per sentence (median)", f.median),
                 (f"{what} sentences without candidates", f.without)]
        rows += [(f"{what} sentences whose forest is {q}", n) for q, n in f.qualities.items()]
    if c.trees_written is not None:
        rows.append(("trees written", c.trees_written))
    return rows


def report_to_json(report: Report) -> dict:
    """The JSON document: ``metrics -> name -> {upper, lower, rankers -> name -> {score, ...}}``."""
    doc = asdict(report)
    if not report.by_group:   # reports without [report] group_documents read as before
        doc.pop("by_group")
    if not report.by_treebank:   # nor those of one treebank
        doc.pop("by_treebank")
    doc["format"] = REPORT_FORMAT
    doc.pop("plots")
    doc["plots"] = {p.name: {"title": p.title, "xlabel": p.xlabel, "ylabel": p.ylabel,
                             "series": {k: {"x": list(v[0]), "y": list(v[1])}
                                        for k, v in p.series.items()}} for p in report.plots}
    return _clean(doc)


def _fmt(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _fmt_p(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _metric_rows(t: MetricTable, with_stats: bool) -> list[list[str]]:
    rows = [["upper bound (oracle)", _fmt(t.upper), "", "", "", "", ""]]
    for name, r in t.rankers.items():
        ci = f"[{_fmt(r.ci95[0])}, {_fmt(r.ci95[1])}]" if with_stats else ""
        rows.append([name, _fmt(r.score), _fmt(r.error_reduction, 0), _fmt(r.phi, 0), ci,
                     _fmt_p(r.p_vs_native) if with_stats else "",
                     _fmt_p(r.p_vs_heidorn) if with_stats else ""])
    rows.append(["lower bound (random)", _fmt(t.lower), "", "", "", "", ""])
    return rows


_HEAD = ["selection", "score", "error red. %", "phi %", "95% CI", "p vs native", "p vs heidorn"]


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def _breakdown_header(groups: list[BreakdownGroup]) -> list[str]:
    return ["metric / selection"] + [f"{g.group} ({g.sentences} sent., {g.share:.1f}%)"
                                     for g in groups]


def _breakdown_rows(groups: list[BreakdownGroup], bold: str = "") -> list[list[str]]:
    """Bounds, every ranker and the log-linear error reduction, per metric, one column per group."""
    rows = []
    for m in groups[0].tables:
        rankers = list(groups[0].tables[m].rankers)
        rows.append([f"{bold}{m}{bold} upper"] + [_fmt(g.tables[m].upper) for g in groups])
        for r in rankers:
            rows.append([f"{m} {r}"] + [_fmt(g.tables[m].rankers[r].score) for g in groups])
        rows.append([f"{m} lower"] + [_fmt(g.tables[m].lower) for g in groups])
        rows.append([f"{m} error red. (loglinear)"] + [
            _fmt(g.tables[m].rankers["loglinear"].error_reduction, 0)
            if "loglinear" in g.tables[m].rankers else "-" for g in groups])
        rows.append([f"{m} phi (loglinear)"] + [
            _fmt(g.tables[m].rankers["loglinear"].phi, 0)
            if "loglinear" in g.tables[m].rankers else "-" for g in groups])
    return rows


def _summary(report: Report) -> tuple[list[str], list[list[str]]]:
    """Crouch et al.'s Table 1 for every metric at once: each ranker's score (error reduction %)."""
    first = next(iter(report.metrics.values()))
    header = ["metric", "upper"] + list(first.rankers) + ["lower"]
    rows = [[t.title, _fmt(t.upper)]
            + [f"{_fmt(r.score)} ({_fmt(r.error_reduction, 0)}%)" if r.error_reduction is not None
               and math.isfinite(r.error_reduction) else f"{_fmt(r.score)} (n/a)"
               for r in t.rankers.values()]
            + [_fmt(t.lower)] for t in report.metrics.values()]
    return header, rows


_SUMMARY_TEXT = ("Test-split score of each selection, with its error reduction in parentheses; "
                 "each metric's own section below gives 95% intervals and p-values.")


_TREEBANK_TEXT = ("The model trained on every treebank together beside one trained on each alone (its "
                  "rule the combined run's, its sigma2 chosen on its own held-out), on each treebank's "
                  "test split: score (error reduction between that split's random and oracle bounds, %).")


def _treebank_tables(tests: list[dict]) -> list[tuple[str, list[str], list[list[str]]]]:
    """``(title, header, rows)`` per test split of a run on several treebanks."""
    out = []
    for t in tests:
        metrics = list(t["lower"])
        rows = [["random (lower bound)", *(_fmt(t["lower"][m]) for m in metrics)]]
        for label, scores in t["scores"].items():
            cells = []
            for m in metrics:
                er = error_reduction(scores[m], t["lower"][m], t["upper"][m])
                cells.append(f"{_fmt(scores[m])} ({_fmt(er)})")
            rows.append([label, *cells])
        rows.append(["oracle (upper bound)", *(_fmt(t["upper"][m]) for m in metrics)])
        out.append((f"Test split of {t['corpus']} ({t['sentences']:,} sentences)", ["model", *metrics], rows))
    return out


def _breakdown_md(title: str, groups: list[BreakdownGroup]) -> str:
    if not groups:
        return ""
    out = [f"## {title}", "", _md_table(_breakdown_header(groups), _breakdown_rows(groups, "**"))]
    return "\n".join(out) + "\n"


def report_to_markdown(report: Report, plot_files: dict[str, str] | None = None) -> str:
    """A report people read: one table per metric, breakdowns, counts, timings, plots, notes."""
    out = [f"# Parse selection report: {report.name}", ""]
    if report.notes:
        out += [f"- {n}" for n in report.notes] + [""]
    if report.metrics:
        out += ["Scores are percentages. Error reduction = (ranker - lower) / (upper - lower) x 100; "
                "phi = (ranker - native) / (upper - native) x 100, the share of the gap the source's own "
                "first choice leaves that the ranker closes (as Alpino's papers report it). "
                "The lower bound is the exact expectation of a random pick (mean counts over each "
                "forest); the upper bound picks, per sentence, the best candidate under that metric. "
                "Intervals are paired-bootstrap percentile intervals over test sentences; p-values are "
                "two-sided approximate randomization tests against the source's own first candidate "
                "(native: Link Grammar's first linkage, or an n-best list's first parse) and Heidorn's "
                "metric with K = 0.1.", ""]
        out += ["## Summary", "", _SUMMARY_TEXT, "", _md_table(*_summary(report)), ""]
    for name, t in report.metrics.items():
        out += [f"## {name}: {t.title}", ""]
        out.append(_md_table(_HEAD, _metric_rows(t, with_stats=True)))
        out.append("")
    out.append(_breakdown_md("Breakdown by parse quality", report.by_quality))
    out.append(_breakdown_md("Breakdown by sentence length", report.by_length))
    out.append(_breakdown_md("Breakdown by document group", report.by_group))
    if report.by_treebank:
        out += ["## By treebank", "", _TREEBANK_TEXT, ""]
        for title, header, rows in _treebank_tables(report.by_treebank):
            out += [f"### {title}", "", _md_table(header, rows), ""]
    if report.counts.parse_statuses:
        out += ["## Parse statuses by sentence length", "", _PARSE_STATUSES_TEXT, "",
                _md_table(*_parse_status_table(report.counts)), ""]
    counted = count_rows(report.counts)
    if counted:
        out += ["## Counts", "", _md_table(["what", "value"], [[k, _num(v)] for k, v in counted]), ""]
    if report.fits:
        note = _fits_text(report.fits)
        out += ["## Fits", "", _md_table(["what", "value"], _fit_rows(report.fits)), ""] + ([note, ""] if note else [])
    if report.timings:
        out += ["## Time per stage (seconds)", "",
                _md_table(*_timing_table(report)), ""]
    for p in report.plots:
        if plot_files and p.name in plot_files:
            out += [f"## {p.title}", "", f"![{p.title}]({plot_files[p.name]})", ""]
        if _points_shown(p):
            if not (plot_files and p.name in plot_files):
                out += [f"## {p.title}", ""]
            out += [_md_table(*_plot_points(p)), ""]
    if report.versions:
        out += ["## Versions", "", ", ".join(f"{k} {v}" for k, v in report.versions.items()), ""]
    return "\n".join(out)


def _num(v) -> str:
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.2f}"
    return f"{int(v):,}" if isinstance(v, (int, float)) else str(v)


def render_plot_png(p: Plot) -> bytes:
    """Draw one plot with matplotlib (Agg, no display) and return the PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for label, (xs, ys) in p.series.items():
        ax.plot(xs, ys, marker="o", markersize=3, label=label)
    ax.set_xscale(p.xscale)
    ax.set_title(p.title)
    ax.set_xlabel(p.xlabel)
    ax.set_ylabel(p.ylabel)
    ax.grid(alpha=0.3)
    if len(p.series) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def report_to_html(report: Report, pngs: dict[str, bytes]) -> str:
    """A self-contained HTML page (plots embedded), readable offline and easy to mail around."""
    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{e(report.name)}</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
             "padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
             "th{background:#f0f0f0}</style></head><body>",
             f"<h1>Parse selection report: {e(report.name)}</h1>"]
    parts += [f"<p>{e(n)}</p>" for n in report.notes]

    def table(header, rows):
        h = "".join(f"<th>{e(x)}</th>" for x in header)
        body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
        return f"<table><tr>{h}</tr>{body}</table>"

    if report.metrics:
        parts.append(f"<h2>Summary</h2><p>{e(_SUMMARY_TEXT)}</p>" + table(*_summary(report)))
    for name, t in report.metrics.items():
        parts.append(f"<h2>{e(name)}: {e(t.title)}</h2>")
        parts.append(table(_HEAD, _metric_rows(t, with_stats=True)))
    for title, groups in (("Breakdown by parse quality", report.by_quality),
                          ("Breakdown by sentence length", report.by_length),
                          ("Breakdown by document group", report.by_group)):
        if groups:
            parts.append(f"<h2>{e(title)}</h2>")
            parts.append(table(_breakdown_header(groups), _breakdown_rows(groups)))
    if report.by_treebank:
        parts.append(f"<h2>By treebank</h2><p>{e(_TREEBANK_TEXT)}</p>")
        for title, header, rows in _treebank_tables(report.by_treebank):
            parts.append(f"<h3>{e(title)}</h3>" + table(header, rows))
    if report.counts.parse_statuses:
        parts.append(f"<h2>Parse statuses by sentence length</h2><p>{e(_PARSE_STATUSES_TEXT)}</p>"
                     + table(*_parse_status_table(report.counts)))
    counted = count_rows(report.counts)
    if counted:
        parts.append("<h2>Counts</h2>" + table(["what", "value"], [[k, _num(v)] for k, v in counted]))
    if report.fits:
        note = _fits_text(report.fits)
        parts.append("<h2>Fits</h2>" + table(["what", "value"], _fit_rows(report.fits))
                     + (f"<p>{e(note)}</p>" if note else ""))
    if report.timings:
        parts.append("<h2>Time per stage (seconds)</h2>" + table(*_timing_table(report)))
    for p in report.plots:
        if p.name in pngs:
            b64 = base64.b64encode(pngs[p.name]).decode("ascii")
            parts.append(f"<h2>{e(p.title)}</h2><img alt='{e(p.title)}' "
                         f"src='data:image/png;base64,{b64}'>")
        elif _points_shown(p):
            parts.append(f"<h2>{e(p.title)}</h2>")
        if _points_shown(p):
            parts.append(table(*_plot_points(p)))
    if report.versions:
        parts.append("<h2>Versions</h2><p>" + e(", ".join(f"{k} {v}" for k, v in
                                                          report.versions.items())) + "</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


#: Plots with at most this many points per series also print their points as a table.
POINTS_TABLE_MAX = 20


def _points_shown(p: Plot) -> bool:
    """Whether a plot is small enough for its points to be read as a table beside the figure.

    The learning curve's few points decide a claim (does test F rise with training data?) that a
    figure shows only roughly.
    """
    return bool(p.series) and all(0 < len(xs) <= POINTS_TABLE_MAX for xs, _ in p.series.values())


def _plot_points(p: Plot) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a plot's points: its x values, one column of y values per series."""
    xs = sorted({x for xv, _ in p.series.values() for x in xv})
    ys = {label: dict(zip(xv, yv)) for label, (xv, yv) in p.series.items()}
    rows = [[_num(x)] + [_fmt(ys[label][x], 2) if x in ys[label] else "" for label in ys]
            for x in xs]
    return [p.xlabel] + [f"{label}: {p.ylabel}" for label in ys], rows


def _timing_table(report: Report) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-stage table: seconds, and peak memory where it was measured."""
    mem = report.peak_memory_mb
    if not mem:
        return ["stage", "seconds"], [[k, f"{v:.1f}"] for k, v in report.timings.items()]
    return (["stage", "seconds", "peak memory (MB)"],
            [[k, f"{v:.1f}", "" if mem.get(k) is None else f"{mem[k]:.0f}"]
             for k, v in report.timings.items()])


#: The files of a report in its folder, by kind (an output of the same command must not be one of them).
REPORT_NAMES = {"md": "report.md", "json": "report.json", "html": "report.html"}


def write_report(report: Report, out_dir: str | Path, plots: bool = True) -> dict[str, Path]:
    """Write ``report.md``, ``report.json``, ``report.html`` (and ``plots/*.png``) into ``out_dir``.

    Each file replaces its old version only once complete (:func:`ranker.atomicfile.atomic_write`),
    so a full disk names the file it could not write and leaves none half written.
    """
    from ..atomicfile import atomic_write

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pngs: dict[str, bytes] = {}
    plot_files: dict[str, str] = {}
    if plots and report.plots:
        (out / "plots").mkdir(exist_ok=True)
        for p in report.plots:
            pngs[p.name] = render_plot_png(p)
            with atomic_write(out / "plots" / f"{p.name}.png", binary=True) as f:
                f.write(pngs[p.name])
            plot_files[p.name] = f"plots/{p.name}.png"
    paths = {kind: out / name for kind, name in REPORT_NAMES.items()}
    texts = {"md": report_to_markdown(report, plot_files),
             "json": json.dumps(report_to_json(report), indent=2, allow_nan=False) + "\n",
             "html": report_to_html(report, pngs)}
    for kind, path in paths.items():
        with atomic_write(path) as f:
            f.write(texts[kind])
    return paths
