"""The ``fit_rules`` stage: the consistency rule chosen on held-out, as σ² is (issue 43).

Which candidates of a partially annotated sentence count as consistent, X(y, z), decides how much
of a treebank a model learns from: on GUM's Link Grammar forests the strict rule keeps a quarter
of the training sentences (half have no candidate holding every bracket). No rule is best on
every corpus, so ``[annotation] rule = "auto"`` fits one model per rule of ``[annotation] rules``
(each with its σ² grid) from one extraction of features and keeps the one that scores best on
held-out; the report's Fits table lists each rule's held-out score and the sentences it kept.

A grid holds one rule's training rows at a time (issue 45): each rule's rows are built when its fit
starts and let go when the next rule's set is made, its fitted models and held-out scores kept, and
the chosen rule's rows are built again when read at the end (its σ² grid, the learning curve).
Holding the best rule's rows while the next was built and fitted took GUM's grid of six rules to
11.5 GB. Every fit is keyed by its rows' inputs, so a warm rerun builds no rule's rows to find it.

A full grid is every rule's whole σ² grid fitted to the cap: on GUM six rules by three σ², over an
hour of training. ``[annotation] screen_iterations = N`` screens the rules instead: each rule fitted
for at most N iterations at one σ² (the grid's middle value, :func:`screen_sigma2`), the best of
these short fits on held-out kept, and only that rule's σ² grid fitted in full, its first fit
started from the rule's screening weights. A GUM fit's held-out score is flat long before the fit
converges (experiments/gum/README.md), so a short fit ranks the rules as the full ones do.
"""
from __future__ import annotations

import warnings
from typing import Iterable, NamedTuple

from sklearn.exceptions import ConvergenceWarning

from ..config import LogLinearSection
from ..domains import SHARED, HeldoutSplits
from .context import StageContext
from .fit import LogLinearFit, fit_loglinear


class RuleTrial(NamedTuple):
    """One rule of the grid: what it kept and how its best σ² (or its screening fit) scored on held-out."""

    rule: str
    kept: int                  # training sentences the rule's consistent sets and the filters keep
    sigma2: float | None       # its σ² chosen on held-out, or its screening fit's (None: nothing to train on)
    heldout: float | None      # that model's held-out score
    domains: str = SHARED      # its feature space with several treebanks (ranker.pipeline.domains)
    iterations: int | None = None   # that model's solver iterations (None: nothing to train on)


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
              screen: int = 0) -> RuleChoice:
    """Fit a log-linear model for each rule's training set and keep the best on held-out.

    ``sets`` yields ``(rule, TrainingSet)``, ``rules`` of them (:func:`.features.training_sets`,
    whose first set a caller may have taken already, to clock the extraction as its own stage:
    hand it back holding no reference, as :func:`handed_over` does, or its rows stay for the whole
    grid). Each set's rows are a :class:`~ranker.pipeline.training_rows.PlannedRows`, released by
    ``sets`` when the next rule's set is made: the grid keeps the best rule's set, whose rows are
    built again when read after the grid (its σ² grid's fits, the learning curve), and a stored
    fit is loaded without building them. ``heldout_matrix`` is the held-out split's :class:`~ranker.features.CandidateMatrix`,
    or a :class:`~ranker.pipeline.domains.HeldoutSplits` of several treebanks' (each set is scored
    in its own space, ``TrainingSet.domains``), restricted to each set's features in turn, one
    restriction held at a time (issue 45), ``quality_heldout`` its candidates' quality under
    ``[loglinear] select_metric``. Each rule's σ² grid is fitted (and cached) as
    :func:`.fit.fit_loglinear` does; only the winner is marked as chosen on held-out in the store,
    so ``ranker models export`` finds one model; each carries ``tagger``. A tie keeps the earlier
    rule of the grid.

    ``screen`` > 0 (``[annotation] screen_iterations``) with several rules screens them instead
    (:func:`_screened`): each fitted for at most ``screen`` iterations at :func:`screen_sigma2`,
    only the best one's σ² grid fitted in full, warm-started from its screening fit. The trials
    are then the screening fits'; the chosen fit's ``trials`` the full ones.
    """
    several = rules > 1
    held = heldout_matrix if isinstance(heldout_matrix, HeldoutSplits) else HeldoutSplits([heldout_matrix], [None])
    groups = held.groups()
    if several and screen > 0:
        return _screened(ctx, loglinear, template, sets, held, groups, quality_heldout, feature_config,
                         tagger, screen, rules)
    best: tuple | None = None
    trials: list[RuleTrial] = []
    spaces = set()
    for rule, got in sets:
        data = got.data
        spaces.add(got.domains)
        # the held-out rows are made when they are needed (the fit's key, each σ²'s score), never
        # held beside a fit
        # (the names read when the rows are made: a stored search builds no rows, training or held-out)
        fit = fit_loglinear(ctx, loglinear, template, data,
                            lambda space=got.domains, data=data: held.rows(space, data.names), groups,
                            quality_heldout, feature_config, tagger, mark=not several,
                            heldout_key=held.key(got.domains))
        score = None if fit.chosen is None else dict(fit.chosen.trials)[fit.chosen.sigma2]
        trials.append(RuleTrial(rule, fit.kept, None if fit.chosen is None else fit.chosen.sigma2, score,
                                got.domains, None if fit.model is None else int(fit.model.n_iter_)))
        if best is None or (score is not None and (best[3] is None or score > best[3])):
            # (its rows released by ``sets`` when the next rule's are made: the plan is kept)
            best = (rule, data, fit, score, got.features_before_cutoff, got.domains)
        del data, got
    rule, data, fit, _, before, space = best
    if several and fit.chosen is not None:
        ctx.store.choose_model(fit.chosen.key, f"heldout {loglinear.select_metric}")
    return RuleChoice(rule, data, _summarised(fit, rule, trials, spaces, space, several), before, tuple(trials), space)


