"""A smoothed head-argument-relation family: the auxiliary distribution of Riezler et al. (2000).

Crouch et al. (2002, section 3.1): "tuples of head words, argument words, and grammatical relations
are extracted from the training sections of the WSJ, and fed into a finite mixture model for
clustering grammatical relations. The clustering model itself is then used to yield smoothed
probabilities as values for property functions on head-argument-relation tuples".

The mixture is the latent-class model of Rooth et al. (1999) that Riezler et al. use,

    p(a | h) = sum_c p(c | h) p(a | c),

where ``h`` is a head token together with the relation (parent and dependent categories plus the
side of the dependent: ``VP/NP>|eat``) and ``a`` an argument token. It is fitted with
scikit-learn's :class:`~sklearn.decomposition.LatentDirichletAllocation` over the head x argument
count matrix: LDA is exactly this mixture with Dirichlet priors on p(c | h) and p(a | c), fitted
by batch variational Bayes, which is deterministic given the seed (a few restarts, keeping the
best variational bound, because on small data VB can stall where all clusters are alike). The priors are the smoothing:
an argument never seen with a head still gets probability through the clusters the head belongs
to, and more when its cluster-mates were seen with that head. (A Gaussian mixture would need the
symbols embedded in a vector space first, which adds an arbitrary choice and nothing else.)

Tokens are lower-cased words seen at least ``min_count`` times in the training tuples; rarer and
unseen words back off to their tag (``@NN``), a head never seen with a relation to the cluster
prior p(c), and an argument whose word and tag are both unknown to the ``@UNK`` column, which
holds no counts and so gets the prior's mass only. Fitting happens once, on training data only
(gold trees of the training split by default, as in the paper, or every candidate weighted
1/n as in Riezler et al.'s EM over unannotated parses); afterwards the family is a fixed table,
saved in the store, and extraction is stateless. The property values are the log-probabilities of
the candidate's tuples, summed per relation (``aux:VP/NP>``) and overall (``aux:*``).
"""
from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from typing import Iterable, NamedTuple

import numpy as np

from ranker.errors import RankerError

from .base import FeatureConfigError, Family, facts, named
from .families import dependencies

UNKNOWN = "@UNK"
FIT_ON = ("gold", "candidates")


class AuxTable(NamedTuple):
    """A fitted mixture: p(c | head row), p(a | c), the prior p(c) and the token vocabularies."""

    rows: tuple[str, ...]          # "relation|head token"
    columns: tuple[str, ...]       # argument tokens, UNKNOWN included
    words: frozenset               # words that stand for themselves (others back off to tags)
    theta: np.ndarray              # (n_rows, n_clusters): p(c | row)
    phi: np.ndarray                # (n_clusters, n_columns): p(a | c)
    prior: np.ndarray              # (n_clusters,): p(c), for heads never seen with a relation

    def to_bytes(self) -> bytes:
        """Serialise (npz, no pickle)."""
        buf = io.BytesIO()
        np.savez_compressed(buf, rows=np.array(json.dumps(self.rows)),
                            columns=np.array(json.dumps(self.columns)),
                            words=np.array(json.dumps(sorted(self.words))),
                            theta=self.theta, phi=self.phi, prior=self.prior)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, payload: bytes) -> "AuxTable":
        z = np.load(io.BytesIO(payload), allow_pickle=False)
        return cls(tuple(json.loads(str(z["rows"]))), tuple(json.loads(str(z["columns"]))),
                   frozenset(json.loads(str(z["words"]))), z["theta"], z["phi"], z["prior"])

    def digest(self) -> str:
        """A digest of the content (zip timestamps make the serialised bytes vary)."""
        h = hashlib.sha256()
        for part in (self.rows, self.columns, sorted(self.words)):
            h.update(json.dumps(part).encode())
        for a in (self.theta, self.phi, self.prior):
            h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
        return h.hexdigest()[:12]


def tuples(tree) -> Iterable[tuple[str, int, int]]:
    """``(relation, head word, argument word)`` of a tree; the relation carries the side."""
    for h, d, rel in dependencies(tree):
        yield (f"{rel}{'>' if d > h else '<'}", h, d)


