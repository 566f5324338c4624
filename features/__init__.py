"""Property functions over candidate parses, and their vectorisation to one sparse matrix."""
from .registry import FeatureConfigError, Family, family_names, make_family, register
from .feature_sets import FeatureSet, feature_set_from_dict, load_feature_set
from .matrix_bytes import from_bytes, to_bytes
from .vectorizer import CandidateMatrix, extract, extract_stored, frequency_cutoff, select_sentences, stack_rows

__all__ = [
    "CandidateMatrix", "FeatureConfigError", "FeatureSet", "Family", "extract", "extract_stored",
    "family_names", "feature_set_from_dict", "frequency_cutoff", "from_bytes", "load_feature_set",
    "make_family", "register", "select_sentences", "stack_rows", "to_bytes",
]