def _summarised(fit: LogLinearFit, rule: str, trials: list, spaces: set, space: str, several: bool,
                **extra) -> LogLinearFit:
    """``fit`` with what the report's Fits table says of a grid: the chosen rule, every rule's
    trial and ``extra`` (a screen's length and σ²) when several rules were tried, and the
    feature space chosen when there was a choice of spaces."""
    if several and fit.chosen is not None:
        chose_rule = {"rule": rule} if len({t.rule for t in trials}) > 1 else {}
        fit = fit._replace(summary={**fit.summary, **chose_rule, "rules": [list(t) for t in trials], **extra})
    if len(spaces) > 1 or space != SHARED:
        fit = fit._replace(summary={**(fit.summary or {}), "domains": space})
    return fit


def screen_sigma2(grid) -> float:
    """The σ² a rule's screening fit uses: the grid's middle value (the lower middle of an even grid).

    The screen ranks rules, not priors: the middle of the grid is the value least far, on the
    grid's own scale, from whichever σ² the full fits will choose (GUM's dev chose 1 of
    [0.1, 1, 10] for both rules whose grid was fitted in full).
    """
    values = sorted(float(s2) for s2 in grid)
    return values[(len(values) - 1) // 2]


def _screened(ctx: StageContext, loglinear: LogLinearSection, template, sets: Iterable, held: HeldoutSplits, groups,
              quality_heldout, feature_config: dict | None, tagger, screen: int, rules: int) -> RuleChoice:
    """:func:`fit_rules` by screening: each rule's short fit, then the best one's σ² grid in full.

    A screening fit is :func:`ranker.pipeline.training.fit_screen` (``max_iter = screen`` at
    :func:`screen_sigma2` from zero weights, preconditioned as the full fits are), kept in the
    store as every fit is (a warm rerun fits nothing), scored on held-out as the σ² search scores
    a fit. Its score and iterations are kept too, under the fit's key, the held-out rows' and
    their qualities', so a warm rerun neither loads the screening models nor makes the held-out
    rows in each one's columns (12 of GUM's 21 s of warm screening); only the chosen rule's is
    loaded, its weights the full grid's start. A tie keeps the earlier rule. A bar counts the
    ``rules`` screens, the running fit's iteration beside it (GUM's six took minutes with nothing
    on screen).
    """
    import numpy as np

    from ...models.groups import group_offsets
    from ...models.tuning import selected_quality
    from ...parallel import progress_bar
    from ..cache import cached_result, data_digest, load_payload, sub_key
    from ..training import fit_screen, screen_key
    from .fit import fit_loglinear

    s2 = screen_sigma2(loglinear.sigma2_grid)
    quality = np.asarray(quality_heldout, dtype=np.float64)
    offsets = group_offsets(groups, len(quality))
    scored_on = data_digest([quality, offsets], {"scored": "selected_quality"})
    best: tuple | None = None
    trials: list[RuleTrial] = []
    spaces = set()
    # a step a rule (its rows built, then its short fit: on a warm rerun the building is all of it),
    # the fit's iterations in the postfix
    with progress_bar(rules, "train (screening rules)", unit="rule", enabled=ctx.progress) as bar:
        bar.set_postfix_str("building rows")
        for rule, got in sets:
            data = got.data
            spaces.add(got.domains)
            kept = int(data.survivors.group_mask.sum())
            key = score = iterations = None
            if kept:
                key = screen_key(template, data, s2, screen)

                def screened(rule=rule, data=data, space=got.domains) -> dict:
                    with warnings.catch_warnings():   # a screening fit stops short by design
                        warnings.simplefilter("ignore", ConvergenceWarning)
                        model, names = fit_screen(ctx.store, template, data, s2, screen, feature_config,
                                                  callback=lambda k, n: bar.set_postfix_str(
                                                      f"{rule}, iteration {k}/{n}"))
                    return {"score": selected_quality(model.decision_function(held.rows(space, names)),
                                                      quality, offsets),
                            "iterations": int(model.n_iter_)}

                on = held.key(got.domains)
                got_trial = cached_result(ctx.store, sub_key(key, heldout=on, scored=scored_on), screened) \
                    if data.key and on else screened()
                score, iterations = got_trial["score"], got_trial["iterations"]
            bar.update(1)
            bar.set_postfix_str(f"{rule} screened; building rows")   # the next rule's, or the chosen one's again
            trials.append(RuleTrial(rule, kept, s2 if kept else None, score, got.domains, iterations))
            if best is None or (score is not None and (best[2] is None or score > best[2])):
                best = (rule, key, score, got.features_before_cutoff, got.domains, data)
            del data, got
    rule, key, _, before, space, data = best
    # the chosen rule's screening weights, the full grid's start (its model stored by fit_screen,
    # fitted again should a store have lost it)
    start = None
    if key is not None:
        payload = ctx.store.model_file(key)
        start = (load_payload(payload, None, key).ranker if payload is not None else
                 fit_screen(ctx.store, template, data, s2, screen, feature_config)[0]).coef_
    fit = fit_loglinear(ctx, loglinear, template, data, lambda: held.rows(space, data.names), groups,
                        quality_heldout, feature_config, tagger,
                        start=None if start is None else np.asarray(start, dtype=np.float64),
                        heldout_key=held.key(space))
    fit = _summarised(fit, rule, trials, spaces, space, True, screen={"iterations": screen, "sigma2": s2})
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
