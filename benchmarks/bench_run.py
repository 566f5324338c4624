"""Wall clock of the main job, ``ranker run``, with a cold store and then with the warm one.

Issue 5's targets: the whole ``configs/wsj-sample.toml`` experiment in at most 15 minutes on this
2-core machine from an empty store (Link Grammar parsing included), and a rerun on the warm store
in at most 3 minutes. The benchmark copies the config with its ``[experiment] store`` pointed at a
new file in a temporary folder (the user's store is never touched), runs it twice in a subprocess,
and prints as JSON the seconds of each run, its ratio to the target, the per-stage seconds of the
report, the peak resident memory of each run, and whether both runs gave the same scores.

Run alone, on an otherwise idle machine (it takes about 20 minutes)::

    NLTK_DATA=../shared/nltk_data python benchmarks/bench_run.py [--config configs/wsj-sample.toml]
"""
from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"cold": 15 * 60.0, "warm": 3 * 60.0}


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
    args = ap.parse_args()
    text = Path(args.config).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        tmp = Path(tmp)
        store = tmp / "store.sqlite"
        config = tmp / "config.toml"
        config.write_text(re.sub(r'(?m)^store\s*=.*$', f'store = "{store}"', text), encoding="utf-8")
        result = {"config": args.config}
        reports = {}
        for name in ("cold", "warm"):
            seconds, peak = _run(config, tmp / name)
            reports[name] = json.loads((tmp / name / "report.json").read_text(encoding="utf-8"))
            result[name] = {"seconds": round(seconds, 1), "target_seconds": TARGETS[name],
                            "ratio_to_target": round(seconds / TARGETS[name], 3),
                            "peak_rss_mb_so_far": round(peak),
                            "stages": {k: round(v, 1) for k, v in reports[name]["timings"].items()}}
        result["same_scores"] = reports["cold"]["metrics"] == reports["warm"]["metrics"]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
