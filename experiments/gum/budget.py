"""What a sentence's parse budget buys on GUM's dev split: forests, upper bound and the model's choice by budget.

Issue 45, item 1: ``[parse] max_parse_time`` bounds a sentence's passes together; this measures what
a user trades by raising or lowering it. For each budget the dev documents are parsed into a store
of their own (``ranker parse``), their candidates scored against gold (``ranker counts``), and the
oracle's and a trained model's choices written (``ranker select``) and scored with ``ranker
evaluate`` (MPH and EVALB), beside the parse's CPU time and its statuses::

    python experiments/gum/budget.py --model gum.json --budgets 2 5 10 30 --out runs/budget

``--documents N`` takes the first N dev documents (a quicker look). Never run on test.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GUM = HERE.parents[2] / "shared" / "gum"


def _ranker(*argv) -> str:
    got = subprocess.run([sys.executable, "-m", "ranker.cli.main", *map(str, argv)], capture_output=True, text=True)
    if got.returncode != 0:
        raise SystemExit(f"ranker {' '.join(map(str, argv))}: {got.stderr.strip()}")
    return got.stdout


def _f(gold: Path, test: Path, scheme: str) -> float:
    out = json.loads(_ranker("evaluate", gold, test, "--scheme", scheme, "--format", "json"))
    return float(out["f1"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="an exported GUM model (ranker models export)")
    ap.add_argument("--budgets", type=float, nargs="+", default=[2, 5, 10, 30])
    ap.add_argument("--documents", type=int, default=0, help="the first N dev documents (0: all)")
    ap.add_argument("--linkage-limit", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("runs/budget"))
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    docs = (GUM / "splits" / "dev.txt").read_text().split()
    if args.documents:
        docs = docs[:args.documents]
    split = args.out / "dev-documents.txt"
    split.write_text("\n".join(docs) + "\n")
    rows = []
    for budget in args.budgets:
        store = args.out / f"budget-{budget:g}.sqlite"
        where = ["--store", store, "--corpus", "penn", "--path", GUM / "const", "--corpus-name", "gum",
                 "--split", f"@{split}"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        said = _ranker("parse", *where, "--linkage-limit", args.linkage_limit, "--max-parse-time", budget,
                       "--workers", args.workers, "--no-progress")
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        where = ["--store", store, "--corpus", "gum", "--split", f"@{split}"]
        _ranker("counts", *where, "--no-progress")
        gold = args.out / f"gold-{budget:g}.mrg"
        _ranker("gold", *where, "--out", gold)
        row = {"budget": budget, "parse_wall_s": round(wall, 1), "parse_cpu_s": round(cpu, 1),
               "parse": next((line for line in said.splitlines() if line.startswith("parsed")), "")}
        for name, extra in (("oracle", ["--ranker", "oracle", "--metric", "mph"]),
                            ("loglinear", ["--ranker", "loglinear", "--model", args.model])):
            sel = args.out / f"{name}-{budget:g}.mrg"
            _ranker("select", *where, *extra, "--out", sel, "--force")
            for scheme in ("mph", "evalb"):
                row[f"{name}_{scheme}"] = round(_f(gold, sel, scheme), 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
    (args.out / "budget.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
