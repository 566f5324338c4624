"""Planning a treebanking job: which annotators each sentence of a selection is given to.

A team lead gives each annotator a stretch of text rather than scattered sentences: the
selection (documents, or a sentence range, in corpus order) is cut into contiguous blocks of
nearly equal size, one per annotator in the order named, so an annotator reads whole passages
and keeps their context. A chosen share is double-annotated, for agreement (Cohen's kappa and the
exact match, :mod:`.adjudication`, are measured on the sentences two annotators did): that many
sentences, spread evenly over the selection rather than bunched in one block, are also given to
the next annotator of the list (the last annotator's to the first). The plan is a function of its
inputs only (no randomness), so planning the same selection again gives the same plan.
"""
from __future__ import annotations

from typing import Sequence

from ..errors import RankerError


def plan_assignment(sentence_ids: Sequence[str], annotators: Sequence[str], double: float = 0.0
                    ) -> list[tuple[str, str]]:
    """``(sentence_id, annotator)`` pairs giving every sentence to one annotator, and
    ``round(double * len(sentence_ids))`` of them to a second one too.

    Raises
    ------
    RankerError
        For no sentence, no annotator, an annotator named twice, a share outside 0..1, or a share
        double-annotated with fewer than two annotators.
    """
    names = list(annotators)
    if not sentence_ids:
        raise RankerError("the selection holds no sentence with candidates to assign")
    if not names:
        raise RankerError("name at least one annotator to assign the sentences to")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RankerError(f"annotator {twice[0]!r} is named twice")
    if not 0.0 <= double <= 1.0:
        raise RankerError(f"the double-annotated share must be between 0 and 1 (0% and 100%), not {double:g}")
    if double > 0 and len(names) < 2:
        raise RankerError("double annotation needs two annotators or more")
    n, k = len(sentence_ids), len(names)
    first = [names[i * k // n] for i in range(n)]   # contiguous blocks, nearly equal
    m = round(double * n)
    doubled = {(2 * j + 1) * n // (2 * m) for j in range(m)}   # spread evenly over the selection
    pairs = []
    for i, sid in enumerate(sentence_ids):
        pairs.append((sid, first[i]))
        if i in doubled:
            pairs.append((sid, names[(names.index(first[i]) + 1) % k]))
    return pairs
