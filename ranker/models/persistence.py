"""Saving and loading a fitted ranker: weights, feature index, configuration and a format version.

A model file is one JSON document (no pickle: a model from a stranger cannot run code). It names
the ranker by its versioned registry name (:data:`ranker.registries.RANKERS`), its hyperparameters, its learned state and the feature index it was trained on, by
names and by digest. Loading checks the format version and, when the caller passes the feature
names of the matrix it is about to score, that they are exactly the model's, so a model is never
applied to a different feature space by accident.

A model may carry a part-of-speech tagger (``tagger``, :class:`ranker.sources.tagger.PosTagger`),
learned from the gold tags of its training split, which tags untagged text before it is parsed and
ranked. The part is optional: files written before models carried taggers read as they did, with
no tagger; its tables carry their own format version and digest, checked on reading.
"""
from __future__ import annotations

import hashlib
import json
import math
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from ..atomicfile import atomic_write
from ..errors import RankerError
from ..textfiles import TextFileError, decode_text

FORMAT = "ranker-model"
FORMAT_VERSION = 1


class ModelFileError(RankerError):
    """A model file that is unreadable, of another format version, or for another feature space."""


class SavedModel(NamedTuple):
    """A loaded model: the fitted ranker, the feature names it expects, the feature config and its tagger."""

    ranker: object
    feature_names: tuple[str, ...]
    feature_config: dict
    tagger: object = None           # PosTagger for untagged text, or None (a model trained before taggers)


def feature_digest(names: Sequence[str]) -> str:
    """A short fingerprint of an ordered feature index (order matters: it is the column order)."""
    h = hashlib.sha256("\n".join(names).encode("utf-8"))
    return h.hexdigest()[:16]


