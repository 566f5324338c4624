"""Gold head dependencies of treebank sentences, from NLTK's ``dependency_treebank``.

The corpus holds the same sentences as the treebank sample, file by file (``wsj_0001.dp`` beside
``wsj_0001.mrg``), as Malt-format head dependencies without relation labels. They are the gold of
untyped dependency F; tokens are checked against the stored sentence, never assumed.
"""
from __future__ import annotations

from typing import Iterable

from ..errors import RankerError
from ..store.records import Sentence
from ..trees.dependencies import Dependency, conll_words, dependencies_from_conll
from .nltk_corpora import require_corpus


def dependency_gold(sentences: Iterable[Sentence]) -> dict[str, tuple[Dependency, ...]]:
    """Gold dependencies of every treebank sentence given, by sentence id.

    Raises
    ------
    RankerError
        If the corpus is missing (with the download command) or a sentence's words differ from
        the dependency corpus's words for it.
    """
    require_corpus("dependency_treebank")
    from nltk.corpus import dependency_treebank

    by_doc: dict[str, list[Sentence]] = {}
    for s in sentences:
        by_doc.setdefault(s.document, []).append(s)
    out: dict[str, tuple[Dependency, ...]] = {}
    for doc, sents in by_doc.items():
        graphs = dependency_treebank.parsed_sents(doc.rsplit(".", 1)[0] + ".dp")
        for s in sents:
            if s.index >= len(graphs):
                raise RankerError(f"dependency_treebank/{doc}: no sentence {s.index} for {s.id}")
            words = conll_words(graphs[s.index])
            if tuple(words) != tuple(s.tokens):
                raise RankerError(f"dependency_treebank/{doc} sentence {s.index}: words differ from "
                                  f"the treebank's ({' '.join(words[:8])} ... vs "
                                  f"{' '.join(s.tokens[:8])} ...)")
            out[s.id] = dependencies_from_conll(graphs[s.index])
    return out


def ensure_dependency_gold(store, batch_size: int = 500) -> int:
    """Put the gold dependencies of every stored treebank sentence into ``store``, once.

    A marker artifact is written after the last batch, so a load killed half-way is redone
    (writes are idempotent). Returns the sentences loaded now (0 when already there).
    """
    if store.get_artifact("corpus", "dependency_treebank") is not None:
        return 0
    sentences = store.sentences("treebank")
    gold = dependency_gold(sentences)
    items = list(gold.items())
    for a in range(0, len(items), batch_size):
        with store.batch():
            for sid, deps in items[a:a + batch_size]:
                store.add_gold_dependencies(sid, deps)
    store.put_artifact("corpus", "dependency_treebank", b"", {"sentences": len(items)})
    return len(items)
