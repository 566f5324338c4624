"""Aligning a parser's own words to the gold tokens, and building candidate trees over gold tokens.

A parser such as Link Grammar splits and rewrites what it is given ("Nov." becomes ``Nov.x`` and
``.``; "-LRB-" becomes ``-.r`` and ``LRB-[?].v``; "Hi" becomes ``hi``), so words are matched to gold
tokens by character offsets into the text the parser saw (gold tokens joined by single spaces),
never by spelling. A token is placed in the tree where its first piece stands; later pieces add
nothing. A gold token no piece covers is attached as a flat leaf just before the next token placed (or
under the root at the end), and a piece that covers no token is left out: both are *counted* (``unmapped``), never hidden.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple, Sequence

from ..trees.tree import Node, Tree, node

_OPEN = re.compile(r"^\[([A-Z][A-Z0-9$-]*)$")
_CLOSE = re.compile(r"^([A-Z][A-Z0-9$-]*)\]$")


class Alignment(NamedTuple):
    """How a parser's words map to gold tokens."""

    word_to_token: tuple[int, ...]   # per parser word: gold token index, or -1 (walls, unmappable)
    unmappable_words: int            # parser words (not walls) that lie outside every token
    uncovered_tokens: tuple[int, ...]  # gold tokens no parser word covers


def token_offsets(tokens: Sequence[str]) -> tuple[str, list[int], list[int]]:
    """The text ``" ".join(tokens)`` with each token's start and end character offsets."""
    starts, ends, pos = [], [], 0
    for t in tokens:
        starts.append(pos)
        pos += len(t)
        ends.append(pos)
        pos += 1
    return " ".join(tokens), starts, ends


def align_words(offsets: Sequence[tuple[int, int]], is_wall: Sequence[bool],
                starts: list[int], ends: list[int]) -> Alignment:
    """Map each parser word to the gold token its first character falls in.

    Parameters
    ----------
    offsets
        ``(char_start, char_end)`` of each parser word in the joined text.
    is_wall
        True for words with no text of their own (Link Grammar's walls).
    starts, ends
        Gold token offsets from :func:`token_offsets`.
    """
    w2t: list[int] = []
    bad = 0
    covered = set()
    for (cs, ce), wall in zip(offsets, is_wall):
        if wall:
            w2t.append(-1)
            continue
        i = bisect_right(starts, cs) - 1
        if i >= 0 and cs < ends[i] and ce > cs:
            w2t.append(i)
            covered.add(i)
        else:
            w2t.append(-1)
            bad += 1
    return Alignment(tuple(w2t), bad, tuple(i for i in range(len(starts)) if i not in covered))


class BracketSyntaxError(ValueError):
    """A constituent string whose leaves do not match the parser's word count."""


def parse_label_brackets(text: str):
    """Read Link Grammar's bracket format (``[S [NP a b NP] c S]``) into nested ``(label, kids)``.

    Leaves are numbered in order (0, 1, ...); returns the top-level items and the leaf count.
    """
    stack: list[tuple[str, list]] = [("", [])]
    leaves = 0
    for tok in text.split():
        m = _OPEN.match(tok)
        if m:
            stack.append((m.group(1), []))
            continue
        m = _CLOSE.match(tok)
        if m and len(stack) > 1 and stack[-1][0] == m.group(1):
            label, kids = stack.pop()
            stack[-1][1].append((label, kids))
            continue
        stack[-1][1].append(leaves)
        leaves += 1
    if len(stack) != 1:
        raise BracketSyntaxError(f"unclosed bracket [{stack[-1][0]} in {text[:80]!r}")
    return stack[0][1], leaves


def build_tree(items, leaf_word: Sequence[int], w2t: Sequence[int], tokens: Sequence[str],
               tags: Sequence[str]) -> Tree:
    """Build a tree over gold tokens from nested parser brackets over parser words.

    Parameters
    ----------
    items
        Top-level items from :func:`parse_label_brackets`.
    leaf_word
        Parser word index of each leaf (Link Grammar leaves skip the walls).
    w2t
        Gold token of each parser word (-1 when none).
    tokens, tags
        Gold tokens and tags; a token with tag ``""`` stands directly under its phrase.

    Returns
    -------
    Tree
        The parser's top phrase as root (as NLTK reads treebank gold trees), or a root labelled
        ``""`` over several top-level pieces (fragments); every gold token exactly once, in order.
    """
    next_token = 0

    def leaf(t: int):
        tag = tags[t]
        return node(tag, (t,)) if tag else t

    def place(t: int, kids: list) -> None:
        # Tokens no piece covers are attached here, before the next placed token, in order.
        nonlocal next_token
        while next_token < t:
            kids.append(leaf(next_token))
            next_token += 1
        kids.append(leaf(t))
        next_token = t + 1

    def visit(children) -> list:
        kids: list = []
        for c in children:
            if type(c) is int:
                t = w2t[leaf_word[c]]
                if t >= next_token:
                    place(t, kids)
            else:
                sub = visit(c[1])
                if sub:
                    kids.append(node(c[0], sub))
        return kids

    top = visit(items)
    while next_token < len(tokens):
        top.append(leaf(next_token))
        next_token += 1
    root = top[0] if len(top) == 1 and type(top[0]) is not int else node("", top)
    _check_leaves(root, len(tokens))
    return Tree(root, tuple(tokens))


def _check_leaves(root: Node, n: int) -> None:
    """Assert the leaves read left to right are exactly ``0..n-1`` (every token once, in order)."""
    seen: list[int] = []

    def walk(x: Node) -> None:
        for c in x.children:
            if type(c) is int:
                seen.append(c)
            else:
                walk(c)

    walk(root)
    if seen != list(range(n)):
        raise AssertionError(f"candidate leaves {seen} are not the {n} gold tokens in order")


def flat_tree(tokens: Sequence[str], tags: Sequence[str]) -> Tree:
    """All tokens as flat leaves of one root: the tree used when a parser's structure is unusable."""
    kids = [node(tags[i], (i,)) if tags[i] else i for i in range(len(tokens))]
    return Tree(node("", kids), tuple(tokens))
