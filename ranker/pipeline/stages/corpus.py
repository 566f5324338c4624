"""The ``select_splits`` stage: the corpora loaded into the store, the experiment's sentences selected."""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

from ...store import Store
from ...store.records import Sentence
from ..config import DataSection
from ..splits import SplitSelection, distinct, select_split
from .context import StageContext


class CorpusParts(NamedTuple):
    """The three parts of one treebank of an experiment."""

    train: SplitSelection
    heldout: SplitSelection
    test: SplitSelection


class Splits(NamedTuple):
    """The sentences of an experiment: the three parts of the main corpus, of each treebank trained
    on beside it (``[[data.also]]``) and any extra corpora."""

    train: SplitSelection
    heldout: SplitSelection
    test: SplitSelection
    extra: tuple[SplitSelection, ...]   # extra training corpora (partial annotation only)
    also: tuple[CorpusParts, ...] = ()  # more treebanks, each with its own splits

    def main(self) -> dict[str, SplitSelection]:
        """``{"train": ..., "heldout": ..., "test": ...}``."""
        return {"train": self.train, "heldout": self.heldout, "test": self.test}

    def corpora(self) -> tuple[CorpusParts, ...]:
        """Each treebank's parts, the main corpus first."""
        return (CorpusParts(self.train, self.heldout, self.test), *self.also)

    def sentences(self) -> list[Sentence]:
        """Every sentence of every part once (splits may share documents), main corpus first."""
        return distinct(x for s in (*(p for c in self.corpora() for p in c), *self.extra) for x in s.sentences)


def corpus_reader(data: DataSection | str, where: str = "[data]"):
    """The reader of the corpus ``data`` describes (a ``[data]`` section, or a registered corpus's name)."""
    from ...sources.corpus import open_corpus

    if isinstance(data, str):
        data = DataSection(corpus=data)
    return open_corpus(data, where)


def load_corpus(store: Store, corpus):
    """Load a corpus into the store once (the treebank with its dependency gold); returns its reader.

    ``corpus`` is a ``[data]`` section, a reader, or a registered corpus's name.
    """
    reader = corpus if hasattr(corpus, "load") else corpus_reader(corpus)
    reader.load(store)
    return reader


def select_splits(ctx: StageContext, data: DataSection) -> Splits:
    """Load the corpora into the store (once) and select the experiment's sentences."""
    store = ctx.store
    parts = []
    for one in data.corpora():
        reader = load_corpus(store, one)
        docs = reader.documents()
        parts.append(CorpusParts(*(select_split(store, reader.name, spec, one.limit, documents=docs)
                                   for spec in (one.train, one.heldout, one.test))))
    extras = [load_corpus(store, dataclasses.replace(DataSection(), corpus=extra)) for extra in data.extra_training]
    return Splits(*parts[0], tuple(select_split(store, extra.name, "train", data.extra_limit) for extra in extras),
                  tuple(parts[1:]))
