"""Discriminants: the labelled spans on which a forest's remaining candidates disagree.

Treebanking by discriminants (LinGO Redwoods, FFTB, activedop): instead of reading every
candidate, a person answers "is this span a constituent with this label?" for one span at a time;
each answer keeps the candidates that contain the span (accept) or those that do not (reject), so
about log2(forest size) answers pick a candidate out of a forest. The answers are a partial
bracketing with rejected spans, the annotation kind ``user`` that the log-linear model trains
from (:func:`ranker.sources.annotations.check_candidate`).

A span is matched as the annotation checks match it: labels without function tags, equivalent
labels per :class:`~ranker.sources.annotations.LabelEquivalences` (``S`` is matched by ``SINV``
too), so what a person sees the set shrink to is exactly the consistent set training uses.
Pure logic: no store, no web.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from functools import lru_cache
from typing import Iterable, NamedTuple, Sequence

import numpy as np

from ..errors import RankerError
from ..store.records import Annotation, Bracket, Decision
from .annotations import DEFAULT_EQUIVALENCES, LabelEquivalences, candidate_spans

__all__ = ["Decision", "Discriminant", "candidate_spans", "decision", "discriminants", "parse_key",
           "remaining_mask", "span_key", "user_annotations"]

#: The annotation kind people's decisions form (``ranker annotate --kind user``).
KIND = "user"

_KEY = re.compile(r"([^\s:/?#&%\\\"'<>]{1,40}):(\d{1,9})-(\d{1,9})")


def span_key(label: str, start: int, end: int) -> str:
    """The short id of a labelled span, ``"NP:3-7"`` (safe in URLs and form fields)."""
    return f"{label}:{start}-{end}"


def parse_key(key: str) -> tuple[str, int, int]:
    """``(label, start, end)`` of a key made by :func:`span_key`.

    Raises
    ------
    RankerError
        If ``key`` is not ``LABEL:START-END`` with a plain label and ``0 <= START < END``.
    """
    m = _KEY.fullmatch(key) if isinstance(key, str) else None
    if m is None:
        raise RankerError(f"bad discriminant key {str(key)[:60]!r}: expected LABEL:START-END, as 'NP:3-7'")
    start, end = int(m.group(2)), int(m.group(3))
    if start >= end:
        raise RankerError(f"bad discriminant key {key!r}: the span [{start}, {end}) is empty")
    return m.group(1), start, end


class Discriminant(NamedTuple):
    """A labelled span some but not all remaining candidates contain, with what an answer leaves.

    ``count`` remaining candidates contain it (so accepting it leaves ``count``, rejecting it
    ``remaining - count``); ``mass`` is the model's probability of those candidates, renormalised
    over the remaining ones (their share when there is no model); ``expected`` is the number of
    candidates expected to remain after the answer, ``mass * count + (1 - mass) * (remaining -
    count)``, the order of :func:`discriminants`.
    """

    label: str
    start: int
    end: int
    count: int
    remaining: int
    mass: float
    expected: float = 0.0

    @property
    def key(self) -> str:
        return span_key(self.label, self.start, self.end)


def decision(key: str, accept: bool, who: str, at: str | None = None) -> Decision:
    """A :class:`Decision` on the span ``key`` (:func:`parse_key`) by ``who``, made now unless ``at``.

    Raises
    ------
    RankerError
        On a bad key or an empty ``who``.
    """
    label, start, end = parse_key(key)
    if not isinstance(who, str) or not who.strip() or len(who) > 100:
        raise RankerError(f"a decision needs who made it (a name of 1-100 characters), found {who!r}")
    if at is None:
        at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Decision(label, start, end, bool(accept), who.strip(), at)


@lru_cache(maxsize=1)
def _default_equivalences() -> LabelEquivalences:
    return LabelEquivalences.load(DEFAULT_EQUIVALENCES)


def _contains(spans: Sequence[frozenset], label: str, start: int, end: int,
              eq: LabelEquivalences) -> np.ndarray:
    """Which candidates contain the span ``[start, end)`` with a label equivalent to ``label``."""
    want = eq.accepts(label)
    if want is None:    # unlabelled: any label on the span
        return np.fromiter((any(s == start and e == end for _, s, e in sp) for sp in spans),
                           dtype=bool, count=len(spans))
    keys = [(lab, start, end) for lab in want]
    return np.fromiter((any(k in sp for k in keys) for sp in spans), dtype=bool, count=len(spans))


def remaining_mask(spans: Sequence[frozenset], decisions: Sequence[Decision],
                   eq: LabelEquivalences | None = None) -> np.ndarray:
    """The candidates consistent with every decision: they contain each accepted span and no rejected one.

    Parameters
    ----------
    spans
        Each candidate's :func:`candidate_spans`, in forest order.
    decisions
        The answers so far, in any order (a contradiction leaves no candidate).
    eq
        Label equivalences (default: the shipped table, as ``ranker annotate`` uses).

    Returns
    -------
    numpy.ndarray of bool
        One entry per candidate.
    """
    eq = eq or _default_equivalences()
    mask = np.ones(len(spans), dtype=bool)
    for d in decisions:
        has = _contains(spans, d.label, d.start, d.end, eq)
        mask &= has if d.accept else ~has
    return mask


def discriminants(spans: Sequence[frozenset], mask: np.ndarray | None = None, probs=None,
                  eq: LabelEquivalences | None = None) -> list[Discriminant]:
    """The labelled spans on which the remaining candidates disagree, the most narrowing first.

    A span is a discriminant when some but not all remaining candidates contain it (with an
    equivalent label). They are ordered by the expected number of candidates left after the
    answer (:class:`Discriminant` ``expected``), fewest first: under a uniform model that prefers
    spans which split the set in half (the answer is worth a bit); with a model it prefers spans
    whose likely answer leaves few candidates. Ties go to the wider span, then the earlier, then
    the label, so the order is deterministic.

    Parameters
    ----------
    spans
        Each candidate's :func:`candidate_spans`, in forest order.
    mask
        The remaining candidates (:func:`remaining_mask`); all when None.
    probs
        The model's probability of each candidate (any non-negative weights; renormalised over
        the remaining ones); uniform when None or when they sum to zero there.
    eq
        Label equivalences (default: the shipped table).
    """
    eq = eq or _default_equivalences()
    n = len(spans)
    mask = np.ones(n, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    if mask.shape != (n,):
        raise ValueError(f"mask has shape {mask.shape}, expected ({n},)")
    idx = np.flatnonzero(mask)
    remaining = len(idx)
    if remaining < 2:
        return []
    w = np.ones(remaining)
    if probs is not None:
        p = np.asarray(probs, dtype=float)
        if p.shape != (n,) or not np.all(np.isfinite(p)) or np.any(p < 0):
            raise ValueError(f"probs must be {n} finite non-negative numbers")
        if p[idx].sum() > 0:
            w = p[idx]
    w = w / w.sum()
    # which remaining candidates carry each base label on each span
    by_span: dict[tuple[int, int], dict[str, np.ndarray]] = {}
    for j, i in enumerate(idx):
        for lab, s, e in spans[i]:
            by_span.setdefault((s, e), {}).setdefault(lab, np.zeros(remaining, dtype=bool))[j] = True
    out = []
    for (s, e), labels in by_span.items():
        for lab in labels:
            want = eq.accepts(lab)
            has = np.zeros(remaining, dtype=bool)
            for other, rows in labels.items():
                if want is None or other in want:
                    has |= rows
            count = int(has.sum())
            if 0 < count < remaining:
                mass = float(w[has].sum())
                expected = mass * count + (1.0 - mass) * (remaining - count)
                out.append(Discriminant(lab, s, e, count, remaining, mass, expected))
    out.sort(key=lambda d: (round(d.expected, 9), d.start - d.end, d.start, d.label))
    return out


def user_annotations(decisions: Iterable[tuple[str, Decision]], kind: str = KIND) -> list[Annotation]:
    """The partial annotation the decisions form: per sentence, its accepted and rejected spans.

    ``decisions`` are ``(sentence_id, Decision)`` pairs in answer order: the adjudicated set of a
    team's answers (:meth:`ranker.sources.adjudication.TeamWork.adjudicated`), or simply
    ``store.decisions()``. A span answered twice the same way is one bracket (two contradicting
    answers leave no consistent candidate, as they should).
    """
    by_sentence: dict[str, dict[Bracket, None]] = {}
    for sid, d in decisions:
        by_sentence.setdefault(sid, {})[Bracket(d.label, d.start, d.end, bool(d.accept))] = None
    return [Annotation(sid, kind, tuple(bs)) for sid, bs in by_sentence.items()]
