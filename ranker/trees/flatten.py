"""Gaizauskas et al. (1998, section 6): flattening treebank trees into 'flatter keys' by rule.

Rules (one per line in a ``configs/flatten/*.txt`` file, ``#`` lines are comments) take the
paper's three forms:

``(X Y1 ... Yi^ ... Yn)``
    in a node X whose children are exactly Y1 ... Yn, the marked child loses its bracket and its
    children take its place (``(NP NP^ PP)``: ``(NP (NP DET N) PP)`` -> ``(NP DET N PP)``);
``(X^ Y1 ... Yn)``
    a node X with exactly the children Y1 ... Yn loses its bracket, whatever dominates it;
``X^``
    every node X loses its bracket.

Forms two and three never remove the root. As an extension, a child pattern may be ``_`` (any one
child) or ``*`` (any run of children, possibly none), so that ``(NP * NP^ *)`` says "an NP
directly inside an NP" without listing every sequence of siblings; with ``*`` every child
position that can be the marked one in some match is flattened. Children are matched on their
labels after step one; a word standing directly under a phrase matches only ``_``/``*``.

The procedure (section 6): (1) cut '-' and '=' extensions from labels; then, until nothing
changes, (2) apply the rules bottom-up, (3) remove empty structure (``-NONE-`` words and nodes left
empty), (4) remove unary structure bottom-up: a non-root node with a single child node is replaced
by that child, ``(NP (N he))`` -> ``(N he)``. A node over a single word is taken to be a
preterminal and kept (all words stay in the key).
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from .rulefiles import RuleFileError, config_path, rule_lines
from .transforms import remove_empty_elements, strip_function_tags
from .tree import Node, Tree, equal_trees, map_nodes, rebuild


class FlattenRule(NamedTuple):
    """One rule: ``parent`` label, ``children`` patterns (``None`` for form three) and the mark.

    ``marked`` is the index of the marked child (form one) or -1 when the parent is marked.
    """

    parent: str
    children: tuple[str, ...] | None
    marked: int
    line: int


def _parse_rule(text: str, source: str, line: int) -> FlattenRule:
    if not text.startswith("("):
        if " " in text or not text.endswith("^") or len(text) < 2 or "(" in text or ")" in text:
            raise RuleFileError(source, line, f"expected '(X ... Y^ ...)', '(X^ ...)' or 'X^', got {text!r}")
        return FlattenRule(text[:-1], None, -1, line)
    if not text.endswith(")") or text.count("(") != 1 or text.count(")") != 1:
        raise RuleFileError(source, line, f"a rule is one flat bracket '(X Y1 ... Yn)', got {text!r}")
    parts = text[1:-1].split()
    if len(parts) < 2:
        raise RuleFileError(source, line, f"rule {text!r} names no children")
    parent, kids = parts[0], parts[1:]
    marks = [k for k, c in enumerate(kids) if c.endswith("^")]
    if parent.endswith("^"):
        if marks:
            raise RuleFileError(source, line, f"rule {text!r} marks both the parent and a child")
        return FlattenRule(parent[:-1], tuple(kids), -1, line)
    if len(marks) != 1:
        raise RuleFileError(source, line, f"rule {text!r} must mark exactly one node with '^'")
    m = marks[0]
    if kids[m] in ("*^", "^"):
        raise RuleFileError(source, line, f"rule {text!r} marks a wildcard")
    kids[m] = kids[m][:-1]
    return FlattenRule(parent, tuple(kids), m, line)


class FlattenRules(NamedTuple):
    """A loaded flattening rule set, in file order."""

    rules: tuple[FlattenRule, ...]
    source: str

    @classmethod
    def load(cls, path_or_name: str | Path) -> "FlattenRules":
        """Read rules by path or name (``"ptb"`` -> ``configs/flatten/ptb.txt``).

        Raises
        ------
        RuleFileError
            For a line that is none of the three forms; the message names file and line.
        """
        path = config_path("flatten", path_or_name)
        rules = tuple(_parse_rule(text, str(path), n) for n, text in rule_lines(path))
        return cls(rules, str(path))

    @classmethod
    def from_text(cls, text: str, source: str = "<rules>") -> "FlattenRules":
        """Rules from a string, one per line (for tests and inline configs)."""
        rules = []
        for n, raw in enumerate(text.splitlines(), 1):
            s = raw.strip()
            if s and not s.startswith("#"):
                rules.append(_parse_rule(s, source, n))
        return cls(tuple(rules), source)


def _label(c) -> str | None:
    return None if type(c) is int else c.label


def _matches(patterns, labels) -> bool:
    """Whether the child labels match the patterns (``_`` one child, ``*`` any run)."""
    memo: dict[tuple[int, int], bool] = {}

    def m(p: int, k: int) -> bool:
        key = (p, k)
        if key not in memo:
            if p == len(patterns):
                r = k == len(labels)
            elif patterns[p] == "*":
                r = m(p + 1, k) or (k < len(labels) and m(p, k + 1))
            elif k < len(labels) and (patterns[p] == "_" or patterns[p] == labels[k]):
                r = m(p + 1, k + 1)
            else:
                r = False
            memo[key] = r
        return memo[key]

    return m(0, 0)


def _marked_positions(rule: FlattenRule, labels: list) -> list[int]:
    pats = rule.children
    pre, target, post = pats[:rule.marked], pats[rule.marked], pats[rule.marked + 1:]
    if "*" not in pats and "_" not in pats:
        return [rule.marked] if tuple(labels) == pats[:rule.marked] + (target,) + post else []
    return [k for k, lab in enumerate(labels)
            if lab == target and _matches(pre, labels[:k]) and _matches(post, labels[k + 1:])]


def _rebuild(label: str, kids) -> Node:
    first, last = kids[0], kids[-1]
    return Node(label, tuple(kids), first if type(first) is int else first.start,
                last + 1 if type(last) is int else last.end)


def _apply_rules(tree: Tree, rules: FlattenRules) -> Tree:
    """Step two: bottom-up, every rule in file order at every node."""

    def apply(n: Node, is_root: bool):
        kids = list(n.children)
        for rule in rules.rules:
            if rule.parent != n.label:
                continue
            if rule.children is None:
                if not is_root:
                    return tuple(kids)
                continue
            labels = [_label(c) for c in kids]
            if rule.marked < 0:
                if not is_root and _matches(rule.children, labels):
                    return tuple(kids)
                continue
            marked = set(_marked_positions(rule, labels))
            if marked:
                new: list = []
                for k, c in enumerate(kids):
                    new.extend(c.children) if k in marked else new.append(c)
                kids = new
        return _rebuild(n.label, kids)

    return map_nodes(tree, apply, with_root=True)


def remove_unary(tree: Tree) -> Tree:
    """Step four: replace every non-root node that has one child node by that child."""

    def lift(c):
        while type(c) is not int and len(c.children) == 1 and type(c.children[0]) is not int:
            c = c.children[0]
        return c

    root = tree.root

    def visit_lift(n: Node, kids: list) -> Node:
        built = _rebuild(n.label, kids)
        return built if n is root else lift(built)

    return Tree(rebuild(root, visit_lift), tree.words)


def flatten(tree: Tree, rules: FlattenRules) -> Tree | None:
    """Gaizauskas et al.'s four-step flattening, steps two to four repeated to a fixpoint.

    Parameters
    ----------
    tree
        A treebank tree (function tags, co-indices, empty elements allowed).
    rules
        The flattening rules, e.g. ``FlattenRules.load("ptb")``.

    Returns
    -------
    Tree or None
        The flat key (all non-null words kept); ``None`` only if every word was an empty element.
    """
    t = strip_function_tags(tree)
    while True:
        new = _apply_rules(t, rules)
        new = remove_empty_elements(new)
        if new is None:
            return None
        new = remove_unary(new)
        if equal_trees(new, t):
            return new
        t = new
