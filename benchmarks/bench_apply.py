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
  (issue 38: time linear in sentences, memory independent of the input's size);
* ``peer``: the Charniak-Johnson reranker's ``best-parses`` on the same lists (read from standard
  input, one thread), beside ranker's one-process stream, with the model its own training gives:
  built and trained by ``experiments/wsj-sample-bllip/peer_reranker.py`` from a BLLIP checkout
  (``--peer-source`` or ``BLLIP_PARSER_SOURCE``; ``apt-get install flex liblbfgs-dev``) on the WSJ
  sample's train lists, the held-out lists its development set, once (``--peer-work`` keeps the
  model: ``features.gz``, ``weights.gz``). Both rates, both peaks and ranker's rate over the
  peer's are printed; the two outputs' trees are the two rerankers' choices, not the same bytes.

Run as a user runs it (``ranker apply`` in a child process), timed by wall clock and CPU of the
child and its workers (sentences per CPU second is the rate per core); peak RSS is the largest
process's. Prints one JSON line per run:

    python benchmarks/bench_apply.py --model bllip.json --lists ../shared/nbest/bllip-wsj-sample/nbest-test.txt.gz
    python benchmarks/bench_apply.py --model bllip.json --lists LISTS --runs stream,pool,dask,scale --replicate 4000
    python benchmarks/bench_apply.py --model gum.json --text gum-test.txt --text-format tagged
    python benchmarks/bench_apply.py --model bllip.json --lists LISTS --runs peer --peer-source BLLIP_CHECKOUT

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

ROOT = Path(__file__).resolve().parents[1]


def sentences_in(path: Path, lists: bool) -> int:
    """Lists (blocks after a blank line) or non-blank lines, read a line at a time.

    Never the whole file at once: a child forked from this process counts this process's resident
    pages in its own peak until it runs the new program, so a benchmark holding a 370 MB input read
    723 MB as ``ranker apply``'s peak, whatever the child used.
    """
    opener = gzip.open if path.name.endswith(".gz") else open
    n, blank = 0, True
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            empty = not line.strip()
            n += (not empty) and (blank or not lists)
            blank = empty
    return n


def plain_copy(path: Path, out: Path) -> None:
    """``path`` uncompressed into ``out``, copied a block at a time (see :func:`sentences_in`)."""
    import shutil

    with (gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")) as f, open(out, "wb") as g:
        shutil.copyfileobj(f, g, 1 << 20)


def run(argv: list[str], stdin: Path | None = None, env: dict | None = None) -> dict:
    """One ``ranker apply`` (or, with a program's path first, that program) in a child process: wall,
    CPU (the child and the workers it waited for), peak RSS.

    The child's own resource usage (``wait4``), not the sum over every child so far: each run's
    peak is its own.
    """
    cmd = argv if argv[0].startswith("/") else [sys.executable, "-m", "ranker.cli.main", *argv]
    with tempfile.TemporaryFile() as err, (open(stdin, "rb") if stdin else open(os.devnull, "rb")) as given:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=given, stdout=subprocess.DEVNULL, stderr=err,
                                env={**os.environ, **(env or {})})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{Path(cmd[0]).name if argv is cmd else 'ranker apply'} failed: "
                             f"{err.read().decode().strip()[-500:]}")
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
    p.add_argument("--runs", default="store", help="comma list of store, stream, pool, dask, scale, peer")
    p.add_argument("--partition-mb", default="4", help="pool, dask: partition size")
    p.add_argument("--replicate", type=int, default=4000, help="scale: sentences of the large input")
    p.add_argument("--peer-source", default=None, help="peer: a checkout of github.com/BLLIP/bllip-parser")
    p.add_argument("--peer-work", default=None,
                   help="peer: folder of its trained model, made once (default: under the temporary folder)")
    p.add_argument("--nbest", default=str(ROOT.parent / "shared" / "nbest" / "bllip-wsj-sample"),
                   help="peer: the WSJ sample's BLLIP lists it is trained on (nbest-{train,heldout}.txt.gz)")
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
            plain_copy(path, plain)
            for label, extra in (("pool", []), ("dask", ["--executor", "dask"])):
                if label in runs:
                    got = run([*lists, "--lists", str(plain), "--workers", str(cores), "--partition-mb",
                               args.partition_mb, *extra, "--out", str(tmp / f"{label}.mrg")])
                    report(f"{label}, {cores} workers", got, n, speedup=round(one["wall_s"] / got["wall_s"], 2),
                           same_bytes=(tmp / f"{label}.mrg").read_bytes() == Path(out).read_bytes())
        if "peer" in runs:
            plain = tmp / "peer-lists.txt"
            plain_copy(path, plain)
            ours = report("peer side by side: ranker, one process",
                          run([*lists, "--lists", str(plain), "--workers", "1", "--out", out]), n)
            weights, features, best_parses = peer_model(args)
            theirs = report("peer side by side: best-parses, one thread",
                            run([str(best_parses), "-l", str(features), str(weights)], stdin=plain,
                                env={"OMP_NUM_THREADS": "1"}), n)
            print(json.dumps({"run": "peer side by side: ratio", "ranker_over_peer_per_cpu_s": round(
                ours["sentences_per_cpu_s"] / theirs["sentences_per_cpu_s"], 3), "peak_ratio": round(
                ours["peak_rss_mb"] / max(theirs["peak_rss_mb"], 1), 2)}), flush=True)
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


def peer_model(args) -> tuple[Path, Path, Path]:
    """``(weights, features, best-parses)`` of the peer trained on the WSJ sample's train lists (made once)."""
    sys.path.insert(0, str(ROOT / "experiments" / "wsj-sample-bllip"))
    import peer_reranker

    try:
        progs = peer_reranker.build(peer_reranker.find_programs(args.peer_source))
    except peer_reranker.PeerUnavailable as e:
        raise SystemExit(f"peer: {e}") from None
    work = Path(args.peer_work or Path(tempfile.gettempdir()) / "ranker-bench-apply-peer")
    weights, features = work / "weights.gz", work / "features.gz"
    if not (weights.is_file() and features.is_file()):
        stems = lambda a, b: [f"wsj_{i:04d}" for i in range(a, b + 1)]   # noqa: E731  (the WSJ splits)
        nbest = [Path(args.nbest) / f"nbest-{s}.txt.gz" for s in ("train", "heldout", "test")]
        got = peer_reranker.run_fold(progs, work, nbest, stems(1, 139), stems(140, 169), stems(170, 199), threads=1)
        print(json.dumps({"run": "peer trained", **got}), flush=True)
    return weights, features, progs.best_parses


def read_bytes(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()


if __name__ == "__main__":
    sys.exit(main())
