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
import urllib.parse
from datetime import datetime, timezone
from functools import lru_cache
from typing import Iterable, NamedTuple, Sequence

import numpy as np

from ..errors import RankerError
from ..store.records import Annotation, Bracket, Decision
from .annotations import DEFAULT_EQUIVALENCES, LabelEquivalences, candidate_spans

__all__ = ["Decision", "DecisionRefused", "Discriminant", "candidate_spans", "decide", "decision",
           "discriminants", "forest_spans", "packs", "parse_key", "refusal", "remaining_mask", "span_key",
           "user_annotations"]

#: The annotation kind people's decisions form (``ranker annotate --kind user``).
KIND = "user"

# a key's label is percent-encoded (RFC 3986 unreserved characters and ``$`` stay as they are), so
# any label a forest can hold (``NP&X``, ``<S>``, ``A/B``, ``C:D``) travels through HTML
# attributes, form fields and URLs unchanged, and nothing but these characters is ever parsed
_KEY = re.compile(r"((?:[A-Za-z0-9_.~$-]|%[0-9A-Fa-f]{2}){1,120}):(\d{1,9})-(\d{1,9})")
_SAFE = "$"


def span_key(label: str, start: int, end: int) -> str:
    """The short id of a labelled span, ``"NP:3-7"``: safe in URLs, form fields and HTML attributes.

    The label is percent-encoded (``NP&X`` -> ``NP%26X``), so every label round-trips through
    :func:`parse_key`; the Penn labels of a treebank are left as they are.
    """
    return f"{urllib.parse.quote(label, safe=_SAFE)}:{start}-{end}"


def parse_key(key: str) -> tuple[str, int, int]:
    """``(label, start, end)`` of a key made by :func:`span_key` (the label decoded).

    Raises
    ------
    RankerError
        If ``key`` is not ``LABEL:START-END`` with an encoded label and ``0 <= START < END``.
    """
    m = _KEY.fullmatch(key) if isinstance(key, str) else None
    try:
        label = urllib.parse.unquote(m.group(1), errors="strict") if m else ""
    except UnicodeDecodeError:   # %FF: not the UTF-8 of any label
        label = ""
    if m is None or not label or any(c.isspace() for c in label) or len(label) > 100:
        raise RankerError(f"bad discriminant key {str(key)[:60]!r}: expected LABEL:START-END, as 'NP:3-7' "
                          "(the label percent-encoded)")
    start, end = int(m.group(2)), int(m.group(3))
    if start >= end:
        raise RankerError(f"bad discriminant key {key!r}: the span [{start}, {end}) is empty")
    return label, start, end


class Discriminant(NamedTuple):
    """A labelled span some but not all remaining candidates contain, with what an answer leaves.

    ``count`` remaining candidates contain it (so accepting it leaves ``count``, rejecting it
    ``remaining - count``). Candidates with the same bracketing are one *pack* (:func:`packs`): no
    answer can tell them apart, so the questions are counted over packs, as Redwoods and FFTB
    count them: ``packs`` of the ``remaining_packs`` remaining packs hold the span. ``mass`` is the
    model's probability of the candidates holding it, renormalised over the remaining ones (their
    share when there is no model); ``expected`` is the number of packs (distinct bracketings)
    expected to remain after the answer, ``mass * packs + (1 - mass) * (remaining_packs - packs)``,
    the order of :func:`discriminants`.
    """

    label: str
    start: int
    end: int
    count: int
    remaining: int
    mass: float
    expected: float = 0.0
    packs: int = 0
    remaining_packs: int = 0

    @property
    def key(self) -> str:
        return span_key(self.label, self.start, self.end)


class DecisionRefused(RankerError):
    """An answer that is no discriminant of the candidates the stored decisions leave.

    A page loaded before someone else's answer, two answers that contradict, a span no candidate
    holds: storing it would leave no candidate (or teach nothing), so :func:`decide` refuses it.
    """


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
    # the remaining candidates packed by bracketing: each pack's size and probability
    pack_of: dict[frozenset, int] = {}
    members = np.array([pack_of.setdefault(spans[i], len(pack_of)) for i in idx], dtype=np.int64)
    n_packs = len(pack_of)
    if n_packs < 2:
        return []
    size = np.bincount(members, minlength=n_packs)
    pack_w = np.bincount(members, weights=w, minlength=n_packs)
    # which remaining packs carry each base label on each span
    by_span: dict[tuple[int, int], dict[str, np.ndarray]] = {}
    for sp, k in pack_of.items():
        for lab, s, e in sp:
            by_span.setdefault((s, e), {}).setdefault(lab, np.zeros(n_packs, dtype=bool))[k] = True
    out = []
    for (s, e), labels in by_span.items():
        for lab in labels:
            want = eq.accepts(lab)
            has = np.zeros(n_packs, dtype=bool)
            for other, rows in labels.items():
                if want is None or other in want:
                    has |= rows
            held = int(has.sum())
            if 0 < held < n_packs:
                mass = float(pack_w[has].sum())
                expected = mass * held + (1.0 - mass) * (n_packs - held)
                out.append(Discriminant(lab, s, e, int(size[has].sum()), remaining, mass, expected,
                                        held, n_packs))
    out.sort(key=lambda d: (round(d.expected, 9), d.start - d.end, d.start, d.label))
    return out


