"""Several annotators on one sentence: where they conflict, how well they agree, and what training reads.

Each annotator disambiguates on their own (their remaining candidates follow from their own
decisions only). Their work on a sentence then either agrees or conflicts:

* a **conflict** is work that cannot all be right: a span one accepted and another rejected, or
  decisions that together leave no candidate (each set alone may be fine; their intersection is
  empty, which is what two different finished selections come to), or one saying "no correct
  candidate" while another picked candidates. An annotator who has only started but is
  compatible with the others is no conflict: the others' answers narrow further what they left.
* **agreement** is measured on the answers two annotators share (the same span answered by both):
  Cohen's kappa of each pair of annotators over their shared answers, the pair's raters in name
  order (the first name is rater 1 on every sentence: kappa's chance term reads each rater's own
  accept rate, so an order that changed with who answered first would change the value), pooled
  over every pair and every shared answer (for a team of two, exactly the pair's Cohen's kappa);
  and the exact match of final selections (the same remaining candidates,
  or both "no correct candidate"), per sentence and over the sentences two or more annotators
  *finished* (each left one bracketing, or said no candidate is correct): a selection still being
  narrowed is no disagreement. :attr:`Agreement.compared` says how many that is.

Training reads the **adjudicated set** (:func:`resolve`): a sentence one annotator did is theirs;
one several did without conflict is all their decisions together; one with a conflict is the
chosen annotator's work where an adjudicator picked (:class:`~ranker.store.records.Adjudication`),
or the adjudicator's own answers where they decided the discriminants themselves on the
adjudication page (kept apart from every annotator's, so they enter no agreement and no conflict),
and left out until then. A "no correct candidate" verdict leaves the sentence out: no candidate
is the answer, so there is nothing to prefer.

An adjudication is of the work reviewed, not of a person: it keeps the digest of the chosen
annotator's work as the adjudicator saw it (:func:`work_digest`), and when that annotator's answers
change afterwards the adjudication is *reopened* (:func:`reopened`): it stands no more, training
does not take it, and the pages say so until an adjudicator looks again.

Pure logic over records and candidate spans, plus :func:`store_team_work` to read them from a store.
"""
from __future__ import annotations

import itertools
from typing import Iterable, Mapping, NamedTuple, Sequence

import numpy as np

from ..store.records import Adjudication, Decision, Verdict


class AnnotatorWork(NamedTuple):
    """One annotator's work on one sentence: their decisions in answer order and their verdict."""

    who: str
    decisions: tuple[Decision, ...]
    verdict: Verdict | None

    @property
    def no_correct(self) -> bool:
        return self.verdict is not None and self.verdict.no_correct

    @property
    def confirmed(self) -> bool:
        """Whether the annotator confirmed that the one bracketing left is correct."""
        return self.verdict is not None and self.verdict.confirmed

    @property
    def present(self) -> bool:
        """Whether the annotator said anything that selects: a decision, "no correct candidate", or
        a confirmation of the one bracketing left (a forest of one bracketing has nothing to answer)."""
        return bool(self.decisions) or self.no_correct or self.confirmed


class SentenceAgreement(NamedTuple):
    """How the annotators of one sentence (two or more) agree."""

    sentence_id: str
    annotators: tuple[str, ...]
    shared: int                    # answers on a span two annotators both answered (pairs of answers)
    agreed: int                    # of those, the same answer
    contradicted: tuple[str, ...]  # span keys accepted by one and rejected by another
    remaining: dict                # annotator -> candidates their decisions leave (None: no forest)
    same_selection: bool           # every annotator ends with the same selection
    conflict: bool
    why: str                       # the conflict in words ('' when none)
    finished: bool = True          # every annotator finished (one bracketing left, or none correct)


class PairAgreement(NamedTuple):
    """Two annotators' shared answers over a store, ``first`` (rater 1) before ``second`` by name."""

    first: str
    second: str
    sentences: int                       # sentences both answered a span of
    both_accept: int                     # shared answers: both accepted
    first_only: int                      # the first accepted, the second rejected
    second_only: int                     # the second accepted, the first rejected
    both_reject: int
    kappa: float | None                  # Cohen's kappa over them (None: undefined)

    @property
    def answers(self) -> int:
        return self.both_accept + self.first_only + self.second_only + self.both_reject

    @property
    def agreed(self) -> int:
        return self.both_accept + self.both_reject


