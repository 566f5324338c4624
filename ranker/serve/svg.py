"""A constituency tree drawn as inline SVG, each bracket coloured by how it compares with another tree.

The page shows a candidate beside gold (matched, missing and crossing brackets) and two
candidates side by side (brackets the other lacks). Drawing is server-side and dependency-free:
words sit at the bottom in sentence order, each phrase above the middle of its children, so the
two trees of a comparison line up word for word.
"""
from __future__ import annotations

from html import escape
from typing import Iterable

from ..trees.transforms import base_label
from ..trees.tree import Node, Tree

#: How a bracket compares with the other tree; the page's stylesheet colours these classes.
MATCHED, CROSSING, EXTRA, MISSING, DIFFERENT = "matched", "crossing", "extra", "missing", "different"

_LEVEL = 34        # pixels between levels
_CHAR = 7.2        # pixels per character of a word or label
_PAD = 10


def crosses(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """True when spans ``[a0, a1)`` and ``[b0, b1)`` overlap without either containing the other."""
    return a[0] < b[0] < a[1] < b[1] or b[0] < a[0] < b[1] < a[1]


def compare_brackets(tree: Tree, other: Tree | None, unmatched: str = EXTRA) -> dict[tuple, str]:
    """The class of each of ``tree``'s brackets against ``other`` (none when ``other`` is None).

    A labelled bracket ``other`` holds too is :data:`MATCHED`; one crossing a bracket of ``other``
    is :data:`CROSSING`; any other is ``unmatched`` (:data:`EXTRA` for a candidate against gold,
    :data:`MISSING` for gold against a candidate, :data:`DIFFERENT` between two candidates).
    Labels are compared without function tags (gold's ``NP-SBJ`` matches a candidate's ``NP``),
    as the metrics and the discriminants compare them. Keys are the brackets' own labels.
    """
    if other is None:
        return {}
    theirs = {(base_label(lab), s, e) for lab, s, e in other.constituents()}
    spans = sorted({(s, e) for _, s, e in theirs})
    out = {}
    for b in tree.constituents():
        if (base_label(b[0]), b[1], b[2]) in theirs:
            out[b] = MATCHED
        elif any(crosses((b[1], b[2]), sp) for sp in spans):
            out[b] = CROSSING
        else:
            out[b] = unmatched
    return out


def _word_columns(tree: Tree) -> list[float]:
    """The x centre of each word, wide enough for the word and every label drawn right above it.

    A node over one word (its tag, and phrases such as ``(ADVP-TMP (RB now))``) is drawn
    centred on that word, so the word's column is as wide as the longest of their labels.
    """
    chars = [len(w) for w in tree.words]
    for n in tree.nodes():
        if n.end - n.start == 1:
            chars[n.start] = max(chars[n.start], len(n.label))
    xs, x = [], float(_PAD)
    for c in chars:
        width = c * _CHAR + 12
        xs.append(x + width / 2)
        x += width
    return xs


def tree_svg(tree: Tree, classes: dict[tuple, str] | None = None, title: str = "") -> str:
    """The tree as an ``<svg>`` element; ``classes`` maps ``(label, start, end)`` to a CSS class.

    Parameters
    ----------
    tree
        The tree to draw.
    classes
        From :func:`compare_brackets`; brackets not in it are drawn plain.
    title
        Accessible name of the drawing.
    """
    classes = classes or {}
    xs = _word_columns(tree)
    depth_of: dict[int, int] = {}
    # iterative walks (trees may be deep): depth first, then positions bottom-up
    order: list[tuple[Node, int]] = []
    stack = [(tree.root, 0)]
    while stack:
        n, d = stack.pop()
        order.append((n, d))
        for c in n.children:
            if type(c) is not int:
                stack.append((c, d + 1))
    max_depth = max(d for _, d in order)
    word_y = (max_depth + 1) * _LEVEL + 20
    pos: dict[int, tuple[float, float]] = {}
    for n, d in reversed(order):   # children before parents
        kids = [pos[id(c)][0] if type(c) is not int else xs[c] for c in n.children]
        pos[id(n)] = ((min(kids) + max(kids)) / 2, d * _LEVEL + 20)
        depth_of[id(n)] = d
    width = (xs[-1] if xs else 0) + 60
    parts = [f'<svg class="tree" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
             f'height="{word_y + 16}" role="img" aria-label="{escape(title)}">']
    lines, labels = [], []
    for n, _ in order:
        x, y = pos[id(n)]
        for c in n.children:
            cx, cy = (xs[c], word_y - 12) if type(c) is int else pos[id(c)]
            lines.append(f'<line x1="{x:.1f}" y1="{y + 4:.1f}" x2="{cx:.1f}" y2="{cy - 12:.1f}"/>')
        key = (n.label, n.start, n.end)
        cls = "tag" if n.is_preterminal else classes.get(key, "plain")
        labels.append(f'<text x="{x:.1f}" y="{y:.1f}" class="{cls}" data-span="{n.start}-{n.end}">'
                      f'<title>{escape(n.label)} {n.start}-{n.end}</title>{escape(n.label)}</text>')
    words = [f'<text x="{x:.1f}" y="{word_y:.1f}" class="word">{escape(w)}</text>'
             for x, w in zip(xs, tree.words)]
    parts.append('<g class="edges">' + "".join(lines) + "</g>")
    parts.append('<g class="labels">' + "".join(labels) + "</g>")
    parts.append('<g class="words">' + "".join(words) + "</g></svg>")
    return "".join(parts)


def class_counts(classes: dict[tuple, str], kinds: Iterable[str]) -> dict[str, int]:
    """How many brackets fall in each class (the legend's numbers)."""
    out = dict.fromkeys(kinds, 0)
    for c in classes.values():
        if c in out:
            out[c] += 1
    return out
