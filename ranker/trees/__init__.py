"""Trees: the immutable value type, Penn reading and writing, and the transforms the papers define.

Names load on first use (as in :mod:`ranker`): a caller that needs the tree type or one transform
(``ranker evaluate``'s compiled path reads base labels and rule tables only) does not import every
transform.
"""
from ..lazy import lazy_getattr

#: Public name -> the submodule that defines it.
_PUBLIC = {
    "black_erase": "black", "erased_words": "black", "remove_trivial_brackets": "black",
    "Dependency": "dependencies", "RelationLabels": "dependencies", "conll_words": "dependencies",
    "dependencies_from_conll": "dependencies", "tree_to_dependencies": "dependencies",
    "untyped_agreement": "dependencies",
    "FlattenRules": "flatten", "flatten": "flatten",
    "HeadRules": "heads", "head_words": "heads",
    "maximal_projections": "mph", "mph_brackets": "mph",
    "TreeSyntaxError": "penn", "iter_trees": "penn", "parse_tree": "penn",
    "read_trees": "penn", "write_trees": "penn",
    "RuleFileError": "rulefiles",
    "BRACKET_TAGS": "transforms", "PUNCT_TAGS": "transforms", "base_label": "transforms",
    "collapse_unary": "transforms", "delete_punctuation": "transforms", "function_tags": "transforms",
    "remove_empty_elements": "transforms", "strip_function_tags": "transforms", "strip_root": "transforms",
    "Node": "tree", "Tree": "tree", "delete_words": "tree", "format_tree": "tree", "map_nodes": "tree",
    "node": "tree",
}

__all__ = sorted(_PUBLIC)

__getattr__ = lazy_getattr(__name__, _PUBLIC, globals(), prefix=__name__ + ".")


def __dir__():
    return __all__
