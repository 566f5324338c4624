"""The store's candidate tables: sources, candidates (forests) and the parse log.

:class:`CandidateTables` is a part of :class:`~ranker.store.Store` (a base class).
"""
from __future__ import annotations

from typing import Iterable, Iterator

from ..gcpause import gc_paused
from ..trees.penn import parse_tree
from .encoding import _dumps, _loads, encode_candidate
from .records import Candidate, Forest, Link, Sentence, StoredCandidate


class CandidateTables:
    """Sources, candidates, forests and the parse log on an open store (mixed into ``Store``)."""

    # ---------------------------------------------------------------- candidates
    def add_source(self, name: str, options: dict) -> None:
        """Record the options a source ran with (provenance shown by stats and reports)."""
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO sources VALUES (?,?)",
                               (name, _dumps(options)))

    def source_options(self) -> dict[str, dict]:
        return {n: _loads(o) for n, o in self._conn.execute("SELECT name, options FROM sources ORDER BY name")}

    def add_candidates(self, candidates: Iterable[Candidate]) -> int:
        """Store candidates keyed by (sentence, source, rank); storing one again replaces it.

        Every stored count and annotation check of the sentences touched goes
        (:meth:`forget_forest_rows`), as when a forest is replaced: they describe a forest, and a
        changed one is counted and checked again.

        Returns
        -------
        int
            How many candidates were written.
        """
        rows = [encode_candidate(c) for c in candidates]
        by_source: dict[str, set] = {}
        for r in rows:
            by_source.setdefault(r[1], set()).add(r[0])
        with self.batch():
            self._conn.executemany("INSERT OR REPLACE INTO candidates VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            for source, sentence_ids in by_source.items():   # counts and checks of the forests as they were
                self.forget_forest_rows(sorted(sentence_ids), source)
        return len(rows)

    def replace_forest(self, sentence_id: str, source: str, candidates: Iterable[Candidate]) -> int:
        """Make ``candidates`` the whole forest of ``sentence_id`` from ``source`` (drops stale ranks,
        and the old forest's counts under every metric and its checks against every annotation)."""
        rows = [encode_candidate(c) for c in candidates]
        with self.batch():
            self._conn.execute("DELETE FROM candidates WHERE sentence_id=? AND source=?", (sentence_id, source))
            self._conn.executemany("INSERT INTO candidates VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            self.forget_forest_rows([sentence_id], source)   # they were the old forest's
        return len(rows)

    def replace_encoded_forest(self, sentence_id: str, source: str, rows: list[tuple]) -> int:
        """:meth:`replace_forest` for rows already made by :func:`encode_candidate` (in a worker process)."""
        with self.batch():
            self._conn.execute("DELETE FROM candidates WHERE sentence_id=? AND source=?", (sentence_id, source))
            self._conn.executemany("INSERT INTO candidates VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            self.forget_forest_rows([sentence_id], source)
        return len(rows)

    def write_parsed(self, source: str, results: Iterable) -> int:
        """Store a batch of parsed sentences, each forest with its parse-log entry, in one transaction.

        ``results`` have ``sentence_id``, ``status``, ``detail``, ``rows`` (from
        :func:`candidate_row`), ``unmapped`` and ``seconds``
        (:class:`ranker.sources.link_grammar.EncodedResult`). Each sentence's old forest from
        ``source`` is replaced, as :meth:`replace_encoded_forest` does, but with one statement per
        table for the whole batch, so the writer stays cheap beside the parsing processes.

        Returns
        -------
        int
            How many candidates were written.
        """
        results = list(results)
        c = self._conn
        with self.batch():
            c.executemany("DELETE FROM candidates WHERE sentence_id=? AND source=?",
                          [(r.sentence_id, source) for r in results])
            self.forget_forest_rows([r.sentence_id for r in results], source)
            n = 0
            for r in results:
                n += len(r.rows)
            c.executemany("INSERT INTO candidates VALUES (?,?,?,?,?,?,?,?,?,?)",
                          (row for r in results for row in r.rows))
            c.executemany("INSERT OR REPLACE INTO parse_log VALUES (?,?,?,?,?,?,?)",
                          [(r.sentence_id, source, r.status, r.detail, len(r.rows), r.unmapped, r.seconds)
                           for r in results])
        return n

    def forget_forest_rows(self, sentence_ids: Iterable[str], source: str) -> None:
        """Drop what the store derived from these sentences' forests of ``source``: their bracket
        counts under every metric and their checks against every annotation kind.

        Both are keyed by candidate rank, so a new forest of as many candidates would otherwise
        read its predecessor's (an annotation check is looked for only where none is stored).
        """
        sentence_ids = list(sentence_ids)
        with self.batch():
            self.delete_bracket_counts(sentence_ids, source)
            self.delete_annotation_checks(sentence_ids, source)

    def _candidates(self, sentence: Sentence, source: str | None) -> tuple[Candidate, ...]:
        sql = ("SELECT source, rank, quality, tree, scores, links, source_words, word_to_token, unmapped "
               "FROM candidates WHERE sentence_id=?")
        args: list = [sentence.id]
        if source is not None:
            sql += " AND source=?"
            args.append(source)
        sql += " ORDER BY source, rank"
        out = []
        # Linkages of one sentence repeat constituent trees and word lists: parse and decode each
        # distinct text once and share the (immutable) result, which also makes per-tree caches
        # downstream hit by identity.
        trees: dict[str, object] = {}
        seqs: dict[str, tuple] = {}
        subtrees: dict = {}   # equal subtrees of the sentence's candidates share one Node
        make_link = Link._make
        with gc_paused():   # millions of cycle-free tuples: see ranker.gcpause
            for src, rank, quality, tree, scores, links, words, w2t, unmapped in \
                    self._conn.execute(sql, args):
                t = trees.get(tree)
                if t is None:
                    t = trees[tree] = parse_tree(tree, f"candidate:{sentence.id}:{src}:{rank}",
                                                 shared=subtrees)
                w = seqs.get(words)
                if w is None:
                    w = seqs[words] = tuple(_loads(words))
                m = seqs.get(w2t)
                if m is None:
                    m = seqs[w2t] = tuple(_loads(w2t))
                out.append(Candidate(sentence.id, src, rank, t, quality, _loads(scores),
                                     tuple(map(make_link, _loads(links))), w, m, unmapped))
        return tuple(out)

    def forests(self, corpus: str | None = "treebank", split: str | None = None, fileids=None,
                source: str | None = None) -> Iterator[Forest]:
        """Every sentence's forest in corpus order, candidates ordered by (source, rank).

        Sentences with no candidate give a forest with an empty ``candidates`` tuple, so callers
        count them (a sentence the parser failed on still counts against a ranker).
        """
        for s in self.sentences(corpus, split, fileids):
            yield Forest(s, self.gold(s.id), self._candidates(s, source))

    def forest(self, sentence_id: str, source: str | None = None, evidence: str | None = None) -> Forest:
        """A sentence's forest of ``source`` (None: every source's), with the candidates of source
        ``evidence`` as its :attr:`~ranker.store.records.Forest.evidence` when one is named."""
        s = self.sentence(sentence_id)
        return Forest(s, self.gold(sentence_id), self._candidates(s, source),
                      None if evidence is None else self.stored_candidates(sentence_id, evidence))

    def stored_candidates(self, sentence_id: str, source: str) -> tuple[StoredCandidate, ...]:
        """A sentence's candidates from ``source`` in rank order, as stored (trees and links as text)."""
        scores: dict[str, dict] = {}
        out = []
        for rank, tree, sc, links, w2t in self._conn.execute(
                "SELECT rank, tree, scores, links, word_to_token FROM candidates "
                "WHERE sentence_id=? AND source=? ORDER BY rank", (sentence_id, source)):
            got = scores.get(sc)
            if got is None:
                got = scores[sc] = _loads(sc)
            out.append(StoredCandidate(rank, tree, got, links, w2t))
        return tuple(out)

    def candidate_rows(self, sentence_id: str, source: str | None = None) -> list[tuple[str, int, str]]:
        """``(source, rank, Penn text)`` of a sentence's candidates in forest order, nothing decoded."""
        sql = "SELECT source, rank, tree FROM candidates WHERE sentence_id=?"
        args: list = [sentence_id]
        if source is not None:
            sql += " AND source=?"
            args.append(source)
        return self._conn.execute(sql + " ORDER BY source, rank", args).fetchall()

    def candidate_trees(self, sentence_id: str, source: str | None = None) -> list[tuple[str, int, object]]:
        """``(source, rank, tree)`` of a sentence's candidates in forest order, nothing else decoded.

        For the stages that need only trees (Heidorn): links, scores and word maps are left
        unread, equal tree texts share one parsed :class:`Tree` and equal subtrees one node.
        """
        trees: dict[str, object] = {}
        subtrees: dict = {}
        out = []
        with gc_paused():
            for src, rank, text in self.candidate_rows(sentence_id, source):
                t = trees.get(text)
                if t is None:
                    t = trees[text] = parse_tree(text, f"candidate:{sentence_id}:{src}:{rank}",
                                                 shared=subtrees)
                out.append((src, rank, t))
        return out

    def candidate_texts(self, sentence_id: str, source: str | None = None) -> list[str]:
        """The stored Penn text of a sentence's candidates in forest order (export without re-parsing)."""
        return [text for _, _, text in self.candidate_rows(sentence_id, source)]

    # ---------------------------------------------------------------- parse log
    def record_parse(self, sentence_id: str, source: str, status: str, detail: str = "",
                     candidates: int = 0, unmapped: int = 0, seconds: float = 0.0) -> None:
        """Note how parsing one sentence went (a status of :data:`~.records.PARSE_STATUSES`)."""
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO parse_log VALUES (?,?,?,?,?,?,?)",
                               (sentence_id, source, status, detail, candidates, unmapped, seconds))

    def parsed_ids(self, source: str) -> set[str]:
        """Sentences with a parse-log entry for ``source`` (done, whatever the outcome)."""
        return {r[0] for r in self._conn.execute("SELECT sentence_id FROM parse_log WHERE source=?", (source,))}

    def parse_log(self, source: str | None = None) -> list[tuple]:
        """``(sentence_id, source, status, detail, candidates, unmapped, seconds)`` rows."""
        sql = "SELECT * FROM parse_log" + (" WHERE source=?" if source else "") + " ORDER BY sentence_id"
        return [tuple(r) for r in self._conn.execute(sql, (source,) if source else ())]

    def parse_log_sources(self) -> list[str]:
        """The sources the parse log has entries of (Link Grammar's; imported forests log none)."""
        return [r[0] for r in self._conn.execute("SELECT DISTINCT source FROM parse_log ORDER BY source")]

    def parse_statuses(self, source: str) -> dict[str, tuple[str, int]]:
        """``sentence id -> (status, tokens)`` of every sentence ``source``'s parse log holds."""
        return {sid: (status, len(_loads(tokens))) for sid, status, tokens in self._conn.execute(
            "SELECT p.sentence_id, p.status, s.tokens FROM parse_log p JOIN sentences s ON s.id=p.sentence_id "
            "WHERE p.source=?", (source,))}

    def forest_qualities(self, source: str) -> dict[str, tuple[str, ...]]:
        """Each sentence's candidate qualities (forest order) from ``source``, without reading trees.

        Kept while the store is unchanged (:meth:`memoised`): a run reads them at several stages.
        The value is shared: do not change it.
        """
        def read() -> dict[str, tuple[str, ...]]:
            out: dict[str, list[str]] = {}
            for sid, q in self._conn.execute("SELECT sentence_id, quality FROM candidates WHERE source=? "
                                             "ORDER BY sentence_id, rank", (source,)):
                out.setdefault(sid, []).append(q)
            return {k: tuple(v) for k, v in out.items()}

        return self.memoised("qualities", source, read)
