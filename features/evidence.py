"""Evidence from a second parser: how much of another source's analyses of the sentence agree.

The store can hold two independent analyses of every sentence (Link Grammar's forest, BLLIP's
50-best list); a candidate of one is scored by what the other says. The other source's candidates
(:attr:`ranker.store.records.Forest.evidence`) are summarised once per sentence as the share of
their weight holding each unlabelled span, each labelled span and each word pair (a link, or a
head dependency), :class:`Evidence`. The weights are the source's own and learned from nothing
that saw the sentence: the parser's posterior over its list (``softmax`` of its log-probabilities,
the n-best lists being jackknifed) when every candidate has one, else uniform (Link Grammar's
linkages, a rule-based parser's). So the families are leak-free without a jackknife of their own.

:class:`EvidenceSpans` gives a candidate its brackets' summed support (overall, by label and
span length), its brackets no evidence candidate holds, and the approximate expected precision,
recall and F of its brackets against the evidence; :class:`EvidenceDependencies` the same for its
word pairs (its links, or its head dependencies under a head-rule table).
:class:`EvidenceHeads` compares like with like where the two sources' conventions differ: the
head dependencies of the candidate's tree and of the evidence's trees under one head-rule table
(never Link Grammar's links, which follow other conventions), and their maximal projections of
heads (the MPH brackets of Ringger et al., :func:`ranker.evaluation.mph.mph_side`).
"""
from __future__ import annotations

import json
import math
import re
from typing import NamedTuple, Sequence

from ranker.trees.transforms import base_label

from .base import FeatureConfigError, Family, head_rules, named
from .families import length_bin

WEIGHTINGS = ("auto", "posterior", "uniform")


class Evidence(NamedTuple):
    """What a second source's candidates of one sentence say, as shares of their total weight.

    A share is the summed weight of the evidence candidates holding an item, the weights summing
    to 1, so it is in [0, 1]; an item no candidate holds is absent (share 0).
    """

    spans: dict[tuple[int, int], float]             # unlabelled (start, end) -> share
    labelled: dict[tuple[str, int, int], float]     # (base label, start, end) -> share
    pairs: dict[tuple[int, int], float]             # word pair (i < j) -> share
    mean_spans: float        # expected number of unlabelled spans of an evidence candidate
    mean_labelled: float     # ... of labelled spans
    mean_pairs: float        # ... of word pairs
    candidates: int          # evidence candidates summarised (0: the source had none)


def tree_spans(tree) -> tuple[frozenset, frozenset]:
    """``(unlabelled spans, labelled spans)`` of a tree's brackets that can disagree between parses.

    Brackets over two or more words other than the whole sentence (which every parse holds);
    labels are base labels (function tags and indices dropped), so that ``NP-SBJ`` is ``NP``.
    """
    n = len(tree.words)
    spans, labelled = set(), set()
    for node in tree.root.subtrees():
        a, b = node.start, node.end
        if b - a < 2 or (a == 0 and b == n):
            continue
        spans.add((a, b))
        labelled.add((base_label(node.label) or node.label, a, b))
    return frozenset(spans), frozenset(labelled)


_TOKENS = re.compile(r"\(|\)|[^\s()]+")


def text_spans(text: str) -> tuple[frozenset, frozenset]:
    """:func:`tree_spans` of a tree given as one line of Penn text, without building the tree.

    A scan of its brackets and words: reading a Link Grammar forest's trees as trees took two
    thirds of the time its evidence cost (tested equal to :func:`tree_spans` on real forests).
    """
    words = 0
    stack: list = []          # [label, first word] of each open bracket
    found: list = []
    expect_label = False
    for tok in _TOKENS.findall(text):
        if tok == "(":
            stack.append([None, words])
            expect_label = True
        elif tok == ")":
            label, start = stack.pop()
            found.append((label, start, words))
            expect_label = False
        elif expect_label:
            stack[-1][0] = tok
            expect_label = False
        else:
            words += 1
    spans, labelled = set(), set()
    for label, a, b in found:
        if b - a < 2 or (a == 0 and b == words):
            continue
        spans.add((a, b))
        labelled.add((base_label(label or "") or (label or ""), a, b))
    return frozenset(spans), frozenset(labelled)


