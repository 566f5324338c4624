"""Dependency scores: untyped (governor, dependent) and typed (relation, governor, dependent) F.

Trees are turned into head dependencies by :func:`ranker.trees.dependencies.tree_to_dependencies`
(head rules plus the relation-label table), after their empty elements are removed; gold
dependencies may also come from a CoNLL/Malt file (NLTK's ``dependency_treebank``).

Punctuation, one convention everywhere: an arc is scored when its *dependent* is not punctuation
in the gold standard, i.e. its gold tag is not one of :data:`ranker.trees.transforms.PUNCT_TAGS`
(EVALB's ``, : `` '' .``); the arc of the root word counts, with governor -1. The test side is
filtered by the same gold positions, so both sides are judged on the same words. Arcs are compared
as sets, so a sentence's counts are (gold arcs, test arcs, arcs in both, 0): dependencies have no
crossing. With one head per word on both sides, untyped recall = precision = attachment score.

A gold standard without relation labels (``dependency_treebank`` has none) has no typed score:
typed counts are ``None`` rather than a silent zero.
"""
from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

from ..trees.dependencies import Dependency, RelationLabels, tree_to_dependencies
from ..trees.heads import HeadRules
from ..trees.transforms import PUNCT_TAGS, remove_empty_elements
from ..trees.tree import Tree
from .parseval import BracketCounts
from .summary import BracketAccumulator, BracketSummary


class DependencyCounts(NamedTuple):
    """One sentence pair: untyped counts, and typed counts (None when gold has no relations)."""

    untyped: BracketCounts
    typed: BracketCounts | None


class DependencyGold(NamedTuple):
    """A gold standard digested for scoring: scored positions and the arc sets on them."""

    words: tuple[str, ...]
    scored: frozenset[int]
    untyped: frozenset[tuple[int, int]]
    typed: frozenset[tuple[str, int, int]] | None


def scored_positions(tags: Iterable[str | None], punct_tags=PUNCT_TAGS) -> frozenset[int]:
    """Positions of the words whose arcs are scored: all but those tagged as punctuation."""
    return frozenset(i for i, t in enumerate(tags) if t not in punct_tags)


def untyped_arcs(deps: Sequence[Dependency], scored: frozenset[int]) -> frozenset[tuple[int, int]]:
    """``(governor, dependent)`` of the arcs whose dependent is scored."""
    return frozenset((d.head, d.dependent) for d in deps if d.dependent in scored)


def typed_arcs(deps: Sequence[Dependency], scored: frozenset[int]) -> frozenset[tuple[str, int, int]]:
    """``(relation, governor, dependent)`` of the arcs whose dependent is scored."""
    return frozenset((d.relation, d.head, d.dependent) for d in deps if d.dependent in scored)


def tree_dependencies(tree: Tree, rules: HeadRules, labels: RelationLabels, subtrees: dict | None = None
                      ) -> tuple[tuple[str, ...], tuple[str | None, ...], tuple[Dependency, ...]]:
    """Words, tags and head dependencies of a tree after its empty elements are removed.

    ``subtrees``: converted subtrees shared between calls (see
    :func:`~ranker.trees.dependencies.tree_to_dependencies`).
    """
    t = remove_empty_elements(tree)
    if t is None:
        return (), (), ()
    return t.words, t.tags(), tree_to_dependencies(t, rules, labels, subtrees)


def gold_from_tree(gold: Tree, rules: HeadRules, labels: RelationLabels,
                   untyped_gold: Sequence[Dependency] | None = None, punct_tags=PUNCT_TAGS) -> DependencyGold:
    """Digest a gold tree: its converted dependencies, or ``untyped_gold`` for the untyped side.

    Parameters
    ----------
    gold
        The gold tree (function tags kept: relation labels read them).
    rules, labels
        Head rules and the relation-label table.
    untyped_gold
        Gold arcs from elsewhere (``dependency_treebank``) for the untyped score; the typed score
        always comes from the converted gold tree.
    punct_tags
        Tags whose words' arcs are not scored.

    Returns
    -------
    DependencyGold

    Raises
    ------
    ValueError
        If ``untyped_gold`` does not have one arc per word of the tree.
    """
    words, tags, deps = tree_dependencies(gold, rules, labels)
    scored = scored_positions(tags, punct_tags)
    if untyped_gold is not None and len(untyped_gold) != len(words):
        raise ValueError(f"gold dependencies cover {len(untyped_gold)} words but the gold tree "
                         f"has {len(words)}")
    return DependencyGold(words, scored, untyped_arcs(untyped_gold if untyped_gold is not None else deps, scored),
                          typed_arcs(deps, scored))


