"""Gold sentences from the corpora NLTK ships: the Penn treebank sample and the CoNLL-2000 chunks.

Sentence ids are ``<corpus>/<fileid>/<index>`` (``treebank/wsj_0001.mrg/0``) so they stay the same
whatever subset is loaded. Treebank tokens are the gold tree's leaves after removing empty
elements (``*-1``, ``0``, ``*T*``), because no parser sees those and every candidate must have
exactly these tokens as leaves. Corpora are read through NLTK (``NLTK_DATA``); nothing downloads.
"""
from __future__ import annotations

import fnmatch
from typing import Iterator, NamedTuple

from ..errors import RankerError
from ..store.records import Annotation, Bracket, Sentence
from ..trees.tree import Tree

CORPORA = ("treebank", "conll2000")


class GoldSentence(NamedTuple):
    """A treebank sentence with its gold tree (empty elements removed, leaves = tokens)."""

    sentence: Sentence
    tree: Tree


def require_corpus(name: str, member: str | None = None) -> None:
    """Fail with the command that installs an NLTK corpus when it is not under ``NLTK_DATA``.

    Raises
    ------
    RankerError
        Naming the corpus, the folders searched and the ``nltk.downloader`` command.
    """
    import nltk

    tail = f"/{member}" if member else ""
    for path in (f"corpora/{name}{tail}", f"corpora/{name}.zip/{name}/{member or ''}"):
        try:
            nltk.data.find(path)
            return
        except LookupError:
            pass
    if True:
        where = ", ".join(nltk.data.path[:4])
        raise RankerError(
            f"NLTK corpus {name!r} not found (searched {where}); install it with: "
            f"python -m nltk.downloader -d $NLTK_DATA {name}") from None


def _select(fileids: list[str], pattern) -> list[str]:
    if pattern is None:
        return fileids
    pats = [pattern] if isinstance(pattern, str) else list(pattern)
    return [f for f in fileids if any(fnmatch.fnmatchcase(f, p) for p in pats)]


def treebank_sentences(fileids=None, keep=None) -> Iterator[GoldSentence]:
    """Every sentence of NLTK's treebank sample with its gold tree, in corpus order.

    Parameters
    ----------
    fileids
        A glob or list of globs over file ids (``wsj_00*``); all files when None.
    keep
        Optional predicate on a file id (a split's ``contains``).
    """
    from ..trees.transforms import remove_empty_elements

    require_corpus("treebank")
    from nltk.corpus import treebank

    for fid in _select(sorted(treebank.fileids()), fileids):
        if keep is not None and not keep(fid):
            continue
        for i, t in enumerate(treebank.parsed_sents(fid)):
            tree = remove_empty_elements(Tree.from_nltk(t))
            sid = f"treebank/{fid}/{i}"
            if tree is None:
                raise RankerError(f"{sid}: the gold tree has no word left after removing empty elements")
            tags = tuple(tag or "" for tag in tree.tags())
            yield GoldSentence(Sentence(sid, "treebank", fid, i, tree.words, tags), tree)


#: Sentences per document of a CoNLL-2000 file (see conll2000_sentences).
CONLL_DOCUMENT_SIZE = 20
#: The store marker of each corpus's loaded form; a new form makes ensure_corpus load it again.
CORPUS_MARKERS = {"treebank": "treebank", "conll2000": "conll2000/2"}
#: Bracket tokens (and their tags) as the Penn Treebank writes them.
PTB_ESCAPES = {"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-"}


def conll2000_sentences(fileids=None) -> Iterator[tuple[Sentence, Annotation]]:
    """Every CoNLL-2000 sentence with its chunk brackets (kind ``chunks``), in corpus order.

    Only the files present under ``NLTK_DATA`` are read (NLTK's list names ``test.txt`` even when
    the installed package holds ``train.txt`` alone).
    """
    import nltk

    require_corpus("conll2000")
    from nltk.corpus import conll2000

    present = []
    for fid in conll2000.fileids():
        try:
            nltk.data.find(f"corpora/conll2000/{fid}")
            present.append(fid)
        except LookupError:
            pass
    for fid in _select(present, fileids):
        for i, t in enumerate(conll2000.chunked_sents(fid)):
            tokens: list[str] = []
            tags: list[str] = []
            brackets = []
            for child in t:
                if isinstance(child, tuple):
                    tokens.append(child[0])
                    tags.append(child[1])
                    continue
                start = len(tokens)
                for w, tag in child.leaves():
                    tokens.append(w)
                    tags.append(tag)
                brackets.append(Bracket(child.label(), start, len(tokens)))
            sid = f"conll2000/{fid}/{i}"
            # CoNLL-2000 writes brackets raw; stored sentences follow the Penn Treebank's escapes,
            # as the treebank's own tokens do, so that trees over them can be written as text.
            tokens = [PTB_ESCAPES.get(w, w) for w in tokens]
            tags = [PTB_ESCAPES.get(t, t) for t in tags]
            # One file of 8,936 sentences would be one document, and limits cut whole documents
            # (every stage selects by document): runs of CONLL_DOCUMENT_SIZE sentences are the
            # documents instead, ``train.txt#0000``, ``train.txt#0001``, ...
            doc = f"{fid}#{i // CONLL_DOCUMENT_SIZE:04d}"
            yield (Sentence(sid, "conll2000", doc, i, tuple(tokens), tuple(tags)),
                   Annotation(sid, "chunks", tuple(brackets)))


def load_corpus(store, corpus: str, fileids=None, batch_size: int = 500) -> int:
    """Put a corpus's sentences (and gold trees or chunk annotations) into ``store``; idempotent.

    Returns
    -------
    int
        Sentences stored.
    """
    if corpus == "treebank":
        items = treebank_sentences(fileids)
    elif corpus == "conll2000":
        items = conll2000_sentences(fileids)
    else:
        raise RankerError(f"unknown corpus {corpus!r} (known: {', '.join(CORPORA)})")
    n = 0
    batch: list = []

    def flush():
        with store.batch():
            store.add_sentences(s for s, _ in batch)
            if corpus == "treebank":
                for s, tree in batch:
                    store.add_gold(s.id, tree)
            else:
                store.add_annotations(a for _, a in batch)

    for item in items:
        batch.append(item)
        n += 1
        if len(batch) >= batch_size:
            flush()
            batch = []
    if batch:
        flush()
    return n


def ensure_corpus(store, corpus: str) -> int:
    """Load a whole corpus into ``store`` unless an earlier run finished loading it.

    A marker artifact is written in the last batch's wake, so a load killed half-way is simply
    redone (the load is idempotent). Returns the sentences loaded now (0 when already there).
    """
    marker = CORPUS_MARKERS.get(corpus, corpus)
    if store.get_artifact("corpus", marker) is not None:
        return 0
    n = load_corpus(store, corpus)
    store.put_artifact("corpus", marker, b"", {"sentences": n})
    return n
