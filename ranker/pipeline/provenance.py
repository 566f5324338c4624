"""Where a store's settings come from: the scoring settings its counts were computed with, its sources."""
from __future__ import annotations

from ..errors import RankerError
from ..evaluation.bounds import METRICS, reported_metric_names
from ..evaluation.scoring import Scorer, ScoringSettings
from ..store import Store
from .config import EvaluationSection


def scoring_settings(evaluation: EvaluationSection) -> ScoringSettings:
    """What the stored per-candidate counts depend on, from the ``[evaluation]`` section."""
    return ScoringSettings(evaluation.evalb_param, evaluation.head_rules, evaluation.flatten_rules)


#: The ``[evaluation]`` keys the stored per-candidate counts depend on (:class:`ScoringSettings`).
SCORING_KEYS = ("evalb_param", "head_rules", "flatten_rules")


def record_scoring(store: Store, evaluation: EvaluationSection, source: str) -> None:
    """Record in the store that ``source``'s counts are computed with ``evaluation``'s settings."""
    store.put_scoring(source, scoring_settings(evaluation).key(),
                      {k: getattr(evaluation, k) for k in SCORING_KEYS})


def stored_evaluation(store: Store, source: str, options=None) -> EvaluationSection:
    """The ``[evaluation]`` settings a command reads ``source``'s counts with: the store's own.

    The store records the settings every ``ranker counts`` (or ``ranker run``) computed counts
    with (:meth:`Store.scorings`), so ``train``, ``select``, ``annotate``, ``models retrain`` and
    ``ranker serve`` read those instead of assuming the defaults. ``options`` (a command's parsed
    options: its ``evalb_param``, ``head_rules`` and ``flatten_rules``, None or absent for one not
    given, as ``ranker.cli.options.add_evaluation_settings`` adds them) picks among several; a value
    no stored counts were computed with is an error naming what is stored, never a silent switch to
    other counts. A store with no counts recorded gives the defaults (overridden by ``options``).

    Raises
    ------
    RankerError
        If ``options`` match no stored settings, or several settings are stored and ``options``
        do not say which.
    """
    given = {k: v for k in SCORING_KEYS if (v := getattr(options, k, None)) is not None}
    scorings = store.scorings(source)
    if not scorings:
        return EvaluationSection(**given)
    matches = [sc for sc in scorings if all(sc.settings.get(k) == v for k, v in given.items())]
    if len(matches) == 1:
        return EvaluationSection(**{k: v for k, v in matches[0].settings.items() if k in SCORING_KEYS})

    def say(sc) -> str:
        return ", ".join(f"{k} {sc.settings.get(k)!r}" for k in SCORING_KEYS)

    stored = "; ".join(say(sc) for sc in scorings)
    if not matches:
        asked = ", ".join(f"{k} {v!r}" for k, v in given.items())
        raise RankerError(f"{store.path}: the counts of {source} were computed with {stored}, not "
                          f"with {asked}; name stored settings, or compute counts with these first "
                          f"(ranker counts --source {source} ...)")
    raise RankerError(f"{store.path}: the counts of {source} were computed under {len(matches)} "
                      f"settings ({stored}); name one with --evalb-param, --head-rules, --flatten-rules")


def metric_names(evaluation: EvaluationSection) -> list[str]:
    """The report's metrics, in report order: those of the one list whose counts the scorer stores.

    The list is :func:`~ranker.evaluation.bounds.reported_metric_names`, which the CLI checks against too.
    """
    stored = Scorer(scoring_settings(evaluation)).metrics
    return [m for m in reported_metric_names() if METRICS[m].counts_from in stored]


def stored_sources(store: Store) -> list[str]:
    """The store's candidate sources, sorted."""
    # parsers and importers register their source (cheap); a store filled by hand is counted
    return sorted(store.source_options()) or sorted(store.stats().sources)


def stored_source(store: Store, given: str | None = None) -> str:
    """The candidate source to read: ``given`` if the store holds it, else the store's only one."""
    have = stored_sources(store)
    if given is not None:
        if given not in have:
            raise RankerError(f"{store.path}: no candidates from source {given!r} "
                              f"(stored: {', '.join(have) or 'none'})")
        return given
    if len(have) != 1:
        raise RankerError(f"{store.path}: " + ("no candidates stored yet (ranker parse or ranker import)"
                          if not have else f"candidates of {len(have)} sources ({', '.join(have)}): "
                          "name one with --source"))
    return have[0]
