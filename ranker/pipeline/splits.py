"""Which sentences an experiment uses: a named split, document ranges, a glob or a list, maybe cut to whole documents.

Every store query of an experiment passes the selection's ``split`` and ``fileids``, so all stages
see exactly the same sentences; :func:`candidate_trees` reads a selection's candidates, in forest
order, for every stage and command that scores trees (Heidorn's tuning, the test's choices).
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


def distinct(sentences) -> list[Sentence]:
    """Each sentence once, in the order of its first appearance: splits that share a document (a
    config that overlaps them is warned about, not refused) must not hand a stage one sentence
    twice (it was parsed twice and its second forest broke the store's unique key)."""
    return list({s.id: s for s in sentences}.values())


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


GLOB_CHARS = "*?["


def split_documents(spec: str, documents, corpus: str = "") -> list[str] | None:
    """The documents a split given as a glob or a ``@FILE`` list selects (None: neither).

    A glob (``GUM_news_*``) matches document ids or their stems; ``@path/train.txt`` lists
    document names one a line (ids or stems; blank lines and ``#`` comments are passed over).

    Raises
    ------
    RankerError
        For a list that cannot be read, or a line naming a document the corpus lacks (file and line).
    """
    import fnmatch

    by_name: dict[str, str] = {}
    for d in documents:
        by_name.setdefault(d, d)
        by_name.setdefault(_stem(d), d)
    if spec.startswith("@"):
        from ..textfiles import read_text

        path = spec[1:]
        try:
            text = read_text(path, "split list")
        except FileNotFoundError:
            raise RankerError(f"{path}: no such split list (a split given as @FILE)") from None
        except IsADirectoryError:
            raise RankerError(f"{path}: a folder, not a split list (a split given as @FILE: a file of "
                              "document names, one a line)") from None
        except OSError as e:
            raise RankerError(f"{path}: cannot read the split list ({e.strerror or e})") from None
        out: list[str] = []
        for no, line in enumerate(text.splitlines(), 1):
            name = line.split("#", 1)[0].strip()
            if not name:
                continue
            if name not in by_name:
                some = ", ".join(list(documents)[:3])
                raise RankerError(f"{path}:{no}: document {name!r} is not in corpus {corpus!r}"
                                  f"{f' (its documents: {some}, ...)' if some else ''}")
            if by_name[name] not in out:
                out.append(by_name[name])
        if not out:
            raise RankerError(f"{path}: the split list names no document")
        return out
    if any(c in spec for c in GLOB_CHARS):
        return [d for d in documents if fnmatch.fnmatchcase(d, spec) or fnmatch.fnmatchcase(_stem(d), spec)]
    return None


def select_split(store: Store, corpus: str, spec: str | None, limit: int = 0,
                 fileids: str | None = None, documents=None) -> SplitSelection:
    """A split's sentences, by split name, document ranges, a glob or a ``@FILE`` list of documents.

    With ``limit``, whole documents up to it. ``spec`` None means the whole corpus; ``fileids`` (a
    glob over document ids) narrows further. ``documents`` are the corpus's document ids (those of
    the stored sentences when None), against which a list's names are checked.
    """
    from ..store.splits import SPLITS

    listed = None
    if spec is not None and (spec.startswith("@") or any(c in spec for c in GLOB_CHARS)):
        if documents is None:
            documents = list(dict.fromkeys(s.document for s in store.sentences(corpus)))
        listed = split_documents(spec, documents, corpus)
    if spec is None:
        split, sents = None, store.sentences(corpus, None, fileids)
    elif listed is not None:
        order = {d: i for i, d in enumerate(listed)}
        split = None
        sents = [s for s in store.sentences(corpus, None, fileids) if s.document in order]
    elif (corpus, spec) in SPLITS:
        split, sents = spec, store.sentences(corpus, spec, fileids)
    else:
        ranges = parse_ranges(spec)
        split = None
        sents = [s for s in store.sentences(corpus, None, fileids) if in_ranges(s.document, ranges)]
    if not sents:
        from ..sources.treebank import require_split

        require_split(corpus, spec)   # a split the installed corpus lacks says so
        named = sorted(n for c, n in SPLITS if c == corpus)
        hint = "" if named or spec is None or listed is not None else (
            f"; corpus {corpus!r} has no named splits: give document ranges (doc_0001-0099), a glob "
            "over document names (news_*) or @FILE, a file of document names one a line")
        raise RankerError(f"{spec or 'the whole corpus'!r} of corpus {corpus!r}"
                          f"{f' (fileids {fileids})' if fileids else ''} selects no sentence in the store{hint}")
    docs: list[str] = []
    kept: list[Sentence] = []
    seen: set[str] = set()
    for s in sents:
        if s.document not in seen:
            if limit > 0 and len(kept) >= limit:
                break
            seen.add(s.document)
            docs.append(s.document)
        kept.append(s)
    whole = split is not None and fileids is None and len(kept) == len(sents)
    return SplitSelection(spec or "all", corpus, split, None if whole else tuple(docs), tuple(kept))


def candidate_trees(store: Store, sel: SplitSelection, source: str):
    """Every candidate tree of a split in forest order, with per-row groups and the grouped ids."""
    import numpy as np   # not at the top: most commands that select a split read no candidates

    trees, groups, ids = [], [], []
    for s in sel.sentences:
        forest = store.candidate_trees(s.id, source)
        if not forest:
            continue
        trees.extend(t for _, _, t in forest)
        groups.extend([len(ids)] * len(forest))
        ids.append(s.id)
    return trees, np.asarray(groups, dtype=np.int64), ids


def split_selection(reader, spec: str) -> set[str]:
    """The documents of ``reader``'s corpus a ``[data]`` split selects (a name, ranges, a glob or a list)."""
    from ..store.splits import SPLITS

    documents = list(reader.documents())
    if (reader.name, spec) in SPLITS:
        return {doc for doc in documents if SPLITS[(reader.name, spec)].contains(doc)}
    listed = split_documents(spec, documents, reader.name)
    if listed is not None:
        return set(listed)
    ranges = parse_ranges(spec)
    return {doc for doc in documents if in_ranges(doc, ranges)}


def document_span(documents) -> str:
    """A corpus's documents in a few words, for a message: ``wsj_0001 .. wsj_0199`` (stems)."""
    stems = sorted({_stem(doc) for doc in documents})
    return f"{stems[0]} .. {stems[-1]}" if len(stems) > 1 else (stems or ["none"])[0]
