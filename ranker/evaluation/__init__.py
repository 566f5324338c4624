"""Metrics: pure per-pair scoring functions, accumulators that only add, and reports.

Each scheme has one per-pair function over (gold, candidate) and an accumulator with ``add`` and
``result()``:

* EVALB: :func:`score_evalb`, :class:`EvalbAccumulator`; whole files with the compiled kernel
  (:mod:`.evalb_native`) or numpy (:func:`score_evalb_files`);
* PARSEVAL after Black et al.: :func:`score_parseval`, :class:`ParsevalAccumulator`;
* MPH (Ringger et al.): :func:`score_mph`, :class:`MphAccumulator` (= :class:`BracketAccumulator`,
  whose :class:`BracketSummary` holds the rows of their Table 1);
* flattened keys (Gaizauskas et al.): :func:`flat_key`, :func:`score_flat`, :class:`FlatAccumulator`;
* dependencies: :func:`score_tree_dependencies`, :func:`score_dependencies`,
  :class:`DependencyAccumulator`.

Per-candidate counts over a corpus give bounds (:mod:`.bounds`: oracle, random, error reduction)
and significance (:mod:`.significance`). ``ranker evaluate`` reads its files with :mod:`.inputs`.

Names load on first use (as in :mod:`ranker`): ``ranker evalb`` imports only the modules it needs,
neither numpy nor the tree package, so that its start-up stays close to the C evalb's.
"""
from ..lazy import lazy_getattr

#: Public name -> the submodule that defines it.
_PUBLIC = {
    "METRICS": "bounds", "ForestCounts": "bounds", "Metric": "bounds", "candidate_scores": "bounds",
    "conformance_score": "bounds", "corpus_score": "bounds", "error_reduction": "bounds",
    "expected_counts": "bounds", "f1_score": "bounds", "oracle_choice": "bounds",
    "recall_score": "bounds", "selected_counts": "bounds",
    "DependencyAccumulator": "dependencies", "DependencyCounts": "dependencies",
    "DependencyGold": "dependencies", "DependencyResult": "dependencies",
    "gold_from_conll": "dependencies", "gold_from_tree": "dependencies",
    "score_dependencies": "dependencies", "score_tree_dependencies": "dependencies",
    "scored_positions": "dependencies", "tree_dependencies": "dependencies",
    "typed_arcs": "dependencies", "untyped_arcs": "dependencies",
    "EvalbAccumulator": "evalb_totals", "EvalbSentence": "evalb_totals", "EvalbSummary": "evalb_totals",
    "EvalbTotals": "evalb_totals", "score_evalb": "evalb",
    "EvalbColumns": "evalb_fast", "EvalbInputError": "evalb_files",
    "score_evalb_bytes": "evalb_fast", "score_evalb_files": "evalb_fast",
    "EvalbParamError": "evalb_params", "EvalbParams": "evalb_params", "load_params": "evalb_params",
    "parse_params": "evalb_params", "read_params": "evalb_params",
    "format_sentence": "evalb_report", "format_summary": "evalb_report",
    "FlatAccumulator": "flat", "FlatCounts": "flat", "FlatResult": "flat",
    "flat_constituents": "flat", "flat_counts": "flat", "flat_key": "flat", "score_flat": "flat",
    "ConllSentence": "inputs", "EvaluationInputError": "inputs", "TreeLine": "inputs",
    "is_conll_path": "inputs", "read_conll": "inputs", "read_tree_lines": "inputs",
    "MphAccumulator": "mph", "MphSide": "mph", "mph_counts": "mph", "mph_side": "mph",
    "score_mph": "mph", "score_mph_sides": "mph",
    "crossing_count": "crossing",
    "BracketCounts": "parseval", "ParsevalAccumulator": "parseval", "ParsevalResult": "parseval",
    "constituent_spans": "parseval", "score_parseval": "parseval", "span_counts": "parseval",
    "Interval": "significance", "bootstrap_interval": "significance",
    "paired_randomization_test": "significance",
    "BracketAccumulator": "summary", "BracketSummary": "summary", "percent": "summary",
}


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
    "METRICS", "ForestCounts", "Metric", "candidate_scores", "conformance_score", "corpus_score", "error_reduction",
    "expected_counts", "f1_score", "oracle_choice", "recall_score", "selected_counts",
    "Interval", "bootstrap_interval", "paired_randomization_test",
]


__getattr__ = lazy_getattr(__name__, _PUBLIC, globals(), prefix=f"{__name__}.")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