def config_digest(config: dict) -> str:
    """A short fingerprint of a feature configuration (canonical JSON, keys sorted)."""
    doc = json.dumps(_jsonable(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(doc.encode("utf-8")).hexdigest()[:16]


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _state_holder(cls: type) -> type | None:
    """The class whose learned state an estimator of ``cls`` holds (it defines ``_get_state``), or None.

    A subclass that only trains differently (:class:`~.expected_f.ExpectedFRanker`) holds the state
    of the model it fits, so its file names that model, and any reader of that model can score it.
    """
    return next((c for c in cls.__mro__ if "_get_state" in vars(c)), None)


def savable_rankers() -> list[str]:
    """The versioned names of the rankers a model file can hold: those that learn (their own
    state, or, as :class:`~.expected_f.ExpectedFRanker`, the state of the model they fit)."""
    from ..registries import RANKERS

    return [n for n in RANKERS.names() if _state_holder(RANKERS.get(n)) is not None]


def _file_names() -> list[str]:
    """The versioned ranker names a model file may carry (the rankers that hold their own state)."""
    from ..registries import RANKERS

    return [n for n in RANKERS.names() if _state_holder(RANKERS.get(n)) is RANKERS.get(n)]


def file_entry(ranker) -> str:
    """The versioned registry name a model file of ``ranker`` carries (the model whose state it holds).

    Raises
    ------
    RankerError
        For a ranker that learns nothing (no state to save).
    """
    from ..registries import RANKERS

    holder = _state_holder(type(ranker))
    if holder is None:
        raise RankerError(f"cannot save a {type(ranker).__name__}: it learns nothing")
    return RANKERS.name_of(holder)      # versioned: a later version of the ranker reads its own files


def save_model(path, ranker, feature_names: Sequence[str] = (), feature_config: dict | None = None,
               tagger=None) -> None:
    """Write a fitted ranker to ``path`` as JSON.

    Parameters
    ----------
    path : str or Path
    ranker : LogLinearRanker or HeidornRanker
        Fitted.
    feature_names : sequence of str
        The column names of the matrices the ranker scores (empty for rankers that read trees).
    feature_config : dict, optional
        The resolved feature-set configuration, kept so the features can be extracted again.
    tagger : PosTagger, optional
        The tagger of untagged text (:mod:`ranker.sources.tagger`), trained with the model.
    """
    kind = file_entry(ranker)
    names = [str(n) for n in feature_names]
    state = ranker._get_state()
    if "coef_" in state and len(names) not in (0, len(state["coef_"])):
        raise RankerError(f"{len(names)} feature names for a model of {len(state['coef_'])} weights")
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "ranker": kind,
        "params": _jsonable(ranker.get_params()),
        "state": _jsonable(state),
        "features": {"digest": feature_digest(names), "count": len(names), "names": names,
                     "config": _jsonable(feature_config or {}),
                     "config_digest": config_digest(feature_config or {})},
    }
    if tagger is not None:
        doc["tagger"] = tagger.to_dict()
    with atomic_write(path) as f:   # a full disk leaves the old model (or none), never half a file
        f.write(json.dumps(doc, indent=1) + "\n")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number a model may hold")


def load_model(path, feature_names: Sequence[str] | None = None, kind: str | None = None) -> SavedModel:
    """Read a model written by :func:`save_model`.

    Parameters
    ----------
    path : str or Path
    feature_names : sequence of str, optional
        The feature index of the data the model will score; if given it must equal the model's.
    kind : str, optional
        The ranker the caller needs, by (maybe versioned) registry name (``"loglinear"``,
        ``"heidorn/1"``); a model of another kind (not that ranker or a subclass of it) is refused
        here, before it is applied to data it cannot read. A file names its ranker versioned
        (``"loglinear/1"``); files from before the versions (``"loglinear"``) are read as version 1.

    Returns
    -------
    SavedModel

    Raises
    ------
    ModelFileError
        Unreadable file (missing, not UTF-8, not JSON, NaN or infinite numbers), another format,
        version or kind, a different feature space, or a tagger that is not one or does not
        match its digest.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ModelFileError(f"{path}: no such model file") from None
    except IsADirectoryError:
        raise ModelFileError(f"{path}: is a folder, not a model file") from None
    try:
        text = decode_text(data, str(path))
    except TextFileError as e:
        raise ModelFileError(f"{e}: not a model file") from None
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise ModelFileError(f"{path}:{e.lineno}:{e.colno}: not a model file ({e.msg})") from None
    except (ValueError, RecursionError) as e:
        raise ModelFileError(f"{path}: not a model file ({str(e)[:100]})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFileError(f"{path}: not a ranker model file")
    if doc.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path}: model format version {doc.get('format_version')!r}; this "
                             f"ranker reads version {FORMAT_VERSION}: retrain the model")
    from ..registries import RANKERS

    known = _file_names()
    found = doc.get("ranker")
    if isinstance(found, str) and "/" not in found:
        found = f"{found}/1"     # a file from before model files said the version: version 1 wrote it
    if not isinstance(found, str) or found not in known:
        raise ModelFileError(f"{path}: unknown ranker {str(doc.get('ranker'))[:60]!r} (known: {', '.join(known)})")
    cls = RANKERS.get(found)
    bare = found.partition("/")[0]
    if kind is not None and not issubclass(cls, _state_holder(RANKERS.get(kind)) or RANKERS.get(kind)):
        raise ModelFileError(f"{path}: a {bare} model, not a {kind.partition('/')[0]} model")
    feats = doc.get("features", {})
    names = feats.get("names", ()) if isinstance(feats, dict) else None
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise ModelFileError(f"{path}: bad {bare} model: features.names must be a list of strings")
    names = tuple(names)
    if feature_digest(names) != feats.get("digest"):
        raise ModelFileError(f"{path}: feature index does not match its digest (file edited?)")
    config = feats.get("config", {})
    if not isinstance(config, dict):
        raise ModelFileError(f"{path}: bad {bare} model: features.config must be a table")
    if (config or "config_digest" in feats) and config_digest(config) != feats.get("config_digest"):
        # an edited feature config would extract other features than the weights were fitted on
        raise ModelFileError(f"{path}: feature configuration does not match its digest (file edited?); "
                             "retrain or export the model again")
    if feature_names is not None:
        given = [str(n) for n in feature_names]
        if feature_digest(given) != feats.get("digest"):
            first = next((i for i, (a, b) in enumerate(zip(given, names)) if a != b),
                         min(len(given), len(names)))
            raise ModelFileError(
                f"{path}: model was trained on a different feature space ({len(names)} features, "
                f"digest {feats.get('digest')}) than the data ({len(given)} features, digest "
                f"{feature_digest(given)}); first difference at column {first}")
    params, state = doc.get("params", {}), doc.get("state", {})
    if not isinstance(params, dict) or not isinstance(state, dict):
        raise ModelFileError(f"{path}: bad {bare} model: params and state must be tables")
    where = _non_finite(state, "state")
    if where is not None:
        # JSON has no infinity, but 1e400 reads as one: a weight no ranker can score with
        raise ModelFileError(f"{path}: bad {bare} model: {where} is not a finite number")
    try:
        ranker = cls(**params)
        ranker._set_state(state)
    except KeyError as e:   # a state without one of its entries: say which, not Python's KeyError
        raise ModelFileError(f"{path}: bad {bare} model: its state has no {e.args[0]!r}; train or "
                             "export it again") from None
    except (TypeError, ValueError, AttributeError, IndexError, RankerError) as e:
        raise ModelFileError(f"{path}: bad {bare} model: {type(e).__name__}: {str(e)[:200]}") from None
    return SavedModel(ranker, names, dict(config), _tagger(doc, path))


def _tagger(doc: dict, path: Path):
    """The model's tagger, or None for a file without one (written before models carried taggers)."""
    if doc.get("tagger") is None:
        return None
    from ..sources.tagger import PosTagger

    try:
        return PosTagger.from_dict(doc["tagger"], str(path))
    except RankerError as e:
        raise ModelFileError(str(e)) from None


def _non_finite(value, where: str) -> str | None:
    """The path (``state.coef_[3]``) of the first infinite or NaN number inside ``value``, or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else where
    if isinstance(value, dict):
        items = ((f"{where}.{k}", v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{where}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    return next((w for w in (_non_finite(v, p) for p, v in items) if w is not None), None)


@contextmanager
def applying(path, saved: SavedModel):
    """Name the model file when its ranker refuses to rank data (e.g. weights whose scores overflow).

    The model file loaded fine, so the error would otherwise name no file; the largest weight is
    said too, since an overflow is the usual cause.
    """
    try:
        yield
    except ModelFileError:
        raise
    except RankerError as e:
        coef = getattr(saved.ranker, "coef_", None)
        largest = f" (its largest weight in magnitude is {float(np.max(np.abs(coef))):g})" \
            if coef is not None and len(coef) else ""
        raise ModelFileError(f"{path}: the model cannot rank these candidates: {e}{largest}") from None
