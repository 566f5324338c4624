"""Property families over Link Grammar's own structure: disjuncts, link pairs, null links, cost parts.

After Sleator and Temperley (1991, "Parsing English with a Link Grammar"): a linkage is a choice of
one disjunct per word (its left and right connectors), and its cost vector orders the linkages.
The store keeps, per candidate, the links (word indices and the link's label), Link Grammar's own
word forms (with their dictionary subscripts, ``saw.v-d``; null-linked words in brackets,
``[quickly]``) and the three parts of the cost vector (``unused_words``, ``disjunct_cost``,
``link_cost``). It does not keep each connector's own label (only the label of the link they
made), nor each word's disjunct cost (only their sum), so disjuncts are written with link labels
and the cost family sees the sums. These families look at links, which differ between linkages
that share a tree, so they run once per candidate.
"""
from __future__ import annotations

import re

from .base import Family, facts, named
from .families import length_bin, link_type
from .reranker_families import check_lexical
from .wordclass import word_class

_WALLS = frozenset({"LEFT-WALL", "RIGHT-WALL"})


def subscript(form: str) -> str:
    """Link Grammar's dictionary subscript of a word form (``saw.v-d`` -> ``v-d``; ``""`` if none)."""
    m = _SUBSCRIPT.search(_GUESS.sub("", form))
    return m.group(1) if m else ""


_GUESS = re.compile(r"\[[^\]]*\]")          # [!<ED-WORDS>], [?], and [word] of a null-linked word
_SUBSCRIPT = re.compile(r"[^.]\.([a-z][a-z0-9-]*)$")


def word_links(c) -> dict[int, tuple[list, list]]:
    """Per source word index, the labels of its links to the left and to the right, nearest first."""
    out: dict[int, tuple[list, list]] = {}
    for left, right, label in sorted(c.links, key=lambda lk: abs(lk[1] - lk[0])):
        out.setdefault(right, ([], []))[0].append(label)
        out.setdefault(left, ([], []))[1].append(label)
    return out


class _WordKeys:
    """What lexical LG properties name a source word by: its tag, class, word or subscript."""

    def __init__(self, c):
        self.c = c
        self.tags = facts(c.tree).tags

    def key(self, kind: str, i: int) -> str:
        c = self.c
        form = c.source_words[i] if i < len(c.source_words) else "?"
        if form in _WALLS:
            return form
        tok = c.word_to_token[i] if i < len(c.word_to_token) else -1
        if kind == "subscript":
            return subscript(form) or "-"
        if tok < 0:
            return "?"
        if kind == "tag":
            return self.tags[tok] or "WORD"
        w = c.tree.words[tok]
        return w.lower() if kind == "word" else word_class(w)


_KINDS = ("tag", "word", "class", "subscript")


@named("lg_disjuncts/1")
class Disjuncts(Family):
    """Each word's disjunct (its left and right connectors, nearest first), alone and by tag, subscript, word (Sleator and Temperley 1991)."""

    def __init__(self, lexical: tuple = ("tag", "subscript"), subscripts: bool = False):
        self.lexical = check_lexical(lexical, _KINDS)
        self.subscripts = subscripts

    def __call__(self, c):
        keys = _WordKeys(c) if self.lexical else None
        lab = (lambda s: s) if self.subscripts else link_type
        for i, (left, right) in word_links(c).items():
            dj = " ".join([lab(x) + "-" for x in left] + [lab(x) + "+" for x in right])
            yield (f"DJ:{dj}", 1.0)
            for kind in self.lexical:
                yield (f"DJ{kind[0]}:{keys.key(kind, i)}:{dj}", 1.0)


@named("lg_link_pairs/1")
class LinkPairs(Family):
    """Pairs of link labels meeting at a word, with their sides, optionally by the word's tag (after Sleator and Temperley 1991)."""

    def __init__(self, lexical: tuple = ()):
        self.lexical = check_lexical(lexical, _KINDS)

    def __call__(self, c):
        keys = _WordKeys(c) if self.lexical else None
        for i, (left, right) in word_links(c).items():
            conns = [link_type(x) + "-" for x in left] + [link_type(x) + "+" for x in right]
            for a in range(len(conns)):
                for b in range(a + 1, len(conns)):
                    pair = f"{conns[a]}&{conns[b]}"
                    yield (f"LP:{pair}", 1.0)
                    for kind in self.lexical:
                        yield (f"LP{kind[0]}:{keys.key(kind, i)}:{pair}", 1.0)


@named("lg_link_lengths/1")
class LinkLengths(Family):
    """Full link labels (subscripts kept) by binned length, by the left word's tag (after Sleator and Temperley 1991).

    ``link_grammar/1`` counts link types by length; this family keeps the subscripts (``Ss`` and
    ``Sp`` agree in number differently) and which tag the link leaves from.
    """

    def __init__(self, tags: bool = True):
        self.tags = tags

    def __call__(self, c):
        keys = _WordKeys(c) if self.tags else None
        for left, right, label in c.links:
            lb = length_bin(right - left)
            yield (f"LL:{label}:{lb}", 1.0)
            if self.tags:
                yield (f"LLt:{keys.key('tag', left)}:{label}:{lb}", 1.0)


@named("lg_nulls/1")
class NullLinks(Family):
    """Null-linked words (a fragment's unused words) by tag, class and position in the sentence (first, last, middle)."""

    def __call__(self, c):
        if not c.links or c.quality == "full":
            return
        linked = set()
        for left, right, _ in c.links:
            linked.add(left)
            linked.add(right)
        keys = _WordKeys(c)
        real = [i for i, w in enumerate(c.source_words) if w not in _WALLS]
        if not real:
            return
        first, last = real[0], real[-1]
        for i in real:
            if i in linked:
                continue
            pos = "first" if i == first else "last" if i == last else "mid"
            tag = keys.key("tag", i)
            yield ("NL:count", 1.0)
            yield (f"NL:{tag}", 1.0)
            yield (f"NL:{tag}:{pos}", 1.0)
            yield (f"NLc:{keys.key('class', i)}", 1.0)


def cost_bin(v: float) -> str:
    """Bins of a cost part: 0, then (0,1], (1,2], (2,3], (3,5], (5,8], above 8."""
    if v <= 0:
        return "0"
    for edge in (1, 2, 3, 5, 8):
        if v <= edge:
            return f"<={edge}"
    return ">8"


@named("lg_costs/1")
class CostParts(Family):
    """Each part of Link Grammar's cost vector as a binned indicator, and link cost per word (nonlinear in the cost)."""

    PARTS = ("unused_words", "disjunct_cost")

    def __call__(self, c):
        s = c.scores
        for k in self.PARTS:
            if k in s:
                yield (f"LC:{k}:{cost_bin(float(s[k]))}", 1.0)
        if "link_cost" in s and len(c.tree.words):
            per_word = float(s["link_cost"]) / len(c.tree.words)
            yield (f"LC:link_cost/word:{cost_bin(4 * per_word)}", 1.0)
