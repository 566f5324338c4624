"""``ranker evalb [-p PRM] GOLD TEST``: a drop-in replacement for EVALB, report for report.

Prints EVALB's per-sentence table and both summary blocks on stdout, and EVALB's
``LINE : Length unmatch (a|b)`` messages on stderr. A parser's failure line (empty, ``(TOP)``,
``()``, ``( )``, ``(S1)``) is read as EVALB reads it: a skip, or an error where EVALB sees an empty
word. Differences, all on bad input: a malformed line, a file that is not UTF-8 text, an unknown
or unreadable parameter, or files with different line counts stop the run with one
``ranker: error:`` line (exit 2) before anything is printed, where EVALB would warn and print a
summary of whatever it managed to pair; there is no line-length or sentence-length limit.
Reaching MAX_ERROR behaves as EVALB: the table so far, no summary, exit status 1.
"""
from __future__ import annotations

import argparse
import sys

from ..evaluation.evalb import EvalbAccumulator
from ..evaluation.evalb_fast import score_evalb_files
from ..evaluation.evalb_params import EvalbParams, load_params
from ..evaluation.evalb_report import HEADER, format_sentence, format_summary


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "evalb", help="score bracketings exactly as EVALB does (same report)",
        description=__doc__.split("\n\n")[0])
    p.add_argument("-p", dest="param", metavar="PRM",
                   help="EVALB parameter file, or a shipped name such as COLLINS "
                        "(default: EVALB's built-in defaults, as evalb without -p)")
    p.add_argument("-e", dest="max_error", type=int, metavar="N",
                   help="stop after this many errors (overrides MAX_ERROR)")
    p.add_argument("-c", dest="cutoff", type=int, metavar="N",
                   help="length cut-off of the second summary (overrides CUTOFF_LEN)")
    p.add_argument("gold", metavar="GOLD", help="gold trees, one per line")
    p.add_argument("test", metavar="TEST", help="test trees, one per line (empty line: no parse)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = load_params(args.param) if args.param else EvalbParams()
    if args.max_error is not None or args.cutoff is not None:
        from dataclasses import replace
        params = replace(params,
                         max_error=params.max_error if args.max_error is None else args.max_error,
                         cutoff_len=params.cutoff_len if args.cutoff is None else args.cutoff)
    cols = score_evalb_files(args.gold, args.test, params)
    out = sys.stdout
    acc = EvalbAccumulator(params)
    chunks = [HEADER]
    errors = 0
    for i in range(cols.size):
        s = cols.sentence(i)
        if s.message:
            out.write("".join(chunks))
            chunks = []
            out.flush()
            print(f"{i + 1} : {s.message}", file=sys.stderr)
            # EVALB's Error(): exits when the count *before* this error exceeds MAX_ERROR
            if errors > params.max_error:
                return 1
            errors += 1
        acc.add(s)
        chunks.append(format_sentence(i + 1, s))
    chunks.append(format_summary(acc.result()))
    out.write("".join(chunks))
    return 0
