"""The ``select_splits`` stage: the corpora loaded into the store, the experiment's sentences selected."""
from __future__ import annotations

from typing import NamedTuple

from ...store import Store
from ...store.records import Sentence
from ..config import DataSection
from ..splits import SplitSelection, select_split
from .context import StageContext


class Splits(NamedTuple):
    """The sentences of an experiment: the three parts of the main corpus and any extra corpora."""

    train: SplitSelection
    heldout: SplitSelection
    test: SplitSelection
    extra: tuple[SplitSelection, ...]   # extra training corpora (partial annotation only)

    def main(self) -> dict[str, SplitSelection]:
        """``{"train": ..., "heldout": ..., "test": ...}``."""
        return {"train": self.train, "heldout": self.heldout, "test": self.test}

    def sentences(self) -> list[Sentence]:
        """Every sentence of every part, main corpus first."""
        return [x for s in (*self.main().values(), *self.extra) for x in s.sentences]


def load_corpus(store: Store, corpus: str) -> None:
    """Load a corpus into the store once (the treebank with its dependency gold)."""
    from ...sources.dependencies import ensure_dependency_gold
    from ...sources.treebank import ensure_corpus

    ensure_corpus(store, corpus)
    if corpus == "treebank":
        ensure_dependency_gold(store)


def select_splits(ctx: StageContext, data: DataSection) -> Splits:
    """Load the corpora into the store (once) and select the experiment's sentences."""
    store = ctx.store
    load_corpus(store, data.corpus)
    for extra in data.extra_training:
        load_corpus(store, extra)
    return Splits(select_split(store, data.corpus, data.train, data.limit),
                  select_split(store, data.corpus, data.heldout, data.limit),
                  select_split(store, data.corpus, data.test, data.limit),
                  tuple(select_split(store, extra, "train", data.extra_limit)
                        for extra in data.extra_training))
