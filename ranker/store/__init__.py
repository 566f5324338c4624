"""The candidate-parse store: the SQLite file every ranker, feature extractor and report reads."""
from . import errors, records
from .errors import SchemaVersionError, StoreError
from .records import (Adjudication, Annotation, Bracket, BracketCounts, Candidate, ConsistentSet, Decision, Forest, Link,
                      ModelRecord, RunRecord, Scoring, Sentence, StoreStats, StoredCandidate, Verdict)
from .schema import SCHEMA_VERSION
from .store import Store, choose_consistent

__all__ = ["Adjudication", "Annotation", "Bracket", "BracketCounts", "Candidate", "ConsistentSet", "Decision", "Forest", "Link",
           "ModelRecord", "RunRecord", "Scoring",
           "SCHEMA_VERSION", "SchemaVersionError", "Sentence", "Store", "StoreError", "StoreStats", "StoredCandidate",
           "Verdict", "choose_consistent", "errors", "records"]
