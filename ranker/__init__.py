"""ranker: store candidate parses, rank them, and measure how good the choice was.

The public surface, in one place: import what you need from ``ranker`` directly. Names load on
first use, so ``import ranker`` stays cheap for the command line.
"""
from .lazy import lazy_getattr

__version__ = "0.1.0"

_PUBLIC = {
    # trees
    "Tree": "ranker.trees", "Node": "ranker.trees", "parse_tree": "ranker.trees",
    "read_trees": "ranker.trees", "write_trees": "ranker.trees", "iter_trees": "ranker.trees",
    # store and records
    "Store": "ranker.store", "Sentence": "ranker.store", "Candidate": "ranker.store",
    "Forest": "ranker.store", "Annotation": "ranker.store", "Bracket": "ranker.store",
    "Decision": "ranker.store",
    # discriminants (ranker serve's disambiguation) and retraining from them
    "Discriminant": "ranker.sources.discriminants", "discriminants": "ranker.sources.discriminants",
    "remaining_mask": "ranker.sources.discriminants", "candidate_spans": "ranker.sources.discriminants",
    "decide": "ranker.sources.discriminants", "DecisionRefused": "ranker.sources.discriminants",
    "forest_spans": "ranker.sources.discriminants",
    "retrain": "ranker.pipeline.retrain",
    # rankers
    "HeidornRanker": "ranker.models", "LogLinearRanker": "ranker.models",
    "NativeRanker": "ranker.models", "RandomRanker": "ranker.models",
    "OracleRanker": "ranker.models", "save_model": "ranker.models", "load_model": "ranker.models",
    # evaluation
    "score_evalb": "ranker.evaluation", "load_params": "ranker.evaluation",
    "score_parseval": "ranker.evaluation", "score_mph": "ranker.evaluation",
    "score_flat": "ranker.evaluation", "bootstrap_interval": "ranker.evaluation",
    "paired_randomization_test": "ranker.evaluation",
    # experiments
    "load_config": "ranker.pipeline.config", "run_experiment": "ranker.pipeline.experiment",
    # errors
    "RankerError": "ranker.errors",
}

__all__ = sorted(_PUBLIC) + ["__version__"]


__getattr__ = lazy_getattr(__name__, _PUBLIC, globals())


def __dir__():
    return __all__
