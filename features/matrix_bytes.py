"""A candidate matrix as the store keeps it: bytes written and read in place, with no pickle and no deflate.

The pipeline's cache (:mod:`ranker.pipeline.feature_cache`) writes each extracted matrix with
:func:`to_pieces` and reads it back with :func:`from_bytes`, whose arrays are views of the stored
bytes; :mod:`ranker.pipeline.stored_rows` reads the same layout a few rows at a time. Apart from
the extraction (:mod:`.vectorizer`) because the layout is the store's contract, read without
extracting anything, and changed only with a new :data:`MAGIC`.
"""
from __future__ import annotations

import io
import json

import numpy as np
import scipy.sparse as sp

from ranker.matrices.compact import PART_DTYPES, CompactMatrix, Part, as_compact

from .vectorizer import CandidateMatrix


#: First bytes of a stored matrix in the current format (raw arrays, read in place).
MAGIC = b"RANKER-CM1\n"


def aligned(n: int) -> int:
    """``n`` rounded up to a multiple of 8: where the next array of a stored matrix starts."""
    return (n + 7) // 8 * 8


def to_bytes(m: CandidateMatrix) -> bytes:
    """Serialise a matrix for the store: a JSON header, then its arrays raw (no pickle, no deflate).

    Uncompressed so that :func:`from_bytes` reads every array in place (``np.frombuffer``): the
    matrix takes its stored size in memory and no more. The deflated npz of the previous format
    took 18.7 s and a 3.3 GB peak to read the WSJ training matrix (208 MB stored, 3 GB inflated);
    the compact matrix is smaller inflated than scipy's CSR was (ones carry no value).
    """
    return b"".join(to_pieces(m))


def to_pieces(m: CandidateMatrix) -> list:
    """The bytes of :func:`to_bytes` as consecutive pieces, the arrays' own memory (no copy).

    A writer that stores them piece by piece never holds a second copy of the matrix
    (:func:`ranker.pipeline.feature_cache.cached_matrix`).
    """
    arrays = [("offsets", np.asarray(m.offsets, dtype=np.int64))]
    for k, p in enumerate(as_compact(m.X).parts):
        arrays += [(f"indptr{k}", p.indptr), (f"indices{k}", p.indices)]
        if p.data is not None:
            arrays.append((f"data{k}", p.data))
    arrays = [(name, np.ascontiguousarray(a)) for name, a in arrays]
    table, at = [], 0
    for name, a in arrays:
        table.append([name, a.dtype.str, int(a.size), at])
        at = aligned(at + a.nbytes)
    header = json.dumps({"shape": list(m.X.shape), "arrays": table, "names": list(m.names),
                         "ids": list(m.sentence_ids)}).encode()
    head = MAGIC + len(header).to_bytes(8, "little") + header
    pieces = [head, bytes(aligned(len(head)) - len(head))]
    for name, a in arrays:
        pieces += [memoryview(a.view(np.uint8).reshape(-1)), bytes(aligned(a.nbytes) - a.nbytes)]
    return pieces


def is_current_format(payload: bytes) -> bool:
    """Whether ``payload`` was written by this version's :func:`to_bytes` (else the old npz)."""
    return payload[:len(MAGIC)] == MAGIC


def from_bytes(payload: bytes) -> CandidateMatrix:
    """Read a matrix written by :func:`to_bytes` (its arrays are read-only views of ``payload``).

    A matrix of the previous format (a deflated npz of scipy's CSR arrays) is read too, and
    converted: the store's cache writes it back in the current format once
    (:func:`ranker.pipeline.feature_cache.cached_matrix`).
    """
    if not is_current_format(payload):
        z = np.load(io.BytesIO(payload), allow_pickle=False)
        X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
        return CandidateMatrix(CompactMatrix.from_csr(X), z["offsets"],
                               tuple(json.loads(str(z["names"]))), tuple(json.loads(str(z["ids"]))))
    n = int.from_bytes(payload[len(MAGIC):len(MAGIC) + 8], "little")
    head = json.loads(payload[len(MAGIC) + 8:len(MAGIC) + 8 + n])
    start = aligned(len(MAGIC) + 8 + n)
    got = {name: np.frombuffer(payload, dtype=np.dtype(dt), count=size, offset=start + off)
           for name, dt, size, off in head["arrays"]}
    parts = [Part(got[f"indptr{k}"], got[f"indices{k}"], got.get(f"data{k}"))
             for k in range(len(PART_DTYPES))]
    return CandidateMatrix(CompactMatrix(head["shape"], parts), got["offsets"],
                           tuple(head["names"]), tuple(head["ids"]))
