"""Metrics: pure per-pair scoring functions, accumulators that only add, and reports.

Each scheme has one per-pair function over (gold Tree, candidate Tree) and an accumulator with
``add`` and ``result()``: EVALB (:func:`score_evalb`, :class:`EvalbAccumulator`; whole files at
EVALB's speed with :func:`score_evalb_files`) and PARSEVAL (:func:`score_parseval`,
:class:`ParsevalAccumulator`).
"""
from .evalb import EvalbAccumulator, EvalbSentence, EvalbSummary, EvalbTotals, score_evalb
from .evalb_fast import EvalbColumns, EvalbInputError, score_evalb_bytes, score_evalb_files
from .evalb_params import EvalbParamError, EvalbParams, load_params, parse_params, read_params
from .evalb_report import format_sentence, format_summary
from .parseval import (BracketCounts, ParsevalAccumulator, ParsevalResult, crossing_count,
                       score_parseval, span_counts)

__all__ = ["BracketCounts", "EvalbAccumulator", "EvalbColumns", "EvalbInputError",
           "EvalbParamError", "EvalbParams", "EvalbSentence", "EvalbSummary", "EvalbTotals",
           "ParsevalAccumulator", "ParsevalResult", "crossing_count", "format_sentence",
           "format_summary", "load_params", "parse_params", "read_params", "score_evalb",
           "score_evalb_bytes", "score_evalb_files", "score_parseval", "span_counts"]
