"""The immutable constituency tree every layer of ranker passes around.

Structure and words are kept apart: a :class:`Node` holds a label and children, where a child is
either another node or an ``int``, the position of a word in :attr:`Tree.words`. Spans are computed
once, when a node is built, so metrics never walk a tree to learn what it covers. Both types are
named tuples: immutable, hashable, compared by value and cheap to build in bulk (the EVALB benchmark
reads tens of thousands of trees a second).

Every walk over a tree is iterative (an explicit stack, never Python recursion), so a tree
100,000 levels deep is read, transformed and scored like any other; :func:`rebuild` is the one
bottom-up walk behind every transform, :func:`equal_trees` the comparison of two trees (tuple
``==`` on nested nodes recurses in C and fails on deep trees).

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
        stack: list[Child] = [root]
        while stack:  # in-order: words and child nodes as they stand
            c = stack.pop()
            if type(c) is int:
                leaves.append(c)
            else:
                stack.extend(reversed(c.children))
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
        stack = [self.root]     # every node once; the order does not matter here
        while stack:            # (an inline walk: scoring reads the tags of every candidate 5 times)
            n = stack.pop()
            c = n.children
            if len(c) == 1 and type(c[0]) is int:
                tags[c[0]] = n.label
            else:
                stack.extend([x for x in c if type(x) is not int])
        return tuple(tags)

    def constituents(self) -> list[tuple[str, int, int]]:
        """``(label, start, end)`` of every node that is not a preterminal, in pre-order."""
        return [(n.label, n.start, n.end) for n in self.root.subtrees() if not n.is_preterminal]

    def to_penn(self) -> str:
        """The tree as one line of Penn bracketed text."""
        return format_tree(self)

    def pretty(self) -> str:
        """The tree as indented Penn text, one phrase per line."""
        return format_tree(self, indent=2)

    def __str__(self) -> str:
        return self.to_penn()

    def to_nltk(self):
        """Convert to an ``nltk.Tree`` (leaves become the word strings)."""
        from nltk import Tree as NLTKTree

        words = self.words
        return rebuild(self.root, lambda n, kids: NLTKTree(n.label, kids), word=lambda i: words[i])

    @classmethod
    def from_nltk(cls, t) -> "Tree":
        """Convert an ``nltk.Tree``; string leaves become words, in order."""
        if isinstance(t, str):
            raise ValueError("a bare word is not a tree")
        words: list[str] = []
        done: list[list] = [[], []]   # the result, then the kids of each open frame
        frames = [(t, iter(t))]
        while frames:
            x, it = frames[-1]
            for c in it:
                if isinstance(c, str):
                    done[-1].append(len(words))
                    words.append(c)
                else:
                    frames.append((c, iter(c)))
                    done.append([])
                    break
            else:
                frames.pop()
                built = node(x.label(), done.pop())
                done[-1].append(built)
        return cls(done[0][0], tuple(words))


def format_tree(tree: Tree, indent: int | None = None) -> str:
    """Penn text for ``tree``: one line, or one phrase per line indented by ``indent`` spaces."""
    words = tree.words
    if indent is None:
        return _flat(tree.root, words)
    out: list[str] = []
    todo: list = [(tree.root, 0)]           # (node or word or None for ')', depth); no recursion
    while todo:
        x, depth = todo.pop()
        if x is None:
            out.append(")")
            continue
        if depth:
            out.append("\n" + " " * (indent * depth))
        if type(x) is int:
            out.append(words[x])
        elif all(type(c) is int or c.is_preterminal for c in x.children):
            out.append(_flat(x, words))
        else:
            out.append(f"({x.label}")
            todo.append((None, 0))
            todo.extend((c, depth + 1) for c in reversed(x.children))
    return "".join(out)


def _flat(root: Node, words) -> str:
    """One-line Penn text of a node: ``(LABEL child child)``, ``( child)`` for the empty label."""
    out: list[str] = []
    todo: list = [root]
    while todo:
        x = todo.pop()
        if x is None:
            out.append(")")
        elif type(x) is int:
            out.append(" " + words[x])
        else:
            out.append(f" ({x.label}" if x is not root else f"({x.label}")
            todo.append(None)
            todo.extend(reversed(x.children))
    return "".join(out)


def delete_words(tree: Tree, keep_word) -> Tree | None:
    """Drop the words for which ``keep_word(i)`` is false, renumber the rest and drop emptied nodes.

    The one mechanism behind every transform that deletes words (empty elements, punctuation,
    Black et al.'s erasures): spans are recomputed, never patched. Returns ``None`` when no word
    is left.
    """
    words: list[str] = []
    old = tree.words

    def word(i: int) -> int | None:
        if not keep_word(i):
            return None
        words.append(old[i])
        return len(words) - 1

    root = rebuild(tree.root, lambda n, kids: node(n.label, kids) if kids else None, word=word)
    return None if root is None else Tree(root, tuple(words))


def map_nodes(tree: Tree, fn, with_root: bool = False) -> Tree:
    """Rebuild a tree bottom-up, replacing each node by ``fn(node_with_new_children)``.

    ``fn`` returns a :class:`Node` or a tuple of children to splice into the parent in its place
    (how unary collapsing and bracket removal are written); the words never change. With
    ``with_root``, ``fn(node, is_root)`` also learns whether it is at the root (which rules that
    erase brackets usually keep).
    """

    root = tree.root
    if with_root:
        r = rebuild(root, lambda n, kids: fn(node(n.label, kids), n is root))
    else:
        r = rebuild(root, lambda n, kids: fn(node(n.label, kids)))
    if not isinstance(r, Node):
        r = r[0] if len(r) == 1 and isinstance(r[0], Node) else node("", r)
    return Tree(r, tree.words)


def rebuild(root: Node, fn, word=None):
    """Bottom-up over ``root`` without recursion: ``fn(node, kids)`` for every node, children first.

    Parameters
    ----------
    root
        The top node.
    fn
        Called with the original node and the list of its children's results; returns the node's
        result: a :class:`Node` (or any object) that its parent receives as one child, a ``tuple``
        whose items are spliced into the parent's children, or ``None`` to drop it.
    word
        Maps a word position to what the parent receives for it (``None``: drop it); by default
        the position itself.

    Returns
    -------
    The result of ``fn`` at the root.
    """
    frames: list[tuple[Node, Iterator, list]] = [(root, iter(root.children), [])]
    while True:
        n, it, kids = frames[-1]
        for c in it:
            if type(c) is int:
                if word is None:
                    kids.append(c)
                else:
                    w = word(c)
                    if w is not None:
                        kids.append(w)
            else:
                frames.append((c, iter(c.children), []))
                break
        else:
            frames.pop()
            r = fn(n, kids)
            if not frames:
                return r
            if type(r) is tuple:
                frames[-1][2].extend(r)
            elif r is not None:
                frames[-1][2].append(r)


def equal_trees(a: Tree | None, b: Tree | None) -> bool:
    """Whether two trees have the same words, labels and structure, compared without recursion."""
    if a is None or b is None:
        return a is b
    if a.words != b.words:
        return False
    stack = [(a.root, b.root)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        if x.label != y.label or x.start != y.start or x.end != y.end \
                or len(x.children) != len(y.children):
            return False
        for c, d in zip(x.children, y.children):
            if type(c) is int or type(d) is int:
                if c != d or type(c) is not type(d):
                    return False
            else:
                stack.append((c, d))
    return True
