"""The ``fit_rules`` stage: the consistency rule chosen on held-out, as σ² is (issue 43).

Which candidates of a partially annotated sentence count as consistent, X(y, z), decides how much
of a treebank a model learns from: on GUM's Link Grammar forests the strict rule keeps a quarter
of the training sentences (half have no candidate holding every bracket). No rule is best on
every corpus, so ``[annotation] rule = "auto"`` fits one model per rule of ``[annotation] rules``
(each with its σ² grid) from one extraction of features and keeps the one that scores best on
held-out; the report's Fits table lists each rule's held-out score and the sentences it kept.

A grid holds one rule's training rows at a time (issue 45): each rule's rows are built when its fit
starts and let go when it ends, its fitted models and held-out scores kept, and the chosen rule's
rows are built again at the end for what follows (the learning curve). Holding the best rule's
rows while the next was built and fitted took GUM's grid of six rules to 11.5 GB.
"""
from __future__ import annotations

from typing import Callable, Iterable, NamedTuple

from ..config import LogLinearSection
from ..domains import SHARED, HeldoutSplits
from .context import StageContext
from .fit import LogLinearFit, fit_loglinear


class RuleTrial(NamedTuple):
    """One rule of the grid: what it kept and how its best σ² scored on held-out."""

    rule: str
    kept: int                  # training sentences the rule's consistent sets and the filters keep
    sigma2: float | None       # its σ² chosen on held-out (None: nothing to train on)
    heldout: float | None      # that model's held-out score
    domains: str = SHARED      # its feature space with several treebanks (ranker.pipeline.domains)


class RuleChoice(NamedTuple):
    """The rule chosen on held-out, its training rows and fit, and every rule's trial."""

    rule: str
    data: object                          # TrainingData of the chosen rule
    fit: LogLinearFit
    features_before_cutoff: int
    trials: tuple[RuleTrial, ...]         # in grid order; one trial when the rule is fixed
    domains: str = SHARED                 # the chosen feature space (ranker.pipeline.domains)


def fit_rules(ctx: StageContext, loglinear: LogLinearSection, template, sets: Iterable, rules: int,
              heldout_matrix, quality_heldout, feature_config: dict | None, tagger=None,
              rebuild: Callable[[str, str], object] | None = None) -> RuleChoice:
    """Fit a log-linear model for each rule's training set and keep the best on held-out.

    ``sets`` yields ``(rule, TrainingSet)``, ``rules`` of them (:func:`.features.training_sets`,
    whose first set a caller may have taken already, to clock the extraction as its own stage:
    hand it back holding no reference, as :func:`handed_over` does, or its rows stay for the whole
    grid). With several, no set is kept once its fit ends, and ``rebuild(space, rule)`` gives the
    chosen one's :class:`~.features.TrainingSet` again (``training_sets(..., only=(space, rule))``:
    the same rows), needed then. ``heldout_matrix`` is the held-out split's :class:`~ranker.features.CandidateMatrix`,
    or a :class:`~ranker.pipeline.domains.HeldoutSplits` of several treebanks' (each set is scored
    in its own space, ``TrainingSet.domains``), restricted to each set's features in turn, one
    restriction held at a time (issue 45), ``quality_heldout`` its candidates' quality under
    ``[loglinear] select_metric``. Each rule's σ² grid is fitted (and cached) as
    :func:`.fit.fit_loglinear` does; only the winner is marked as chosen on held-out in the store,
    so ``ranker models export`` finds one model; each carries ``tagger``. A tie keeps the earlier
    rule of the grid.
    """
    several = rules > 1
    if several and rebuild is None:
        raise ValueError("a grid of rules keeps no rule's rows: fit_rules needs rebuild")
    held = heldout_matrix if isinstance(heldout_matrix, HeldoutSplits) else HeldoutSplits([heldout_matrix], [None])
    groups = held.groups()
    best: tuple | None = None
    trials: list[RuleTrial] = []
    spaces = set()
    for rule, got in sets:
        data = got.data
        spaces.add(got.domains)
        # the held-out rows are made when they are needed (the fit's key, each σ²'s score), never
        # held beside a fit
        fit = fit_loglinear(ctx, loglinear, template, data,
                            lambda space=got.domains, names=data.names: held.rows(space, names), groups,
                            quality_heldout, feature_config, tagger, mark=not several)
        score = None if fit.chosen is None else dict(fit.chosen.trials)[fit.chosen.sigma2]
        trials.append(RuleTrial(rule, fit.kept, None if fit.chosen is None else fit.chosen.sigma2, score,
                                got.domains))
        if best is None or (score is not None and (best[3] is None or score > best[3])):
            # a grid keeps the fit alone: the rows go before the next rule's are built
            best = (rule, None if several else data, fit, score, got.features_before_cutoff, got.domains)
        del data, got
    rule, data, fit, _, before, space = best
    if several:
        data = rebuild(space, rule).data
    if several and fit.chosen is not None:
        ctx.store.choose_model(fit.chosen.key, f"heldout {loglinear.select_metric}")
        chose_rule = {"rule": rule} if len({t.rule for t in trials}) > 1 else {}
        fit = fit._replace(summary={**fit.summary, **chose_rule, "rules": [list(t) for t in trials]})
    if len(spaces) > 1 or space != SHARED:
        fit = fit._replace(summary={**(fit.summary or {}), "domains": space})
    return RuleChoice(rule, data, fit, before, tuple(trials), space)


def handed_over(first: list, rest: Iterable):
    """``first``'s one item, taken out of it, then ``rest``'s: a set taken from :func:`fit_rules`'s
    ``sets`` early is handed back without the caller's reference keeping its rows for the grid."""
    yield first.pop()
    yield from rest


def rule_grid(annotation) -> tuple[str, ...]:
    """The rules an ``[annotation]`` section asks to be tried: ``rules`` for ``rule = "auto"``, else
    the one rule (an :class:`.annotation.AnnotationOutcome` has no ``rules``: ``ranker train --rule
    auto`` failed on one)."""
    return tuple(annotation.rules) if annotation.rule == "auto" else (annotation.rule,)