class Agreement(NamedTuple):
    """Agreement over a store: per sentence, and overall."""

    sentences: list[SentenceAgreement]   # sentences two or more annotators worked on
    answers: int                         # shared answer pairs kappa is computed over
    observed: float | None               # their share that agree
    kappa: float | None                  # Cohen's kappa over them (None: too few, or one class only)
    exact_match: float | None            # share of the finished sentences whose final selections all match
    conflicts: int
    adjudicated: int                     # conflicts an adjudicator resolved
    compared: int = 0                    # sentences every annotator finished: the exact match's base
    pairs: tuple = ()                    # PairAgreement of each pair of annotators with shared answers, by name


def work_by_annotator(decisions: Iterable[Decision], verdicts: Iterable[Verdict]) -> dict[str, AnnotatorWork]:
    """One sentence's decisions and verdicts grouped by annotator (those with a verdict but no
    decision too), in the order annotators first appear."""
    got: dict[str, list] = {}
    said: dict[str, Verdict] = {}
    for d in decisions:
        got.setdefault(d.who, []).append(d)
    for v in verdicts:
        said[v.who] = v
        got.setdefault(v.who, [])
    return {w: AnnotatorWork(w, tuple(ds), said.get(w)) for w, ds in got.items()}


def work_digest(work: AnnotatorWork | None) -> str:
    """The digest of one annotator's work on a sentence as an adjudicator reviews it: their answers
    (the set of answered spans and answers, so undoing and giving the same answer again changes
    nothing) and their verdict's flags (a comment is no part of it)."""
    import hashlib
    import json

    answers = sorted({(d.label, d.start, d.end, bool(d.accept)) for d in work.decisions}) if work else []
    flags = [bool(work and work.no_correct), bool(work and work.confirmed)]
    return hashlib.sha1(json.dumps([answers, flags]).encode()).hexdigest()


def reopened(adjudication: Adjudication | None, work: Mapping[str, AnnotatorWork]) -> bool:
    """Whether the chosen annotator's work changed since ``adjudication`` reviewed it (one recorded
    without a digest, before digests were kept, is taken as it stands)."""
    if adjudication is None or not adjudication.work or adjudication.ruling:
        return False   # none is right, or the adjudicator's own answers: on the sentence, not on anyone's work
    return work_digest(work.get(adjudication.chosen)) != adjudication.work


def _last_answers(work: AnnotatorWork) -> dict[tuple, bool]:
    """Each span the annotator answered, with their latest answer on it."""
    return {(d.label, d.start, d.end): bool(d.accept) for d in work.decisions}


def _answer_pairs_by_rater(present: Sequence[AnnotatorWork]) -> dict[tuple[str, str], list[tuple[bool, bool]]]:
    """``(rater 1, rater 2) -> their answers on the spans both answered``, each pair of annotators
    once and in name order (never in the order they first answered: see the module's note)."""
    out: dict[tuple[str, str], list[tuple[bool, bool]]] = {}
    for a, b in itertools.combinations(sorted(present, key=lambda w: w.who), 2):
        ans_a, ans_b = _last_answers(a), _last_answers(b)
        shared = sorted(ans_a.keys() & ans_b.keys())
        if shared:
            out[(a.who, b.who)] = [(ans_a[k], ans_b[k]) for k in shared]
    return out


def _answer_pairs(present: Sequence[AnnotatorWork]) -> list[tuple[bool, bool]]:
    """Every pair of answers two annotators gave on the same span (each pair of annotators once,
    rater 1 the first by name)."""
    return [p for got in _answer_pairs_by_rater(present).values() for p in got]


def pair_agreements(by_pair: Mapping[tuple[str, str], list], sentences: Mapping[tuple[str, str], int]
                    ) -> tuple[PairAgreement, ...]:
    """Each pair's :class:`PairAgreement` from its answers (rater order as keyed) and sentence count."""
    out = []
    for (a, b), pairs in sorted(by_pair.items()):
        yy = sum(x and y for x, y in pairs)
        yn = sum(x and not y for x, y in pairs)
        ny = sum(y and not x for x, y in pairs)
        out.append(PairAgreement(a, b, sentences[(a, b)], yy, yn, ny, len(pairs) - yy - yn - ny,
                                 cohen_kappa(pairs)))
    return tuple(out)


