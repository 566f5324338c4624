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

# Only argparse at module level: ``ranker --help`` imports every command module, and ``ranker evalb``
# is held to the C evalb's time as a whole process; the scorer loads in ``run``.


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


def _score(gold_path: str, test_path: str, params):
    """Per-line results with ``size``, ``messages``, ``table(start, stop)`` and ``totals(cutoff)``:
    the compiled kernel's records, or the numpy path's columns where no kernel can be built."""
    from ..evaluation.evalb_files import check_pair, read_pair
    from ..evaluation.evalb_native import score_evalb_native

    gold, test = read_pair(gold_path, test_path)
    lines = check_pair(gold, test, gold_path, test_path)
    records = score_evalb_native(gold, test, params, lines, gold_source=gold_path,
                                 test_source=test_path)
    if records is not None:
        return records
    from ..evaluation.evalb_fast import score_evalb_bytes

    return _Columns(score_evalb_bytes(gold, test, params, gold_source=gold_path,
                                      test_source=test_path))


class _Columns:
    """:class:`~ranker.evaluation.evalb_fast.EvalbColumns` seen through the records' interface."""

    def __init__(self, cols):
        self.cols, self.size, self.messages = cols, cols.size, cols.messages

    def table(self, start: int, stop: int) -> bytes:
        from ..evaluation.evalb_report import format_sentence

        return "".join(format_sentence(i + 1, self.cols.sentence(i))
                       for i in range(start, stop)).encode("ascii")

    def totals(self, cutoff_len: int):
        from ..evaluation.evalb_totals import EvalbAccumulator
        from ..evaluation.evalb_params import EvalbParams

        acc = EvalbAccumulator(EvalbParams(cutoff_len=cutoff_len))
        acc.add_columns(self.cols)
        return acc.all, acc.cut


def run(args: argparse.Namespace) -> int:
    from ..evaluation.evalb_params import EvalbParams, load_params
    from ..evaluation.evalb_report import HEADER, format_summary
    from ..evaluation.evalb_totals import EvalbSummary

    params = load_params(args.param) if args.param else EvalbParams()
    if args.max_error is not None or args.cutoff is not None:
        from dataclasses import replace
        params = replace(params,
                         max_error=params.max_error if args.max_error is None else args.max_error,
                         cutoff_len=params.cutoff_len if args.cutoff is None else args.cutoff)
    result = _score(args.gold, args.test, params)
    sys.stdout.flush()
    out = getattr(sys.stdout, "buffer", None)
    write = out.write if out is not None else (lambda b: sys.stdout.write(b.decode("ascii")))
    write(HEADER.encode("ascii"))
    start = errors = 0
    for i in sorted(result.messages):
        write(result.table(start, i))
        (out or sys.stdout).flush()
        print(f"{i + 1} : {result.messages[i]}", file=sys.stderr)
        # EVALB's Error(): exits when the count *before* this error exceeds MAX_ERROR
        if errors > params.max_error:
            return 1
        errors += 1
        start = i
    write(result.table(start, result.size))
    everything, cut = result.totals(params.cutoff_len)
    write(format_summary(EvalbSummary(everything, cut, params.cutoff_len)).encode("ascii"))
    return 0
