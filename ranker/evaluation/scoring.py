"""Per-candidate counts against gold under every metric, stored so that bounds need no re-parse.

The counts of one candidate under one metric are four integers (gold, test, matched, crossing),
the BLLIP reranker's idea: once they are in the store, the oracle, the random expectation and any
ranker's selection are sums. The gold side of every scheme (erasure decision and erased spans,
MPH brackets, flattened key, dependencies) is computed once per sentence, and identical candidate
trees (Link Grammar gives many linkages with the same constituents) are scored once per sentence.

It lives in :mod:`ranker.evaluation` beside the schemes it counts with, the same functions ``ranker
evaluate`` uses, so a report's score equals a rescoring of its selected-parse file (tested per
scheme and per pair in ``tests/evaluation/test_scoring.py``):

========================  =================================================================
metric                    counts (gold, test, matched, 4th)
========================  =================================================================
``evalb_labeled``         :func:`~ranker.evaluation.evalb.score_evalb`, the EVALB parameter file
``evalb_unlabeled``       the same with ``LABELED 0``
``parseval``              Black et al. after erasure (:func:`~ranker.evaluation.parseval.score_parseval`)
``mph``                   Ringger et al. (:func:`~ranker.evaluation.mph.score_mph`), ``mph_head_rules``
``flat``                  key = flattened gold, response = candidate as it is; the 4th count is
                          key constituents violated (:func:`~ranker.evaluation.flat.score_flat`)
``deps_untyped``          (governor, dependent) arcs, crossing 0
``deps_typed``            (relation, governor, dependent) arcs, crossing 0
========================  =================================================================
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple, Sequence

from ..errors import RankerError
from ..trees.black import black_erase, erased_words
from ..trees.dependencies import Dependency, RelationLabels
from ..trees.flatten import FlattenRules
from ..trees.heads import HeadRules
from ..trees.transforms import NONE_TAG
from ..trees.tree import Tree
from .dependencies import DependencyGold, gold_from_tree, score_tree_dependencies
from .evalb import ERROR, EvalbSide, score_evalb_sides
from .evalb_params import EvalbParams, load_params
from .flat import flat_constituents, flat_counts, flat_key
from .mph import MphSide, mph_side, score_mph_sides
from .parseval import constituent_spans, span_counts
from .settings import ScoringSettings  # noqa: F401  (defined there: ranker evaluate reads it without this module)

Counts = tuple[int, int, int, int]

#: Every stored metric, in storage order. The LAST one is written last and its presence marks a
#: sentence as scored (``experiment.score_candidates``).
METRICS = ("evalb_labeled", "evalb_unlabeled", "parseval", "mph", "flat", "deps_untyped", "deps_typed")
#: The counts EVALB gives alone, no gold side needed, by the :class:`Scorer` attribute holding
#: their parameters (``best_f`` counts them without digesting the gold).
EVALB_COUNTS = {"evalb_labeled": "evalb", "evalb_unlabeled": "evalb_unlabeled"}
#: The counts whose gold is ``dependency_treebank``'s arcs where the store holds them (untyped).
DEPENDENCY_TREEBANK_COUNTS = ("deps_untyped",)


class GoldSide(NamedTuple):
    """One sentence's gold standard, pre-digested for every scheme."""

    tree: Tree
    erasure: tuple[frozenset[int], frozenset[int]]     # Black et al.'s erased and verbal words
    parseval: frozenset[tuple[int, int]]               # erased gold constituents
    mph: MphSide
    flat_key: frozenset[tuple[int, int]]               # constituents of the flattened key
    deps: DependencyGold
    evalb: EvalbSide                                   # the tree as EVALB reads it (never changed)
    # Candidates' subtrees converted to dependencies so far, by identity: the candidates of a
    # sentence parsed with shared subtrees convert each distinct subtree once.
    dep_subtrees: dict