@named("head_arg_aux/1")
class HeadArgumentAuxiliary(Family):
    """Log-probabilities of head-argument-relation tuples under a fitted latent-class mixture."""

    per_tree = True
    needs_fit = True

    def __init__(self, clusters: int = 16, seed: int = 0, min_count: int = 2, max_iter: int = 20,
                 restarts: int = 2, fit_corpus: str = "treebank", fit_split: str = "train", fit_on: str = "gold",
                 table: str | None = None):
        if fit_on not in FIT_ON:
            raise TypeError(f"fit_on must be one of {FIT_ON}, not {fit_on!r}")
        if min(clusters, min_count, max_iter, restarts) < 1:
            raise TypeError("clusters, min_count, max_iter and restarts must be at least 1")
        self.clusters, self.seed, self.min_count, self.max_iter = clusters, seed, min_count, max_iter
        self.restarts = restarts
        self.fit_corpus, self.fit_split, self.fit_on = fit_corpus, fit_split, fit_on
        self.table_: AuxTable | None = None
        self._memo: dict = {}
        if table is not None:
            try:
                with open(table, "rb") as f:
                    self.load_table(f.read())
            except OSError as e:
                raise FeatureConfigError(f"{table}: cannot read auxiliary table: {e.strerror}") from None

    # ------------------------------------------------------------------ fitting
    @property
    def fitted(self) -> bool:
        return self.table_ is not None

    def options_key(self) -> str:
        """The options that change what :meth:`fit` learns, as one string (a store key part)."""
        return (f"k={self.clusters},seed={self.seed},min={self.min_count},it={self.max_iter},"
                f"init={self.restarts},on={self.fit_on}")

    def fit(self, forests: Iterable) -> "HeadArgumentAuxiliary":
        """Fit the mixture on training forests (their gold trees, or all candidates weighted 1/n).

        Raises
        ------
        RankerError
            If the forests give no tuple to learn from.
        """
        from scipy.sparse import csr_matrix
        from sklearn.decomposition import LatentDirichletAllocation

        raw: Counter = Counter()
        seen: Counter = Counter()
        for forest in forests:
            trees = [forest.gold] if self.fit_on == "gold" else [c.tree for c in forest.candidates]
            trees = [t for t in trees if t is not None]
            for t in trees:
                w = 1.0 / len(trees)
                tags, words = facts(t).tags, t.words
                for rel, h, d in tuples(t):
                    hw, dw = words[h].lower(), words[d].lower()
                    raw[(rel, hw, tags[h], dw, tags[d])] += w
                    seen[hw] += w
                    seen[dw] += w
        if not raw:
            raise RankerError(f"auxiliary distribution: no head-argument tuples in "
                              f"{self.fit_corpus}/{self.fit_split} ({self.fit_on}) to fit on")
        known = frozenset(w for w, k in seen.items() if k >= self.min_count)
        counts: Counter = Counter()
        for (rel, hw, ht, dw, dt), w in raw.items():
            counts[(f"{rel}|{_token(hw, ht, known)}", _token(dw, dt, known))] += w
        rows = tuple(sorted({r for r, _ in counts}))
        columns = tuple(sorted({a for _, a in counts} | {UNKNOWN}))
        rpos = {r: i for i, r in enumerate(rows)}
        cpos = {a: i for i, a in enumerate(columns)}
        keys = sorted(counts)
        X = csr_matrix(([counts[k] for k in keys], ([rpos[r] for r, _ in keys], [cpos[a] for _, a in keys])),
                       shape=(len(rows), len(columns)))
        # Variational Bayes can stall in the symmetric fixed point where every cluster is alike
        # (seen on small data); restarts from seeds derived from ``seed`` keep the best bound.
        best = None
        for i in range(self.restarts):
            lda = LatentDirichletAllocation(n_components=self.clusters, learning_method="batch",
                                            max_iter=self.max_iter,
                                            random_state=self.seed * 1000 + i).fit(X)
            bound = lda.score(X)
            if best is None or bound > best[0]:
                best = (bound, lda)
        lda = best[1]
        theta = lda.transform(X)
        theta /= theta.sum(axis=1, keepdims=True)
        phi = lda.components_ / lda.components_.sum(axis=1, keepdims=True)
        mass = np.asarray(X.sum(axis=1)).ravel()
        prior = mass @ theta
        self._set(AuxTable(rows, columns, known, theta, phi, prior / prior.sum()))
        return self

    def table_bytes(self) -> bytes:
        return self._need().to_bytes()

    def load_table(self, payload: bytes) -> None:
        self._set(AuxTable.from_bytes(payload))

    def fingerprint(self) -> str:
        return f"aux-{self._need().digest()}" if self.table_ is not None else ""

    def _set(self, table: AuxTable) -> None:
        self.table_ = table
        self._rpos = {r: i for i, r in enumerate(table.rows)}
        self._cpos = {a: i for i, a in enumerate(table.columns)}
        self._memo = {}

    def _need(self) -> AuxTable:
        if self.table_ is None:
            raise FeatureConfigError(f"feature family {self.name!r} is not fitted")
        return self.table_

    # ------------------------------------------------------------------ values
    def log_prob(self, rel: str, head: str, head_tag, arg: str, arg_tag) -> float:
        """log p(argument | head, relation) under the mixture, with the back-offs described above."""
        t = self._need()
        hw, aw = head.lower(), arg.lower()
        r = self._rpos.get(f"{rel}|{_token(hw, head_tag, t.words)}")
        a = self._cpos.get(_token(aw, arg_tag, t.words))
        if a is None:
            a = self._cpos.get(f"@{arg_tag or 'WORD'}", self._cpos[UNKNOWN])
        key = (r, a)
        got = self._memo.get(key)
        if got is None:
            theta = t.prior if r is None else t.theta[r]
            got = float(np.log(theta @ t.phi[:, a]))
            if len(self._memo) > 1_000_000:
                self._memo.clear()
            self._memo[key] = got
        return got

    def __call__(self, c):
        self._need()
        t = c.tree
        tags, words = facts(t).tags, t.words
        total = 0.0
        for rel, h, d in tuples(t):
            lp = self.log_prob(rel, words[h], tags[h], words[d], tags[d])
            total += lp
            yield (f"aux:{rel}", lp)
        yield ("aux:*", total)


def _token(word: str, tag, known) -> str:
    return word if word in known else f"@{tag or 'WORD'}"