def link_pairs(links, word_to_token) -> frozenset:
    """Word pairs ``(i, j)``, ``i < j`` over gold tokens of links ``(left, right, label)`` over
    source words (walls and unmapped pieces dropped)."""
    n = len(word_to_token)
    out = set()
    for link in links:
        left, right = link[0], link[1]
        a = word_to_token[left] if 0 <= left < n else -1
        b = word_to_token[right] if 0 <= right < n else -1
        if a >= 0 and b >= 0 and a != b:
            out.add((a, b) if a < b else (b, a))
    return frozenset(out)


def tree_pairs(tree, rules: str = "collins") -> frozenset:
    """The head-dependent word pairs ``(i, j)``, ``i < j`` of a tree under head-rule table ``rules``."""
    from .families import dependencies

    return frozenset((min(h, d), max(h, d)) for h, d, _ in dependencies(tree, rules))


def candidate_pairs(candidate, rules: str = "collins") -> frozenset:
    """A candidate's word pairs ``(i, j)``, ``i < j`` over gold tokens: its links, or its head dependencies.

    Link Grammar's links are mapped through ``word_to_token``; a candidate without links (a Penn
    tree, an n-best parse) gives the head-dependent pairs of its tree under ``rules``.
    """
    if candidate.links:
        return link_pairs(candidate.links, candidate.word_to_token)
    return tree_pairs(candidate.tree, rules)


def evidence_weights(candidates: Sequence, weighting: str = "auto") -> list[float]:
    """Each evidence candidate's weight, summing to 1 (an empty list for no candidates).

    ``posterior``: the source's probabilities renormalised over its list, ``exp(logprob)``
    (every candidate must have a finite ``logprob``); ``uniform``: ``1/n`` each; ``auto``:
    posterior when every candidate has a finite log-probability, else uniform.
    """
    if weighting not in WEIGHTINGS:
        raise FeatureConfigError(f"evidence weighting {weighting!r} is not one of {', '.join(WEIGHTINGS)}")
    n = len(candidates)
    if n == 0:
        return []
    lps = [c.scores.get("logprob") for c in candidates]
    has_lp = all(lp is not None and math.isfinite(lp) for lp in lps)
    if weighting == "posterior" and not has_lp:
        raise FeatureConfigError("evidence weighting 'posterior' needs a finite log-probability on "
                                 "every evidence candidate")
    if weighting == "uniform" or not has_lp:
        return [1.0 / n] * n
    top = max(lps)
    w = [math.exp(lp - top) for lp in lps]
    z = sum(w)
    return [x / z for x in w]


def _add(shares: dict, items, w: float) -> None:
    for key in items:
        shares[key] = shares.get(key, 0.0) + w


