"""``ranker run CONFIG``: the whole experiment of a TOML config, end to end."""
from __future__ import annotations


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="run a whole experiment from a TOML config",
        description="Check the config and every file it names, then run the stages of "
        "ranker.pipeline.stages: parse the configured corpus with Link Grammar (or import the "
        "forests file) into the store, derive partial annotations, compute every candidate's "
        "counts, extract features, train the log-linear model (sigma^2 chosen on held-out), tune "
        "Heidorn's K on held-out, select one parse per test sentence with every ranker, and write "
        "report.md/.json/.html, config.resolved.toml, gold.mrg and selected/<ranker>.mrg to the "
        "output folder. Every stage's result is cached in the store by content; each stage is "
        "also a subcommand (parse, import, annotate, counts, train, select, gold). Parsing, checks, "
        "counts, features and the objective run in a local process pool, or on Dask with "
        "[experiment] executor = \"dask\" (README: Run on a Dask cluster).")
    p.add_argument("config", help="experiment config (e.g. configs/wsj-sample.toml)")
    p.add_argument("--out", default=None, help="output folder (default runs/<experiment name>)")
    p.add_argument("--store", default=None, help="store file (overrides [experiment] store)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: [experiment] "
                   "workers, 0 = all cores; with executor \"dask\" and no scheduler, the local "
                   "cluster's worker processes)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars or stage lines")
    p.set_defaults(func=run)


def run(args) -> int:
    import dataclasses
    from pathlib import Path

    from ..atomicfile import check_not_store
    from ..errors import RankerError
    from ..pipeline.config import load_config
    from ..pipeline.experiment import run_experiment

    cfg = load_config(args.config)
    exp = cfg.experiment
    if args.store is not None:
        exp = dataclasses.replace(exp, store=args.store)
    if args.workers is not None:
        exp = dataclasses.replace(exp, workers=args.workers)
    cfg = dataclasses.replace(cfg, experiment=exp)
    out = args.out or f"runs/{cfg.experiment.name}"
    check_not_store(out, cfg.experiment.store, "--out")
    if Path(out).exists() and not Path(out).is_dir():   # it said "OUT: File exists"
        raise RankerError(f"--out {out}: is a file; give a folder (the run writes report.md, gold.mrg, "
                          "selected/ and more into it)")
    report = run_experiment(cfg, out, progress=not args.no_progress)
    print(f"report: {out}/report.md")
    for name, t in report.metrics.items():
        ll = t.rankers.get("loglinear")
        er = "n/a" if ll is None or ll.error_reduction is None else f"{ll.error_reduction:.0f}%"
        print(f"  {name:18s} upper {t.upper:5.1f}  loglinear {ll.score if ll else float('nan'):5.1f}"
              f"  lower {t.lower:5.1f}  error reduction {er}")
    return 0
