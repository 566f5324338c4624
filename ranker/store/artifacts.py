"""The store's records of work done: artifacts (blobs), runs (the commands that wrote) and models.

:class:`ArtifactTables` is a part of :class:`~ranker.store.Store` (a base class).
"""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from datetime import datetime

from .encoding import _dumps, _jsonable, _loads
from .errors import StoreError
from .records import ModelRecord, RunRecord
from .version import code_version


class ArtifactTables:
    """Artifacts, runs and models on an open store (mixed into ``Store``)."""

    # ---------------------------------------------------------------- artifacts
    def put_artifact(self, kind: str, key: str, payload: bytes, meta: dict | None = None) -> None:
        """Store a blob (feature matrix, model, run) with JSON metadata under ``(kind, key)``."""
        self._check_recorded(f"{kind} {key!r}")
        with self.batch():
            self._conn.execute("INSERT OR REPLACE INTO artifacts VALUES (?,?,?,?)",
                               (kind, key, sqlite3.Binary(bytes(payload)), _dumps(meta or {})))

    def get_artifact(self, kind: str, key: str) -> tuple[bytes, dict] | None:
        r = self._conn.execute("SELECT payload, meta FROM artifacts WHERE kind=? AND key=?", (kind, key)).fetchone()
        return None if r is None else (bytes(r[0]), _loads(r[1]))

    def artifact_meta(self, kind: str, key: str) -> dict | None:
        """The metadata stored under ``(kind, key)`` (None when absent), without reading its blob."""
        r = self._conn.execute("SELECT meta FROM artifacts WHERE kind=? AND key=?", (kind, key)).fetchone()
        return None if r is None else _loads(r[0])

    def artifact_bytes(self, kind: str, key: str, start: int, size: int) -> bytes:
        """``size`` bytes of the blob under ``(kind, key)`` from byte ``start``, read without the rest.

        SQLite's incremental blob reading: a run of a stored matrix's rows costs its own bytes,
        not the 256 MB piece it lies in (:mod:`ranker.pipeline.stored_rows`).

        Raises
        ------
        StoreError
            If nothing is stored under ``(kind, key)``, or the blob is shorter than asked.
        """
        r = self._conn.execute("SELECT rowid FROM artifacts WHERE kind=? AND key=?", (kind, key)).fetchone()
        if r is None:
            raise StoreError(f"{self.path}: no {kind} {key!r} stored")
        with self._conn.blobopen("artifacts", "payload", r[0], readonly=True) as blob:
            if start + size > len(blob):
                raise StoreError(f"{self.path}: {kind} {key!r} holds {len(blob)} bytes, not {start + size}")
            blob.seek(start)
            return blob.read(size)

    def delete_artifact(self, kind: str, key: str) -> None:
        """Forget the blob under ``(kind, key)`` (one derived from data that changed); absent is no error."""
        self._check_recorded(f"{kind} {key!r}")
        with self.batch():
            self._conn.execute("DELETE FROM artifacts WHERE kind=? AND key=?", (kind, key))

    def artifact_keys(self, kind: str) -> list[str]:
        return [r[0] for r in self._conn.execute("SELECT key FROM artifacts WHERE kind=? ORDER BY key", (kind,))]

    def _check_recorded(self, what: str) -> None:
        """Refuse, on a store opened with ``runs_only``, an artifact or model written outside :meth:`recording`.

        ``ranker serve`` opens its stores so (:mod:`ranker.serve.writes`): what it derives (the
        choices cache, the served model, fitted family tables, a retrained model) is kept by a run
        that ``ranker store stats`` lists, as every command's is; a write that escaped one is a bug,
        refused here rather than left unaccounted for in the store.
        """
        if self.runs_only and self._run is None:
            raise StoreError(f"{self.path}: {what} written outside a recorded run: open a recording "
                             "(Store.recording) around the writes")

    # ---------------------------------------------------------------- runs
    @contextmanager
    def recording(self, command: str, settings: dict):
        """Record the command run inside as a row of ``runs`` if (and only if) it writes anything.

        The row is inserted in the command's first write transaction, so a command that refuses
        its input before writing leaves the store unchanged (``ranker import`` of a bad file);
        on leaving, its end and outcome are written (``ok``, ``error: ...``, ``interrupted``).
        ``settings`` is the command's fully resolved settings; the yielded dict can be updated
        inside with what the command read from the store (e.g. the evaluation settings of the
        stored counts), and is what is recorded.
        """
        if self._run is not None:       # nested (ranker run's stages): the outer run records
            yield self._run["settings"]
            return
        self._run = {"id": None, "command": command, "settings": dict(settings), "started": _now()}
        outcome = "ok"
        stopped = None
        try:
            yield self._run["settings"]
        except KeyboardInterrupt as e:
            outcome, stopped = "interrupted", e
            raise
        except BaseException as e:
            outcome = f"error: {e}".splitlines()[0][:500]
            raise
        finally:
            run, self._run = self._run, None
            # (a row inserted in a transaction the command's error rolled back is gone: leave it so)
            if run["id"] is not None and self._conn.execute("SELECT 1 FROM runs WHERE id=?",
                                                            (run["id"],)).fetchone():
                if stopped is not None:   # it committed work before the stop: "kept in" (ranker.cli.signals)
                    stopped.kept_in = str(self.path)
                try:
                    with self.batch():
                        self._conn.execute("UPDATE runs SET ended=?, outcome=?, settings=? WHERE id=?",
                                           (_now(), outcome, _dumps(_jsonable(run["settings"])), run["id"]))
                except (sqlite3.Error, StoreError):
                    pass   # the command's own error (a full disk) is the one to report

    def _insert_run(self) -> None:
        run = self._run
        cur = self._conn.execute(
            "INSERT INTO runs (command, settings, version, started, ended, outcome) VALUES (?,?,?,?,?,?)",
            (run["command"], _dumps(_jsonable(run["settings"])), code_version(), run["started"], "",
             "running"))
        run["id"] = cur.lastrowid

    @property
    def current_run(self) -> int | None:
        """The id of the run being recorded, once it has written something (else None)."""
        return None if self._run is None else self._run["id"]

    def runs(self) -> list[RunRecord]:
        """Every recorded run, oldest first (a store made before runs were recorded: none)."""
        if not self._has_table("runs"):
            return []
        return [RunRecord(r[0], r[1], _loads(r[2]), r[3], r[4], r[5], r[6])
                for r in self._conn.execute("SELECT id, command, settings, version, started, ended, outcome "
                                            "FROM runs ORDER BY id")]

    # ---------------------------------------------------------------- models
    def put_model(self, record: ModelRecord, payload: bytes, meta: dict | None = None) -> ModelRecord:
        """Store a model file (``model`` artifact) and its record in one transaction.

        The record's ``run`` is the current run's when not given; a model stored again under the
        same key (a warm rerun) keeps its first record, except that a choice is added to it.
        """
        self._check_recorded(f"model {record.key}")
        with self.batch():
            run = record.run if record.run is not None else self.current_run
            record = record._replace(run=run, created=record.created or _now())
            self._conn.execute("INSERT OR REPLACE INTO artifacts VALUES (?,?,?,?)",
                               ("model", record.key, sqlite3.Binary(bytes(payload)), _dumps(meta or {})))
            old = self.model_record(record.key)
            if old is not None:
                chosen = ", ".join(dict.fromkeys(c for c in (old.chosen, record.chosen) if c))
                self._conn.execute("UPDATE models SET chosen=? WHERE key=?", (chosen, record.key))
                return old._replace(chosen=chosen)
            self._conn.execute("INSERT INTO models VALUES (?,?,?,?,?,?,?,?,?)",
                               (record.key, record.ranker, _dumps(_jsonable(record.settings)), record.data,
                                record.parent, record.chosen, record.run, record.created,
                                _dumps(_jsonable(record.summary))))
        return record

    def choose_model(self, key: str, chosen: str) -> None:
        """Add ``chosen`` (what the model was chosen on) to a stored model's record."""
        old = self.model_record(key)
        if old is None:
            raise StoreError(f"{self.path}: no model record {key}")
        value = ", ".join(dict.fromkeys(c for c in (old.chosen, chosen) if c))
        if value == old.chosen:
            return   # chosen on that before (a warm rerun): nothing to write
        self._check_recorded(f"the choice of model {key}")
        with self.batch():
            self._conn.execute("UPDATE models SET chosen=? WHERE key=?", (value, key))

    def model_record(self, key: str) -> ModelRecord | None:
        if not self._has_table("models"):
            return None
        r = self._conn.execute("SELECT * FROM models WHERE key=?", (key,)).fetchone()
        return None if r is None else _model_record(r)

    def model_records(self) -> list[ModelRecord]:
        """Every stored model's record, oldest first; models stored before records were kept
        (only their artifact) get one made from the model file's metadata."""
        recorded = {} if not self._has_table("models") else \
            {r[0]: _model_record(r) for r in self._conn.execute("SELECT * FROM models ORDER BY created, key")}
        out = list(recorded.values())
        for key, meta in self._conn.execute("SELECT key, meta FROM artifacts WHERE kind='model' ORDER BY key"):
            if key not in recorded:
                meta = _loads(meta)
                out.append(ModelRecord(key, "", {}, "", meta.get("retrained_from"),
                                       "heldout" if "trials" in meta else "", None, "", {}))
        return out

    def model_key_of(self, payload: bytes) -> str | None:
        """The key of a stored model whose file is ``payload`` byte for byte (``ranker train --out``
        and ``ranker models export`` write exactly the stored file), or None."""
        got = self._conn.execute("SELECT key FROM artifacts WHERE kind='model' AND payload=? ORDER BY key LIMIT 1",
                                 (sqlite3.Binary(bytes(payload)),)).fetchone()
        return None if got is None else got[0]

    def model_file(self, key: str) -> bytes | None:
        """The stored model file (JSON bytes) of ``key``."""
        got = self.get_artifact("model", key)
        return None if got is None else got[0]


def _now() -> str:
    from datetime import timezone

    return datetime.now(timezone.utc).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def _model_record(r) -> ModelRecord:
    return ModelRecord(r[0], r[1], _loads(r[2]), r[3], r[4], r[5], r[6], r[7], _loads(r[8]))
