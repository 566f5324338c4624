"""Wall clock of the main job, ``ranker run``, with a cold store and then with the warm one.

Issue 13's targets: the whole ``configs/wsj-sample.toml`` experiment in at most 10 minutes on this
2-core machine from an empty store (Link Grammar parsing included) with a peak of at most 5 GB, and
a rerun on the warm store in at most 1 minute. The benchmark copies the config with its
``[experiment] store`` pointed at a new file in a temporary folder (the user's store is never
touched), runs it twice in a subprocess, and prints as JSON the seconds of each run, its ratio to
the target, the per-stage seconds and per-stage peak memory of the report (the stage's process and
its workers, :mod:`ranker.memory`), the peak resident memory of the largest process, and whether
both runs gave the same scores. ``--from-store`` starts from a copy of a store filled before (its
forests parsed: the first run then measures everything but parsing).

Run alone, on an otherwise idle machine (it takes about 15 minutes)::

    NLTK_DATA=../shared/nltk_data python benchmarks/bench_run.py [--config configs/wsj-sample.toml]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"cold": 10 * 60.0, "warm": 60.0}
PEAK_TARGET_MB = 5 * 1024


def _run(config: Path, out: Path) -> tuple[float, float]:
    """Seconds and peak resident megabytes of one ``ranker run`` in a child process."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ranker.cli.main", "run", str(config), "--out", str(out),
                    "--no-progress"], check=True)
    seconds = time.perf_counter() - t0
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss   # the largest child so far
    return seconds, peak_kib / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/wsj-sample.toml")
    ap.add_argument("--from-store", help="start from a copy of this store (never written)")
    args = ap.parse_args()
    text = Path(args.config).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        tmp = Path(tmp)
        store = tmp / "store.sqlite"
        config = tmp / "config.toml"
        if args.from_store:
            shutil.copyfile(args.from_store, store)
        config.write_text(re.sub(r'(?m)^store\s*=.*$', f'store = "{store}"', text), encoding="utf-8")
        result = {"config": args.config, "from_store": args.from_store,
                  "load_average_before": list(os.getloadavg())}
        reports = {}
        for name in ("cold", "warm"):
            seconds, peak = _run(config, tmp / name)
            reports[name] = json.loads((tmp / name / "report.json").read_text(encoding="utf-8"))
            result[name] = {"seconds": round(seconds, 1), "target_seconds": TARGETS[name],
                            "ratio_to_target": round(seconds / TARGETS[name], 3),
                            # the run resets its VmHWM per stage (ranker.memory), so ru_maxrss sees
                            # only the last stage's: the run's peak is the largest stage peak
                            "peak_mb": max(reports[name].get("peak_memory_mb", {}).values(),
                                           default=round(peak)),
                            "peak_target_mb": PEAK_TARGET_MB,
                            "load_average_after": list(os.getloadavg()),
                            "stages": {k: round(v, 1) for k, v in reports[name]["timings"].items()},
                            "stage_peak_mb": reports[name].get("peak_memory_mb", {})}
        result["same_scores"] = reports["cold"]["metrics"] == reports["warm"]["metrics"]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
