"""Named splits of a corpus into training, held-out and test documents.

A split is a range of document ids, so it stays the same whatever order sentences were stored in,
and a new corpus can be split without touching the store. The default splits follow the NLTK 10%
sample of the Penn treebank (files ``wsj_0001.mrg`` .. ``wsj_0199.mrg``): 3,068 / 433 / 413
sentences. ``conll2000`` keeps its own distribution's ``train.txt`` / ``test.txt``.
"""
from __future__ import annotations

import fnmatch
from typing import Iterable, NamedTuple

from ..errors import RankerError


class Split(NamedTuple):
    """Documents ``first`` .. ``last`` (inclusive, compared by file stem) of one corpus."""

    name: str
    corpus: str
    first: str
    last: str

    def contains(self, document: str) -> bool:
        stem = document.rsplit(".", 1)[0]
        return self.first <= stem <= self.last


SPLITS: dict[tuple[str, str], Split] = {
    (s.corpus, s.name): s for s in (
        Split("train", "treebank", "wsj_0001", "wsj_0139"),
        Split("heldout", "treebank", "wsj_0140", "wsj_0169"),
        Split("test", "treebank", "wsj_0170", "wsj_0199"),
        Split("train", "conll2000", "train", "train"),
        Split("test", "conll2000", "test", "test"),
    )
}


def get_split(name: str, corpus: str = "treebank") -> Split:
    """The named split of ``corpus``.

    Raises
    ------
    RankerError
        If the corpus has no split of that name; the message lists the names it has.
    """
    try:
        return SPLITS[(corpus, name)]
    except KeyError:
        known = sorted(n for c, n in SPLITS if c == corpus)
        raise RankerError(f"no split {name!r} for corpus {corpus!r} (known: {', '.join(known) or 'none'})") from None


def document_filter(corpus: str | None, split: str | None = None,
                    fileids: str | Iterable[str] | None = None):
    """A predicate on document ids selecting ``split`` and ``fileids`` (globs or exact ids), or None for all.

    Parameters
    ----------
    corpus
        Corpus the split belongs to (``treebank`` when None).
    split
        Split name, e.g. ``"train"``.
    fileids
        One glob (``"wsj_00[0-4]*"``) or several globs/ids; a document matches if any matches.

    Returns
    -------
    callable or None
        ``keep(document) -> bool``, or None when neither filter is given.
    """
    tests = []
    if split is not None:
        tests.append(get_split(split, corpus or "treebank").contains)
    if fileids is not None:
        pats = [fileids] if isinstance(fileids, str) else list(fileids)
        exact = {p for p in pats if not any(c in p for c in "*?[")}
        globs = [p for p in pats if p not in exact]   # a split's documents are ids, looked up at once
        tests.append(lambda d: d in exact or any(fnmatch.fnmatchcase(d, p) for p in globs))
    if not tests:
        return None
    return lambda d: all(t(d) for t in tests)