def summarise(candidates: Sequence, weighting: str = "auto", rules: str = "collins") -> Evidence:
    """The :class:`Evidence` of a sentence's evidence candidates.

    Takes :class:`~ranker.store.records.Candidate` records (built in memory) or
    :class:`~ranker.store.records.StoredCandidate` ones (the store's text: spans are read from
    the tree's text and pairs from the links' JSON, so a Link Grammar forest's trees are never
    built). Weights are first added up per distinct tree and per distinct set of pairs (a
    forest's linkages share trees, 2.75 to one on WSJ), then spread over their items once.
    """
    from ranker.store.records import StoredCandidate

    weights = evidence_weights(candidates, weighting)
    by_tree: dict = {}        # tree (or its text) -> summed weight
    by_pairs: dict = {}       # links (or the tree, without links) -> [summed weight, a candidate]
    for c, w in zip(candidates, weights):
        by_tree[c.tree] = by_tree.get(c.tree, 0.0) + w
        if type(c) is StoredCandidate:
            key = (c.links, c.word_to_token) if c.links not in ("", "[]") else c.tree
        else:
            key = (c.links, c.word_to_token) if c.links else c.tree
        got = by_pairs.get(key)
        if got is None:
            by_pairs[key] = [w, c]
        else:
            got[0] += w
    spans: dict = {}
    labelled: dict = {}
    pairs: dict = {}
    mean = [0.0, 0.0, 0.0]
    for t, w in by_tree.items():
        u, lab = text_spans(t) if type(t) is str else tree_spans(t)
        _add(spans, u, w)
        _add(labelled, lab, w)
        mean[0] += w * len(u)
        mean[1] += w * len(lab)
    for key, (w, c) in by_pairs.items():
        if type(c) is not StoredCandidate:
            ps = candidate_pairs(c, rules)
        elif type(key) is tuple:
            ps = link_pairs(json.loads(c.links), json.loads(c.word_to_token))
        else:
            from ranker.trees.penn import parse_tree

            ps = tree_pairs(parse_tree(c.tree, "evidence"), rules)
        _add(pairs, ps, w)
        mean[2] += w * len(ps)
    return Evidence(spans, labelled, pairs, mean[0], mean[1], mean[2], len(candidates))


class HeadEvidence(NamedTuple):
    """The evidence's head structure, as shares of its weight (see :class:`Evidence`).

    ``pairs`` are head-dependent word pairs of every evidence tree under one head-rule table (a
    Link Grammar linkage's tree, not its links); ``mph`` the MPH brackets, ``(start, end)`` over
    the words left once punctuation and empty elements are out, as MPH scoring counts them.
    """

    pairs: dict[tuple[int, int], float]
    mph: dict[tuple[int, int], float]
    mean_pairs: float
    mean_mph: float
    candidates: int


def tree_mph(tree, mph_rules) -> frozenset:
    """A tree's MPH brackets under the :class:`~ranker.trees.heads.HeadRules` ``mph_rules``."""
    from ranker.evaluation.mph import mph_side

    return frozenset(mph_side(tree, mph_rules).brackets)


def summarise_heads(candidates: Sequence, weighting: str = "auto", rules: str = "collins",
                    mph_rules: str = "ringger-reassign") -> HeadEvidence:
    """The :class:`HeadEvidence` of a sentence's evidence candidates (records built in memory or
    the store's text, as :func:`summarise`); weights are added up per distinct tree first."""
    from ranker.trees.penn import parse_tree

    table = head_rules(mph_rules)
    by_tree: dict = {}
    for c, w in zip(candidates, evidence_weights(candidates, weighting)):
        by_tree[c.tree] = by_tree.get(c.tree, 0.0) + w
    pairs: dict = {}
    mph: dict = {}
    mean = [0.0, 0.0]
    for t, w in by_tree.items():
        tree = parse_tree(t, "evidence") if type(t) is str else t
        ps, ms = tree_pairs(tree, rules), tree_mph(tree, table)
        _add(pairs, ps, w)
        _add(mph, ms, w)
        mean[0] += w * len(ps)
        mean[1] += w * len(ms)
    return HeadEvidence(pairs, mph, mean[0], mean[1], len(candidates))


#: The last forest's evidence, per (summary, weighting, rules): the families read one summary.
_LAST: dict = {}


def forest_evidence(forest, family: str, weighting: str, rules: str, mph_rules: str | None = None):
    """The summary of ``forest.evidence`` (remembered for the last forest asked about): its
    :class:`Evidence`, or with ``mph_rules`` its :class:`HeadEvidence`.

    Raises
    ------
    FeatureConfigError
        If the forest came without evidence (no ``[evidence] source`` was given).
    """
    ev = forest.evidence
    if ev is None:
        raise FeatureConfigError(f"feature family {family!r} reads a second source's candidates of "
                                 "each sentence: name it in the config's [evidence] source")
    key = (weighting, rules, mph_rules)
    got = _LAST.get(key)
    if got is None or got[0] is not ev:
        got = _LAST[key] = (ev, summarise(ev, weighting, rules) if mph_rules is None else
                            summarise_heads(ev, weighting, rules, mph_rules))
    return got[1]


