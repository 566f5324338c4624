"""The consistency rules: which candidates of a sentence count as consistent with its annotation, X(y, z).

:func:`choose_consistent` decides from each candidate's ``missing`` and ``crossing`` counts;
:meth:`ranker.store.Store.consistent_sets` reads the counts and calls it. The rules are domain
knowledge, not storage. Their names, :data:`RULES`, are written in :mod:`ranker.settings` (the
bottom layer, which the config's ``[annotation] rule`` reads without importing the store).
"""
from __future__ import annotations

# The consistency rules of :meth:`Store.consistent_sets` (:func:`choose_consistent` says what each
# keeps), by name: written in ranker/settings.py and re-exported here.
from ..settings import RULES  # noqa: F401
from .errors import StoreError
from .records import ConsistentSet

#: The rules that read the ``crossing`` count of a check, not only ``missing``.
CROSSING_RULES = ("compatible", "strict-else-compatible", "lexicographic")


def choose_consistent(sentence_id: str, violations: tuple[int, ...], rule: str,
                      crossing: tuple[int, ...] | None = None, annotated: int | None = None) -> ConsistentSet:
    """Pick X(y, z) from each candidate's ``missing`` (``violations``) and ``crossing`` counts under ``rule``.

    Every rule keeps the strict set (the candidates missing no annotated bracket) when it is not
    empty, except ``compatible``; they differ in what they keep when it is empty, which on the
    WSJ sample's Link Grammar forests is over half of the training sentences under Crouch et
    al.'s bracketing (the forest lacks a subject, object, predicative, VP or SBAR bracket):

    - ``strict``: nothing (the sentence teaches nothing; rule ``"none"``).
    - ``fewest``: the candidates missing the fewest brackets (``"fewest-violations"``, Charniak
      and Johnson's convention of keeping the best candidates). A candidate that merely has an
      annotated span under another label counts as much as one that contradicts it.
    - ``compatible`` (Pereira and Schabes 1992): the candidates that cross no annotated bracket,
      whether or not the strict set is empty; a bracket a candidate lacks without crossing it is
      allowed (``"compatible"``, or ``"none"`` when every candidate crosses one).
    - ``strict-else-compatible``: the strict set, else the candidates with the fewest crossings
      (those crossing none when there are any; ``"fewest-crossing"``). Where the forest cannot
      hold the annotation, the target is the candidates that do not contradict it.
    - ``lexicographic``: the candidates with the fewest crossings, among them those missing the
      fewest brackets (``"lexicographic"`` when the strict set is empty); a strict candidate
      crosses and misses nothing, so this is the strict set whenever that is not empty.
    - ``graded``: every candidate weighted by the share of the ``annotated`` brackets it holds
      (``"graded"`` when the strict set is empty): a graded target where ``fewest`` keeps only the
      best, so a candidate missing one bracket of five still counts for 0.8 and one missing all
      for nothing. The objective's ``q`` is the model's distribution reweighted by these weights.

    ``status`` always describes the strict set (empty, proper or all).
    """
    ok = [v == 0 for v in violations]
    n_ok = sum(ok)
    status = "empty" if n_ok == 0 else "all" if n_ok == len(ok) else "proper"
    if rule in CROSSING_RULES and (crossing is None or len(crossing) != len(violations)):
        raise StoreError(f"rule {rule!r} needs one crossing count per candidate of {sentence_id}")
    if rule == "compatible":
        keep = [c == 0 for c in crossing]
        return ConsistentSet(sentence_id, tuple(1.0 if k else 0.0 for k in keep), status,
                             "compatible" if any(keep) else "none", violations)
    if n_ok:
        return ConsistentSet(sentence_id, tuple(1.0 if o else 0.0 for o in ok), status, "consistent", violations)
    if rule == "fewest":
        best = min(violations)
        return ConsistentSet(sentence_id, tuple(1.0 if v == best else 0.0 for v in violations), status,
                             "fewest-violations", violations)
    if rule == "graded":
        if not annotated:
            raise StoreError(f"rule 'graded' needs the number of annotated brackets of {sentence_id}")
        return ConsistentSet(sentence_id, tuple(max(0, annotated - v) / annotated for v in violations), status,
                             "graded", violations)
    if rule == "strict-else-compatible":
        best = min(crossing)
        return ConsistentSet(sentence_id, tuple(1.0 if c == best else 0.0 for c in crossing), status,
                             "fewest-crossing", violations)
    if rule == "lexicographic":
        pairs = list(zip(crossing, violations))
        best = min(pairs)
        return ConsistentSet(sentence_id, tuple(1.0 if p == best else 0.0 for p in pairs), status,
                             "lexicographic", violations)
    return ConsistentSet(sentence_id, tuple(0.0 for _ in violations), status, "none", violations)
