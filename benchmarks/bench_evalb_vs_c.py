"""``ranker evalb`` against the C evalb, side by side as whole processes, and ``ranker evaluate``'s rate.

Usage (from the project root; EVALB_DIR is a folder holding EVALB's ``evalb.c`` and ``COLLINS.prm``,
such as the ``EVALB/`` folder of github.com/nikitakit/self-attentive-parser; nothing downloads)::

    NLTK_DATA=../shared/nltk_data python3 benchmarks/bench_evalb_vs_c.py EVALB_DIR \\
        [--lg-run RUN_DIR] [--runs 5] [--repeat 100] [--evaluate-pairs 41300]

``evalb.c`` is compiled with ``gcc -O2`` into a temporary folder under /tmp; inputs are written
there too and removed at the end. Inputs:

* ``bllip``: the test split's 413 gold trees (NLTK's treebank, wsj_0170-0199, root renamed TOP)
  against the BLLIP parser's first parses (``../shared/nbest/bllip-wsj-sample/nbest-test.txt.gz``,
  root S1 renamed TOP), repeated ``--repeat`` times;
* ``lg``: a run's ``gold.mrg`` and ``selected/native.mrg`` (Link Grammar's own choice), given by
  ``--lg-run`` (the output folder of ``ranker run``), repeated to ``413 * --repeat`` pairs;
* ``generated``: random trees made here (seeded) with what parsers print when they fail, lines of
  several top-level items, traces, punctuation, labels with function tags, words that differ,
  ``413 * --repeat`` pairs, scored with ``-e`` large so that every error line is printed;
* ``one-file``: the 413 BLLIP pairs once.

With COLLINS.prm (MAX_ERROR 10) both programs stop at the 12th error sentence of ``bllip`` (the
parser's ``''`` for a possessive ``POS '`` is a length mismatch, four in the 413 sentences), as
users run them; ``bllip-all`` is the same files with ``-e`` large, so every line is scored.

Every command runs ``--runs`` times, the C evalb and ``ranker evalb`` alternating; each process's
wall time, CPU time (user + system, from ``wait4``) and peak resident memory are taken, and the
medians printed with the ratio to C. stdout and stderr must be byte-identical to C's on every
input (the script stops otherwise). Then ``ranker --help`` and ``ranker evalb --help`` (start-up),
the bare interpreter (the help commands both by ``python -m`` and by the installed console script),
and ``ranker evaluate`` under every scheme on the ``lg`` input (pairs per second of whole processes,
medians of ``--runs``, ``--evaluate-pairs`` pairs; ``--evaluate-only`` skips the evalb runs).
The load average is printed before and after: the machine should be idle.
"""
from __future__ import annotations

import argparse
import gzip
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBEST = ROOT.parent / "shared" / "nbest" / "bllip-wsj-sample" / "nbest-test.txt.gz"
RANKER = [sys.executable, "-m", "ranker.cli.main"]
TIME = "/usr/bin/time"   # GNU time, for each command's peak memory
# Bytecode is written and reused, as for an installed package (a checkout run with
# PYTHONDONTWRITEBYTECODE=1 would otherwise time the compilation of every module at every run).
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
       "PYTHONPATH": str(ROOT)}