#: Upper edges of the support levels a bracket or pair is counted in (share of the evidence).
LEVELS = ((0.0, "0"), (0.1, "<=.1"), (0.5, "<=.5"), (0.9, "<=.9"), (1.0, "<=1"))


def level(share: float) -> str:
    """The support level of a share: ``0``, ``<=.1``, ``<=.5``, ``<=.9`` or ``<=1``."""
    for edge, name in LEVELS:
        if share <= edge:
            return name
    return LEVELS[-1][1]


def _agreement(prefix: str, keys, shares: dict, expected: float):
    """Summed support of ``keys`` (spans or word pairs) by the other source's ``shares``, the keys it
    does not hold, and the expected precision, recall and F they imply.

    Zeros are left out (a property absent is 0), so no row holds an explicit zero.
    """
    support, unheld = 0.0, 0
    for key in keys:
        s = shares.get(key, 0.0)
        support += s
        unheld += s == 0.0
    count = len(keys)
    if unheld:
        yield (f"{prefix}:unheld", float(unheld))
    if support <= 0.0:
        return
    yield (f"{prefix}:support", support)
    if count:
        yield (f"{prefix}:precision", support / count)
    if expected > 0:
        yield (f"{prefix}:recall", support / expected)
    yield (f"{prefix}:f", 2.0 * support / (count + expected))


def _pair_support_bins(prefix: str, pairs, shares: dict):
    """The support of each held word pair under ``<prefix>:support:<length bin>`` (its distance)."""
    for key in pairs:
        s = shares.get(key, 0.0)
        if s > 0.0:
            yield (f"{prefix}:support:{length_bin(key[1] - key[0])}", s)


class _EvidenceFamily(Family):
    """Shared: the options, and reading the forest's evidence before its candidates."""

    #: Extraction must hand these families forests with their evidence (``[evidence] source``).
    needs_evidence = True

    def __init__(self, weighting: str = "auto", rules: str = "collins"):
        if weighting not in WEIGHTINGS:
            raise FeatureConfigError(f"weighting {weighting!r} is not one of {', '.join(WEIGHTINGS)}")
        self.weighting = weighting
        self.rules = rules
        self._ev: Evidence | None = None
        self._seen: dict = {}

    #: The head rules of the MPH brackets when the family reads a :class:`HeadEvidence` (None:
    #: it reads an :class:`Evidence`).
    mph_rules: str | None = None

    def begin_forest(self, forest) -> None:
        self._ev = forest_evidence(forest, self.name, self.weighting, self.rules, self.mph_rules)
        self._seen = {}

    def _memo(self, key, compute) -> list:
        """``compute()``'s properties, once per key in a forest (the store makes a forest's equal
        trees one object, so a tree's identity is its key: linkages share trees 2.75 to one)."""
        got = self._seen.get(key)
        if got is None:
            got = self._seen[key] = list(compute())
        return got

    def evidence(self) -> Evidence:
        """The current forest's evidence (:meth:`begin_forest` must have seen the forest)."""
        if self._ev is None:
            raise FeatureConfigError(f"feature family {self.name!r} scores a candidate against its "
                                     "forest's evidence: call begin_forest(forest) first")
        return self._ev


