"""Each feature's copy per corpus inside the objective: a row of corpus ``c`` scored by ``λ_shared + λ_c``.

Daumé III's (2007) "frustratingly easy" domain adaptation gives every feature of a sentence of
corpus ``c`` a second copy that fires on ``c`` alone (:mod:`ranker.pipeline.domains`). As a matrix
that is every entry again in its corpus's copy column: on GUM and the WSJ sample the doubled
training rows took a fit of both feature spaces from 9.7 to 21.4 GB. The copies are linear in the
weights, so they need no entries of their own: a row of corpus ``c`` is scored by the shared
columns' weights with ``λ_s + λ_c`` on the columns ``c`` has a copy of.

The objective (:class:`~.objective.ConditionalObjective`) does not search over ``[λ_s | λ_c ...]``
itself but over ``θ = [u | w_c ...]`` with ``u = λ_s`` and ``w_c = λ_s + λ_c`` (on ``c``'s copied
columns): a row of corpus ``c`` is scored by ``u`` with ``w_c`` in its place
(:meth:`CorpusCopies.folded`: no addition, a block of rows of one corpus scored as a model of its
own would score it), and the prior ``Σ λ_s²/2σ² + Σ λ_c²/2σ²`` is taken of ``λ_s = u``,
``λ_c = w_c - u``. The optimum is the same model. The reason is the solver: in ``[λ_s | λ_c]``
the direction that raises a shared weight and lowers each of its copies as much changes no score
at all, so only the prior curves it, and the Jacobi preconditioner (:mod:`.precondition`), which
scales each weight by its data's curvature, spreads those prior-only directions' curvatures over
orders of magnitude: on a few WSJ and GUM documents L-BFGS took 391 iterations with copies where
the shared features alone took 134 (137 unpreconditioned). In ``θ`` the data curve each ``w_c``
alone and ``u`` only where a corpus has no copy, the prior couples them weakly, and the same fit
took 152. A fitted model is written in the model's weights (:meth:`CorpusCopies.to_lambda`), the
shared columns then each corpus's copies, as the doubled matrix's model was.

A copy exists only where the cut-off kept it (its feature counted in that corpus's consistent
candidates alone), so ``columns[c]`` lists the shared columns that have one.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np


class CorpusCopies(NamedTuple):
    """Which corpus each training row belongs to and which of its shared columns have a copy.

    The weights are ``[λ_s (the d shared columns) | corpus 0's copies | corpus 1's | ...]``, corpus
    ``c``'s copies in the order of ``columns[c]``.
    """

    corpus: np.ndarray                  # int32 per row: its corpus's number, -1 for none (no copies)
    columns: tuple[np.ndarray, ...]     # per corpus: the shared columns with a copy, ascending int64

    @classmethod
    def of(cls, corpus, columns: Sequence) -> "CorpusCopies":
        """Checked: each corpus's columns ascending and distinct, each row's corpus one of them or -1."""
        corpus = np.asarray(corpus, dtype=np.int32)
        columns = tuple(np.asarray(c, dtype=np.int64) for c in columns)
        if any(np.any(np.diff(c) <= 0) or (len(c) and c[0] < 0) for c in columns):
            raise ValueError("each corpus's copied columns must be ascending, distinct and >= 0")
        if len(corpus) and (corpus.min() < -1 or corpus.max() >= len(columns)):
            raise ValueError(f"a row's corpus must be -1 or below {len(columns)}")
        return cls(corpus, columns)

    @property
    def n_copies(self) -> int:
        """Copy weights in all."""
        return sum(len(c) for c in self.columns)

    def starts(self, d: int) -> np.ndarray:
        """Where each corpus's copies start in the weights (after ``d`` shared columns), and their end."""
        return d + np.concatenate([[0], np.cumsum([len(c) for c in self.columns])]).astype(np.int64)

    def check(self, d: int, n_rows: int) -> None:
        """Refuse copies that do not fit ``d`` shared columns and ``n_rows`` rows."""
        if len(self.corpus) != n_rows:
            raise ValueError(f"{len(self.corpus)} corpus numbers for {n_rows} rows")
        if any(len(c) and c[-1] >= d for c in self.columns):
            raise ValueError(f"a copied column is not one of the {d} shared columns")

    def take(self, rows) -> "CorpusCopies":
        """The copies of the given rows (a boolean mask or row numbers)."""
        return self._replace(corpus=self.corpus[rows])

    def runs(self, offsets: np.ndarray) -> list[tuple[int, int, int]]:
        """``(first sentence, end sentence, corpus)`` of each run of sentences of one corpus.

        Raises ValueError for a sentence whose rows are of two corpora.
        """
        offsets = np.asarray(offsets, dtype=np.int64)
        n = len(offsets) - 1
        if n <= 0:
            return []
        first = self.corpus[offsets[:-1]]
        sizes = np.diff(offsets)
        if not np.array_equal(np.repeat(first, sizes), self.corpus):
            raise ValueError("the rows of a sentence are of more than one corpus")
        cuts = [0, *(np.flatnonzero(np.diff(first)) + 1).tolist(), n]
        return [(a, b, int(first[a])) for a, b in zip(cuts, cuts[1:])]

    def to_lambda(self, theta: np.ndarray, d: int) -> np.ndarray:
        """The model's weights ``[λ_s | λ_c ...]`` of the objective's parameters ``[u | w_c ...]``:
        ``λ_s = u``, ``λ_c = w_c - u`` on corpus ``c``'s copied columns."""
        lam = np.array(theta, dtype=np.float64)
        for cols, a in zip(self.columns, self.starts(d)):
            lam[a:a + len(cols)] -= lam[cols]
        return lam

    def to_theta(self, lam: np.ndarray, d: int) -> np.ndarray:
        """The objective's parameters of the model's weights (the inverse of :meth:`to_lambda`)."""
        theta = np.array(lam, dtype=np.float64)
        for cols, a in zip(self.columns, self.starts(d)):
            theta[a:a + len(cols)] += theta[cols]
        return theta

    def pull_back(self, g: np.ndarray, d: int) -> np.ndarray:
        """A gradient in the model's weights as one in the objective's parameters: ``u`` moves
        ``λ_s`` and, against it, every copy of it; ``w_c`` moves ``λ_c`` alone."""
        out = np.array(g, dtype=np.float64)
        for cols, a in zip(self.columns, self.starts(d)):
            out[cols] -= g[a:a + len(cols)]
        return out

    def folded(self, theta: np.ndarray, d: int) -> np.ndarray:
        """``(C + 1, d)``: row ``c`` the weights a row of corpus ``c`` is scored with, ``u`` with
        ``w_c`` in place on its copied columns; the last row (corpus -1, no copies) ``u``."""
        theta = np.asarray(theta, dtype=np.float64)
        out = np.empty((len(self.columns) + 1, d))
        out[:] = theta[:d]
        for c, (cols, a) in enumerate(zip(self.columns, self.starts(d))):
            out[c, cols] = theta[a:a + len(cols)]
        return out

    def add_gradient(self, grad: np.ndarray, g: np.ndarray, corpus: int, d: int) -> None:
        """Add the gradient ``g`` over the shared columns of rows of ``corpus`` to ``grad`` (the
        objective's parameters): a copied column's share to ``w_c``, the rest to ``u``."""
        if corpus < 0:
            grad[:d] += g
            return
        cols = self.columns[corpus]
        a = int(self.starts(d)[corpus])
        grad[a:a + len(cols)] += g[cols]
        g = g.copy()
        g[cols] = 0.0
        grad[:d] += g

    def curvature(self, by_run, inverse_sigma2: np.ndarray, d: int) -> np.ndarray:
        """The Hessian diagonal at λ = 0 of each of the objective's parameters (the preconditioner's).

        ``by_run`` is ``(corpus, diagonal over the shared columns of that run's sentences)`` of
        each run of one corpus, ``inverse_sigma2`` the prior's ``1/σ²`` of each model weight: ``u``
        has its rows' curvature where they have no copy, and its prior and its copies' priors;
        ``w_c`` has its corpus's rows' and its own prior.
        """
        h = np.zeros(d + self.n_copies)
        starts = self.starts(d)
        for corpus, hr in by_run:
            if corpus < 0:
                h[:d] += hr
                continue
            cols, a = self.columns[corpus], int(starts[corpus])
            h[a:a + len(cols)] += hr[cols]
            hr = hr.copy()
            hr[cols] = 0.0
            h[:d] += hr
        return h + self.pull_back(-inverse_sigma2, d) * -1.0 + 0.0 if False else h + _prior_curvature(self, inverse_sigma2, d)


def _prior_curvature(copies: CorpusCopies, inverse_sigma2: np.ndarray, d: int) -> np.ndarray:
    """The prior's Hessian diagonal in the objective's parameters: ``u``'s own ``1/σ²`` and each of
    its copies' (``λ_c = w_c - u``), ``w_c``'s own."""
    out = np.array(inverse_sigma2, dtype=np.float64)
    for cols, a in zip(copies.columns, copies.starts(d)):
        out[cols] += inverse_sigma2[a:a + len(cols)]
    return out
