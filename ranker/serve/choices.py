"""Each ranker's choice for every sentence, computed once per model and kept in the store.

Whether the rankers disagree on a sentence needs its forest read and scored by the model (and by
Heidorn's ranker): over a Link Grammar split of 500 forests that is 15-20 seconds. The choices do
not change while the model does not, so they are computed once per served model (for the sentences
a list asks about, the first time it asks) and kept, in memory and in the store (an artifact keyed
by the source and the two models), so that a list page filtered by disagreement, even after a
restart, reads a table instead of forests. A read-only server keeps them in memory only.
"""
from __future__ import annotations

import json
import threading

#: Artifact kind of the stored choices; the key names the source and the models that chose.
CHOICES_KIND = "serve-choices"


def choices_key(source: str, model_key: str | None, heidorn_key: str | None) -> str:
    """The artifact key of the choices of ``source``'s forests under these two models."""
    return json.dumps([source, model_key, heidorn_key])


class StoredChoices:
    """The rankers' choices (``[native, heidorn, loglinear]``, None for a ranker not served) by sentence."""

    def __init__(self, served):
        self.served = served
        self._known: dict[str, dict[str, list]] = {}   # choices key -> sentence id -> choices
        self._lock = threading.Lock()
        self._computing = threading.Lock()   # one list at a time grows (and stores) a table


    def _table(self, store, key: str) -> dict[str, list]:
        with self._lock:
            table = self._known.get(key)
        if table is None:
            got = store.get_artifact(CHOICES_KIND, key)
            table = json.loads(got[0]) if got else {}
            with self._lock:
                table = self._known.setdefault(key, table)
        return table

    def listed(self, model) -> list[str]:
        """The sentences whose choices are known under ``model`` (those lists have asked about)."""
        s = self.served
        key = choices_key(s.source, None if model is None else model.key, s.heidorn_key)
        with self._lock:
            return list(self._known.get(key, ()))

    def disagree(self, store, sentence_ids, model=None) -> dict[str, bool]:
        """Whether the served rankers choose different candidates, for each of ``sentence_ids`` with a forest.

        Sentences not yet known are read and scored now, and the grown table is stored. ``model``:
        the log-linear model's choices (default the served model); a retrain computes its new
        model's for the sentences listed before (:meth:`listed`), so no list page pays for them.
        """
        from .listing import ranker_choices

        s = self.served
        if model is None:
            with s.lock:
                model = s.model   # one model throughout, though a retrain may swap it meanwhile
        key = choices_key(s.source, None if model is None else model.key, s.heidorn_key)
        table = self._table(store, key)
        if any(sid not in table and s.sizes.get(sid) for sid in sentence_ids):
            with self._computing:   # another list page may have computed them meanwhile
                missing = [sid for sid in sentence_ids if sid not in table and s.sizes.get(sid)]
                for sid in missing:
                    got = ranker_choices(s, sid, model)
                    table[sid] = [got.get("native"), got.get("heidorn"), got.get("loglinear")]
                if missing and not s.read_only:   # a recorded run, as the page's derived writes are (.writes)
                    payload = json.dumps(table, sort_keys=True).encode()
                    with store.recording("serve choices", {"store": str(s.store_path), "source": s.source,
                                                           "model": None if model is None else model.key,
                                                           "heidorn": s.heidorn_key, "sentences": len(missing)}):
                        store.put_artifact(CHOICES_KIND, key, payload, {"sentences": len(table)})
        return {sid: len({c for c in table[sid] if c is not None}) > 1
                for sid in sentence_ids if sid in table}


def forget_choices(store, source: str, sentence_ids) -> int:
    """Drop the stored choices of ``sentence_ids`` among ``source``'s forests (their forests changed:
    a choice is a candidate's rank). Returns how many sentences' choices went."""
    ids = set(sentence_ids)
    gone = 0
    with store.batch():
        for key in store.artifact_keys(CHOICES_KIND):
            if json.loads(key)[0] != source:
                continue
            payload, meta = store.get_artifact(CHOICES_KIND, key)
            table = json.loads(payload)
            stale = ids & table.keys()
            if stale:
                for sid in stale:
                    del table[sid]
                store.put_artifact(CHOICES_KIND, key, json.dumps(table, sort_keys=True).encode(),
                                   {**meta, "sentences": len(table)})
                gone += len(stale)
    return gone
