"""Label and structure clean-ups every evaluation scheme starts from, each a pure function.

What counts as punctuation follows EVALB's standard parameter file (``COLLINS.prm``): its
``DELETE_LABEL`` list removes the tags ``,`` ``:`` ````` ``''`` ``.`` (besides ``TOP`` and
``-NONE-``), and Collins' parser treats the same five as punctuation. ``-LRB-``/``-RRB-``, ``#`` and
``$`` are scored as words by EVALB (``$`` and ``#`` head quantity phrases), so they are not in
:data:`PUNCT_TAGS`; :data:`BRACKET_TAGS` holds the round brackets for callers (Black et al.'s
"word-external punctuation") that want them gone too.
"""
from __future__ import annotations

from .tree import Node, Tree, delete_words, rebuild

#: Preterminal tags EVALB (COLLINS.prm) and Collins' parser treat as punctuation.
PUNCT_TAGS = frozenset({",", ":", "``", "''", "."})
#: The PTB's round-bracket tags: punctuation for Black et al., words for EVALB.
BRACKET_TAGS = frozenset({"-LRB-", "-RRB-"})
#: The tag of empty elements (traces, null complementizers, null subjects).
NONE_TAG = "-NONE-"

_BASE: dict[str, str] = {}


def base_label(label: str) -> str:
    """Cut a label at its first ``-`` or ``=`` (EVALB's rule), keeping ``-NONE-``, ``-LRB-`` whole.

    ``NP-SBJ-1`` -> ``NP``, ``NP=2`` -> ``NP``, ``PP-LOC=1`` -> ``PP``; a label that starts with
    ``-`` (the PTB's bracketed tags ``-NONE-``, ``-LRB-``, ``-RRB-``) is returned unchanged.
    """
    base = _BASE.get(label)
    if base is None:
        if label.startswith("-"):
            base = label
        else:
            cut = len(label)
            for ch in "-=":
                k = label.find(ch, 1)
                if k != -1 and k < cut:
                    cut = k
            base = label[:cut]
        _BASE[label] = base
    return base


def function_tags(label: str) -> frozenset[str]:
    """The PTB function tags of a label (``NP-SBJ-1`` -> ``{"SBJ"}``); co-indices are dropped."""
    if label.startswith("-"):
        return frozenset()
    rest = label[len(base_label(label)):].split("=", 1)[0]
    return frozenset(t for t in rest.split("-") if t and not t.isdigit())


def _relabel(n: Node, fn) -> Node:
    return rebuild(n, lambda m, kids: Node(fn(m.label), tuple(kids), m.start, m.end))


def strip_function_tags(tree: Tree) -> Tree:
    """Remove function tags and co-indices from every label (``NP-SBJ-1`` -> ``NP``, ``NP=2`` -> ``NP``).

    Parameters
    ----------
    tree
        Any tree; ``-NONE-``, ``-LRB-`` and ``-RRB-`` are kept whole.

    Returns
    -------
    Tree
        Same structure and words, base labels only.
    """
    # a tree with none (a parser's) is returned as it is: no copy, and its subtrees stay shared
    if all(base_label(n.label) == n.label for n in tree.root.subtrees()):
        return tree
    return Tree(_relabel(tree.root, base_label), tree.words)


def remove_empty_elements(tree: Tree) -> Tree | None:
    """Drop ``-NONE-`` words and every node left without words by that.

    Returns
    -------
    Tree or None
        ``None`` when the tree held nothing but empty elements.
    """
    tags = tree.tags()
    if NONE_TAG not in tags:
        return tree
    return delete_words(tree, lambda i: tags[i] != NONE_TAG)


def delete_punctuation(tree: Tree, tags=PUNCT_TAGS) -> Tree | None:
    """Drop the words whose preterminal tag is in ``tags``, and nodes emptied by that.

    Words standing directly under a phrase (no tag) are never punctuation here.

    Parameters
    ----------
    tree
        The tree to clean.
    tags
        Punctuation tags; by default EVALB's (:data:`PUNCT_TAGS`).

    Returns
    -------
    Tree or None
        ``None`` when every word was punctuation.
    """
    word_tags = tree.tags()
    if not any(t in tags for t in word_tags):
        return tree
    return delete_words(tree, lambda i: word_tags[i] not in tags)


def collapse_unary(tree: Tree, collapse_pos: bool = False) -> Tree:
    """Merge every phrase that has a single child node with that child, keeping the UPPER label.

    The upper label is the one the phrase's context sees (an ``S`` over a lone ``VP`` stays an
    ``S``), as in Black et al.'s bracket erasure. The empty root label never wins: ``( (S ..))``
    keeps ``S``. A phrase over a preterminal (``(NP (NN dog))``) is kept unless ``collapse_pos``,
    in which case the word ends up directly under the phrase.

    Parameters
    ----------
    tree
        The tree to collapse.
    collapse_pos
        Also merge phrases whose single child is a preterminal.

    Returns
    -------
    Tree
        No node has exactly one child node (preterminals aside, unless ``collapse_pos``).
    """

    def visit(n: Node, kids: list) -> Node:
        kids = tuple(kids)
        while len(kids) == 1 and type(kids[0]) is not int and (collapse_pos or not kids[0].is_preterminal):
            child = kids[0]
            label = n.label or child.label
            n = Node(label, child.children, child.start, child.end)
            kids = child.children
        return Node(n.label, kids, n.start, n.end)

    return Tree(rebuild(tree.root, visit), tree.words)


#: Root labels that name no constituent of the sentence: the empty wrapper of treebank files
#: ``( (S ...) )``, the BLLIP (Charniak) parser's ``S1``, and the ``TOP`` and ``ROOT`` other parsers
#: and converters print.
PSEUDO_ROOTS = frozenset({"", "S1", "TOP", "ROOT"})


def normalize_root(tree: Tree) -> Tree:
    """One root convention for gold and candidates alike: pseudo-roots removed as NLTK removes ``""``.

    A root labelled with one of :data:`PSEUDO_ROOTS` over exactly one child node is replaced by
    that child (repeatedly: ``(TOP (S1 (S ...)))`` -> ``(S ...)``), which is what NLTK's treebank
    reader does to the empty wrapper of gold trees; a pseudo-root over several children stays,
    relabelled ``""``, as NLTK leaves such a gold wrapper. So a parser's ``S1`` and the gold's
    wrapper never differ by a bracket, and no user has to rename either.
    """
    r = tree.root
    while r.label in PSEUDO_ROOTS and len(r.children) == 1 and type(r.children[0]) is not int:
        r = r.children[0]
    if r.label in PSEUDO_ROOTS and r.label:
        r = r._replace(label="")
    return tree if r is tree.root else Tree(r, tree.words)


def strip_root(tree: Tree) -> Tree:
    """Remove the empty-label wrapper of treebank files, ``( (S ...) )`` -> ``(S ...)``.

    Only a root labelled ``""`` with exactly one child node is removed; anything else is returned
    unchanged, so the function is safe on trees read without the wrapper.
    """
    r = tree.root
    if r.label == "" and len(r.children) == 1 and type(r.children[0]) is not int:
        return Tree(r.children[0], tree.words)
    return tree
