"""Head finding from head-rule tables kept as data files in ``configs/heads/``.

A table says, per phrase label, where to look for the head child. Each line is::

    LABEL DIRECTION CAT CAT ...

and a label's lines are tried in file order until one finds a child. The directions are those of
Collins (1999, appendix A) as written down in Stanford CoreNLP's head finders:

``left`` / ``right``
    for each CAT in turn, scan the children from the left / right; the first hit wins
    (category first, then position);
``leftdis`` / ``rightdis``
    scan the children from the left / right; the first child matching any CAT wins
    (position first);
``leftexcept`` / ``rightexcept``
    the first child from the left / right that matches none of the CATs.

A line without CATs takes the first (non-punctuation) child from its side. When no line of a label
finds anything, the first non-punctuation child from the side of the label's LAST line is taken
(Collins' "else return the last word" for NP). Labels are compared after cutting function tags
(``NP-SBJ`` is ``NP``). Besides labels a CAT may be ``@tag`` (a preterminal that is not
punctuation), ``@phrase`` (a non-preterminal other than ``PP``), ``@node`` (any node), ``@word``
(a word standing directly under the phrase), ``@same`` (a child with the phrase's own label, as
Charniak's ``NP -> NP , NP``; it lets ``*`` rules say so for labels the table does not list). The label ``*`` gives the rules for labels the table
does not list.

Directives: ``%punctuation TAG ...`` (never chosen by default, skipped by the coordination rule),
``%coordination TAG ...`` (Collins' coordination rule: when the child before the chosen head is one
of these and there is a child before that, the head moves two to the left, past punctuation), and
``%base NAME`` (start from another table; this file's lines for a label are tried FIRST, which is
how Ringger et al.'s head reassignment is layered over Charniak's rules).
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from .rulefiles import RuleFileError, config_path, rule_lines
from .transforms import base_label
from .tree import Node, Tree

DIRECTIONS = ("left", "right", "leftdis", "rightdis", "leftexcept", "rightexcept")
_PSEUDO = ("@tag", "@phrase", "@node", "@word", "@same")


class HeadRule(NamedTuple):
    """One search pass: a direction and the categories it looks for."""

    direction: str
    categories: tuple[str, ...]


class HeadRules(NamedTuple):
    """A loaded head-rule table: per label, the search passes tried in order."""

    rules: dict  # label -> tuple[HeadRule, ...]
    punctuation: frozenset
    coordination: frozenset
    source: str
    # node shape (label, children's labels and preterminal flags) -> head child, filled as trees
    # are read: a forest repeats the same local trees thousands of times
    shapes: dict

    @classmethod
    def load(cls, path_or_name: str | Path, _seen: tuple = ()) -> "HeadRules":
        """Read a table by path or by name (``"collins"`` -> ``configs/heads/collins.txt``).

        Raises
        ------
        RuleFileError
            For an unknown direction or directive, a line without a direction, or a ``%base``
            cycle; the message names file and line.
        FileNotFoundError
            When there is no such file or table.
        """
        path = config_path("heads", path_or_name)
        source = str(path)
        if path.resolve() in _seen:
            raise RuleFileError(source, 1, "%base cycle: " + " -> ".join(str(p) for p in _seen))
        rules: dict[str, list[HeadRule]] = {}
        punct: set[str] | None = None
        coord: set[str] | None = None
        base: HeadRules | None = None
        for number, text in rule_lines(path):
            fields = text.split()
            if fields[0].startswith("%"):
                key, args = fields[0], fields[1:]
                if key == "%punctuation":
                    punct = set(args)
                elif key == "%coordination":
                    coord = set(args)
                elif key == "%base":
                    if len(args) != 1:
                        raise RuleFileError(source, number, "%base takes exactly one table name")
                    try:
                        base = cls.load(args[0], _seen + (path.resolve(),))
                    except FileNotFoundError as e:
                        raise RuleFileError(source, number, str(e)) from None
                else:
                    raise RuleFileError(source, number, f"unknown directive {key!r} "
                                        "(known: %punctuation, %coordination, %base)")
                continue
            if len(fields) < 2:
                raise RuleFileError(source, number, f"rule for {fields[0]!r} has no direction "
                                    f"(one of {', '.join(DIRECTIONS)})")
            label, direction, cats = fields[0], fields[1], tuple(fields[2:])
            if direction not in DIRECTIONS:
                raise RuleFileError(source, number, f"unknown direction {direction!r} "
                                    f"(one of {', '.join(DIRECTIONS)})")
            bad = [c for c in cats if c.startswith("@") and c not in _PSEUDO]
            if bad:
                raise RuleFileError(source, number, f"unknown category {bad[0]!r} "
                                    f"(pseudo-categories: {', '.join(_PSEUDO)})")
            rules.setdefault(label, []).append(HeadRule(direction, cats))
        merged: dict[str, tuple[HeadRule, ...]] = {}
        if base is not None:
            merged.update(base.rules)
        for label, passes in rules.items():
            merged[label] = tuple(passes) + merged.get(label, ())
        if not merged:
            raise RuleFileError(source, 1, "no head rules in file")
        return cls(merged,
                   frozenset(punct) if punct is not None else (base.punctuation if base else frozenset()),
                   frozenset(coord) if coord is not None else (base.coordination if base else frozenset()),
                   source, {})

    def head_child(self, node: Node) -> int:
        """Index into ``node.children`` of the head child.

        Parameters
        ----------
        node
            A phrase or preterminal (whose head is its only child).

        Returns
        -------
        int
            Position of the head among ``node.children``.
        """
        kids = node.children
        if len(kids) == 1:
            return 0
        shape = (node.label, tuple(None if type(c) is int else (c.label, c.is_preterminal) for c in kids))
        head = self.shapes.get(shape)
        if head is None:
            head = self.shapes[shape] = self._find_head_child(node)
        return head

    def _find_head_child(self, node: Node) -> int:
        kids = node.children
        cats = [None if type(c) is int else base_label(c.label) for c in kids]
        pre = [type(c) is not int and c.is_preterminal for c in kids]
        punct = self.punctuation
        label = base_label(node.label)
        passes = self.rules.get(label) or self.rules.get("*") or (HeadRule("left", ()),)

        def match(k: int, cat: str) -> bool:
            c = cats[k]
            if cat[0] != "@" or len(cat) == 1:
                return c == cat
            if cat == "@word":
                return c is None
            if c is None:
                return False
            if cat == "@same":
                return c == label
            if cat == "@tag":
                return pre[k] and c not in punct
            if cat == "@phrase":
                return not pre[k] and c != "PP"
            return True  # @node

        def side(direction: str) -> range:
            return range(len(kids)) if direction.startswith("left") else range(len(kids) - 1, -1, -1)

        def first_content(direction: str) -> int:
            order = side(direction)
            for k in order:
                if cats[k] not in punct or not pre[k]:
                    return k
            return order[0]

        head = -1
        for p in passes:
            order = side(p.direction)
            if not p.categories:
                head = first_content(p.direction)
            elif p.direction in ("left", "right"):
                head = next((k for cat in p.categories for k in order if match(k, cat)), -1)
            elif p.direction.endswith("dis"):
                head = next((k for k in order if any(match(k, cat) for cat in p.categories)), -1)
            else:
                head = next((k for k in order if not any(match(k, cat) for cat in p.categories)), -1)
            if head >= 0:
                break
        if head < 0:
            head = first_content(passes[-1].direction)
        if head >= 2 and cats[head - 1] in self.coordination:
            k = head - 2
            while k >= 0 and pre[k] and cats[k] in punct:
                k -= 1
            if k >= 0:
                head = k
        return head


def head_words(tree: Tree, rules: HeadRules) -> list[int]:
    """The lexical head word of every node of ``tree``, in ``tree.nodes()`` pre-order.

    Parameters
    ----------
    tree
        Any tree; words directly under a phrase can be heads.
    rules
        A loaded head-rule table.

    Returns
    -------
    list of int
        ``result[k]`` is the word position heading the k-th node of ``tree.nodes()``.
    """
    nodes = list(tree.nodes())
    memo = _head_memo(nodes, rules)
    return [memo[id(n)] for n in nodes]


def head_map(tree: Tree, rules: HeadRules) -> dict[int, int]:
    """``id(node) -> head word`` for every node: for callers that walk the tree themselves."""
    return _head_memo(list(tree.nodes()), rules)


def _head_memo(nodes: list, rules: HeadRules) -> dict[int, int]:
    head_child = rules.head_child
    memo: dict[int, int] = {}
    for n in reversed(nodes):           # reversed pre-order: children before parents, no recursion
        c = n.children[head_child(n)]
        memo[id(n)] = c if type(c) is int else memo[id(c)]
    return memo