def sentence_agreement(sentence_id: str, work: Mapping[str, AnnotatorWork],
                       spans: Sequence[frozenset] | None) -> SentenceAgreement | None:
    """How the annotators of a sentence agree, or None when fewer than two worked on it.

    ``spans`` are the candidates' :func:`~ranker.sources.annotations.candidate_spans` (forest
    order); without them (no forest) only contradicted spans and verdicts can conflict.
    """
    from .discriminants import packs, remaining_mask

    present = [w for w in work.values() if w.present]
    if len(present) < 2:
        return None
    pairs = _answer_pairs(present)
    answers: dict[tuple, set] = {}
    for w in present:
        for k, acc in _last_answers(w).items():
            answers.setdefault(k, set()).add(acc)
    contradicted = tuple(f"{lab}:{s}-{e}" for (lab, s, e), accs in sorted(answers.items()) if len(accs) > 1)
    masks = {}
    if spans is not None:
        masks = {w.who: np.asarray(remaining_mask(spans, w.decisions), dtype=bool) for w in present}
    remaining = {w.who: (None if w.no_correct or spans is None else int(masks[w.who].sum())) for w in present}
    nones = {w.no_correct for w in present}
    why = ""
    if len(nones) > 1:
        why = "some say no candidate is correct, others chose candidates"
    elif nones == {True}:
        pass   # all agree that no candidate is correct
    elif contradicted:
        why = "answered differently: " + ", ".join(contradicted)
    elif spans is not None and len(spans) and not np.logical_and.reduce(list(masks.values())).any():
        why = "their decisions together leave no candidate"
    if nones == {True}:
        same = True
    elif len(nones) > 1:
        same = False
    elif spans is not None:
        first = next(iter(masks.values()))
        same = all(np.array_equal(first, m) for m in masks.values())
    else:
        same = len({frozenset(_last_answers(w).items()) for w in present}) == 1
    finished = all(w.no_correct or (spans is not None and len(spans) > 0 and len(packs(spans, masks[w.who])) == 1)
                   for w in present)
    return SentenceAgreement(sentence_id, tuple(w.who for w in present), len(pairs),
                             sum(a == b for a, b in pairs), contradicted, remaining, same, bool(why), why, finished)


