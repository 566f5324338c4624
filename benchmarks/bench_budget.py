"""Does a sentence's parse stay within its budget? CPU and wall seconds of the longest sentences against it.

Issue 45: ``[parse] max_parse_time`` bounds all of a sentence's passes together (full, null links,
skim). This parses GUM's longest sentences and long made-up ones (GUM sentences joined into one)
one at a time in this process with Link Grammar, and prints, for each, the CPU and wall seconds
its parse took (``LinkGrammarParser.parse``: the passes and the reading of the linkages) against
the budget, then the largest ratios. The target: no sentence over the budget by more than 10%::

    python benchmarks/bench_budget.py --budget 10 --longest 40 --made-up 5

Run it on an idle machine for the wall ratio; the CPU ratio holds under load too.
"""
from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

GUM = Path(__file__).resolve().parents[2] / "shared" / "gum" / "const"


def _cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def main(argv=None) -> int:
    from ranker.sources.link_grammar import LinkGrammarOptions, LinkGrammarParser
    from ranker.sources.penn_files import file_trees
    from ranker.store.records import Sentence

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=10)
    ap.add_argument("--linkage-limit", type=int, default=1000)
    ap.add_argument("--longest", type=int, default=40, help="GUM's N longest sentences")
    ap.add_argument("--made-up", type=int, default=5, help="N sentences of 150-240 tokens made of GUM's")
    args = ap.parse_args(argv)
    trees = [(f.stem, i, t) for f in sorted(GUM.glob("*.ptb")) for i, t in enumerate(file_trees(f))]
    trees.sort(key=lambda x: -len(x[2].words))
    sentences = [Sentence(f"gum/{d}/{i}", "gum", d, i, tuple(t.words), tuple(t.tags()))
                 for d, i, t in trees[:args.longest]]
    pool = [t for _, _, t in trees if 10 <= len(t.words) <= 30]
    for k in range(args.made_up):
        words, tags = [], []
        for t in pool[k * 17:]:   # sentences of 10-30 tokens joined up to 150-240 tokens
            if len(words) + len(t.words) > 150 + 20 * k:
                break
            words += t.words
            tags += t.tags()
        sentences.append(Sentence(f"made-up/{k}", "made-up", "made-up", k, tuple(words), tuple(tags)))
    parser = LinkGrammarParser(LinkGrammarOptions(linkage_limit=args.linkage_limit, max_parse_time=args.budget))
    worst_cpu = worst_wall = 0.0
    statuses: dict[str, int] = {}
    print(f"budget {args.budget} s, linkage limit {args.linkage_limit}")
    for s in sentences:
        c0, w0 = _cpu(), time.perf_counter()
        r = parser.parse(s)
        cpu, wall = _cpu() - c0, time.perf_counter() - w0
        statuses[r.status] = statuses.get(r.status, 0) + 1
        worst_cpu, worst_wall = max(worst_cpu, cpu / args.budget), max(worst_wall, wall / args.budget)
        passes = " ".join(f"{name} {sec}s" for name, sec in parser.last_budget.passes)
        print(f"{s.id:40} {len(s.tokens):4} tokens  {r.status:9} cpu {cpu:6.2f}  wall {wall:6.2f}  "
              f"({passes}; {len(r.candidates)} candidates)")
    print(f"sentences {len(sentences)}: {statuses}")
    print(f"largest CPU / budget {worst_cpu:.3f}, wall / budget {worst_wall:.3f} (target <= 1.10)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
