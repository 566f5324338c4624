"""Link Grammar parsing throughput with 1 and 2 worker processes (target: ratio at least 1.8).

``--executor dask`` measures the same with a ``distributed.LocalCluster`` of 1 and then 2 worker
processes (one thread each) instead of the local pool: the stage runs as Dask tasks of
``--chunk-size`` sentences. Each cluster is started, and its workers have imported ranker, before
the clock starts (the local pool's forked workers inherit their imports); loading the Link Grammar
dictionary is timed in both.

Parses the same 300 treebank sample sentences (every 10th sentence of the sample) into a fresh
store with each worker count, through the same code path as ``ranker parse`` (process pool,
batched writes). Prints JSON with ``sentences_per_second`` for each and their ratio.

The machine is shared, so the JSON also says what else was going on: the load average before each
run, the writer's (parent's) own CPU seconds (with Dask: the client's, which here also runs the
scheduler and the nannies), the worker processes' CPU seconds, the workers' busy seconds (sum of
per-sentence parse times, wall clock) and their utilisation (busy / (workers x wall)), and
``machine_ratio``: how much faster two processes of a fixed pure-Python loop finish than one,
measured just before. A parse ratio well below ``machine_ratio`` is ours; a low ``machine_ratio``
means other load took the second core. On a loaded machine compare the CPU seconds: two workers
should spend no more than one does on the same sentences.

Each run has Python's cyclic collector paused, as ``ranker parse`` and ``ranker run`` have it
(:mod:`ranker.gcpause`): the local pool's workers inherit that, Dask's workers pause it per task.
"""
from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing as mp
import os
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from ranker.gcpause import gc_paused
from ranker.parallel import use_executor
from ranker.registries import EXECUTORS
from ranker.sources.link_grammar import LinkGrammarOptions
from ranker.sources.parse_run import parse_into_store
from ranker.sources.treebank import treebank_sentences
from ranker.store import Store

TARGET_RATIO = 1.8


def _spin(n: int) -> None:
    x = 0
    for i in range(n):
        x += i * i


def machine_ratio(n: int = 6_000_000) -> float:
    """Throughput of two processes running a fixed CPU loop, relative to one (2.0 on two idle cores)."""
    ctx = mp.get_context("fork")

    def run(k: int) -> float:
        procs = [ctx.Process(target=_spin, args=(n,)) for _ in range(k)]
        t = time.perf_counter()
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        return time.perf_counter() - t

    one, two = run(1), run(2)
    return 2 * one / two


def _process_cpu() -> float:
    t = os.times()
    return t.user + t.system


def _workers_cpu(executor) -> float:
    """CPU seconds the worker processes have used so far: the reaped forks', or the Dask workers'."""
    if executor is None:   # the local pool's workers have exited (and been reaped) when the stage returns
        t = os.times()
        return t.children_user + t.children_system
    return sum(executor.client.run(_process_cpu).values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--linkage-limit", type=int, default=LinkGrammarOptions().linkage_limit)
    ap.add_argument("--max-parse-time", type=int, default=LinkGrammarOptions().max_parse_time)
    ap.add_argument("--executor", choices=EXECUTORS.names(bare=True), default="local")
    ap.add_argument("--chunk-size", type=int, default=8, help="sentences per Dask task")
    args = ap.parse_args()
    gold = list(treebank_sentences())
    step = max(1, len(gold) // args.sentences)
    sample = [g for g in gold[::step]][:args.sentences]
    options = LinkGrammarOptions(linkage_limit=args.linkage_limit, max_parse_time=args.max_parse_time)
    out: dict = {"sentences": len(sample), "linkage_limit": options.linkage_limit, "cpu_count": os.cpu_count(),
                 "executor": args.executor, "machine_ratio": round(machine_ratio(), 3)}
    for workers in (1, 2):
        with ExitStack() as stack:
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
            ex = None
            executor = EXECUTORS.get(args.executor)
            if not executor.forked:   # Dask's: the local pool is the default, used without one
                ex = stack.enter_context(executor(workers=workers, chunk_size=args.chunk_size))
                stack.enter_context(use_executor(ex))
                # the local pool's forks inherit the imports; spawned Dask workers import them now
                ex.client.run(importlib.import_module, "ranker.sources.parse_run")
            st = stack.enter_context(Store.open(Path(tmp) / "s.sqlite"))
            st.add_sentences(g.sentence for g in sample)
            load = os.getloadavg()[0]
            workers_cpu = _workers_cpu(ex)
            cpu = time.process_time()
            with gc_paused():   # as the command runs it (ranker.cli.main)
                s = parse_into_store(st, [g.sentence for g in sample], options, workers=workers, progress=False)
            parent_cpu = time.process_time() - cpu
            workers_cpu = _workers_cpu(ex) - workers_cpu
            busy = sum(r[6] for r in st.parse_log())
            out[f"workers_{workers}"] = {"sentences_per_second": round(s.sentences_per_second, 2),
                                         "seconds": round(s.seconds, 2), "candidates": s.candidates,
                                         "statuses": s.statuses, "unmapped": s.unmapped,
                                         "parent_cpu_seconds": round(parent_cpu, 2),
                                         "workers_cpu_seconds": round(workers_cpu, 2),
                                         "worker_busy_seconds": round(busy, 2),
                                         "worker_utilisation": round(busy / (workers * s.seconds), 3),
                                         "load_average_before": round(load, 2)}
    ratio = out["workers_2"]["sentences_per_second"] / out["workers_1"]["sentences_per_second"]
    out["ratio"] = round(ratio, 3)
    out["target_ratio"] = TARGET_RATIO
    out["meets_target"] = ratio >= TARGET_RATIO
    out["load_average_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
