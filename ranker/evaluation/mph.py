"""MPH scores (Ringger et al. 2004): unlabelled brackets of maximal projections of heads.

Both trees are reduced by :func:`ranker.trees.mph.maximal_projections` (empty elements and
punctuation out, only branching maximal projections over two or more words, top bracket ignored);
the remaining ``(start, end)`` brackets are matched as EVALB matches them, as a multiset, and a test
bracket is crossing when it overlaps some gold bracket without nesting. Corpus statistics are the
rows of the paper's Table 1 (:class:`~.summary.BracketAccumulator`, :meth:`~.summary.BracketSummary.table`).

Which heads: Ringger et al. use Charniak's head rules with their head reassignment for the gold
trees (``HeadRules.load("ringger-reassign")``); the candidate side uses the same rules, since our
candidates carry no head annotation of their own.
"""
from __future__ import annotations

from collections import Counter
from typing import NamedTuple, Sequence

from ..trees.heads import HeadRules
from ..trees.mph import maximal_projections
from ..trees.transforms import PUNCT_TAGS
from ..trees.tree import Tree
from .crossing import crossing_count
from .parseval import BracketCounts
from .summary import BracketAccumulator

#: Ringger et al.'s Table 1 statistics are those of the general bracket accumulator.
MphAccumulator = BracketAccumulator


class MphSide(NamedTuple):
    """One tree as MPH scoring sees it: the words left and the brackets to score."""

    words: tuple[str, ...]
    brackets: tuple[tuple[int, int], ...]


def mph_side(tree: Tree | None, rules: HeadRules, punct_tags=PUNCT_TAGS) -> MphSide:
    """The words (empty elements and punctuation removed) and MPH brackets of ``tree``.

    Parameters
    ----------
    tree
        A gold or candidate tree; ``None`` (no parse) gives no words and no brackets.
    rules
        The head rules that decide what is a maximal projection.
    punct_tags
        Tags of the words dropped as punctuation.

    Returns
    -------
    MphSide
    """
    m = maximal_projections(tree, rules, punct_tags) if tree is not None else None
    if m is None:
        return MphSide((), ())
    return MphSide(m.words, tuple((n.start, n.end) for n in m.nodes() if n is not m.root))


def mph_counts(gold: Sequence[tuple[int, int]], test: Sequence[tuple[int, int]]) -> BracketCounts:
    """EVALB-style counts of two bracket lists: multiset matching, crossing test brackets."""
    matched = sum((Counter(gold) & Counter(test)).values())
    return BracketCounts(len(gold), len(test), matched, crossing_count(set(gold), test))


def score_mph(gold: Tree, test: Tree | None, rules: HeadRules, punct_tags=PUNCT_TAGS) -> BracketCounts:
    """MPH counts of one candidate tree against its gold tree.

    Parameters
    ----------
    gold, test
        Trees over the same words (``test`` None: no parse, the gold brackets count, nothing matched).
    rules
        Head rules, e.g. ``HeadRules.load("ringger-reassign")``.
    punct_tags
        Tags of the words dropped as punctuation (EVALB's by default).

    Returns
    -------
    BracketCounts

    Raises
    ------
    ValueError
        If the two trees are not over the same words once empty elements and punctuation are gone.
    """
    g = mph_side(gold, rules, punct_tags)
    return score_mph_sides(g, mph_side(test, rules, punct_tags) if test is not None else None)


def score_mph_sides(gold: MphSide, test: MphSide | None) -> BracketCounts:
    """MPH counts of two reduced sides (:func:`mph_side`), e.g. with the gold side computed once.

    Raises
    ------
    ValueError
        If the sides' words differ (``test`` None: no parse, nothing proposed).
    """
    if test is None:
        return BracketCounts(len(gold.brackets), 0, 0, 0)
    if gold.words != test.words:
        raise ValueError(f"gold and test words differ: {' '.join(gold.words)!r} vs "
                         f"{' '.join(test.words)!r}")
    return mph_counts(gold.brackets, test.brackets)
