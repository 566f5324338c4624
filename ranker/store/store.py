"""The candidate-parse store: one SQLite file that every later stage reads.

:class:`Store` is the one object users open (``with Store.open(path) as st:``). It is put together
from parts, each in its own module:

- :mod:`.connection`: opening, read-only opening, the schema check, transactions (``batch``),
  checkpoint, backup, closing (:class:`~.connection.Connection`, says how writes stay whole);
- :mod:`.corpus`: sentences, gold trees, gold dependencies;
- :mod:`.candidates`: sources, candidates and forests, the parse log;
- :mod:`.annotations`: annotations, their checks, consistent sets, discriminant decisions;
- :mod:`.team`: verdicts, adjudications, annotator names;
- :mod:`.assignments`: which annotators each sentence is given to;
- :mod:`.count_tables`: bracket counts, scorings;
- :mod:`.artifacts`: artifacts, runs, models;

and, beside them, :mod:`.consistency` (the consistency rules, :data:`RULES`,
:func:`choose_consistent`), :mod:`.encoding` (Penn text and the rows candidates are stored as) and
:mod:`.version` (:func:`code_version`). Every name this module held before the split is still
importable from here.
"""
from __future__ import annotations

import statistics

# Every name below is importable from here as before the split; most are re-exported, not used.
from .annotations import AnnotationTables
from .artifacts import ArtifactTables
from .assignments import AssignmentTables
from .candidates import CandidateTables
from .connection import PAGE_SIZE, Connection, backup_destination
from .consistency import CROSSING_RULES, RULES, choose_consistent
from .corpus import CorpusTables
from .count_tables import _DELETE_COUNTS, _STORED_METRICS, CountTables
from .encoding import candidate_row, encode_candidate, encode_json, penn_text
from .errors import SchemaVersionError, StoreError
from .records import (STATUSES, Annotation, Bracket, BracketCounts, Candidate, ConsistentSet, Decision,
                      Forest, Link, ModelRecord, RunRecord, Scoring, Sentence, StoreStats,
                      StoredCandidate)
from .schema import SCHEMA_VERSION
from .team import TeamRecords
from .version import code_version


class Store(CorpusTables, CandidateTables, AnnotationTables, TeamRecords, AssignmentTables, CountTables, ArtifactTables,
            Connection):
    """An open store file; use as a context manager (``with Store.open(path) as st:``)."""

    # ---------------------------------------------------------------- statistics
    def stats(self) -> StoreStats:
        """Counts of what the store holds (sentences, candidates by quality, consistent sets)."""
        c = self._conn
        n_sent = c.execute("SELECT COUNT(*) FROM sentences").fetchone()[0]
        per = [r[0] for r in c.execute("SELECT COUNT(*) FROM candidates GROUP BY sentence_id")]
        q = dict(c.execute("SELECT quality, COUNT(*) FROM candidates GROUP BY quality").fetchall())
        unmapped = c.execute("SELECT COALESCE(SUM(unmapped), 0) FROM parse_log").fetchone()[0]
        failures = c.execute("SELECT COUNT(*) FROM parse_log WHERE status IN ('error','crash') "
                             "OR candidates=0").fetchone()[0]
        sets: dict[str, dict[str, int]] = {}
        for (kind,) in c.execute("SELECT DISTINCT kind FROM annotations ORDER BY kind").fetchall():
            counts = dict.fromkeys(STATUSES, 0)
            cur = c.execute("SELECT k.sentence_id, SUM(k.missing = 0), COUNT(*) FROM annotation_checks k "
                            "WHERE k.kind=? GROUP BY k.sentence_id", (kind,))
            for _, ok, total in cur:
                counts["empty" if ok == 0 else "all" if ok == total else "proper"] += 1
            sets[kind] = counts
        decided = c.execute("SELECT COUNT(*), COUNT(DISTINCT sentence_id) FROM decisions").fetchone() \
            if self._has_table("decisions") else (0, 0)    # an older store opened read-only
        return StoreStats(
            sentences=n_sent, sentences_with_candidates=len(per), candidates=sum(per),
            full=q.get("full", 0), fragment=q.get("fragment", 0), timeout=q.get("timeout", 0),
            mean_candidates=float(sum(per) / len(per)) if per else 0.0,
            median_candidates=float(statistics.median(per)) if per else 0.0,
            unmapped_tokens=int(unmapped), failures=failures, consistent_sets=sets,
            corpora=dict(c.execute("SELECT corpus, COUNT(*) FROM sentences GROUP BY corpus ORDER BY corpus").fetchall()),
            sources=dict(c.execute("SELECT source, COUNT(*) FROM candidates GROUP BY source ORDER BY source").fetchall()),
            decisions={"answers": decided[0], "sentences": decided[1]})
