"""Which sentences an experiment uses: a named split or document ranges, maybe cut to whole documents.

Every store query of an experiment passes the selection's ``split`` and ``fileids``, so all stages
see exactly the same sentences.
"""
from __future__ import annotations

from typing import NamedTuple

from ..errors import RankerError
from ..store import Store
from ..store.records import Sentence


class SplitSelection(NamedTuple):
    """The sentences of one part of an experiment (a named split or document ranges, maybe cut short).

    ``split`` is the store's split name (None for document ranges) and ``fileids`` the documents
    kept (None for the whole split): every store query of the experiment passes both, so all
    stages see exactly these sentences.
    """

    name: str
    corpus: str
    split: str | None
    fileids: tuple[str, ...] | None
    sentences: tuple[Sentence, ...]


def _stem(document: str) -> str:
    return document.rsplit(".", 1)[0]


def parse_ranges(spec: str) -> list[tuple[str, str]]:
    """Document ranges like ``"wsj_0001-0019 wsj_0040-0199"`` (or single documents) as stem pairs."""
    out = []
    for part in spec.replace(",", " ").split():
        first, _, last = part.partition("-")
        first = _stem(first)
        last = _stem(last) if last else first
        if len(last) < len(first):      # "wsj_0001-0019": the end borrows the start's prefix
            last = first[: len(first) - len(last)] + last
        if last < first:
            raise RankerError(f"document range {part!r} ends before it starts")
        out.append((first, last))
    if not out:
        raise RankerError("an empty document range")
    return out


def in_ranges(document: str, ranges: list[tuple[str, str]]) -> bool:
    """Whether a document id lies in one of :func:`parse_ranges`' ranges (compared by file stem)."""
    stem = _stem(document)
    return any(a <= stem <= b for a, b in ranges)


def select_split(store: Store, corpus: str, spec: str | None, limit: int = 0,
                 fileids: str | None = None) -> SplitSelection:
    """A split's sentences, by split name or document ranges; with ``limit``, whole documents up to it.

    ``spec`` None means the whole corpus; ``fileids`` (a glob over document ids) narrows further.
    """
    from ..store.splits import SPLITS

    if spec is None:
        split, sents = None, store.sentences(corpus, None, fileids)
    elif (corpus, spec) in SPLITS:
        split, sents = spec, store.sentences(corpus, spec, fileids)
    else:
        ranges = parse_ranges(spec)
        split = None
        sents = [s for s in store.sentences(corpus, None, fileids) if in_ranges(s.document, ranges)]
    if not sents:
        from ..sources.treebank import require_split

        require_split(corpus, spec)   # a split the installed corpus lacks says so
        raise RankerError(f"{spec or 'the whole corpus'!r} of corpus {corpus!r}"
                          f"{f' (fileids {fileids})' if fileids else ''} selects no sentence in the store")
    docs: list[str] = []
    kept: list[Sentence] = []
    for s in sents:
        if s.document not in docs:
            if limit > 0 and len(kept) >= limit:
                break
            docs.append(s.document)
        kept.append(s)
    whole = split is not None and fileids is None and len(kept) == len(sents)
    return SplitSelection(spec or "all", corpus, split, None if whole else tuple(docs), tuple(kept))