def cohen_kappa(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa of paired accept/reject answers, ``(p_o - p_e) / (1 - p_e)``; None when it is
    undefined (no pair, or both annotators always giving one same answer, so chance agreement is 1).

    Two lines of arithmetic rather than scikit-learn's ``cohen_kappa_score`` (which the tests
    check it against): importing scikit-learn costs ``ranker store stats`` seconds.
    """
    if not pairs:
        return None
    a = np.fromiter((bool(x) for x, _ in pairs), dtype=bool, count=len(pairs))
    b = np.fromiter((bool(y) for _, y in pairs), dtype=bool, count=len(pairs))
    observed = float(np.mean(a == b))
    pa, pb = float(a.mean()), float(b.mean())
    chance = pa * pb + (1 - pa) * (1 - pb)
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


def agreement(team: Mapping[str, Mapping[str, AnnotatorWork]], spans_of, adjudications: Mapping[str, Adjudication],
              row_of=None) -> Agreement:
    """Agreement over every sentence of ``team`` (sentence id -> :func:`work_by_annotator`).

    ``spans_of(sentence_id)`` gives a sentence's candidate spans (None without a forest); it is
    called only for sentences two or more annotators worked on. ``row_of(sentence_id, work)``,
    when given, stands for :func:`sentence_agreement` (a caller's cache of it).
    """
    rows, pairs = [], []
    by_pair: dict[tuple[str, str], list] = {}
    sentences: dict[tuple[str, str], int] = {}
    for sid in sorted(team):
        work = team[sid]
        if sum(w.present for w in work.values()) < 2:
            continue
        row = row_of(sid, work) if row_of else sentence_agreement(sid, work, spans_of(sid))
        rows.append(row)
        for raters, got in _answer_pairs_by_rater([w for w in work.values() if w.present]).items():
            by_pair.setdefault(raters, []).extend(got)
            sentences[raters] = sentences.get(raters, 0) + 1
            pairs.extend(got)
    conflicts = [r for r in rows if r.conflict]
    done = [r for r in rows if r.finished]   # unfinished work is no disagreement yet
    return Agreement(rows, len(pairs), (sum(a == b for a, b in pairs) / len(pairs)) if pairs else None,
                     cohen_kappa(pairs), (sum(r.same_selection for r in done) / len(done)) if done else None,
                     len(conflicts), sum(r.sentence_id in adjudications for r in conflicts), len(done),
                     pair_agreements(by_pair, sentences))


def resolve(work: Mapping[str, AnnotatorWork], conflict: bool, adjudication: Adjudication | None
            ) -> tuple[Decision, ...] | None:
    """The decisions a sentence teaches (its adjudicated set), or None when it teaches nothing.

    ``conflict`` is :func:`sentence_agreement`'s verdict on the sentence (False with one annotator).
    An adjudication naming an annotator with no work left on the sentence, or whose work changed
    since it was reviewed (:func:`reopened`), is stale and ignored.
    """
    present = {w.who: w for w in work.values() if w.present}
    if adjudication is not None and adjudication.decided:
        return tuple(adjudication.decisions) or None   # the adjudicator's own answers, nobody's work
    if not present or (adjudication is not None and adjudication.none):
        return None   # nothing said, or the adjudicator ruled that no candidate is right
    if adjudication is not None and adjudication.chosen in present and not reopened(adjudication, work):
        chosen = present[adjudication.chosen]
        return None if chosen.no_correct else chosen.decisions
    if conflict or any(w.no_correct for w in present.values()):
        return None
    union: dict[tuple, Decision] = {}
    for w in present.values():
        for d in w.decisions:
            union.setdefault((d.label, d.start, d.end, bool(d.accept)), d)
    return tuple(union.values())


class TeamWork(NamedTuple):
    """Everything the team did in a store, per sentence (:func:`store_team_work`)."""

    by_sentence: dict[str, dict[str, AnnotatorWork]]
    adjudications: dict[str, Adjudication]     # those that stand
    reopened: dict = {}                        # sentence id -> Adjudication whose chosen work changed since

    def agreement(self, spans_of) -> Agreement:
        return agreement(self.by_sentence, spans_of, self.adjudications)

    def adjudicated(self, spans_of) -> list[tuple[str, Decision]]:
        """The training decisions, ``(sentence_id, Decision)`` pairs in sentence order (:func:`resolve`)."""
        out = []
        for sid in sorted(self.by_sentence):
            work = self.by_sentence[sid]
            row = None
            if sum(w.present for w in work.values()) >= 2:
                row = sentence_agreement(sid, work, spans_of(sid))
            kept = resolve(work, bool(row and row.conflict), self.adjudications.get(sid))
            out.extend((sid, d) for d in kept or ())
        return out


def store_team_work(store) -> TeamWork:
    """Read every decision, verdict and adjudication of a store, grouped by sentence and annotator;
    adjudications whose chosen work changed since are apart (:attr:`TeamWork.reopened`)."""
    decisions: dict[str, list] = {}
    verdicts: dict[str, list] = {}
    for sid, d in store.decisions():
        decisions.setdefault(sid, []).append(d)
    for sid, v in store.verdicts():
        verdicts.setdefault(sid, []).append(v)
    by_sentence = {sid: work_by_annotator(decisions.get(sid, ()), verdicts.get(sid, ()))
                   for sid in sorted(decisions.keys() | verdicts.keys())}
    standing, stale = {}, {}
    for sid, adj in store.adjudications().items():
        (stale if reopened(adj, by_sentence.get(sid, {})) else standing)[sid] = adj
    return TeamWork(by_sentence, standing, stale)


def store_spans(store, source: str | None = None):
    """``spans_of(sentence_id)`` reading a sentence's forest from ``store`` (None without candidates)."""
    from .discriminants import forest_spans

    def spans_of(sentence_id: str):
        forest = store.forest(sentence_id, source)
        return forest_spans(forest.candidates) if forest.candidates else None

    return spans_of
