"""``ranker evalb [-p PRM] GOLD TEST``: a drop-in replacement for EVALB, report for report.

Prints EVALB's per-sentence table and both summary blocks on stdout, and EVALB's
``LINE : Length unmatch (a|b)`` messages on stderr. A parser's failure line (empty, ``(TOP)``,
``()``, ``( )``, ``(S1)``) is read as EVALB reads it: a skip, or an error where EVALB sees an empty
word; so is a line of several top-level items (``(P this) (Q is)``: one sentence). Differences,
all on bad input: a malformed line (one EVALB's ``read_line`` reports an error on, such as a word
under a phrase), a file that is not UTF-8 text, an unknown or unreadable parameter, or files with
different line counts stop the run with one ``ranker: error:`` line (exit 2) before anything is
printed, where EVALB would warn and print a summary of whatever it managed to pair, or loop on
errors to MAX_ERROR; there is no line-length or sentence-length limit; ``-e`` and ``-c`` override
the parameter file wherever they stand (EVALB reads its options in order, so a ``-p`` after them
overrides them). Reaching MAX_ERROR behaves as EVALB: the table so far, no summary, exit status 1.
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


def _blocks(gold_path: str, test_path: str, params):
    """Per-line results, block after block, each with ``size``, ``line0``, ``messages``,
    ``table(start, stop)`` and ``totals(cutoff)``: the compiled kernel's records, or the numpy
    path's columns (one block) where no kernel can be built."""
    from ..evaluation.evalb_native import score_evalb_file_blocks

    blocks = score_evalb_file_blocks(gold_path, test_path, params)
    if blocks is not None:
        return blocks
    from ..evaluation.evalb_fast import score_evalb_files

    return [_Columns(score_evalb_files(gold_path, test_path, params))]


class _Columns:
    """:class:`~ranker.evaluation.evalb_fast.EvalbColumns` seen through the records' interface."""

    line0 = 0

    def __init__(self, cols):
        self.cols, self.size, self.messages = cols, cols.size, cols.messages

    def table(self, start: int, stop: int) -> bytes:
        from ..evaluation.evalb_report import format_sentence

        return "".join(format_sentence(i + 1, self.cols.sentence(i))
                       for i in range(start, stop)).encode("ascii")

    def totals(self, cutoff_len: int):
        from ..evaluation.evalb_params import EvalbParams
        from ..evaluation.evalb_totals import EvalbAccumulator

        acc = EvalbAccumulator(EvalbParams(cutoff_len=cutoff_len))
        acc.add_columns(self.cols)
        return acc.all, acc.cut


def run(args: argparse.Namespace) -> int:
    from ..evaluation.evalb_params import EvalbParams, check_override, load_params
    from ..evaluation.evalb_report import HEADER, format_summary
    from ..evaluation.evalb_totals import EvalbSummary, EvalbTotals

    check_override("MAX_ERROR", args.max_error)   # as MAX_ERROR -3 in a .prm is refused
    check_override("CUTOFF_LEN", args.cutoff)
    params = load_params(args.param) if args.param else EvalbParams()
    if args.max_error is not None or args.cutoff is not None:
        from dataclasses import replace
        params = replace(params,
                         max_error=params.max_error if args.max_error is None else args.max_error,
                         cutoff_len=params.cutoff_len if args.cutoff is None else args.cutoff)
    # Score first, print after: a line ranker refuses stops the run before any output. Scoring
    # stops where EVALB would (the error after MAX_ERROR + 1), and the blocks keep only counts.
    blocks, seen = [], 0
    for block in _blocks(args.gold, args.test, params):
        blocks.append(block)
        seen += len(block.messages)
        if seen > params.max_error + 1:
            break
    sys.stdout.flush()
    out = getattr(sys.stdout, "buffer", None)
    write = out.write if out is not None else (lambda b: sys.stdout.write(b.decode("ascii")))
    write(HEADER.encode("ascii"))
    errors = 0
    everything, cut = EvalbTotals(), EvalbTotals()
    for block in blocks:
        start = 0
        for i in sorted(block.messages):
            write(block.table(start, i))
            (out or sys.stdout).flush()
            print(f"{block.line0 + i + 1} : {block.messages[i]}", file=sys.stderr)
            # EVALB's Error(): exits when the count *before* this error exceeds MAX_ERROR
            if errors > params.max_error:
                return 1
            errors += 1
            start = i
        write(block.table(start, block.size))
        a, c = block.totals(params.cutoff_len)
        everything, cut = everything + a, cut + c
    write(format_summary(EvalbSummary(everything, cut, params.cutoff_len)).encode("ascii"))
    return 0
