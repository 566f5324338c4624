"""``ranker apply`` end to end: sentences per second per core, and peak memory, on both kinds of input.

* ``--lists FILE --model M``: a parser's n-best lists (BLLIP format) reranked with an exported
  model (import, features, select; the BLLIP lists of the WSJ sample's test split by default);
* ``--text FILE --model M``: plain text parsed with Link Grammar, then features and select.

Each input is applied cold (a temporary store, as ``ranker apply`` without ``--store``) and, with
``--store``, warm (the store of the cold run: a rerun parses and extracts nothing). Run as a user
runs it (``ranker apply`` in a child process), timed by wall clock and the child's CPU; peak RSS is
the child's (workers included). Prints one JSON line per run:

    python benchmarks/bench_apply.py --model bllip.json --lists ../shared/nbest/bllip-wsj-sample/nbest-test.txt.gz
    python benchmarks/bench_apply.py --model gum.json --text gum-test.txt --text-format tagged

The figures and the model each was run with are logged in benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def sentences_in(path: Path, lists: bool) -> int:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        text = f.read()
    if lists:
        return sum(1 for b in text.split("\n\n") if b.strip())
    return sum(1 for line in text.splitlines() if line.strip())


def run(argv: list[str]) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "ranker.cli.main", *argv], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"ranker apply failed: {proc.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "peak_rss_mb": round(after.ru_maxrss / 1024)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("--lists")
    given.add_argument("--text")
    p.add_argument("--format", default="bllip")
    p.add_argument("--text-format", default="tokens")
    p.add_argument("--workers", type=int, default=0)
    args = p.parse_args(argv)
    path = Path(args.lists or args.text)
    n = sentences_in(path, bool(args.lists))
    cores = args.workers or os.cpu_count() or 1
    base = ["apply", "--model", args.model, "--no-progress", "--workers", str(args.workers)]
    base += ["--lists", str(path), "--format", args.format] if args.lists else \
        ["--text", str(path), "--text-format", args.text_format]
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "best.mrg")
        for label, extra in (("cold", []), ("cold, kept store", ["--store", str(Path(tmp) / "s.sqlite")]),
                             ("warm", ["--store", str(Path(tmp) / "s.sqlite")])):
            got = run([*base, *extra, "--out", out])
            got.update(run=label, input=str(path), sentences=n, cores=cores,
                       sentences_per_s=round(n / got["wall_s"], 1),
                       sentences_per_cpu_s=round(n / max(got["cpu_s"], 1e-9), 1))
            print(json.dumps(got), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
