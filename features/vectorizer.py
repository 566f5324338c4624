"""From forests to one CSR matrix with sentence offsets, a stable feature index, and the cut-off.

Extraction names every property a split instantiates (sorted, so the column order depends on the
data only, never on dict order or process). The frequency cut-off of Crouch et al. (2002, section
4) keeps a property if it occurs in at least N consistent candidates of the training data; the
kept names, in order, are the feature index saved beside the model. Extracted matrices are stored
in the store under the feature set's version, so training again needs no re-extraction.
"""
from __future__ import annotations

import hashlib
import io
import json
import tomllib
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

import numpy as np
import scipy.sparse as sp

from .registry import FeatureConfigError, make_family

ARTIFACT_KIND = "features"
#: ``<repo>/configs/features``.
FEATURE_CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs" / "features"


class FeatureSet(NamedTuple):
    """A resolved feature configuration: which families with which options, and the cut-off."""

    name: str
    families: tuple[tuple[str, tuple[tuple[str, object], ...]], ...]   # (family, sorted options)
    cutoff: int

    @property
    def version(self) -> str:
        """Digest of the families and options: the store key of matrices extracted with them."""
        doc = json.dumps([[f, [list(o) for o in opts]] for f, opts in self.families], sort_keys=True)
        return f"{self.name}-{hashlib.sha256(doc.encode()).hexdigest()[:12]}"

    def to_dict(self) -> dict:
        return {"name": self.name, "cutoff": self.cutoff,
                "family": [{"name": f, **dict(opts)} for f, opts in self.families]}

    def build(self) -> list:
        """The family objects, in configuration order."""
        return [make_family(f, dict(opts), self.name) for f, opts in self.families]


def load_feature_set(path_or_name) -> FeatureSet:
    """Read a feature configuration (a path, or a name in ``configs/features/``).

    The file holds ``name``, ``cutoff`` and one ``[[family]]`` table per family: its ``name``
    (``"local_trees/1"``) and its options.

    Raises
    ------
    FeatureConfigError
        Unreadable TOML, unknown keys, families or options.
    """
    path = Path(path_or_name)
    if not path.exists() and not path.suffix and (FEATURE_CONFIG_DIR / f"{path}.toml").exists():
        path = FEATURE_CONFIG_DIR / f"{path}.toml"
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FeatureConfigError(f"{path}: no such feature configuration") from None
    except tomllib.TOMLDecodeError as e:
        raise FeatureConfigError(f"{path}: {e}") from None
    return feature_set_from_dict(doc, str(path))


def feature_set_from_dict(doc: dict, source: str = "<features>") -> FeatureSet:
    """Validate a parsed feature configuration (see :func:`load_feature_set`)."""
    unknown = set(doc) - {"name", "cutoff", "family"}
    if unknown:
        raise FeatureConfigError(f"{source}: unknown key(s) {sorted(unknown)} (expected name, cutoff, [[family]])")
    cutoff = doc.get("cutoff", 1)
    if not isinstance(cutoff, int) or isinstance(cutoff, bool) or cutoff < 0:
        raise FeatureConfigError(f"{source}: cutoff must be an integer >= 0, not {cutoff!r}")
    fams = []
    for i, entry in enumerate(doc.get("family", [])):
        if "name" not in entry:
            raise FeatureConfigError(f"{source}: [[family]] number {i + 1} has no name")
        opts = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                            for k, v in entry.items() if k != "name"))
        fams.append((entry["name"], opts))
    if not fams:
        raise FeatureConfigError(f"{source}: no [[family]] given")
    fs = FeatureSet(str(doc.get("name", Path(source).stem)), tuple(fams), cutoff)
    for f, opts in fs.families:  # unknown families and options fail here, naming the file
        make_family(f, dict(opts), source)
    return fs


class CandidateMatrix(NamedTuple):
    """Property values of every candidate of a split: rows in forest order, sentence offsets."""

    X: sp.csr_matrix
    offsets: np.ndarray           # (n_sentences + 1,) int64
    names: tuple[str, ...]        # column names
    sentence_ids: tuple[str, ...]

    def groups(self) -> np.ndarray:
        """Per-row sentence number, the ``groups`` argument of the rankers."""
        return np.repeat(np.arange(len(self.offsets) - 1), np.diff(self.offsets))

    def restrict(self, names: Sequence[str]) -> sp.csr_matrix:
        """The matrix with exactly the columns ``names`` in that order (absent ones are zero)."""
        pos = {n: i for i, n in enumerate(self.names)}
        src = np.array([pos.get(n, -1) for n in names], dtype=np.int64)
        have = src >= 0
        sel = sp.csr_matrix((np.ones(have.sum()), (src[have], np.flatnonzero(have))),
                            shape=(len(self.names), len(names)))
        return sp.csr_matrix(self.X @ sel)