@named("evidence_spans/1")
class EvidenceSpans(_EvidenceFamily):
    """The second source's support of the candidate's brackets (shares of its weight).

    ``evs:support`` sums the unlabelled support of the candidate's brackets, ``evs:unheld``
    counts those no evidence candidate holds, ``evs:precision``/``recall``/``f`` compare them with
    the evidence's expected bracket count; ``evs:support:<label>:<length bin>`` and
    ``evs:unheld:<label>`` split them by the candidate's label and span length, ``evs:level:<level>``
    counts brackets per support level. ``labelled`` adds the same under ``evl:`` for labelled spans.
    """

    def __init__(self, weighting: str = "auto", rules: str = "collins", bins: bool = True,
                 labelled: bool = True):
        super().__init__(weighting, rules)
        self.bins = bins
        self.labelled = labelled

    def __call__(self, c):
        # the forest's candidates hold their trees, so an id is not reused within the forest
        return self._memo(id(c.tree), lambda: self._properties(c))

    def _properties(self, c):
        ev = self.evidence()
        if not ev.candidates:
            yield ("evs:none", 1.0)
            return
        u, lab = tree_spans(c.tree)
        shares = ev.spans
        yield from _agreement("evs", u, shares, ev.mean_spans)
        if self.bins:
            for label, a, b in lab:
                s = shares.get((a, b), 0.0)
                yield (f"evs:level:{level(s)}", 1.0)
                if s > 0.0:
                    yield (f"evs:support:{label}:{length_bin(b - a)}", s)
                else:
                    yield (f"evs:unheld:{label}", 1.0)
        if self.labelled:
            yield from _agreement("evl", lab, ev.labelled, ev.mean_labelled)


@named("evidence_deps/1")
class EvidenceDependencies(_EvidenceFamily):
    """The second source's support of the candidate's word pairs (its links or head dependencies).

    ``evd:support``, ``evd:unheld``, ``evd:precision``/``recall``/``f`` as for brackets, and
    ``evd:support:<length bin>`` by the pair's distance in words.
    """

    def __init__(self, weighting: str = "auto", rules: str = "collins", bins: bool = True):
        super().__init__(weighting, rules)
        self.bins = bins

    def __call__(self, c):
        ev = self.evidence()
        if not ev.candidates:
            yield ("evd:none", 1.0)
            return
        ps = candidate_pairs(c, self.rules)
        shares = ev.pairs
        if self.bins:
            yield from _pair_support_bins("evd", ps, shares)
        yield from _agreement("evd", ps, shares, ev.mean_pairs)


@named("evidence_heads/1")
class EvidenceHeads(_EvidenceFamily):
    """The second source's support of the candidate's head structure, both sides under one table.

    ``evh:`` compares the head-dependent word pairs of the candidate's tree with those of the
    evidence's trees (``support``, ``unheld``, ``precision``/``recall``/``f`` as for brackets,
    ``evh:support:<length bin>`` by distance in words). Unlike ``evd``, a Link Grammar linkage
    is compared by its tree's heads, not its links, so both sides follow one convention.
    ``evm:`` does the same for the MPH brackets (maximal projections of heads under
    ``mph_rules``, the MPH scorer's table), with ``evm:level:<level>`` counting brackets per
    support level and ``evm:support:<length bin>`` by span length.
    """

    def __init__(self, weighting: str = "auto", rules: str = "collins",
                 mph_rules: str = "ringger-reassign", bins: bool = True):
        super().__init__(weighting, rules)
        self.mph_rules = mph_rules
        try:
            self._mph_table = head_rules(mph_rules)
        except (OSError, ValueError) as e:   # no such table, or a bad line in it
            raise FeatureConfigError(f"mph_rules {mph_rules!r}: {e}") from None
        self.bins = bins

    def __call__(self, c):
        return self._memo(id(c.tree), lambda: self._properties(c))

    def _properties(self, c):
        ev = self.evidence()
        if not ev.candidates:
            yield ("evh:none", 1.0)
            return
        pairs = tree_pairs(c.tree, self.rules)
        brackets = tree_mph(c.tree, self._mph_table)
        if self.bins:
            yield from _pair_support_bins("evh", pairs, ev.pairs)
            for a, b in brackets:
                s = ev.mph.get((a, b), 0.0)
                yield (f"evm:level:{level(s)}", 1.0)
                if s > 0.0:
                    yield (f"evm:support:{length_bin(b - a)}", s)
        yield from _agreement("evh", pairs, ev.pairs, ev.mean_pairs)
        yield from _agreement("evm", brackets, ev.mph, ev.mean_mph)
