"""Head dependencies: read off constituency trees with head rules, or read from CoNLL/Malt text.

In a phrase, every non-head child's head word depends on the head child's head word; the root's
head word depends on nothing (``head == -1``). The relation comes from a label table
(``configs/deps/labels.txt``, :class:`RelationLabels`) that looks at the phrase label, the head
child and the dependent child with its PTB function tags. Call this on a tree whose empty elements
are removed (:func:`~ranker.trees.transforms.remove_empty_elements`) so that word positions match
the sentence and controlled clauses show no subject; function tags must still be there.
"""
from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path
from typing import NamedTuple

from .heads import HeadRules, head_words
from .rulefiles import RuleFileError, config_path, rule_lines
from .transforms import base_label, function_tags
from .tree import Node, Tree


class Dependency(NamedTuple):
    """One arc over word positions: ``head`` is -1 for the root word."""

    head: int
    dependent: int
    relation: str


_CONDITIONS = ("before", "after", "coord", "nosubj")


class _Alt(NamedTuple):
    base: str          # glob over the base label, '*' for anything, '@word' for a bare word
    tag: str | None    # required function tag


def _parse_pattern(text: str, source: str, line: int) -> tuple[_Alt, ...]:
    alts = []
    for a in text.split("|"):
        if not a:
            raise RuleFileError(source, line, f"empty alternative in pattern {text!r}")
        if a in ("*", "@word") or a.startswith("-"):
            alts.append(_Alt(a, None))
            continue
        base = base_label(a) if not a.startswith("*-") else "*"
        rest = a[len(base):]
        tag = rest[1:] if rest.startswith("-") and len(rest) > 1 else None
        if rest and tag is None:
            raise RuleFileError(source, line, f"bad label pattern {a!r}")
        alts.append(_Alt(base, tag))
    return tuple(alts)


class RelationRule(NamedTuple):
    """One line of the label table."""

    relation: str
    parent: tuple[_Alt, ...]
    head: tuple[_Alt, ...]
    dependent: tuple[_Alt, ...]
    side: str | None
    nth: int
    coord: bool
    nosubj: bool
    line: int


class RelationLabels(NamedTuple):
    """A loaded relation-label table, first matching line wins."""

    rules: tuple[RelationRule, ...]
    source: str

    @classmethod
    def load(cls, path_or_name: str | Path) -> "RelationLabels":
        """Read a table by path or by name (``"labels"`` -> ``configs/deps/labels.txt``).

        Raises
        ------
        RuleFileError
            For a line with fewer than four fields, a bad pattern or an unknown condition.
        """
        path = config_path("deps", path_or_name)
        source = str(path)
        rules = []
        for number, text in rule_lines(path):
            f = text.split()
            if len(f) < 4:
                raise RuleFileError(source, number, "expected RELATION PARENT HEAD DEPENDENT [CONDITION ...]")
            side, nth, coord, nosubj = None, 0, False, False
            for c in f[4:]:
                if c in ("before", "after"):
                    side = c
                elif c == "coord":
                    coord = True
                elif c == "nosubj":
                    nosubj = True
                elif c.startswith("nth=") and c[4:].isdigit() and int(c[4:]) > 0:
                    nth = int(c[4:])
                else:
                    raise RuleFileError(source, number, f"unknown condition {c!r} "
                                        "(before, after, nth=K, coord, nosubj)")
            if nth and side is None:
                raise RuleFileError(source, number, "nth=K needs 'before' or 'after'")
            rules.append(RelationRule(f[0], _parse_pattern(f[1], source, number),
                                      _parse_pattern(f[2], source, number),
                                      _parse_pattern(f[3], source, number),
                                      side, nth, coord, nosubj, number))
        if not rules:
            raise RuleFileError(source, 1, "no relation rules in file")
        return cls(tuple(rules), source)


def _matches(alts: tuple[_Alt, ...], child) -> bool:
    if type(child) is int:
        return any(a.base in ("*", "@word") and a.tag is None for a in alts)
    base = base_label(child.label)
    tags = function_tags(child.label) if any(a.tag for a in alts) else frozenset()
    for a in alts:
        if a.base == "@word":
            continue
        if (a.base == "*" or a.base == base or fnmatchcase(base, a.base)) and (a.tag is None or a.tag in tags):
            return True
    return False


def _has_subject(n: Node, tags) -> bool:
    return any(type(c) is not int and "SBJ" in function_tags(c.label)
               and any(tags[i] != "-NONE-" for i in range(c.start, c.end)) for c in n.children)


def _relation(labels: RelationLabels, parent: Node, hk: int, k: int, tags) -> str:
    kids = parent.children
    head_child, dep = kids[hk], kids[k]
    side = "before" if k < hk else "after"
    for r in labels.rules:
        if r.side is not None and r.side != side:
            continue
        if not (_matches(r.parent, parent) and _matches(r.head, head_child) and _matches(r.dependent, dep)):
            continue
        if r.coord:
            if type(dep) is int or type(head_child) is int:
                continue
            if not any(type(c) is not int and base_label(c.label) in ("CC", "CONJP") for c in kids):
                continue
            if base_label(dep.label) != base_label(head_child.label):
                continue
        if r.nosubj and (type(dep) is int or _has_subject(dep, tags)):
            continue
        if r.nth:
            others = range(hk + 1, k) if side == "after" else range(k + 1, hk)
            if 1 + sum(_matches(r.dependent, kids[j]) for j in others) != r.nth:
                continue
        return r.relation
    return ""


