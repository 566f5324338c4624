"""Cross-validation folds over treebank files, and the experiment config of one fold.

Files, not sentences, are cut into folds, consecutively, so no document is split between training
and test (sentences of one article share vocabulary and topic) and a fold is a document range the
config's ``[data]`` section can name. Fold ``k`` is the test set, fold ``k + 1`` (mod ``n``) the
held-out set on which sigma^2 and Heidorn's K are chosen, and the other ``n - 2`` folds the training
set, for every system compared on the folds (``experiments/cross-validation/run.py`` for any
config, ``experiments/wsj-sample-bllip/cross_validate.py`` beside the Charniak-Johnson reranker).
"""
from __future__ import annotations

import dataclasses
from typing import NamedTuple, Sequence

from ..errors import RankerError

#: The 199 files of NLTK's treebank sample (wsj_0001-0199), in corpus order.
TREEBANK_FILES = tuple(f"wsj_{i:04d}" for i in range(1, 200))


class Fold(NamedTuple):
    """One fold's three parts, each a list of file stems in corpus order."""

    k: int
    test: tuple[str, ...]
    heldout: tuple[str, ...]
    train: tuple[str, ...]


def file_folds(files: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """``files`` cut into ``n`` runs of consecutive files whose sizes differ by at most one.

    The first ``len(files) % n`` runs take the extra file (199 files, 10 folds: nine of 20, one of 19).

    Raises
    ------
    RankerError
        When ``n`` is below 3 (a fold needs a test, a held-out and a training part) or above the
        number of files.
    """
    if not 3 <= n <= len(files):
        raise RankerError(f"--folds: {n} folds of {len(files)} files; give 3 to {len(files)}")
    size, extra = divmod(len(files), n)
    out, start = [], 0
    for k in range(n):
        end = start + size + (1 if k < extra else 0)
        out.append(tuple(files[start:end]))
        start = end
    return out


def cross_validation_folds(files: Sequence[str] = TREEBANK_FILES, n: int = 10) -> list[Fold]:
    """Every fold: fold ``k`` tests, fold ``k + 1`` (mod ``n``) is held out, the rest train."""
    runs = file_folds(files, n)
    return [Fold(k, runs[k], runs[(k + 1) % n],
                 tuple(f for j, run in enumerate(runs) if j not in (k, (k + 1) % n) for f in run))
            for k in range(n)]


def ranges(files: Sequence[str]) -> str:
    """Consecutive runs of ``wsj_NNNN`` files as the document ranges ``[data]`` reads.

    ``wsj_0001 ... wsj_0019, wsj_0040 ... wsj_0199`` -> ``"wsj_0001-0019 wsj_0040-0199"``.
    """
    if not files:
        raise RankerError("no files to write as document ranges")
    nums = sorted(int(f.rsplit("_", 1)[1]) for f in files)
    prefix = files[0].rsplit("_", 1)[0]
    parts, a = [], nums[0]
    for prev, cur in zip(nums, nums[1:] + [None]):
        if cur != prev + 1:
            parts.append(f"{prefix}_{a:04d}-{prev:04d}")
            a = cur
    return " ".join(parts)


def fold_order(only: str | None, n: int) -> list[int]:
    """The folds to run, in order: ``--only 7,8,0`` or every fold from 0.

    Raises
    ------
    RankerError
        If a fold is not a number in 0..n-1 or is named twice.
    """
    if only is None:
        return list(range(n))
    out = []
    for part in only.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) >= n:
            raise RankerError(f"--only: fold {part!r} is not a number from 0 to {n - 1}")
        if int(part) in out:
            raise RankerError(f"--only: fold {part} is named twice")
        out.append(int(part))
    return out


def fold_config(base, fold: Fold):
    """``base`` (an :class:`~ranker.pipeline.config.ExperimentConfig`) with ``fold``'s three parts.

    The experiment is renamed ``<name>-fold<k>``; the learning curve is left out (a fold's report
    is read for its test scores; the main run's report tables the curve). Everything else, the
    store included, is ``base``'s, so all folds share one store and each sentence is parsed or
    imported once.
    """
    data = dataclasses.replace(base.data, train=ranges(fold.train), heldout=ranges(fold.heldout),
                               test=ranges(fold.test))
    return dataclasses.replace(
        base, data=data,
        experiment=dataclasses.replace(base.experiment, name=f"{base.experiment.name}-fold{fold.k}"),
        report=dataclasses.replace(base.report, learning_curve=()))


#: Report counts kept per fold (what the fold trained on): fields of :class:`.run_counts.RunCounts`.
FOLD_COUNTS = ("training_kept", "features_after_cutoff")
#: Typed fields of the log-linear fit kept per fold (report.json "fits", ranker.models.summary).
FOLD_FIT = ("sigma2", "optimizer", "iterations", "converged")


def fold_record(k: int, report) -> dict:
    """What a cross-validation's summary keeps of fold ``k``'s :class:`~ranker.pipeline.report.Report`.

    Its counts (:data:`FOLD_COUNTS`), the log-linear fit (:data:`FOLD_FIT`) and, per metric, every
    ranker's error reduction, score and phi with the metric's bounds: plain JSON values.
    """
    from .experiment import RANKERS

    fit = report.fits.get("loglinear") or {}
    return ({"fold": k, "counts": {c: getattr(report.counts, c) for c in FOLD_COUNTS},
             "fit": {f: fit.get(f) for f in FOLD_FIT}}
            | {m: {r: t.rankers[r].error_reduction for r in RANKERS} | {"upper": t.upper, "lower": t.lower}
               | {f"{r}_score": t.rankers[r].score for r in RANKERS}
               | {f"{r}_phi": t.rankers[r].phi for r in RANKERS}
               for m, t in report.metrics.items()})
