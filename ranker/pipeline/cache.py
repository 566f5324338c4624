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


def model_payload(ranker, names: Sequence[str], feature_config: dict | None = None, tagger=None) -> bytes:
    """The model file of ``ranker`` (:func:`ranker.models.save_model`, with ``tagger`` if given) as bytes."""
    from ..models.persistence import save_model

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        save_model(path, ranker, names, feature_config or {}, tagger)
        return path.read_bytes()


def carry_tagger(store: Store, key: str, names: Sequence[str], tagger) -> None:
    """Give the stored model ``key`` the run's ``tagger`` when its file carries none or another.

    A model kept before models carried taggers gets one on a warm rerun, so ``ranker models
    export`` gives a file that tags text. ``names`` (None: the file's) is checked against the file's. The digest of the tagger a file carries is in the
    model's metadata (``tagger``), so a model that has it is not read again.
    """
    if tagger is None:
        return
    payload, meta = store.get_artifact(MODEL_KIND, key)
    if meta.get("tagger") == tagger.digest:
        return
    saved = load_payload(payload, names, key)
    store.put_artifact(MODEL_KIND, key, model_payload(saved.ranker, saved.feature_names, saved.feature_config, tagger),
                       {**meta, "tagger": tagger.digest})


def load_payload(payload: bytes, names: Sequence[str] | None = None, where: str = "model"):
    """The :class:`~ranker.models.persistence.SavedModel` of stored model-file bytes."""
    from ..models.persistence import load_model

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{where}.json"
        path.write_bytes(payload)
        return load_model(path, names)


def fit_params(ranker) -> dict:
    """What a fitted model depends on besides its data: its cache key.

    The hyperparameters (threads change nothing) and the objective's arithmetic
    (:data:`ranker.matrices.kernels.ARITHMETIC`), so a store's models are not reused by code that
    would fit them to other bits.
    """
    from ..matrices.kernels import ARITHMETIC

    return {**{k: v for k, v in ranker.get_params().items() if k != "n_jobs"}, "arithmetic": ARITHMETIC}


def model_record(key: str, ranker, data: str = "", parent: str | None = None, chosen: str = ""):
    """The :class:`~ranker.store.ModelRecord` of a fitted ranker about to be stored under ``key``.

    Its registry entry is the one its model file names (:func:`ranker.models.persistence.file_entry`),
    its settings the estimator's hyperparameters and the objective's arithmetic version, its
    summary the typed :class:`~ranker.models.summary.FitSummary`.
    """
    from ..models.persistence import file_entry
    from ..models.summary import FitSummary
    from ..store import ModelRecord

    return ModelRecord(key, file_entry(ranker), fit_params(ranker), data or key, parent, chosen, None, "",
                       FitSummary.of(ranker).to_dict())


def cached_fit(store: Store, key: str, names: Sequence[str], fit: Callable,
               feature_config: dict | None = None, *, data: str = "", parent: str | None = None,
               chosen: str = "", tagger=None):
    """``fit()`` once per key: the fitted ranker is kept in the store as a model with its record.

    ``fit`` returns ``(ranker, meta)``; a warm rerun loads both instead of training again.
    ``names`` is the model's feature index, or a function giving it after ``fit`` (rows built
    only to fit: a stored model's index is its file's). The
    model file is :func:`ranker.models.save_model`'s (JSON, format version, feature index and the
    feature configuration, so ``ranker models export`` gives a usable model file); the record
    (:class:`~ranker.store.ModelRecord`) names its registry entry, settings, data digest
    (``data``, default the key), the model it was retrained from (``parent``), what it was chosen
    on (``chosen``, added to the record of a model loaded warm) and the run that fitted it. The
    file carries ``tagger`` (:mod:`ranker.sources.tagger`) when one is given.
    """
    payload = store.model_file(key)
    if payload is not None:
        saved = load_payload(payload, None if callable(names) else names)
        names = saved.feature_names
        meta = store.get_artifact(MODEL_KIND, key)[1]
        if feature_config and not saved.feature_config:   # kept by an older ranker: add it
            payload = model_payload(saved.ranker, names, feature_config, saved.tagger)
            store.put_artifact(MODEL_KIND, key, payload, meta)
        if store.model_record(key) is None:                 # kept before models had records
            store.put_model(model_record(key, saved.ranker, data, parent, chosen), payload, meta)
        elif chosen:
            store.choose_model(key, chosen)
        carry_tagger(store, key, names, tagger)
        return saved.ranker, meta
    ranker, meta = fit()
    payload = model_payload(ranker, names() if callable(names) else names, feature_config, tagger)
    store.put_model(model_record(key, ranker, data, parent, chosen), payload,
                    meta if tagger is None else {**meta, "tagger": tagger.digest})
    return ranker, meta


def sub_key(key: str, **parts) -> str:
    """A key derived from ``key`` and named parts (one trial of a search keyed by ``key``)."""
    return data_digest([], {"of": key, **parts})


def cached_result(store: Store, key: str, compute: Callable[[], dict]) -> dict:
    """``compute()`` once per key, for results that are plain JSON (a tuned K table and its curve)."""
    got = store.get_artifact(RESULT_KIND, key)
    if got is not None:
        return got[1]
    value = compute()
    store.put_artifact(RESULT_KIND, key, b"", value)
    return json.loads(json.dumps(value))   # the same shape a warm run reads back
