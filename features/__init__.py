"""Property functions over candidate parses, and their vectorisation to one sparse matrix."""
from .registry import FeatureConfigError, Family, family_names, make_family, register
from .vectorizer import (CandidateMatrix, FeatureSet, extract, extract_stored, feature_set_from_dict,
                         frequency_cutoff, from_bytes, load_feature_set, select_sentences, stack_rows,
                         to_bytes)

__all__ = [
    "CandidateMatrix", "FeatureConfigError", "FeatureSet", "Family", "extract", "extract_stored",
    "family_names", "feature_set_from_dict", "frequency_cutoff", "from_bytes", "load_feature_set",
    "make_family", "register", "select_sentences", "stack_rows", "to_bytes",
]
