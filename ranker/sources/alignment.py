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


def bracket_penn(text: str, leaf_token: Sequence[int], leaf_texts: Sequence[str],
                 bare: Sequence[bool]) -> str:
    """One-line Penn text of ``build_tree``'s tree for ``text``, built without any tree object.

    A store writes only the text, and a sentence's linkages give tens of thousands of distinct
    bracket strings in a run, so this reads the brackets once and writes the text in the same
    pass. The result equals ``penn_text(build_tree(...))`` character for character (tested on real
    Link Grammar output): the same placement of tokens, the same dropping of emptied phrases, the
    same root.

    Parameters
    ----------
    text
        Link Grammar's bracket string (see :func:`parse_label_brackets`).
    leaf_token
        Gold token of each leaf (``w2t[leaf_word[i]]``; -1 when none).
    leaf_texts
        Penn text of each gold token as a leaf: ``(TAG word)``, or the bare word when its tag is ``""``.
    bare
        True for the tokens whose leaf text is a bare word (no tag node).

    Raises
    ------
    BracketSyntaxError
        If a bracket is left open or the leaves do not match ``leaf_token``.
    """
    labels: list[str] = [""]
    kids: list[list[str]] = [[]]
    top = kids[0]
    open_match, close_match = _OPEN.match, _CLOSE.match
    n_tokens, n_leaves = len(leaf_texts), len(leaf_token)
    next_token = leaves = 0
    bare_on_top = False      # an untagged token placed directly at the top level
    for tok in text.split():
        if tok[0] == "[":
            m = open_match(tok)
            if m:
                labels.append(m.group(1))
                kids.append([])
                continue
        elif tok[-1] == "]" and len(labels) > 1:
            m = close_match(tok)
            if m and labels[-1] == m.group(1):
                sub = kids.pop()
                label = labels.pop()
                if sub:
                    kids[-1].append("(" + label + " " + " ".join(sub) + ")")
                continue
        if leaves >= n_leaves:
            raise BracketSyntaxError(f"more leaves than the {n_leaves} words in {text[:80]!r}")
        t = leaf_token[leaves]
        leaves += 1
        if t >= next_token:
            out = kids[-1]
            if len(kids) == 1:
                bare_on_top = bare_on_top or any(bare[next_token:t + 1])
            while next_token <= t:   # tokens no piece covers come first, in order
                out.append(leaf_texts[next_token])
                next_token += 1
    if len(labels) != 1:
        raise BracketSyntaxError(f"unclosed bracket [{labels[-1]} in {text[:80]!r}")
    if leaves != n_leaves:
        raise BracketSyntaxError(f"{leaves} leaves for {n_leaves} words")
    if next_token < n_tokens:
        bare_on_top = bare_on_top or any(bare[next_token:])
        top.extend(leaf_texts[next_token:])
    if not top:
        raise ValueError("a sentence with no tokens has no tree")
    if len(top) == 1 and not bare_on_top:
        return top[0]           # the parser's top phrase (or a lone tagged token) is the root
    return "( " + " ".join(top) + ")"


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
