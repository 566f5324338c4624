"""Metrics: pure per-pair scoring functions, accumulators that only add, and reports.

Each scheme has one per-pair function over (gold, candidate) and an accumulator with ``add`` and
``result()``:

* EVALB: :func:`score_evalb`, :class:`EvalbAccumulator`; whole files at EVALB's speed with
  :func:`score_evalb_files`;
* PARSEVAL after Black et al.: :func:`score_parseval`, :class:`ParsevalAccumulator`;
* MPH (Ringger et al.): :func:`score_mph`, :class:`MphAccumulator` (= :class:`BracketAccumulator`,
  whose :class:`BracketSummary` holds the rows of their Table 1);
* flattened keys (Gaizauskas et al.): :func:`flat_key`, :func:`score_flat`, :class:`FlatAccumulator`;
* dependencies: :func:`score_tree_dependencies`, :func:`score_dependencies`,
  :class:`DependencyAccumulator`.

Per-candidate counts over a corpus give bounds (:mod:`.bounds`: oracle, random, error reduction)
and significance (:mod:`.significance`). ``ranker evaluate`` reads its files with :mod:`.inputs`.
"""
from .bounds import (METRICS, ForestCounts, Metric, conformance_score, corpus_score, error_reduction,
                     expected_counts, f1_score, oracle_choice, recall_score, selected_counts)
from .dependencies import (DependencyAccumulator, DependencyCounts, DependencyGold, DependencyResult,
                           gold_from_conll, gold_from_tree, score_dependencies,
                           score_tree_dependencies, scored_positions, tree_dependencies,
                           typed_arcs, untyped_arcs)
from .evalb import EvalbAccumulator, EvalbSentence, EvalbSummary, EvalbTotals, score_evalb
from .evalb_fast import EvalbColumns, EvalbInputError, score_evalb_bytes, score_evalb_files
from .evalb_params import EvalbParamError, EvalbParams, load_params, parse_params, read_params
from .evalb_report import format_sentence, format_summary
from .flat import (FlatAccumulator, FlatCounts, FlatResult, flat_constituents, flat_counts, flat_key,
                   score_flat)
from .inputs import (ConllSentence, EvaluationInputError, TreeLine, is_conll_path, read_conll,
                     read_tree_lines)
from .mph import MphAccumulator, MphSide, mph_counts, mph_side, score_mph, score_mph_sides
from .crossing import crossing_count
from .parseval import (BracketCounts, ParsevalAccumulator, ParsevalResult, constituent_spans,
                       score_parseval, span_counts)
from .significance import Interval, bootstrap_interval, paired_randomization_test
from .summary import BracketAccumulator, BracketSummary, percent

__all__ = [
    # EVALB
    "EvalbAccumulator", "EvalbColumns", "EvalbInputError", "EvalbParamError", "EvalbParams",
    "EvalbSentence", "EvalbSummary", "EvalbTotals", "format_sentence", "format_summary",
    "load_params", "parse_params", "read_params", "score_evalb", "score_evalb_bytes",
    "score_evalb_files",
    # PARSEVAL and shared bracket counting
    "BracketCounts", "ParsevalAccumulator", "ParsevalResult", "constituent_spans", "crossing_count",
    "score_parseval", "span_counts", "BracketAccumulator", "BracketSummary", "percent",
    # MPH
    "MphAccumulator", "MphSide", "mph_counts", "mph_side", "score_mph", "score_mph_sides",
    # flattened keys
    "FlatAccumulator", "FlatCounts", "FlatResult", "flat_constituents", "flat_counts", "flat_key",
    "score_flat",
    # dependencies
    "DependencyAccumulator", "DependencyCounts", "DependencyGold", "DependencyResult",
    "gold_from_conll", "gold_from_tree", "score_dependencies", "score_tree_dependencies",
    "scored_positions", "tree_dependencies", "typed_arcs", "untyped_arcs",
    # input files
    "ConllSentence", "EvaluationInputError", "TreeLine", "is_conll_path", "read_conll",
    "read_tree_lines",
    # bounds and significance
    "METRICS", "ForestCounts", "Metric", "conformance_score", "corpus_score", "error_reduction",
    "expected_counts", "f1_score", "oracle_choice", "recall_score", "selected_counts",
    "Interval", "bootstrap_interval", "paired_randomization_test",
]
