"""Flattened keys (Gaizauskas et al. 1998, section 5): recall, precision and conformance.

A *key* is a deliberately flat, consensual bracketing (by default the gold tree flattened with
:func:`ranker.trees.flatten.flatten`); the *response* is the parser's tree as it stands, since "a
parser should not be punished for assigning more elaborate structure than is recorded in the key".
Comparison is on unlabelled brackets, "in line with (Black et al., 1991)":

* a *constituent* is the word span of a phrase node, i.e. of every node that is not a part-of-speech
  node over one word. One-word phrases count (Table 1 counts the PTB's ``(NP (NNS records))``, and
  the paper's motivation for banning one-word constituents from keys is precisely that responses
  may propose them); the whole-sentence bracket counts too (the Flat key has 5 constituents: S, two
  NPs, VP, PP). Constituents are distinct spans, so the ``( (S ...) )`` wrapper or a unary chain
  is one constituent. Punctuation stays in (Table 1's S covers the final period). Empty elements
  are removed first, on both sides.
* With ``with_root=False`` the whole-sentence span is no constituent of key or response: for keys
  written by hand whose outer bracket only wraps the sentence (``ranker evaluate --scheme flat
  --keys-as-given --omit-root``). It is left out of both sides, so a response is not charged for
  proposing the one bracket every parse has.
* *KCV* (key constituents violated) counts the key constituents crossed by some response
  constituent (overlapping without nesting); **conformance** = (KeyCons - KCV) / KeyCons.

With these definitions :func:`score_flat` reproduces all of the paper's Table 1 (see the tests).
"""
from __future__ import annotations

from typing import NamedTuple

from ..trees.flatten import FlattenRules, flatten
from ..trees.transforms import remove_empty_elements
from ..trees.tree import Tree
from .crossing import crossing_count
from .summary import percent


def _figures() -> tuple[property, property, property]:
    """Recall, precision and conformance (percent) of anything with the four counts as fields.

    One definition for both :class:`FlatCounts` (a pair) and :class:`FlatResult` (a corpus).
    """
    return (property(lambda c: percent(c.matched, c.key), doc="Key constituents matched."),
            property(lambda c: percent(c.matched, c.response), doc="Response constituents matched."),
            property(lambda c: percent(c.key - c.violated, c.key),
                     doc="Key constituents not crossed by any response constituent."))


class FlatCounts(NamedTuple):
    """One key/response pair: key and response constituents, matched, key constituents violated."""

    key: int
    response: int
    matched: int
    violated: int

    recall, precision, conformance = _figures()


def flat_constituents(tree: Tree | None, with_root: bool = True) -> frozenset[tuple[int, int]]:
    """The distinct spans of the phrase nodes of ``tree`` (every node but one-word tag nodes).

    ``with_root=False`` leaves out the whole-sentence span.
    """
    if tree is None:
        return frozenset()
    spans = frozenset((n.start, n.end) for n in tree.root.subtrees() if not n.is_preterminal)
    return spans if with_root else spans - {(0, len(tree.words))}


def flat_counts(key: frozenset[tuple[int, int]], response: frozenset[tuple[int, int]]) -> FlatCounts:
    """Counts of two constituent sets (key first): matched and key constituents violated."""
    return FlatCounts(len(key), len(response), len(key & response), crossing_count(response, key))


def flat_key(gold: Tree, rules: FlattenRules) -> Tree | None:
    """The flattened key of a gold tree (Gaizauskas et al. section 6); None if no word is left."""
    return flatten(gold, rules)


def _words(tree: Tree | None) -> tuple[str, ...]:
    if tree is None:
        return ()
    t = remove_empty_elements(tree)
    return () if t is None else t.words


def score_flat(key: Tree, response: Tree | None, with_root: bool = True) -> FlatCounts:
    """Gaizauskas et al.'s counts for one response against one key.

    Parameters
    ----------
    key
        The key tree, used as given (flatten a treebank tree with :func:`flat_key` first).
    response
        The parser's tree, as it stands; ``None`` (no parse) matches and violates nothing.
    with_root
        False: the whole-sentence span is no constituent of either side.

    Returns
    -------
    FlatCounts

    Raises
    ------
    ValueError
        If key and response are not over the same words once empty elements are removed.
    """
    k = remove_empty_elements(key)
    r = remove_empty_elements(response) if response is not None else None
    if k is not None and r is not None and k.words != r.words:
        raise ValueError(f"key and response words differ: {' '.join(k.words)!r} vs "
                         f"{' '.join(r.words)!r}")
    return flat_counts(flat_constituents(k, with_root), flat_constituents(r, with_root))


class FlatResult(NamedTuple):
    """Corpus figures of Gaizauskas et al.'s Table 1, from summed counts (percent)."""

    sentences: int
    no_parse: int
    key: int
    response: int
    matched: int
    violated: int

    recall, precision, conformance = _figures()

    @property
    def f1(self) -> float:
        return percent(2 * self.matched, self.key + self.response)

    def as_dict(self) -> dict:
        """Counts and percentages under the names of ``ranker evaluate --format json``."""
        return {"sentences": self.sentences, "no_parse": self.no_parse,
                "gold_brackets": self.key, "test_brackets": self.response, "matched": self.matched,
                "recall": self.recall, "precision": self.precision, "f1": self.f1,
                "crossing": self.violated, "key_violated": self.violated,
                "conformance": self.conformance}


class FlatAccumulator:
    """Adds :class:`FlatCounts`; only adds. A response-less sentence (no parse) still adds its key."""

    def __init__(self):
        self._sums = [0] * 6

    def add(self, counts: FlatCounts, parsed: bool = True) -> None:
        s = self._sums
        s[0] += 1
        s[1] += not parsed
        for k, v in enumerate(counts, 2):
            s[k] += v

    def add_totals(self, sums) -> None:
        """Add the six sums of :class:`FlatResult`'s fields counted elsewhere (a compiled kernel)."""
        self._sums = [a + int(b) for a, b in zip(self._sums, sums)]

    def result(self) -> FlatResult:
        return FlatResult(*self._sums)
