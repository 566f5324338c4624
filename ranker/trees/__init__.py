"""Trees: the immutable value type, Penn reading and writing, and the transforms the papers define."""
from .black import black_erase, erased_words, remove_trivial_brackets
from .dependencies import (Dependency, RelationLabels, conll_words, dependencies_from_conll,
                           tree_to_dependencies, untyped_agreement)
from .flatten import FlattenRules, flatten
from .heads import HeadRules, head_words
from .mph import maximal_projections, mph_brackets
from .penn import TreeSyntaxError, format_tree, iter_trees, parse_tree, read_trees, write_trees
from .rulefiles import RuleFileError
from .transforms import (BRACKET_TAGS, PUNCT_TAGS, base_label, collapse_unary, delete_punctuation,
                         function_tags, remove_empty_elements, strip_function_tags, strip_root)
from .tree import Node, Tree, delete_words, map_nodes, node

__all__ = ["Node", "Tree", "TreeSyntaxError", "delete_words", "format_tree", "iter_trees",
           "map_nodes", "node", "parse_tree", "read_trees", "write_trees"]
__all__ += ["BRACKET_TAGS", "PUNCT_TAGS", "base_label", "collapse_unary", "delete_punctuation",
            "function_tags", "remove_empty_elements", "strip_function_tags", "strip_root",
            "black_erase", "erased_words", "remove_trivial_brackets",
            "HeadRules", "head_words", "RuleFileError",
            "maximal_projections", "mph_brackets", "FlattenRules", "flatten",
            "Dependency", "RelationLabels", "conll_words", "dependencies_from_conll",
            "tree_to_dependencies", "untyped_agreement"]
