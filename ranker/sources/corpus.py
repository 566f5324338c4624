"""Corpora as readers: what ``[data] corpus`` names, built from the ``[data]`` section, loaded into the store once.

A corpus is a registry entry (:data:`ranker.registries.CORPORA`) whose class builds a reader from
the config's ``[data]`` section (:meth:`CorpusReader.from_section`): NLTK's ``treebank`` and
``conll2000`` (:mod:`.treebank`), Penn-bracketed files on disk (``penn``, :mod:`.penn_files`) and
plain text, one sentence a line (``text``, :mod:`.text_corpus`). A further format is one more
class and one more entry. Every reader gives :class:`CorpusItem` records in corpus order and a
``marker`` that changes when its content changes; :func:`store_corpus` stores them once.
"""
from __future__ import annotations

import codecs
from typing import Iterable, Iterator, NamedTuple

from ..errors import RankerError
from ..store.records import Annotation, Sentence
from ..trees.tree import Tree


class CorpusItem(NamedTuple):
    """One sentence of a corpus with what it brings: a gold tree, a partial annotation, or neither."""

    sentence: Sentence
    gold: Tree | None = None
    annotation: Annotation | None = None


class CorpusReader:
    """The sentences of one corpus in corpus order, and what the store keeps of them.

    Subclasses set ``name`` (the store's corpus name, the first part of every sentence id),
    ``has_gold`` (whether its sentences come with gold trees) and implement :meth:`documents`,
    :meth:`items` and :meth:`marker`.
    """

    name: str = ""
    has_gold: bool = True
    has_annotation: bool = False   # partial annotation of its own (CoNLL-2000's chunks)
    reads_files: bool = False      # read from files the user names ([data] path, --path), not by name
    matches_lists: bool = True     # ranker import --corpus matches a parser's lists to its sentences
    takes_tagger: bool = False     # its sentences may come untagged, for a model's tagger ([data] tagger)

    @classmethod
    def from_section(cls, data) -> "CorpusReader":
        """The reader ``[data]`` describes (its ``path``, ``name``, ``encoding``, ``text_format``)."""
        raise NotImplementedError

    def documents(self) -> list[str]:
        """The document ids in corpus order, read without parsing a sentence (splits are checked against them)."""
        raise NotImplementedError

    def items(self) -> Iterator[CorpusItem]:
        """Every sentence in corpus order.

        Raises
        ------
        RankerError
            Naming the file and line of the first thing that cannot be read.
        """
        raise NotImplementedError

    def marker(self) -> str:
        """The store's key of this corpus as read now: it changes when the content changes."""
        raise NotImplementedError

    def skipped(self) -> list[str]:
        """``file:line: why`` of each line :meth:`items` passed over (empty or too long text lines)."""
        return []

    def load(self, store) -> int:
        """Store the corpus unless this very content was stored before; the sentences loaded now."""
        return store_corpus(store, self)


def check_encoding(encoding: str, where: str) -> str:
    """``encoding`` if Python knows it as a text encoding, else a one-line error naming ``where`` it was given.

    Python's codecs also name transforms (``hex``, ``base64``, ``rot13``), which no
    text is decoded with (their ``decode`` is refused with a ``LookupError``, a traceback then).
    """
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise RankerError(f"{where}: unknown encoding {encoding!r}") from None
    if not getattr(info, "_is_text_encoding", True):
        raise RankerError(f"{where}: {encoding!r} is a codec, not a text encoding")
    return encoding


def store_corpus(store, reader: CorpusReader, batch_size: int = 500) -> int:
    """Put ``reader``'s sentences (with gold trees or annotations) into ``store``, once per content.

    A marker artifact is written after the last batch, so a load killed half-way is redone (the
    writes are idempotent). A corpus whose content changed under the same name is loaded again,
    unless a stored sentence would change its words or its tags: its forests, counts and features
    would then describe other words (or carry other preterminals), so that is an error naming the
    sentence, never a silent change.

    Returns
    -------
    int
        Sentences stored now (0 when this content was stored already).
    """
    key = reader.marker()
    if store.get_artifact("corpus", key) is not None:
        return 0
    changed = [k for k in store.artifact_keys("corpus") if k.partition("@")[0] == reader.name and k != key]
    check = (lambda batch: _refuse_new_words(store, reader, batch)) if changed else None
    with store.batch():   # one transaction: a bad line half-way leaves the store as it was
        n = store_items(store, reader.items(), batch_size, check)
        store.put_artifact("corpus", key, b"", {"sentences": n, "skipped": reader.skipped()[:100]})
    return n


def store_items(store, items: Iterable[CorpusItem], batch_size: int = 500, check=None) -> int:
    """Store sentences with their gold trees and annotations, ``batch_size`` at a time; how many.

    ``check(batch)``, if given, sees each batch before it is written (and may refuse it).
    """
    n = 0
    batch: list[CorpusItem] = []

    def flush():
        with store.batch():
            if check is not None:
                check(batch)
            store.add_sentences(item.sentence for item in batch)
            for item in batch:
                if item.gold is not None:
                    store.add_gold(item.sentence.id, item.gold)
            store.add_annotations(item.annotation for item in batch if item.annotation is not None)

    for item in items:
        batch.append(item)
        n += 1
        if len(batch) >= batch_size:
            flush()
            batch = []
    if batch:
        flush()
    return n


def _refuse_new_words(store, reader: CorpusReader, batch: list[CorpusItem]) -> None:
    for item in batch:
        s = item.sentence
        try:
            old = store.sentence(s.id)
        except RankerError:
            continue
        if old.tokens != s.tokens:
            raise RankerError(f"{store.path}: corpus {reader.name!r} holds other words for sentence {s.id} "
                              f"(a file of the same name, or this one changed): it now reads "
                              f"{' '.join(s.tokens[:8])!r}..., the store holds {' '.join(old.tokens[:8])!r}...; "
                              "use a new store or another corpus name ([data] name, --corpus-name)")
        if old.tags != s.tags:   # its candidates carry the stored tags as preterminals
            raise RankerError(f"{store.path}: corpus {reader.name!r} is tagged otherwise than the store holds it "
                              f"(another tagger or model, or tags edited): sentence {s.id} is now "
                              f"{_tags(s.tags)}, the store's {_tags(old.tags)}, and its candidates carry the "
                              "stored tags; use a new store or another corpus name ([data] name, --corpus-name)")


def _tags(tags: tuple[str, ...]) -> str:
    """The first tags of a sentence for a message, or ``untagged``."""
    return f"tagged {' '.join(tags[:8])!r}..." if any(tags) else "untagged"


def open_corpus(data, where: str = "[data]") -> CorpusReader:
    """The reader of the corpus ``data`` (a ``[data]`` section, or anything with its keys) names.

    Raises
    ------
    RankerError
        For an unknown corpus name, or a path that does not fit the corpus (missing files, no tree
        file in a folder, an unknown encoding), naming the key.
    """
    from ..registries import CORPORA

    cls = CORPORA.get(data.corpus, f"{where} corpus")
    return cls.from_section(data)