def packs(spans: Sequence[frozenset], mask: np.ndarray | None = None) -> list[list[int]]:
    """The candidates (forest indices) grouped by identical bracketing, in order of first member.

    Two candidates that offer the same labelled spans (:func:`candidate_spans`; they may differ
    in part-of-speech tags) answer every discriminant alike: a person can only choose between
    packs. With ``mask``, only the candidates it keeps.
    """
    out: dict[frozenset, list[int]] = {}
    for i, sp in enumerate(spans):
        if mask is None or mask[i]:
            out.setdefault(sp, []).append(i)
    return list(out.values())


def forest_spans(candidates) -> list[frozenset]:
    """Each candidate's :func:`candidate_spans` in forest order (equal tree objects computed once)."""
    by_tree: dict[int, frozenset] = {}
    out = []
    for c in candidates:
        got = by_tree.get(id(c.tree))
        if got is None:
            got = by_tree[id(c.tree)] = candidate_spans(c.tree)
        out.append(got)
    return out


def refusal(spans: Sequence[frozenset], decisions: Sequence[Decision], answer: Decision,
            eq: LabelEquivalences | None = None) -> str | None:
    """Why ``answer`` may not be added to ``decisions``, or None when it is a discriminant of what they leave.

    An answer is accepted only when some but not all remaining candidates hold its span (with an
    equivalent label): then either answer leaves at least one candidate, and it narrows the set.
    """
    eq = eq or _default_equivalences()
    key = span_key(answer.label, answer.start, answer.end)
    mask = remaining_mask(spans, decisions, eq)
    left = int(mask.sum())
    if not len(spans):
        return "the sentence has no candidates to decide between"
    if left == 0:
        return "the stored decisions already leave no candidate"
    held = int(_contains(spans, answer.label, answer.start, answer.end, eq)[mask].sum())
    if held == 0:
        return f"no remaining candidate holds {key} (of {left})"
    if held == left:
        return f"every remaining candidate holds {key} (all {left}): it was answered already or decides nothing"
    return None


def decide(store, sentence_id: str, spans: Sequence[frozenset], answer: Decision,
           eq: LabelEquivalences | None = None, adjudication: bool = False) -> int:
    """Store ``answer`` on ``sentence_id`` if it is a discriminant of the candidates left; its sequence number.

    The one way an answer is stored, for the web page and for a simulated annotator alike. The
    check reads the decisions inside the write transaction that stores the answer (``BEGIN
    IMMEDIATE``: other writers wait), so two people answering from pages loaded before each
    other's answers can never leave the sentence with no candidate: the later answer is checked
    against the earlier one and refused. The check reads the answering annotator's own decisions
    (``answer.who``): each annotator disambiguates the sentence for themselves, and conflicts
    between annotators are adjudicated (:mod:`ranker.sources.adjudication`), not refused.

    Parameters
    ----------
    store
        An open, writable :class:`~ranker.store.Store`.
    spans
        The sentence's candidates' :func:`candidate_spans` (:func:`forest_spans` of its forest).
    answer
        The :class:`Decision` (:func:`decision`).
    adjudication
        An adjudicator's answer on the adjudication page: checked against the adjudicators'
        answers on the sentence and kept apart from the annotators'
        (:meth:`~ranker.store.Store.add_decision`).

    Raises
    ------
    DecisionRefused
        When the answer is no discriminant of the remaining set (nothing is written).
    StoreError
        As :meth:`~ranker.store.Store.add_decision`.
    """
    with store.batch():
        if adjudication:   # the adjudication's answers are one set, whichever adjudicator gave each
            own = store.decisions(sentence_id, adjudication=True)
        else:              # each annotator's work is their own
            own = [d for d in store.decisions(sentence_id) if d.who == answer.who]
        why = refusal(spans, own, answer, eq)
        if why is not None:
            raise DecisionRefused(f"{sentence_id}: answer refused: {why}")
        return store.add_decision(sentence_id, answer, adjudication=adjudication)


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
