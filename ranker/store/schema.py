"""The SQLite schema of the candidate-parse store and its version.

Bump ``SCHEMA_VERSION`` whenever a table changes meaning; a new table is no change of meaning (every
writable open creates missing tables, so older files gain it). Opening a file of another version is an
error (:class:`ranker.store.errors.SchemaVersionError`), never a silent misread. Trees are kept as
one-line Penn text (readable with ``sqlite3``, exported as is); lists and score dicts as JSON.

The store is also the record of what was done to it: ``runs`` holds every command that changed it
(its resolved settings, the code version, start, end and outcome), ``models`` every fitted model
(its registry name, settings, training-data digest, parent and whether it was chosen, and on what;
the model file itself is the ``model`` artifact of the same key), and ``scorings`` the evaluation
settings each source's per-candidate counts were computed with, so later commands read the settings
instead of assuming defaults.

A column added to a table with a default that reads as before (a verdict not confirmed, an
adjudication of unrecorded work) is no change of meaning either: :data:`ADDED_COLUMNS` lists them,
and every writable open adds those a file lacks (a read-only open reads the default instead).
"""

SCHEMA_VERSION = 1

#: Columns added after a table was first released: ``(table, column, declaration)``.
ADDED_COLUMNS = (
    ("verdicts", "confirmed", "INTEGER NOT NULL DEFAULT 0"),   # the one bracketing left is correct
    ("adjudications", "work", "TEXT NOT NULL DEFAULT ''"),     # digest of the chosen annotator's work reviewed
    ("adjudications", "comment", "TEXT NOT NULL DEFAULT ''"),  # the adjudicator's word (why none is right)
)

DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sentences (
    id TEXT PRIMARY KEY, corpus TEXT NOT NULL, document TEXT NOT NULL, idx INTEGER NOT NULL,
    tokens TEXT NOT NULL, tags TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sentences_order ON sentences (corpus, document, idx);
CREATE TABLE IF NOT EXISTS gold (sentence_id TEXT PRIMARY KEY, tree TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS gold_dependencies (sentence_id TEXT PRIMARY KEY, deps TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (name TEXT PRIMARY KEY, options TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS candidates (
    sentence_id TEXT NOT NULL, source TEXT NOT NULL, rank INTEGER NOT NULL,
    quality TEXT NOT NULL, tree TEXT NOT NULL, scores TEXT NOT NULL, links TEXT NOT NULL,
    source_words TEXT NOT NULL, word_to_token TEXT NOT NULL, unmapped INTEGER NOT NULL,
    PRIMARY KEY (sentence_id, source, rank)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS parse_log (
    sentence_id TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL, detail TEXT NOT NULL,
    candidates INTEGER NOT NULL, unmapped INTEGER NOT NULL, seconds REAL NOT NULL,
    PRIMARY KEY (sentence_id, source));
CREATE TABLE IF NOT EXISTS annotations (
    sentence_id TEXT NOT NULL, kind TEXT NOT NULL, brackets TEXT NOT NULL,
    PRIMARY KEY (kind, sentence_id));
CREATE TABLE IF NOT EXISTS annotation_checks (
    kind TEXT NOT NULL, sentence_id TEXT NOT NULL, source TEXT NOT NULL, rank INTEGER NOT NULL,
    missing INTEGER NOT NULL, crossing INTEGER NOT NULL,
    PRIMARY KEY (kind, sentence_id, source, rank)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bracket_counts (
    metric TEXT NOT NULL, sentence_id TEXT NOT NULL, source TEXT NOT NULL, rank INTEGER NOT NULL,
    gold INTEGER NOT NULL, test INTEGER NOT NULL, matched INTEGER NOT NULL, crossing INTEGER NOT NULL,
    PRIMARY KEY (metric, sentence_id, source, rank)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS decisions (
    sentence_id TEXT NOT NULL, seq INTEGER NOT NULL, label TEXT NOT NULL, span_start INTEGER NOT NULL,
    span_end INTEGER NOT NULL, accept INTEGER NOT NULL, who TEXT NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (sentence_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS verdicts (
    sentence_id TEXT NOT NULL, who TEXT NOT NULL, no_correct INTEGER NOT NULL, comment TEXT NOT NULL,
    at TEXT NOT NULL, confirmed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (sentence_id, who)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS adjudications (
    sentence_id TEXT PRIMARY KEY, chosen TEXT NOT NULL, who TEXT NOT NULL, at TEXT NOT NULL,
    work TEXT NOT NULL DEFAULT '', comment TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS adjudication_decisions (
    sentence_id TEXT NOT NULL, seq INTEGER NOT NULL, label TEXT NOT NULL, span_start INTEGER NOT NULL,
    span_end INTEGER NOT NULL, accept INTEGER NOT NULL, who TEXT NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (sentence_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS assignments (
    sentence_id TEXT NOT NULL, who TEXT NOT NULL, assigned_by TEXT NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (sentence_id, who)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, command TEXT NOT NULL, settings TEXT NOT NULL, version TEXT NOT NULL,
    started TEXT NOT NULL, ended TEXT NOT NULL, outcome TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS models (
    key TEXT PRIMARY KEY, ranker TEXT NOT NULL, settings TEXT NOT NULL, data TEXT NOT NULL,
    parent TEXT, chosen TEXT NOT NULL, run INTEGER, created TEXT NOT NULL, summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scorings (
    source TEXT NOT NULL, key TEXT NOT NULL, settings TEXT NOT NULL, run INTEGER,
    PRIMARY KEY (source, key));
CREATE TABLE IF NOT EXISTS artifacts (
    kind TEXT NOT NULL, key TEXT NOT NULL, payload BLOB NOT NULL, meta TEXT NOT NULL,
    PRIMARY KEY (kind, key));
"""
