"""Per-candidate counts against gold under every metric, stored so that bounds need no re-parse.

The counts of one candidate under one metric are four integers (gold, test, matched, crossing),
the BLLIP reranker's idea: once they are in the store, the oracle, the random expectation and any
ranker's selection are sums. The gold side of every scheme (erased tree, MPH brackets, flattened
key, dependencies) is computed once per sentence, and identical candidate trees (Link Grammar
gives many linkages with the same constituents) are scored once per sentence.

Each scheme's per-pair function comes from :mod:`ranker.evaluation`; this module only routes trees
to them and packs the results.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, NamedTuple, Sequence

from ..errors import RankerError
from ..evaluation.evalb import score_evalb
from ..evaluation.evalb_params import EvalbParams, load_params
from ..trees.dependencies import Dependency, RelationLabels, tree_to_dependencies
from ..trees.heads import HeadRules
from ..trees.transforms import PUNCT_TAGS
from ..trees.tree import Tree

Counts = tuple[int, int, int, int]


class ScoringSettings(NamedTuple):
    """What the counts depend on; its key names the stored counts, so a change never reads stale ones."""

    evalb_param: str = "COLLINS"
    head_rules: str = "collins"
    flatten_rules: str = "ptb"
    relation_labels: str = "labels"

    def key(self) -> str:
        return f"{self.evalb_param}+{self.head_rules}+{self.flatten_rules}+{self.relation_labels}"


class GoldSide(NamedTuple):
    """One sentence's gold standard, pre-digested for every scheme."""

    tree: Tree
    deps_untyped: frozenset[tuple[int, int]]          # (head, dependent), punctuation excluded
    deps_typed: frozenset[tuple[str, int, int]]        # (relation, head, dependent)
    scoring_words: frozenset[int]                      # dependents that are scored (not punctuation)


def _untyped(deps: Sequence[Dependency], scored: frozenset[int]) -> frozenset[tuple[int, int]]:
    return frozenset((d.head, d.dependent) for d in deps if d.dependent in scored)


def _typed(deps: Sequence[Dependency], scored: frozenset[int]) -> frozenset[tuple[str, int, int]]:
    return frozenset((d.relation, d.head, d.dependent) for d in deps if d.dependent in scored)


def _set_counts(gold: frozenset, test: frozenset) -> Counts:
    return (len(gold), len(test), len(gold & test), 0)


class Scorer:
    """Counts of candidate trees against one sentence's gold side, for every stored metric."""

    def __init__(self, settings: ScoringSettings = ScoringSettings()):
        self.settings = settings
        self.evalb: EvalbParams = load_params(settings.evalb_param)
        self.evalb_unlabeled = replace(self.evalb, labeled=False)
        self.rules = HeadRules.load(settings.head_rules)
        self.labels = RelationLabels.load(settings.relation_labels)
        self._metrics: dict[str, Callable[[GoldSide, Tree], Counts]] = {
            "evalb_labeled": self._evalb_labeled,
            "evalb_unlabeled": self._evalb_unlabeled,
        }

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(self._metrics) + ("deps_untyped", "deps_typed")

    def gold_side(self, gold: Tree, gold_deps: Sequence[Dependency] | None = None) -> GoldSide:
        """Digest a gold tree; ``gold_deps`` (e.g. from ``dependency_treebank``) are the untyped gold.

        Without ``gold_deps`` the untyped gold comes from converting the gold tree, like the typed.
        """
        tags = gold.tags()
        scored = frozenset(i for i, t in enumerate(tags) if t not in PUNCT_TAGS)
        typed = tree_to_dependencies(gold, self.rules, self.labels)
        if gold_deps is not None and len(gold_deps) != len(gold.words):
            raise RankerError(f"gold dependencies cover {len(gold_deps)} words but the gold tree "
                              f"has {len(gold.words)}")
        return GoldSide(gold, _untyped(gold_deps if gold_deps is not None else typed, scored),
                        _typed(typed, scored), scored)

    @staticmethod
    def _evalb_counts(g: GoldSide, t: Tree, params: EvalbParams) -> Counts:
        s = score_evalb(g.tree, t, params)
        if s.status != 0:  # leaves are the gold tokens, so this is a bug upstream, not bad luck
            raise RankerError(f"EVALB could not score a candidate: {s.message or 'status %d' % s.status}")
        return (s.gold, s.test, s.matched, s.crossing)

    def _evalb_labeled(self, g: GoldSide, t: Tree) -> Counts:
        return self._evalb_counts(g, t, self.evalb)

    def _evalb_unlabeled(self, g: GoldSide, t: Tree) -> Counts:
        return self._evalb_counts(g, t, self.evalb_unlabeled)

    def _deps(self, g: GoldSide, t: Tree) -> tuple[Counts, Counts]:
        # One conversion serves both dependency metrics: it is the costliest step of scoring.
        deps = tree_to_dependencies(t, self.rules, self.labels)
        return (_set_counts(g.deps_untyped, _untyped(deps, g.scoring_words)),
                _set_counts(g.deps_typed, _typed(deps, g.scoring_words)))

    def count(self, gold: GoldSide, t: Tree) -> dict[str, Counts]:
        """Counts of one candidate tree under every metric."""
        out = {m: f(gold, t) for m, f in self._metrics.items()}
        out["deps_untyped"], out["deps_typed"] = self._deps(gold, t)
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
