"""Trees: the immutable value type, Penn reading and writing, and the transforms the papers define."""
from .penn import TreeSyntaxError, format_tree, iter_trees, parse_tree, read_trees, write_trees
from .tree import Node, Tree, delete_words, map_nodes, node

__all__ = ["Node", "Tree", "TreeSyntaxError", "delete_words", "format_tree", "iter_trees",
           "map_nodes", "node", "parse_tree", "read_trees", "write_trees"]
