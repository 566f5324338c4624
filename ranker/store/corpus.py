"""The store's corpus tables: sentences, their gold trees and gold dependencies.

:class:`CorpusTables` is a part of :class:`~ranker.store.Store` (a base class).
"""
from __future__ import annotations

from typing import Iterable

from ..trees.penn import format_tree, parse_tree
from .encoding import _dumps, _loads
from .errors import StoreError
from .records import Sentence
from .splits import document_filter


class CorpusTables:
    """Sentences, gold trees and gold dependencies on an open store (mixed into ``Store``)."""

    # ---------------------------------------------------------------- sentences and gold
    def add_sentences(self, sentences: Iterable[Sentence]) -> None:
        """Store sentences; a sentence already stored is replaced by the same content."""
        rows = ((s.id, s.corpus, s.document, s.index, _dumps(list(s.tokens)), _dumps(list(s.tags)))
                for s in sentences)
        with self.batch():
            self._conn.executemany("INSERT OR REPLACE INTO sentences VALUES (?,?,?,?,?,?)", rows)

    def add_gold(self, sentence_id: str, tree) -> None:
        """Store the gold tree of a stored sentence (its leaves must be the sentence's tokens)."""
        tokens = self._tokens(sentence_id)
        if tuple(tree.words) != tokens:
            raise StoreError(f"gold tree of {sentence_id} has leaves {list(tree.words)[:8]}... "
                             f"but the sentence's tokens are {list(tokens)[:8]}...")
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO gold VALUES (?,?)", (sentence_id, format_tree(tree)))

    def _tokens(self, sentence_id: str) -> tuple[str, ...]:
        row = self._conn.execute("SELECT tokens FROM sentences WHERE id=?", (sentence_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no sentence {sentence_id!r}")
        return tuple(_loads(row[0]))

    def _sentence_rows(self, corpus, split, fileids, ids=None):
        sql = "SELECT id, corpus, document, idx, tokens, tags FROM sentences"
        args: list = []
        if corpus is not None:
            sql += " WHERE corpus=?"
            args.append(corpus)
        sql += " ORDER BY corpus, document, idx"
        keep = document_filter(corpus, split, fileids)
        for r in self._conn.execute(sql, args):
            if keep is None or keep(r[2]):
                yield Sentence(r[0], r[1], r[2], r[3], tuple(_loads(r[4])), tuple(_loads(r[5])))

    def sentences(self, corpus: str | None = None, split: str | None = None,
                  fileids=None) -> list[Sentence]:
        """Stored sentences in corpus order (corpus, document, index), filtered as asked.

        Parameters
        ----------
        corpus
            Only this corpus (all when None).
        split
            A split name of :mod:`ranker.store.splits` (``train``, ``heldout``, ``test``).
        fileids
            A glob or list of globs over document ids.
        """
        return list(self._sentence_rows(corpus, split, fileids))

    def has_corpus(self, corpus: str) -> bool:
        """Whether any sentence of ``corpus`` is stored (a name may be a reader's and a stored corpus's)."""
        return self._conn.execute("SELECT 1 FROM sentences WHERE corpus=? LIMIT 1", (corpus,)).fetchone() is not None

    def sentence(self, sentence_id: str) -> Sentence:
        r = self._conn.execute("SELECT id, corpus, document, idx, tokens, tags FROM sentences WHERE id=?",
                               (sentence_id,)).fetchone()
        if r is None:
            raise StoreError(f"{self.path}: no sentence {sentence_id!r}")
        return Sentence(r[0], r[1], r[2], r[3], tuple(_loads(r[4])), tuple(_loads(r[5])))

    def gold(self, sentence_id: str):
        r = self._conn.execute("SELECT tree FROM gold WHERE sentence_id=?", (sentence_id,)).fetchone()
        return None if r is None else parse_tree(r[0], f"gold:{sentence_id}")

    def add_gold_dependencies(self, sentence_id: str, deps) -> None:
        """Store a sentence's gold head dependencies (one per token, heads -1 for the root)."""
        tokens = self._tokens(sentence_id)
        deps = tuple(deps)
        if sorted(d.dependent for d in deps) != list(range(len(tokens))):
            raise StoreError(f"gold dependencies of {sentence_id} do not give one head to each of "
                             f"its {len(tokens)} tokens")
        if any(not -1 <= d.head < len(tokens) for d in deps):
            raise StoreError(f"gold dependencies of {sentence_id} name a head outside the sentence")
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO gold_dependencies VALUES (?,?)",
                               (sentence_id, _dumps([[d.head, d.dependent, d.relation] for d in deps])))

    def gold_dependencies(self, sentence_id: str):
        """The stored gold dependencies of a sentence, or None."""
        from ..trees.dependencies import Dependency

        r = self._conn.execute("SELECT deps FROM gold_dependencies WHERE sentence_id=?",
                               (sentence_id,)).fetchone()
        return None if r is None else tuple(Dependency(h, d, rel) for h, d, rel in _loads(r[0]))
