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
from ..trees.penn import ptb_token
from ..trees.tree import Tree
from .corpus import CorpusItem, CorpusReader, store_items
from .nltk_corpora import corpus_location, reading_corpus, require_corpus

#: Every chunk type of CoNLL-2000 (Tjong Kim Sang and Buchholz 2000, table 1). NLTK's reader keeps
#: only NP, VP and PP unless told otherwise, and a type it is not told turns into "outside".
CONLL2000_CHUNK_TYPES = ("ADJP", "ADVP", "CONJP", "INTJ", "LST", "NP", "PP", "PRT", "SBAR", "UCP", "VP")


class GoldSentence(NamedTuple):
    """A treebank sentence with its gold tree (empty elements removed, leaves = tokens)."""

    sentence: Sentence
    tree: Tree


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
    from ..trees.transforms import normalize_root, remove_empty_elements

    require_corpus("treebank")
    from nltk.corpus import treebank

    with reading_corpus("treebank"):
        for fid in _select(sorted(treebank.fileids()), fileids):
            if keep is not None and not keep(fid):
                continue
            for i, t in enumerate(treebank.parsed_sents(fid)):
                tree = remove_empty_elements(Tree.from_nltk(t))
                sid = f"treebank/{fid}/{i}"
                if tree is None:
                    raise RankerError(f"{sid}: the gold tree has no word left after removing empty elements")
                tree = normalize_root(tree)   # the root rule candidates are imported by (sources.nbest)
                tags = tuple(tag or "" for tag in tree.tags())
                yield GoldSentence(Sentence(sid, "treebank", fid, i, tree.words, tags), tree)


#: Sentences per document of a CoNLL-2000 file (see conll2000_sentences).
CONLL_DOCUMENT_SIZE = 20


def conll2000_files() -> list[str]:
    """The CoNLL-2000 files present under ``NLTK_DATA`` (NLTK's list names ``test.txt`` even when
    the installed package holds ``train.txt`` alone)."""
    import nltk

    require_corpus("conll2000")
    from nltk.corpus import conll2000

    present = []
    with reading_corpus("conll2000"):
        for fid in conll2000.fileids():
            try:
                nltk.data.find(f"corpora/conll2000/{fid}")
                present.append(fid)
            except LookupError:
                pass
    return present


def corpus_documents(corpus: str) -> list[str]:
    """The file ids of an installed corpus in order, read from its listing (no sentence is parsed).

    What a config's document ranges are checked against before any work starts.
    """
    return nltk_corpus(corpus).documents()


def require_split(corpus: str, split: str | None) -> None:
    """Fail when the installed corpus lacks the documents of ``split`` (instead of an empty split).

    The shared NLTK package of CoNLL-2000 ships ``train.txt`` only; its test half is a separate
    file of the original distribution.

    Raises
    ------
    RankerError
        Naming the corpus, the split, the files present and where they were looked for.
    """
    if _nltk_class(corpus) is not None:   # a corpus on disk (penn, text) has no split of its own to lack
        nltk_corpus(corpus).require_split(split)


def conll2000_sentences(fileids=None) -> Iterator[tuple[Sentence, Annotation]]:
    """Every CoNLL-2000 sentence with its chunk brackets (kind ``chunks``), in corpus order.

    Every chunk type is kept (:data:`CONLL2000_CHUNK_TYPES`), and only the files present under
    ``NLTK_DATA`` are read (:func:`conll2000_files`).
    """
    from nltk.corpus import conll2000

    with reading_corpus("conll2000"):
        for fid in _select(conll2000_files(), fileids):
            for i, t in enumerate(conll2000.chunked_sents(fid, chunk_types=CONLL2000_CHUNK_TYPES)):
                yield _conll_item(fid, i, t)


def _conll_item(fid: str, i: int, t) -> tuple[Sentence, Annotation]:
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
    tokens = [ptb_token(w) for w in tokens]
    tags = [ptb_token(t) for t in tags]
    # One file of 8,936 sentences would be one document, and limits cut whole documents
    # (every stage selects by document): runs of CONLL_DOCUMENT_SIZE sentences are the
    # documents instead, ``train.txt#0000``, ``train.txt#0001``, ...
    doc = f"{fid}#{i // CONLL_DOCUMENT_SIZE:04d}"
    return (Sentence(sid, "conll2000", doc, i, tuple(tokens), tuple(tags)),
            Annotation(sid, "chunks", tuple(brackets)))


def store_nltk_files(store, corpus: str, fileids=None, batch_size: int = 500) -> int:
    """Put files of NLTK's ``corpus`` (every file by default) into ``store``: sentences, gold trees or chunks.

    Idempotent, and it records no marker: a test's few files, or the whole corpus for
    :func:`ensure_corpus`, which marks it loaded.

    Returns
    -------
    int
        Sentences stored.
    """
    return store_items(store, nltk_corpus(corpus).items(fileids), batch_size)