class Scorer:
    """Counts of candidate trees against one sentence's gold side, for every stored metric."""

    def __init__(self, settings: ScoringSettings = ScoringSettings()):
        self.settings = settings
        self.evalb: EvalbParams = load_params(settings.evalb_param)
        self.evalb_unlabeled = replace(self.evalb, labeled=False)
        self._evalb_params = (self.evalb, self.evalb_unlabeled)
        self.rules = HeadRules.load(settings.head_rules)
        self.mph_rules = HeadRules.load(settings.mph_head_rules)
        self.flatten_rules = FlattenRules.load(settings.flatten_rules)
        self.labels = RelationLabels.load(settings.relation_labels)

    @property
    def metrics(self) -> tuple[str, ...]:
        return METRICS

    def gold_side(self, gold: Tree, gold_deps: Sequence[Dependency] | None = None) -> GoldSide:
        """Digest a gold tree; ``gold_deps`` (e.g. from ``dependency_treebank``) are the untyped gold.

        Without ``gold_deps`` the untyped gold comes from converting the gold tree, like the typed.

        Raises
        ------
        RankerError
            If ``gold_deps`` does not cover the gold tree's words.
        """
        if NONE_TAG in gold.tags():
            # candidates have no empty elements: word positions would not line up
            raise RankerError("a gold tree for scoring candidates still holds empty elements (-NONE-)")
        erasure = erased_words(gold)
        key = flat_key(gold, self.flatten_rules)
        try:
            deps = gold_from_tree(gold, self.rules, self.labels, gold_deps)
        except ValueError as e:
            raise RankerError(str(e)) from None
        return GoldSide(gold, erasure, constituent_spans(black_erase(gold, erasure)),
                        mph_side(gold, self.mph_rules), flat_constituents(key), deps,
                        EvalbSide(gold, self.evalb), {})

    def count(self, gold: GoldSide, t: Tree) -> dict[str, Counts]:
        """Counts of one candidate tree (over the gold words) under every metric.

        Raises
        ------
        RankerError
            If the candidate's words are not the gold words: candidates are aligned to the gold
            tokens upstream, so this is a bug there, never a score.
        """
        if t.words != gold.tree.words:
            raise RankerError(f"a candidate's words differ from the gold words: {' '.join(t.words)!r} "
                              f"vs {' '.join(gold.tree.words)!r}")
        out: dict[str, Counts] = {}
        # the two EVALB parameter sets differ in LABELED only: each side is read once for both
        evalb = score_evalb_sides(gold.evalb, EvalbSide(t, self.evalb), self._evalb_params)
        for name, s in zip(EVALB_COUNTS, evalb):
            # A skip (no word left after deletion: an all-punctuation sentence) and an error both
            # count zeros, as EVALB leaves such a sentence out of its totals. The error arises when
            # the words are equal (checked above) but the tags differ on punctuation EVALB deletes
            # (a parser's '' for the gold's POS '): EVALB cannot align the pair and skips the
            # sentence, so a selection of this candidate scores exactly as `evalb` scores the
            # selected file. For choosing among candidates (the oracle, best_f) a zero-count row of a
            # sentence with gold brackets ranks below every scored one (`unscored_rows`).
            if s.status == ERROR:
                out[name] = (0, 0, 0, 0)
                continue
            out[name] = (s.gold, s.test, s.matched, s.crossing)
        out["parseval"] = tuple(span_counts(gold.parseval, constituent_spans(black_erase(t, gold.erasure))))
        # A parser's own tags may put a word in or out of the punctuation these schemes delete
        # (the parser's '' for the gold's POS '), so the words to score differ: such a candidate
        # is charged as no parse: these schemes have no rule for skipping a sentence (Link
        # Grammar's candidates carry the gold tags and never meet this).
        try:
            out["mph"] = tuple(score_mph_sides(gold.mph, mph_side(t, self.mph_rules)))
        except ValueError:
            out["mph"] = tuple(score_mph_sides(gold.mph, None))
        try:
            # one conversion serves both dependency metrics: it is the costliest step of scoring
            d = score_tree_dependencies(gold.deps, t, self.rules, self.labels, gold.dep_subtrees)
        except ValueError:
            d = score_tree_dependencies(gold.deps, None, self.rules, self.labels)
        out["flat"] = tuple(flat_counts(gold.flat_key, flat_constituents(t)))
        out["deps_untyped"] = tuple(d.untyped)
        out["deps_typed"] = tuple(d.typed)
        return out

    def score(self, gold: GoldSide, candidates: Sequence[Tree]) -> dict[str, list[Counts]]:
        """Counts of every candidate under every metric, each distinct tree scored once."""
        out: dict[str, list[Counts]] = {m: [] for m in self.metrics}
        seen: dict[Tree, dict[str, Counts]] = {}
        for t in candidates:
            c = seen.get(t)
            if c is None:
                c = seen[t] = self.count(gold, t)
            for m in out:
                out[m].append(c[m])
        return out
