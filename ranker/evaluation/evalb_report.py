"""EVALB's printed report, character for character, so ``ranker evalb`` can replace ``evalb`` in scripts.

The format strings are EVALB's own (``print_head``, ``individual_result``, ``print_total``); the
numbers are computed in the same order of floating-point operations, so every rounding agrees.
"""
from __future__ import annotations

import math

from .evalb_totals import EvalbSentence, EvalbSummary, EvalbTotals

RULE = "=" * 76
HEADER = ("  Sent.                        Matched  Bracket   Cross        Correct Tag\n"
          " ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n"
          + RULE + "\n")


def _f(x: float) -> str:
    """C's ``%6.2f``, including glibc's spelling of the NaN EVALB prints when P + R = 0."""
    if math.isnan(x):
        return "  -nan"
    return "%6.2f" % x


def format_sentence(line: int, s: EvalbSentence) -> str:
    """One per-sentence line of EVALB's table (with its newline)."""
    return ("%4d  %3d    %d  " % (line, s.length, s.status)
            + "%s %s   %3d    %3d  %3d    %3d" % (_f(s.recall), _f(s.precision), s.matched, s.gold,
                                                  s.test, s.crossing)
            + "   %4d  %4d   %s\n" % (s.words, s.correct_tags, _f(s.tag_accuracy)))


def _ratio(num: int, den: int, scale: float = 100.0) -> float:
    return scale * num / den if den > 0 else 0.0


def _fmeasure(p: float, r: float) -> float:
    den = p + r
    return 2 * p * r / den if den != 0 else math.nan


def _block(title: str, t: EvalbTotals) -> str:
    sentn = t.sentences - t.errors - t.skipped
    r = _ratio(t.matched, t.gold)
    p = _ratio(t.matched, t.test)
    rows = [
        f"\n{title}\n",
        "Number of sentence        = %6d\n" % t.sentences,
        "Number of Error sentence  = %6d\n" % t.errors,
        "Number of Skip  sentence  = %6d\n" % t.skipped,
        "Number of Valid sentence  = %6d\n" % sentn,
        "Bracketing Recall         = %s\n" % _f(r),
        "Bracketing Precision      = %s\n" % _f(p),
        "Bracketing FMeasure       = %s\n" % _f(_fmeasure(p, r)),
        "Complete match            = %s\n" % _f(_ratio(t.complete, sentn)),
        "Average crossing          = %s\n" % _f(_ratio(t.crossing, sentn, 1.0)),
        "No crossing               = %s\n" % _f(_ratio(t.no_crossing, sentn)),
        "2 or less crossing        = %s\n" % _f(_ratio(t.two_or_less, sentn)),
        "Tagging accuracy          = %s\n" % _f(_ratio(t.correct_tags, t.words)),
    ]
    return "".join(rows)


def format_summary(summary: EvalbSummary) -> str:
    """The closing rule, the totals line and both ``=== Summary ===`` blocks."""
    a = summary.all
    out = [RULE + "\n"]
    if a.gold > 0 and a.test > 0:
        out.append("                %s %s %6d %5d %5d  %5d" % (
            _f(_ratio(a.matched, a.gold)), _f(_ratio(a.matched, a.test)), a.matched, a.gold, a.test,
            a.crossing))
    out.append("  %5d %5d   %s\n" % (a.words, a.correct_tags, _f(_ratio(a.correct_tags, a.words))))
    out.append("=== Summary ===\n")
    out.append(_block("-- All --", a))
    out.append(_block(f"-- len<={summary.cutoff_len} --", summary.cut))
    return "".join(out)