def ensure_corpus(store, corpus: str) -> int:
    """Load a whole corpus into ``store`` unless an earlier run finished loading it.

    A marker artifact is written in the last batch's wake, so a load killed half-way is simply
    redone (the load is idempotent). Returns the sentences loaded now (0 when already there).
    """
    reader = nltk_corpus(corpus)
    marker = reader.marker()
    if store.get_artifact("corpus", marker) is not None:
        return 0
    if any(k.split("/")[0] == corpus for k in store.artifact_keys("corpus")):
        reader.older_form_stored(store)
    n = store_nltk_files(store, corpus)
    store.put_artifact("corpus", marker, b"", {"sentences": n})
    return n


class NltkCorpus(CorpusReader):
    """A corpus NLTK ships (``treebank``, ``conll2000``), as a reader of :mod:`.corpus`.

    Its store name is its registered name, and it is loaded by :func:`ensure_corpus`, which
    keeps the markers stores made before this reader have.
    """

    corpus = ""
    #: The store marker of the corpus's loaded form; a new form makes :func:`ensure_corpus` load it again.
    marker_name = ""
    has_gold = True

    def __init__(self):
        self.name = self.corpus

    @classmethod
    def from_section(cls, data=None):
        """The corpus; ``[data] path`` is read only by the corpora on disk."""
        if data is not None and getattr(data, "path", ""):
            raise RankerError(f"[data] path is read by the corpora on disk (penn, text), not by NLTK's "
                              f"{cls.corpus!r}: set [data] corpus = \"penn\" or \"text\"")
        return cls()

    def marker(self) -> str:
        return self.marker_name

    def require_split(self, split: str | None) -> None:
        """Fail when the installed files lack the documents of ``split`` (all present by default)."""

    def older_form_stored(self, store) -> None:
        """An older form of this corpus is in ``store`` (its marker differs): what goes stale."""

    def skipped(self) -> list[str]:
        return []

    def load(self, store) -> int:
        return ensure_corpus(store, self.corpus)


class NltkTreebank(NltkCorpus):
    """NLTK's 10% sample of the Penn Treebank's WSJ, with the dependency gold of ``dependency_treebank``."""

    corpus = "treebank"
    marker_name = "treebank"

    def documents(self) -> list[str]:
        require_corpus("treebank")
        from nltk.corpus import treebank

        with reading_corpus("treebank"):
            return sorted(treebank.fileids())

    def items(self, fileids=None):
        return (CorpusItem(g.sentence, g.tree) for g in treebank_sentences(fileids))

    def load(self, store) -> int:
        from .dependencies import ensure_dependency_gold

        n = ensure_corpus(store, self.corpus)
        ensure_dependency_gold(store)
        return n


class NltkConll2000(NltkCorpus):
    """CoNLL-2000's chunked sentences (chunk brackets their only annotation), as NLTK ships them."""

    corpus = "conll2000"
    marker_name = "conll2000/3"   # /3: all chunk types
    has_gold = False
    has_annotation = True

    def documents(self) -> list[str]:
        """The documents as stored: runs of :data:`CONLL_DOCUMENT_SIZE` sentences of each file
        (``train.txt#0000``, ...), counted from the blank lines that end its sentences (the file
        names alone let ``--fileids train.txt#0000`` select nothing)."""
        from nltk.corpus import conll2000

        out = []
        with reading_corpus("conll2000"):
            for fid in conll2000_files():
                n = sum(1 for block in conll2000.raw(fid).split("\n\n") if block.strip())
                out += [f"{fid}#{k:04d}" for k in range(-(-n // CONLL_DOCUMENT_SIZE))]
        return out

    def items(self, fileids=None):
        return (CorpusItem(s, None, a) for s, a in conll2000_sentences(fileids))

    def require_split(self, split: str | None) -> None:
        """NLTK's shared package ships ``train.txt`` only; the test half is the original distribution's."""
        from ..store.splits import SPLITS

        if (self.corpus, split) not in SPLITS:
            return
        wanted = SPLITS[(self.corpus, split)]
        present = conll2000_files()
        if not any(wanted.contains(f) for f in present):
            raise RankerError(f"{corpus_location('conll2000')}: corpus conll2000 has no {split} half here "
                              f"(it holds {', '.join(present) or 'no file'}; the {split} split is "
                              f"{wanted.first}.txt); install the full corpus with: python -m nltk.downloader "
                              f"-d $NLTK_DATA conll2000")

    def older_form_stored(self, store) -> None:
        """Its chunk annotations change with the form, so the checks of candidates against them are stale."""
        store.clear_annotation_checks("chunks")


def nltk_corpus(corpus: str) -> NltkCorpus:
    """The reader of NLTK's corpus ``corpus`` (``treebank``, ``conll2000``); another name raises."""
    cls = _nltk_class(corpus)
    if cls is None:
        from ..registries import CORPORA

        known = [n for n in CORPORA.names(bare=True) if _nltk_class(n) is not None]
        raise RankerError(f"unknown corpus {corpus!r} (known: {', '.join(known)})")
    return cls()


def _nltk_class(corpus: str) -> type | None:
    """The registered reader class of ``corpus`` if it is one of NLTK's corpora (None otherwise)."""
    from ..registries import CORPORA

    cls = CORPORA.get(corpus) if corpus in CORPORA else None
    return cls if isinstance(cls, type) and issubclass(cls, NltkCorpus) else None