def tree_to_dependencies(tree: Tree, rules: HeadRules, labels: RelationLabels,
                         subtrees: dict | None = None) -> tuple[Dependency, ...]:
    """Head dependencies of ``tree``, one per word, ordered by dependent position.

    The arcs inside a subtree (its head word, and the arc of every other word it covers) depend
    on the subtree alone: its labels, its words' positions and its children's tags. Converted
    bottom-up, a subtree met again (the same object: the candidates of one sentence parsed with
    shared subtrees, ``parse_tree(..., shared=...)``) is pasted from ``subtrees`` instead of being
    walked again.

    Parameters
    ----------
    tree
        A tree with function tags and without empty elements.
    rules
        Head rules (``HeadRules.load("collins")``).
    labels
        The relation-label table (``RelationLabels.load("labels")``).
    subtrees : dict, optional
        The converted subtrees of earlier calls with the same ``rules`` and ``labels``, by node
        identity; it keeps their nodes alive. Give one dict per sentence (its candidates share
        subtrees), or nothing.

    Returns
    -------
    tuple of Dependency
        ``result[i].dependent == i``; the root word has ``head == -1`` and relation ``"root"``.
    """
    done = {} if subtrees is None else subtrees   # id(node) -> (node, head word, arcs of its span)
    head_child = rules.head_child
    memo, needs_subject = _relation_memo(labels)
    tags = None                                   # the tree's tags, read when a rule needs them
    stack: list = [(tree.root, False)]
    while stack:
        n, ready = stack.pop()
        if not ready:
            if id(n) not in done:
                stack.append((n, True))
                stack.extend((c, False) for c in n.children if type(c) is not int)
            continue
        kids = n.children
        if len(kids) == 1 and type(kids[0]) is int:   # a preterminal: its word heads it, no arc
            done[id(n)] = (n, kids[0], (None,))
            continue
        hk = head_child(n)
        hc = kids[hk]
        h = hc if type(hc) is int else done[id(hc)][1]
        shape = (n.label, tuple(None if type(c) is int else c.label for c in kids), hk)
        arcs: list = []
        for k, c in enumerate(kids):
            if type(c) is int:
                d, inner, at = c, (None,), 0
            else:
                _, d, inner = done[id(c)]
                at = d - c.start
            if k == hk:
                arcs.extend(inner)
                continue
            subject = False
            if needs_subject and type(c) is not int:
                if tags is None:
                    tags = tree.tags()
                subject = _has_subject(c, tags)
            key = (shape, k, subject)
            rel = memo.get(key)
            if rel is None:
                if tags is None:
                    tags = tree.tags()
                rel = memo[key] = _relation(labels, n, hk, k, tags)
            arcs.extend(inner[:at])
            arcs.append(Dependency(h, d, rel))
            arcs.extend(inner[at + 1:])
        done[id(n)] = (n, h, tuple(arcs))
    _, top, arcs = done[id(tree.root)]
    out = list(arcs)
    out[top] = Dependency(-1, top, "root")
    return tuple(out)  # type: ignore[arg-type]


_MEMOS: dict = {}


def _relation_memo(labels: RelationLabels) -> tuple[dict, bool]:
    """The relations already worked out under ``labels``, and whether any rule asks for a subject.

    A relation depends only on the parent's label, its children's labels, which child is the head
    and which the dependent (and, for ``nosubj`` rules, whether the dependent has a subject), so
    it is matched against the table once per such shape: scoring 18,559 Link Grammar candidates
    spent 40% of its time matching the same shapes again.
    """
    got = _MEMOS.get(labels)
    if got is None:
        got = _MEMOS[labels] = ({}, any(r.nosubj for r in labels.rules))
    return got


def _graph(graph_or_text):
    if isinstance(graph_or_text, str):
        from nltk.parse import DependencyGraph

        return DependencyGraph(graph_or_text)
    return graph_or_text


def dependencies_from_conll(graph_or_text) -> tuple[Dependency, ...]:
    """Dependencies of an NLTK ``DependencyGraph`` or of its Malt/CoNLL text, 0-based.

    NLTK's ``dependency_treebank`` is in Malt's three-column format (word, tag, head) and has no
    relation labels: those come out as ``""``. The root word has ``head == -1``.
    """
    g = _graph(graph_or_text)
    n = len(g.nodes) - 1
    out = []
    for a in range(1, n + 1):
        nd = g.nodes[a]
        rel = nd.get("rel") or ""
        out.append(Dependency(nd["head"] - 1, a - 1, "" if rel == "_" else rel))
    return tuple(out)


def conll_words(graph_or_text) -> tuple[str, ...]:
    """The words of a ``DependencyGraph`` (or its text), in order: to check alignment with trees."""
    g = _graph(graph_or_text)
    return tuple(g.nodes[a]["word"] for a in range(1, len(g.nodes)))


def untyped_agreement(gold: tuple[Dependency, ...], test: tuple[Dependency, ...]) -> tuple[int, int]:
    """``(same_head, words)``: how many words get the same head, for unlabelled attachment."""
    if len(gold) != len(test):
        raise ValueError(f"{len(gold)} gold words but {len(test)} test words")
    return sum(g.head == t.head for g, t in zip(gold, test)), len(gold)
