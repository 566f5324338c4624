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


def wide_width(tree: Tree) -> float:
    """How many pixels wide :func:`tree_svg` draws ``tree`` with the words side by side."""
    xs = _word_columns(tree)
    return (xs[-1] if xs else 0) + 60


def _walk(tree: Tree) -> list[tuple[Node, int]]:
    """Every node with its depth, parents before children (an iterative walk: trees may be deep)."""
    order: list[tuple[Node, int]] = []
    stack = [(tree.root, 0)]
    while stack:
        n, d = stack.pop()
        order.append((n, d))
        for c in n.children:
            if type(c) is not int:
                stack.append((c, d + 1))
    return order


def _label(n: Node, x: float, y: float, classes: dict) -> str:
    cls = "tag" if n.is_preterminal else classes.get((n.label, n.start, n.end), "plain")
    return (f'<text x="{x:.1f}" y="{y:.1f}" class="{cls}" data-span="{n.start}-{n.end}">'
            f'<title>{escape(n.label)} {n.start}-{n.end}</title>{escape(n.label)}</text>')


def tree_svg(tree: Tree, classes: dict[tuple, str] | None = None, title: str = "", vertical: bool = False) -> str:
    """The tree as an ``<svg>`` element; ``classes`` maps ``(label, start, end)`` to a CSS class.

    Parameters
    ----------
    tree
        The tree to draw.
    classes
        From :func:`compare_brackets`; brackets not in it are drawn plain.
    title
        Accessible name of the drawing.
    vertical
        Draw the words one under another, the root at the left and each level a column to its
        right (:func:`vertical_svg`): a long sentence's tree is then as wide as the tree is deep,
        not as the sentence is long, and fits its box (the side-by-side layout of a 43-word
        sentence is 2,000 pixels wide).
    """
    classes = classes or {}
    if vertical:
        return vertical_svg(tree, classes, title)
    xs = _word_columns(tree)
    depth_of: dict[int, int] = {}
    order = _walk(tree)   # depth first, then positions bottom-up
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
        labels.append(_label(n, x, y, classes))
    words = [f'<text x="{x:.1f}" y="{word_y:.1f}" class="word">{escape(w)}</text>'
             for x, w in zip(xs, tree.words)]
    parts.append('<g class="edges">' + "".join(lines) + "</g>")
    parts.append('<g class="labels">' + "".join(labels) + "</g>")
    parts.append('<g class="words">' + "".join(words) + "</g></svg>")
    return "".join(parts)


_ROW = 18          # pixels between words in the vertical layout


def vertical_svg(tree: Tree, classes: dict[tuple, str], title: str = "") -> str:
    """The tree drawn top to bottom: one word a row, each phrase's label in its depth's column at
    the middle of its children's rows, the words in a column right of the deepest label (so the
    drawing is as wide as the tree is deep). Labels carry the same classes and spans as
    :func:`tree_svg`'s, so colours, legends and highlighting read the same."""
    order = _walk(tree)
    columns: dict[int, int] = {}   # depth -> widest label (characters)
    for n, d in order:
        columns[d] = max(columns.get(d, 0), len(n.label))
    xs, x = [], float(_PAD)
    for d in range(max(columns) + 1):
        xs.append(x)
        x += columns.get(d, 0) * _CHAR + 16
    word_x = x
    ys = [_PAD + 12 + k * _ROW for k in range(len(tree.words))]
    pos: dict[int, tuple[float, float]] = {}
    for n, d in reversed(order):   # children before parents
        kids = [pos[id(c)][1] if type(c) is not int else ys[c] for c in n.children]
        pos[id(n)] = (xs[d], (min(kids) + max(kids)) / 2)
    longest = max((len(w) for w in tree.words), default=0)
    width, height = word_x + longest * _CHAR + _PAD, (ys[-1] if ys else 0) + _ROW
    lines, labels = [], []
    for n, d in order:
        x, y = pos[id(n)]
        end = x + len(n.label) * _CHAR + 2
        for c in n.children:
            cx, cy = (word_x - 4, ys[c]) if type(c) is int else (pos[id(c)][0] - 4, pos[id(c)][1])
            lines.append(f'<line x1="{end:.1f}" y1="{y - 4:.1f}" x2="{cx:.1f}" y2="{cy - 4:.1f}"/>')
        labels.append(_label(n, x, y, classes))
    words = [f'<text x="{word_x:.1f}" y="{y:.1f}" class="word">{escape(w)}</text>' for y, w in zip(ys, tree.words)]
    return (f'<svg class="tree vertical" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
            f'height="{height:.0f}" role="img" aria-label="{escape(title)}">'
            '<g class="edges">' + "".join(lines) + '</g><g class="labels">' + "".join(labels) +
            '</g><g class="words">' + "".join(words) + "</g></svg>")


def class_counts(classes: dict[tuple, str], kinds: Iterable[str]) -> dict[str, int]:
    """How many brackets fall in each class (the legend's numbers)."""
    out = dict.fromkeys(kinds, 0)
    for c in classes.values():
        if c in out:
            out[c] += 1
    return out
