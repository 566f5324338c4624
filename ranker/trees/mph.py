"""Maximal projections of heads (Ringger et al. 2004, section 2).

A node is a maximal projection when it is the root or is not the head child of its parent: the
highest node a head word projects to. Ringger et al. keep only those brackets ("no brackets are
added"), then, "to avoid giving credit for trivially recoverable brackets", ignore brackets over a
single terminal and the top bracket, flatten non-branching nodes and drop punctuation.

:func:`maximal_projections` returns a tree that holds exactly that: every bracket under the root is
a multi-word, branching maximal projection; words no longer have tags (a word stands directly
under the maximal projection it heads or modifies, as in NLPWin's trees); the ROOT is the top
bracket, which scorers must ignore (:func:`mph_brackets` gives the brackets to score).
Empty elements are removed first, since the paper works on "trees minus empty nodes" (its
figure 2); labels are reduced to base labels (they are not scored).
"""
from __future__ import annotations

from .heads import HeadRules, head_map
from .transforms import PUNCT_TAGS, remove_empty_elements, strip_function_tags, strip_root
from .tree import Node, Tree, delete_words, map_nodes, rebuild


class _Spliced(list):
    """The children of a node that is not a maximal projection, kept by reference in its parent.

    Copying them into the parent at every level would cost the square of the depth on a long
    chain of non-maximal nodes; :func:`_rebuild` flattens them once, at the maximal projection.
    """


def _rebuild(label: str, kids: list) -> Node:
    if any(type(c) is _Spliced for c in kids):
        flat: list = []
        todo = list(reversed(kids))
        while todo:
            c = todo.pop()
            if type(c) is _Spliced:
                todo.extend(reversed(c))
            else:
                flat.append(c)
        kids = flat
    first, last = kids[0], kids[-1]
    return Node(label, tuple(kids), first if type(first) is int else first.start,
                last + 1 if type(last) is int else last.end)


def maximal_projections(tree: Tree, rules: HeadRules, punct_tags=PUNCT_TAGS) -> Tree | None:
    """The MPH tree of ``tree`` under the head rules ``rules``.

    Parameters
    ----------
    tree
        A treebank or parser tree (the empty ``.mrg`` root, function tags, empty elements allowed).
    rules
        Head rules, e.g. ``HeadRules.load("charniak")`` or ``HeadRules.load("ringger-reassign")``.
    punct_tags
        Tags of the words dropped as punctuation (EVALB's by default).

    Returns
    -------
    Tree or None
        Root = top bracket (ignored by scoring); below it only branching maximal projections over
        two or more words. ``None`` if no word is left.
    """
    t = remove_empty_elements(tree)
    if t is None:
        return None
    t = strip_function_tags(strip_root(t))
    tags = t.tags()
    head_of = head_map(t, rules)
    # a node is not maximal when it heads its parent: it shares the parent's head word (siblings
    # cover other words, so only the head child can)
    headed: set[int] = set()
    for n in t.nodes():
        h = head_of[id(n)]
        for c in n.children:
            if type(c) is not int and head_of[id(c)] == h:
                headed.add(id(c))

    def visit(n: Node, kids: list):
        if id(n) in headed:
            return _Spliced(kids)           # not maximal: its children go to the parent
        return _rebuild(n.label, kids)

    mph = Tree(rebuild(t.root, visit), t.words)
    mph = delete_words(mph, lambda i: tags[i] not in punct_tags)
    if mph is None:
        return None

    def simplify(n: Node, is_root: bool):
        kids = list(n.children)
        while len(kids) == 1 and type(kids[0]) is not int:   # non-branching: one bracket stays
            kids = list(kids[0].children)
        if not is_root and len(kids) == 1:                  # one word: not a bracket to score
            return tuple(kids)
        return _rebuild(n.label, kids)

    return map_nodes(mph, simplify, with_root=True)


def mph_brackets(tree: Tree, rules: HeadRules, punct_tags=PUNCT_TAGS) -> list[tuple[int, int]]:
    """The unlabelled ``(start, end)`` MPH brackets to score: every node below the top bracket.

    Word positions are those of the tree after empty elements and punctuation are removed, the
    same for gold and test when their words agree.
    """
    m = maximal_projections(tree, rules, punct_tags)
    if m is None:
        return []
    return [(n.start, n.end) for n in m.nodes() if n is not m.root]
