"""Feature matrices: the compact candidate matrix and the compiled arithmetic over its parts.

The features produce a :class:`~.compact.CompactMatrix` (one row per candidate) and the models
read it, so it sits below both: ``ranker.features`` and ``ranker.models`` import from here, and
nothing here imports from either (``tests/test_architecture.py`` holds the line). The kernels
(:mod:`.kernels`: the products ``X λ`` and ``Xᵀ r`` and the fused per-sentence objective) live
beside the matrix because they walk its storage layout part by part (:class:`~.parts.Part`, the
one layout both read): a change to the layout and the loops that read it is one change in one
package. The CPU-independent arithmetic (:mod:`.fixed`) keeps its constants in
:mod:`.fixed_constants`, which its numpy loops and numba's compiled ones read alike. The models'
own layouts derived from a compact matrix for training (narrow column ids, difference rows) stay
in :mod:`ranker.models`.
"""