def extract(forests: Iterable, families: list) -> CandidateMatrix:
    """Run every family over every candidate of every forest (sentences with none give no rows).

    Parameters
    ----------
    forests : iterable of Forest
    families : list of Family
        Built families (:meth:`FeatureSet.build`).

    Returns
    -------
    CandidateMatrix
    """
    vocab: dict[str, int] = {}
    rows: list[dict[int, float]] = []
    offsets = [0]
    ids = []
    for forest in forests:
        if not forest.candidates:
            continue
        for cand in forest.candidates:
            row: dict[int, float] = {}
            for fam in families:
                for name, value in fam(cand):
                    j = vocab.setdefault(name, len(vocab))
                    row[j] = row.get(j, 0.0) + value
            rows.append(row)
        offsets.append(len(rows))
        ids.append(forest.sentence.id)
    # Sorted names make the column order a function of the data alone.
    names = sorted(vocab)
    remap = np.empty(len(vocab), dtype=np.int64)
    remap[[vocab[n] for n in names]] = np.arange(len(names))
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in rows])
    cols = np.fromiter((j for r in rows for j in r), dtype=np.int64, count=int(indptr[-1]))
    vals = np.fromiter((v for r in rows for v in r.values()), dtype=np.float64, count=int(indptr[-1]))
    X = sp.csr_matrix((vals, remap[cols] if len(cols) else cols, indptr), shape=(len(rows), len(names)))
    X.sort_indices()
    return CandidateMatrix(X, np.asarray(offsets, dtype=np.int64), tuple(names), tuple(ids))


def frequency_cutoff(matrix: CandidateMatrix, weights: np.ndarray, min_count: int) -> tuple[str, ...]:
    """Names of the properties instantiated in at least ``min_count`` consistent candidates.

    Parameters
    ----------
    matrix : CandidateMatrix
        Training candidates.
    weights : ndarray, shape (n_candidates,)
        Consistency weights; a candidate counts as consistent when its weight is positive.
    min_count : int

    Returns
    -------
    tuple of str
        The feature index, in the matrix's column order.
    """
    consistent = matrix.X[np.flatnonzero(np.asarray(weights) > 0)]
    seen = np.bincount(consistent.indices[consistent.data != 0], minlength=len(matrix.names))
    return tuple(n for n, k in zip(matrix.names, seen) if k >= min_count)


def to_bytes(m: CandidateMatrix) -> bytes:
    """Serialise a matrix (npz, no pickle) for the store."""
    buf = io.BytesIO()
    np.savez_compressed(buf, data=m.X.data, indices=m.X.indices, indptr=m.X.indptr,
                        shape=np.array(m.X.shape), offsets=m.offsets,
                        names=np.array(json.dumps(m.names)), ids=np.array(json.dumps(m.sentence_ids)))
    return buf.getvalue()


def from_bytes(payload: bytes) -> CandidateMatrix:
    """Read a matrix written by :func:`to_bytes`."""
    z = np.load(io.BytesIO(payload), allow_pickle=False)
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
    return CandidateMatrix(X, z["offsets"], tuple(json.loads(str(z["names"]))),
                           tuple(json.loads(str(z["ids"]))))


def stored_matrix(store, feature_set: FeatureSet, corpus: str | None, split: str | None,
                  source: str | None = None, refresh: bool = False,
                  fileids: Sequence[str] | None = None) -> CandidateMatrix:
    """The split's matrix from the store, extracting and storing it first if it is not there.

    The key names the feature set's version, corpus, split, documents and source, so a changed
    feature configuration or a different subset never reads a stale matrix.
    """
    docs = "" if fileids is None else "/" + hashlib.sha1(" ".join(fileids).encode()).hexdigest()[:12]
    key = f"{feature_set.version}/{corpus}/{split}{docs}/{source or '*'}"
    if not refresh:
        got = store.get_artifact(ARTIFACT_KIND, key)
        if got is not None:
            return from_bytes(got[0])
    m = extract(store.forests(corpus, split, fileids=list(fileids) if fileids is not None else None,
                              source=source), feature_set.build())
    store.put_artifact(ARTIFACT_KIND, key, to_bytes(m),
                       {"feature_set": feature_set.to_dict(), "rows": m.X.shape[0],
                        "columns": m.X.shape[1], "sentences": len(m.sentence_ids)})
    return m
