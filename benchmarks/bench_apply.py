"""``ranker apply`` end to end: sentences per second per core, and peak memory, on both kinds of input.

* ``--lists FILE --model M``: a parser's n-best lists (BLLIP format) reranked with an exported
  model (import, features, select; the BLLIP lists of the WSJ sample's test split by default);
* ``--text FILE --model M``: plain text parsed with Link Grammar, then features and select.

``--runs`` picks what is measured (a comma list):

* ``store``: cold (a temporary store, as ``ranker apply`` did before lists were streamed), cold
  with ``--store`` kept, and warm (the store of the cold run: a rerun parses and extracts nothing);
* ``stream``: lists streamed in one process (``--workers 1``: no store, the model's columns only);
* ``pool``, ``dask``: the lists as one plain file cut into partitions (``--partition-mb``) applied
  by ``--workers`` forked processes, or by a Dask local cluster of that many worker processes; the
  speed-up over ``stream`` is printed beside;
* ``scale``: the lists replicated to ``--replicate`` sentences in one plain file, streamed in one
  process, against the input itself: time per sentence and peak memory of both, and their ratios
  (issue 38: time linear in sentences, memory independent of the input's size).

Run as a user runs it (``ranker apply`` in a child process), timed by wall clock and CPU of the
child and its workers (sentences per CPU second is the rate per core); peak RSS is the largest
process's. Prints one JSON line per run:

    python benchmarks/bench_apply.py --model bllip.json --lists ../shared/nbest/bllip-wsj-sample/nbest-test.txt.gz
    python benchmarks/bench_apply.py --model bllip.json --lists LISTS --runs stream,pool,dask,scale --replicate 4000
    python benchmarks/bench_apply.py --model gum.json --text gum-test.txt --text-format tagged

The figures and the model each was run with are logged in benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
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
    """One ``ranker apply`` in a child process: wall, CPU (the child and the workers it waited for), peak RSS.

    The child's own resource usage (``wait4``), not the sum over every child so far: each run's
    peak is its own.
    """
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "ranker.cli.main", *argv], stdout=subprocess.DEVNULL,
                                stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"ranker apply failed: {err.read().decode().strip()[-500:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("--lists")
    given.add_argument("--text")
    p.add_argument("--format", default="bllip")
    p.add_argument("--text-format", default="tokens")
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--runs", default="store", help="comma list of store, stream, pool, dask, scale")
    p.add_argument("--partition-mb", default="4", help="pool, dask: partition size")
    p.add_argument("--replicate", type=int, default=4000, help="scale: sentences of the large input")
    args = p.parse_args(argv)
    path = Path(args.lists or args.text)
    n = sentences_in(path, bool(args.lists))
    cores = args.workers or os.cpu_count() or 1
    runs = args.runs.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        out = str(tmp / "best.mrg")

        def report(label, got, sentences, **more):
            got.update(run=label, input=str(path), sentences=sentences, cores=cores,
                       sentences_per_s=round(sentences / got["wall_s"], 1),
                       sentences_per_cpu_s=round(sentences / max(got["cpu_s"], 1e-9), 1), **more)
            print(json.dumps(got), flush=True)
            return got

        if "store" in runs:
            base = ["apply", "--model", args.model, "--no-progress", "--workers", str(args.workers)]
            base += ["--lists", str(path), "--format", args.format] if args.lists else \
                ["--text", str(path), "--text-format", args.text_format]
            for label, extra in (("cold", []), ("cold, kept store", ["--store", str(tmp / "s.sqlite")]),
                                 ("warm", ["--store", str(tmp / "s.sqlite")])):
                report(label, run([*base, *extra, "--out", out]), n)
        if not args.lists:
            return 0
        lists = ["apply", "--model", args.model, "--no-progress", "--format", args.format]
        one = None
        if {"stream", "pool", "dask"} & set(runs):
            one = report("stream, one process", run([*lists, "--lists", str(path), "--workers", "1", "--out", out]), n)
        if {"pool", "dask"} & set(runs):
            plain = tmp / "lists.txt"
            plain.write_bytes(read_bytes(path))
            for label, extra in (("pool", []), ("dask", ["--executor", "dask"])):
                if label in runs:
                    got = run([*lists, "--lists", str(plain), "--workers", str(cores), "--partition-mb",
                               args.partition_mb, *extra, "--out", str(tmp / f"{label}.mrg")])
                    report(f"{label}, {cores} workers", got, n, speedup=round(one["wall_s"] / got["wall_s"], 2),
                           same_bytes=(tmp / f"{label}.mrg").read_bytes() == Path(out).read_bytes())
        if "scale" in runs:
            small = report("scale: input", run([*lists, "--lists", str(path), "--workers", "1", "--out", out]), n)
            big = tmp / "replicated.txt"
            blocks = [b for b in read_bytes(path).decode("utf-8").split("\n\n") if b.strip()]
            with open(big, "w", encoding="utf-8") as f:
                for k in range(args.replicate):
                    f.write(blocks[k % len(blocks)] + "\n\n")
            got = run([*lists, "--lists", str(big), "--workers", "1", "--out", out])
            big.unlink()
            report("scale: replicated", got, args.replicate,
                   time_ratio=round(got["cpu_s"] / (small["cpu_s"] * args.replicate / n), 3),
                   memory_ratio=round(got["peak_rss_mb"] / small["peak_rss_mb"], 3))
    return 0


def read_bytes(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()


if __name__ == "__main__":
    sys.exit(main())