def run_process(argv: list[str], out: Path, err: Path) -> tuple[float, float, int, int]:
    """Run one process to files; wall s, CPU s (user + sys), peak RSS in kB, exit status.

    The command runs under GNU time, which reports its peak memory (``%M``): the rusage of a
    child forked from this Python process counts this process's pages too. wait4 gives the CPU
    time (time's and its child's: time itself takes about a millisecond).
    """
    peak = out.with_suffix(".peak")
    with open(out, "wb") as fo, open(err, "wb") as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen([TIME, "-f", "%M", "-o", str(peak), *argv], stdout=fo, stderr=fe,
                             env=ENV, cwd=ROOT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    rss = int(peak.read_text().split()[-1])
    return wall, ru.ru_utime + ru.ru_stime, rss, os.waitstatus_to_exitcode(status)


def build_evalb(src_dir: Path, work: Path) -> Path:
    shutil.copy(src_dir / "evalb.c", work / "evalb.c")
    subprocess.run(["gcc", "-O2", "-o", str(work / "evalb"), str(work / "evalb.c")], check=True,
                   capture_output=True)
    return work / "evalb"


# ---- inputs --------------------------------------------------------------------------------

def bllip_pairs() -> tuple[list[str], list[str]]:
    """The test split's gold trees and BLLIP's first parses, both rooted TOP, one per line."""
    from nltk.corpus import treebank

    from ranker.trees.penn import format_tree, iter_trees

    gold = []
    for f in treebank.fileids():
        if "wsj_0170" <= f[:8] <= "wsj_0199":
            for t in iter_trees(treebank.raw(f), f):
                text = format_tree(t)
                assert text.startswith("( (") and text.endswith(")")
                gold.append("(TOP " + text[2:])
    test = []
    with gzip.open(NBEST, "rt") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        count = int(lines[i].split("\t")[0])
        first = lines[i + 2]
        assert first.startswith("(S1 ")
        test.append("(TOP " + first[4:])
        i += 1 + 2 * count
    assert len(gold) == len(test) == 413, (len(gold), len(test))
    return gold, test


def lg_pairs(run_dir: Path, pairs: int) -> tuple[list[str], list[str]]:
    gold = (run_dir / "gold.mrg").read_text().splitlines()
    test = (run_dir / "selected" / "native.mrg").read_text().splitlines()
    assert len(gold) == len(test) and gold
    reps = -(-pairs // len(gold))
    return (gold * reps)[:pairs], (test * reps)[:pairs]


def generated_pairs(pairs: int, seed: int = 25) -> tuple[list[str], list[str]]:
    """Random pairs EVALB reads without a read error: every status, failure lines, several roots."""
    rng = random.Random(seed)
    labels = ["S", "NP", "VP", "PP", "NP-SBJ", "ADVP", "PRT", "S-TPC=2", "SBAR", "", "TOP", "-NONE-"]
    tags = ["DT", "NN", "VB", "IN", ",", ".", ":", "``", "''", "-NONE-", "PRP", "NNS"]
    words = ["the", "cat", "sat", "on", "a", "mat", ",", ".", "*T*-1", "'", "\""]

    plain_tags = ["DT", "NN", "VB", "IN", "PRP", "NNS"]    # not deleted by COLLINS.prm

    def tree(depth: int, ws: list[tuple[str, str]]) -> str:
        if depth > 4 or rng.random() < 0.35:
            tw = (rng.choice(tags), rng.choice(words))
            ws.append(tw)
            return f"({tw[0]} {tw[1]})"
        kids = " ".join(tree(depth + 1, ws) for _ in range(rng.randint(1, 4)))
        return f"({rng.choice(labels)} {kids})"

    def terminals(ws: list[tuple[str, str]]) -> str:
        """The gold's terminals, a few with another tag (never one COLLINS.prm deletes)."""
        out = []
        for t, w in ws:
            if t in plain_tags and rng.random() < 0.08:
                t = rng.choice(plain_tags)
            out.append(f"({t} {w})")
        return " ".join(out)

    def rebracket(ws: list[tuple[str, str]]) -> str:
        if len(ws) == 1 or rng.random() < 0.2:
            inner = terminals(ws)
        else:
            k = rng.randint(1, len(ws) - 1)
            inner = f"{rebracket(ws[:k])} {rebracket(ws[k:])}"
        return f"({rng.choice(labels)} {inner})"

    failures = ["", "(TOP)", "()", "(S1)", "( (TOP))", "(S1 (S))", "(TOP )"]
    gold, test = [], []
    for _ in range(pairs):
        ws: list[tuple[str, str]] = []
        g = tree(0, ws)
        r = rng.random()
        if r < 0.03:
            t = rng.choice(failures)
        elif r < 0.06:                          # several top-level items over the same words
            t = terminals(ws)
        elif r < 0.08:                          # a word that differs, or one more word
            t = g.replace(f" {ws[0][1]})", " dog)", 1) if rng.random() < 0.5 else f"(S {g} (NN x))"
        else:                                   # another tree over the same words
            t = rebracket(ws)
        gold.append(g)
        test.append(t)
    return gold, test


def write_pair(work: Path, name: str, gold: list[str], test: list[str]) -> tuple[Path, Path]:
    g, t = work / f"{name}.gld", work / f"{name}.tst"
    g.write_text("\n".join(gold) + "\n")
    t.write_text("\n".join(test) + "\n")
    return g, t


# ---- measuring -----------------------------------------------------------------------------

def side_by_side(name: str, evalb: Path, prm: Path, g: Path, t: Path, work: Path, runs: int,
                 extra: list[str]) -> dict:
    size = g.stat().st_size + t.stat().st_size
    cmds = {"C": [str(evalb), "-p", str(prm), *extra, str(g), str(t)],
            "ranker": [*RANKER, "evalb", "-p", str(prm), *extra, str(g), str(t)]}
    times: dict[str, list] = {k: [] for k in cmds}
    for r in range(runs):
        for k, argv in cmds.items():
            times[k].append(run_process(argv, work / f"{name}.{k}.out", work / f"{name}.{k}.err"))
    for part in ("out", "err"):
        a = (work / f"{name}.C.{part}").read_bytes()
        b = (work / f"{name}.ranker.{part}").read_bytes()
        if a != b:
            sys.exit(f"{name}: std{part} differs from the C evalb's")
    statuses = {k: {x[3] for x in v} for k, v in times.items()}
    if statuses["C"] != statuses["ranker"]:
        sys.exit(f"{name}: exit status {statuses['ranker']} against C's {statuses['C']}")
    lines = sum(1 for _ in open(g, "rb"))
    med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in times.items()}
    print(f"{name:<10} {lines:>7,} pairs {size / 1e6:6.1f} MB | "
          f"C wall {med['C'][0]:.3f} s CPU {med['C'][1]:.3f} s | "
          f"ranker wall {med['ranker'][0]:.3f} s CPU {med['ranker'][1]:.3f} s | "
          f"ratio wall {med['ranker'][0] / med['C'][0]:.2f}x CPU {med['ranker'][1] / max(med['C'][1], 1e-3):.2f}x | "
          f"peak ranker {med['ranker'][2] / 1024:.1f} MB ({med['ranker'][2] * 1024 / size:.2f}x input), "
          f"C {med['C'][2] / 1024:.1f} MB | identical", flush=True)
    return med


def startup(runs: int, work: Path, script: Path | None) -> None:
    """Start-up: the bare interpreter, then both help commands by ``python -m`` and by the
    installed console script (``script``), as users run it."""
    commands = [("python3 -c pass", [sys.executable, "-c", "pass"]),
                ("ranker --help (-m)", [*RANKER, "--help"]),
                ("ranker evalb --help (-m)", [*RANKER, "evalb", "--help"])]
    if script is not None:
        commands += [("ranker --help (script)", [str(script), "--help"]),
                     ("ranker evalb --help (script)", [str(script), "evalb", "--help"])]
    for _, argv in commands:                     # bytecode written before timing
        run_process(argv, work / "s.out", work / "s.err")
    for label, argv in commands:
        res = [run_process(argv, work / "s.out", work / "s.err") for _ in range(runs)]
        print(f"{label:<22} wall {statistics.median(x[0] for x in res):.3f} s "
              f"CPU {statistics.median(x[1] for x in res):.3f} s", flush=True)


def evaluate_rates(g: Path, t: Path, work: Path, runs: int) -> None:
    """``ranker evaluate`` under every scheme, whole processes (medians of ``runs``): pairs per
    second of wall and of CPU time, the start-up included, and the peak memory against the input.

    The compiled path (``schemes_kernel.c``) serves evalb, parseval, mph and deps; flat is the
    Python reference. Each scheme runs once untimed first (the kernel's compilation is cached).
    """
    from ranker.evaluation.schemes_native import NATIVE_SCHEMES

    pairs = sum(1 for _ in open(g, "rb"))
    size = g.stat().st_size + t.stat().st_size
    for scheme in ("evalb", "parseval", "mph", "flat", "deps"):
        argv = [*RANKER, "evaluate", str(g), str(t), "--scheme", scheme]
        res = [run_process(argv, work / "e.out", work / "e.err")
               for _ in range(1 + (runs if scheme in NATIVE_SCHEMES else 1))][1:]
        if any(x[3] != 0 for x in res):
            sys.exit(f"evaluate --scheme {scheme} failed: {(work / 'e.err').read_text()}")
        wall, cpu, rss = (statistics.median(x[i] for x in res) for i in range(3))
        how = "kernel" if scheme in NATIVE_SCHEMES else "reference"
        print(f"evaluate {scheme:<9} {pairs:,} pairs ({how:<9}) wall {wall:.3f} s CPU {cpu:.3f} s: "
              f"{pairs / wall:,.0f} pairs/s ({pairs / cpu:,.0f} per CPU second; target 200,000) "
              f"(peak {rss / 1024:.0f} MB, {rss * 1024 / size:.2f}x input)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("evalb_dir", type=Path, help="folder with EVALB's evalb.c and COLLINS.prm")
    ap.add_argument("--lg-run", type=Path, help="output folder of ranker run (gold.mrg, selected/)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=100)
    ap.add_argument("--evaluate-pairs", type=int, default=None,
                    help="pairs of the lg input for ranker evaluate (default: all)")
    ap.add_argument("--evaluate-only", action="store_true",
                    help="only ranker evaluate's rates on the lg input (and start-up): no evalb runs")
    ap.add_argument("--ranker-script", type=Path,
                    default=Path(sys.executable).with_name("ranker"),
                    help="the installed console script, timed for start-up beside python -m "
                         "(default: the ranker beside this interpreter, if there is one)")
    args = ap.parse_args()
    if args.evaluate_only and not args.lg_run:
        ap.error("--evaluate-only needs --lg-run")
    print(f"load average before: {os.getloadavg()}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="bench_evalb_"))   # the system's scratch folder ($TMPDIR)
    try:
        evalb = build_evalb(args.evalb_dir, work)
        prm = args.evalb_dir / "COLLINS.prm"
        pairs = 413 * args.repeat
        inputs = {}
        if not args.evaluate_only:
            gold, test = bllip_pairs()
            inputs = {"one-file": write_pair(work, "one", gold, test),
                      "bllip": write_pair(work, "bllip", gold * args.repeat, test * args.repeat)}
            inputs["bllip-all"] = inputs["bllip"]   # the same with -e large: every line scored
        if args.lg_run:
            inputs["lg"] = write_pair(work, "lg", *lg_pairs(args.lg_run, pairs))
        if not args.evaluate_only:
            inputs["generated"] = write_pair(work, "gen", *generated_pairs(pairs))
        # one untimed run each, so that both programs start from a warm page cache (and the
        # kernel's first compilation, cached afterwards, is not timed)
        for name, (g, t) in ({} if args.evaluate_only else inputs).items():
            run_process([*RANKER, "evalb", "-p", str(prm), str(g), str(t)], work / "w.out", work / "w.err")
            run_process([str(evalb), "-p", str(prm), str(g), str(t)], work / "w.out", work / "w.err")
        for name, (g, t) in inputs.items():
            if args.evaluate_only:
                break
            extra = ["-e", str(10 * pairs)] if name in ("generated", "bllip-all") else []
            side_by_side(name, evalb, prm, g, t, work, args.runs, extra)
        startup(args.runs, work, args.ranker_script if args.ranker_script.is_file() else None)
        if args.lg_run:
            g, t = inputs["lg"]
            if args.evaluate_pairs:
                g, t = write_pair(work, "lg-eval", *[x.read_text().splitlines()[:args.evaluate_pairs]
                                                     for x in (g, t)])
            evaluate_rates(g, t, work, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
