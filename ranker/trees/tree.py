"""The immutable constituency tree every layer of ranker passes around.

Structure and words are kept apart: a :class:`Node` holds a label and children, where a child is
either another node or an ``int``, the position of a word in :attr:`Tree.words`. Spans are computed
once, when a node is built, so metrics never walk a tree to learn what it covers. Both types are
named tuples: immutable, hashable, compared by value and cheap to build in bulk (the EVALB benchmark
reads tens of thousands of trees a second).

A *preterminal* is a node whose only child is a word (``(DT the)``). Words may also stand directly
under a phrase with no tag node (``(NP John Smith)``), as in Black et al.'s examples and Link
Grammar's constituent output; such a word has no tag (``None`` in :meth:`Tree.tags`).
"""
from __future__ import annotations

from typing import Iterator, NamedTuple, Union

Child = Union["Node", int]


class Node(NamedTuple):
    """One labelled bracket: its children and the half-open word span ``[start, end)`` it covers."""

    label: str
    children: tuple[Child, ...]
    start: int
    end: int

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)

    @property
    def is_preterminal(self) -> bool:
        """True for a tag over exactly one word, as ``(NN dog)``."""
        c = self.children
        return len(c) == 1 and type(c[0]) is int

    def child_nodes(self) -> tuple["Node", ...]:
        return tuple(c for c in self.children if type(c) is not int)

    def subtrees(self) -> Iterator["Node"]:
        """Every node below and including this one, in pre-order."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(c for c in reversed(n.children) if type(c) is not int)


def node(label: str, children) -> Node:
    """Build a node, computing its span from its children.

    Raises
    ------
    ValueError
        If ``children`` is empty: a bracket must cover at least one word.
    """
    children = tuple(children)
    if not children:
        raise ValueError(f"node {label!r} has no children")
    first, last = children[0], children[-1]
    start = first if type(first) is int else first.start
    end = last + 1 if type(last) is int else last.end
    return Node(label, children, start, end)


class Tree(NamedTuple):
    """A constituency tree over a word sequence; ``root`` covers every word exactly once, in order."""

    root: Node
    words: tuple[str, ...]

    @classmethod
    def build(cls, root: Node, words) -> "Tree":
        """Make a tree after checking that its leaves are exactly ``0..len(words)-1`` in order."""
        words = tuple(words)
        leaves: list[int] = []

        def collect(n: Node) -> None:  # in-order: words and child nodes as they stand
            for c in n.children:
                if type(c) is int:
                    leaves.append(c)
                else:
                    collect(c)

        collect(root)
        if leaves != list(range(len(words))):
            raise ValueError(f"leaves {leaves} do not index the {len(words)} words in order")
        return cls(root, words)

    def __len__(self) -> int:  # type: ignore[override]
        return len(self.words)

    def nodes(self) -> Iterator[Node]:
        """Every node in pre-order, preterminals included."""
        return self.root.subtrees()

    def tags(self) -> tuple[str | None, ...]:
        """The preterminal label of each word, or ``None`` where a word stands directly under a phrase."""
        tags: list[str | None] = [None] * len(self.words)
        for n in self.root.subtrees():
            if n.is_preterminal:
                tags[n.children[0]] = n.label
        return tuple(tags)

    def constituents(self) -> list[tuple[str, int, int]]:
        """``(label, start, end)`` of every node that is not a preterminal, in pre-order."""
        return [(n.label, n.start, n.end) for n in self.root.subtrees() if not n.is_preterminal]

    def to_penn(self) -> str:
        """The tree as one line of Penn bracketed text."""
        from .penn import format_tree

        return format_tree(self)

    def pretty(self) -> str:
        """The tree as indented Penn text, one phrase per line."""
        from .penn import format_tree

        return format_tree(self, indent=2)

    def __str__(self) -> str:
        return self.to_penn()

    def to_nltk(self):
        """Convert to an ``nltk.Tree`` (leaves become the word strings)."""
        from nltk import Tree as NLTKTree

        def conv(n: Node):
            return NLTKTree(n.label, [self.words[c] if type(c) is int else conv(c) for c in n.children])

        return conv(self.root)

    @classmethod
    def from_nltk(cls, t) -> "Tree":
        """Convert an ``nltk.Tree``; string leaves become words, in order."""
        words: list[str] = []

        def conv(x) -> Node:
            kids = []
            for c in x:
                if isinstance(c, str):
                    kids.append(len(words))
                    words.append(c)
                else:
                    kids.append(conv(c))
            return node(x.label(), kids)

        if isinstance(t, str):
            raise ValueError("a bare word is not a tree")
        return cls(conv(t), tuple(words))


def delete_words(tree: Tree, keep_word) -> Tree | None:
    """Drop the words for which ``keep_word(i)`` is false, renumber the rest and drop emptied nodes.

    The one mechanism behind every transform that deletes words (empty elements, punctuation,
    Black et al.'s erasures): spans are recomputed, never patched. Returns ``None`` when no word
    is left.
    """
    words: list[str] = []

    def visit(n: Node) -> Node | None:
        kids = []
        for c in n.children:
            if type(c) is int:
                if keep_word(c):
                    kids.append(len(words))
                    words.append(tree.words[c])
            else:
                k = visit(c)
                if k is not None:
                    kids.append(k)
        return node(n.label, kids) if kids else None

    root = visit(tree.root)
    return None if root is None else Tree(root, tuple(words))


def map_nodes(tree: Tree, fn, with_root: bool = False) -> Tree:
    """Rebuild a tree bottom-up, replacing each node by ``fn(node_with_new_children)``.

    ``fn`` returns a :class:`Node` or a tuple of children to splice into the parent in its place
    (how unary collapsing and bracket removal are written); the words never change. With
    ``with_root``, ``fn(node, is_root)`` also learns whether it is at the root (which rules that
    erase brackets usually keep).
    """

    def visit(n: Node, is_root: bool):
        kids: list[Child] = []
        for c in n.children:
            if type(c) is int:
                kids.append(c)
            else:
                r = visit(c, False)
                if isinstance(r, Node):
                    kids.append(r)
                else:
                    kids.extend(r)
        rebuilt = node(n.label, kids)
        return fn(rebuilt, is_root) if with_root else fn(rebuilt)

    r = visit(tree.root, True)
    if not isinstance(r, Node):
        r = r[0] if len(r) == 1 and isinstance(r[0], Node) else node("", r)
    return Tree(r, tree.words)
