"""Results of the expensive fits kept in the store, keyed by a digest of everything they depend on.

A warm rerun of an experiment finds the trained log-linear models and the tuned Heidorn K table
under the same keys and loads them instead of fitting again; any change to the data or a setting
changes the key, so a stale result is never read.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import scipy.sparse as sp

from ..matrices.compact import CompactMatrix
from ..models.narrow import NarrowMatrix
from ..store import Store

MODEL_KIND = "model"
RESULT_KIND = "result"


def data_digest(arrays: Sequence, params: dict) -> str:
    """A digest of every input array (dense or sparse) and setting of a fit: its cache key."""
    h = hashlib.sha1(json.dumps(params, sort_keys=True, default=str).encode())
    for a in arrays:
        if isinstance(a, (CompactMatrix, NarrowMatrix)):
            parts = tuple(a.arrays())
        elif sp.issparse(a):
            parts = (a.data, a.indices, a.indptr, np.asarray(a.shape))
        else:
            parts = (a,)
        for p in parts:
            p = np.ascontiguousarray(p)
            h.update(str((p.dtype, p.shape)).encode())
            h.update(p.view(np.uint8).reshape(-1))
    return h.hexdigest()


def text_digest(texts) -> str:
    """A digest of a sequence of strings (stored tree texts, sentence ids)."""
    h = hashlib.sha1()
    for t in texts:
        h.update(t.encode())
        h.update(b"\0")
    return h.hexdigest()


def cached_fit(store: Store, key: str, names: Sequence[str], fit: Callable,
               feature_config: dict | None = None):
    """``fit()`` once per key: the fitted ranker and its metadata are kept in the store as a model.

    ``fit`` returns ``(ranker, meta)``; a warm rerun loads both instead of training again. Models
    are saved by :func:`ranker.models.save_model` (JSON, format version, feature index and the
    feature configuration, so ``ranker models export`` gives a usable model file).
    """
    from ..models.persistence import load_model, save_model

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        got = store.get_artifact(MODEL_KIND, key)
        if got is not None:
            path.write_bytes(got[0])
            saved = load_model(path, names)
            if feature_config and not saved.feature_config:   # kept by an older ranker: add it
                save_model(path, saved.ranker, names, feature_config)
                store.put_artifact(MODEL_KIND, key, path.read_bytes(), got[1])
            return saved.ranker, got[1]
        ranker, meta = fit()
        save_model(path, ranker, names, feature_config or {})
        store.put_artifact(MODEL_KIND, key, path.read_bytes(), meta)
        return ranker, meta


def cached_result(store: Store, key: str, compute: Callable[[], dict]) -> dict:
    """``compute()`` once per key, for results that are plain JSON (a tuned K table and its curve)."""
    got = store.get_artifact(RESULT_KIND, key)
    if got is not None:
        return got[1]
    value = compute()
    store.put_artifact(RESULT_KIND, key, b"", value)
    return json.loads(json.dumps(value))   # the same shape a warm run reads back