def gold_from_conll(words: Sequence[str], tags: Sequence[str | None], deps: Sequence[Dependency],
                    punct_tags=PUNCT_TAGS) -> DependencyGold:
    """Digest gold dependencies read from CoNLL/Malt text; typed only if it has relation labels."""
    scored = scored_positions(tags, punct_tags)
    labelled = any(d.relation for d in deps)
    return DependencyGold(tuple(words), scored, untyped_arcs(deps, scored),
                          typed_arcs(deps, scored) if labelled else None)


def _counts(gold: frozenset, test: frozenset) -> BracketCounts:
    return BracketCounts(len(gold), len(test), len(gold & test), 0)


def score_dependencies(gold: DependencyGold, test: Sequence[Dependency] | None) -> DependencyCounts:
    """Counts of a test analysis's dependencies against digested gold.

    Parameters
    ----------
    gold
        From :func:`gold_from_tree` or :func:`gold_from_conll`.
    test
        One arc per word, over the gold's words; ``None`` (no parse): nothing proposed.

    Returns
    -------
    DependencyCounts
    """
    test = test or ()
    u = _counts(gold.untyped, untyped_arcs(test, gold.scored))
    t = _counts(gold.typed, typed_arcs(test, gold.scored)) if gold.typed is not None else None
    return DependencyCounts(u, t)


def score_tree_dependencies(gold: Tree | DependencyGold, test: Tree | None, rules: HeadRules,
                            labels: RelationLabels, subtrees: dict | None = None) -> DependencyCounts:
    """Convert a test tree with the head rules and score it against gold.

    Parameters
    ----------
    gold
        A gold tree (converted with the same rules) or an already digested :class:`DependencyGold`.
    test
        The candidate tree; ``None`` is no parse.
    rules, labels
        Head rules and the relation-label table.
    subtrees : dict, optional
        Subtrees converted before, by identity (one dict per sentence and conversion, for the
        candidates of a sentence parsed with shared subtrees).

    Returns
    -------
    DependencyCounts

    Raises
    ------
    ValueError
        If the test tree's words (empty elements removed) differ from the gold words.
    """
    g = gold if isinstance(gold, DependencyGold) else gold_from_tree(gold, rules, labels)
    if test is None:
        return score_dependencies(g, None)
    words, _, deps = tree_dependencies(test, rules, labels, subtrees)
    if words != g.words:
        raise ValueError(f"gold and test words differ: {' '.join(g.words)!r} vs {' '.join(words)!r}")
    return score_dependencies(g, deps)


class DependencyResult(NamedTuple):
    """Corpus dependency figures: untyped and (None without gold relations) typed summaries."""

    untyped: BracketSummary
    typed: BracketSummary | None

    def as_dict(self) -> dict:
        """The untyped figures under ``ranker evaluate``'s names, typed ones prefixed ``typed_``."""
        out = self.untyped.as_dict()
        for k in ("crossing", "average_crossing", "no_crossing", "two_or_fewer_crossing"):
            out[k] = None                 # no crossing in dependencies: null, not a fake zero
        t = self.typed
        out["typed_gold"] = t.gold if t else None
        out["typed_test"] = t.test if t else None
        out["typed_matched"] = t.matched if t else None
        out["typed_recall"] = t.recall if t else None
        out["typed_precision"] = t.precision if t else None
        out["typed_f1"] = t.f1 if t else None
        return out


class DependencyAccumulator:
    """Adds :class:`DependencyCounts`; typed figures exist only if every sentence had typed gold."""

    def __init__(self):
        self._untyped = BracketAccumulator()
        self._typed: BracketAccumulator | None = BracketAccumulator()

    def add(self, counts: DependencyCounts, parsed: bool = True) -> None:
        self._untyped.add(counts.untyped, parsed)
        if counts.typed is None:
            self._typed = None
        elif self._typed is not None:
            self._typed.add(counts.typed, parsed)

    def add_totals(self, untyped, typed) -> None:
        """Add summed untyped and typed counts (:meth:`BracketAccumulator.add_totals`)."""
        self._untyped.add_totals(untyped)
        if self._typed is not None:
            self._typed.add_totals(typed)

    def result(self) -> DependencyResult:
        return DependencyResult(self._untyped.result(),
                                self._typed.result() if self._typed is not None else None)
