"""Heidorn's (1982) metric as a ranker: the candidate with the lowest score wins.

The score itself, and the compiled form that makes K-table tuning fast, are a property of trees
(:mod:`ranker.trees.heidorn_score`); the K tables are :mod:`ranker.trees.ktable`. This module
adds what makes the score a ranker: fitting (loading or tuning the table), scoring groups, and the
state a model file keeps.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import RankerError
from ..trees.heidorn_score import CompiledTrees, compile_trees, head_finder
from ..trees.ktable import KTable, as_k_table
from ..settings import EvaluationSection as _EVALUATION, HeidornSection as _HEIDORN
from .base import GroupedRanker


class HeidornRanker(GroupedRanker):
    """Heidorn's metric as a ranker: the candidate with the lowest score wins, ties to source order.

    Parameters
    ----------
    k_table : str, Path, dict or KTable
        The K table, by name (``"default"``: K = 0.1 everywhere), path or value.
    heads : str
        ``"star"`` for ``*``-marked head children, else a head-rule table name or path.
    pp_as_np : bool
        Read a PP as a noun phrase with the preposition as premodifier.
    tune : bool
        ``fit`` runs the coordinate search over the K table on the data it is given.
    grid : sequence of float
        K values the coordinate search tries.
    max_rounds : int
        Passes of the coordinate search over all types.

    Attributes
    ----------
    k_table_ : KTable
        The table in use (the tuned one after ``fit(tune=True)``).
    tuning_history_ : tuple
        ``(round, type, K, held-out score)`` of every accepted change, after the starting
        table's ``(0, (), None, score)``.
    """

    reads = "trees"

    # The defaults are the config's ([heidorn], and [evaluation] head_rules), written once there.
    def __init__(self, k_table=_HEIDORN.k_table, heads: str = _EVALUATION.head_rules,
                 pp_as_np: bool = _HEIDORN.pp_as_np, tune: bool = False,
                 grid=(0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0), max_rounds: int = _HEIDORN.tune_rounds):
        self.k_table = k_table
        self.heads = heads
        self.pp_as_np = pp_as_np
        self.tune = tune
        self.grid = grid
        self.max_rounds = max_rounds

    @classmethod
    def from_config(cls, config) -> "HeidornRanker":
        """The ranker of ``[heidorn]`` (untuned), with ``[evaluation] head_rules``."""
        h = config.heidorn
        return cls(k_table=h.k_table, heads=config.evaluation.head_rules, pp_as_np=h.pp_as_np,
                   max_rounds=h.tune_rounds)

    def get_params(self, deep=True):
        params = super().get_params(deep)
        if isinstance(params.get("k_table"), KTable):
            params["k_table"] = params["k_table"].to_dict()
        if isinstance(params.get("grid"), tuple):
            params["grid"] = list(params["grid"])
        return params

    def fit(self, X: Sequence[Tree] = (), y=None, groups=None) -> "HeidornRanker":
        """Load the K table and, with ``tune``, improve it on ``(X, y, groups)``.

        Parameters
        ----------
        X : sequence of Tree, or CompiledTrees from :meth:`compile`
            Candidate trees, groups adjacent.
        y : array-like, shape (n_candidates,), optional
            Per-candidate quality to maximise when tuning (sentence F or consistency).
        groups : array-like, shape (n_candidates,), optional

        Returns
        -------
        self
        """
        table = as_k_table(self.k_table)
        self.tuning_history_ = ()
        if self.tune:
            from .tuning import tune_k_table

            if y is None or groups is None:
                raise RankerError("tuning the K table needs per-candidate quality y and groups")
            compiled = self._compiled(X)
            table, history = tune_k_table(compiled, np.asarray(y, dtype=np.float64), groups, table,
                                          grid=self.grid, max_rounds=self.max_rounds)
            self.tuning_history_ = tuple(history)
        self.k_table_ = table
        return self

    def scores(self, X: Sequence[Tree]) -> np.ndarray:
        """Heidorn's score of every tree (lower is better).

        Parameters
        ----------
        X : sequence of Tree, or CompiledTrees from :meth:`compile`

        Returns
        -------
        ndarray of float64, shape (n_trees,)
        """
        self._check_fitted("k_table_")
        return self._compiled(X).scores(self.k_table_)

    def compile(self, X: Sequence[Tree]) -> CompiledTrees:
        """The trees' modifiers under this ranker's heads: ``X`` for ``fit`` and ``scores`` of any
        ranker with the same ``heads`` and ``pp_as_np`` (a stage tuning, then scoring, compiles once).
        """
        return compile_trees(X, head_finder(self.heads), self.pp_as_np)._replace(
            how=(self.heads, self.pp_as_np))

    def _compiled(self, X) -> CompiledTrees:
        if not isinstance(X, CompiledTrees):
            return compile_trees(X, head_finder(self.heads), self.pp_as_np)
        if X.how != (self.heads, self.pp_as_np):
            raise RankerError(f"trees compiled with heads and pp_as_np {X.how or 'unknown'} given to a "
                              f"Heidorn ranker with {(self.heads, self.pp_as_np)}")
        return X

    def decision_function(self, X: Sequence[Tree]) -> np.ndarray:
        """Minus Heidorn's score, so that higher is better as for every ranker."""
        return -self.scores(X)

    def _get_state(self) -> dict:
        self._check_fitted("k_table_")
        return {"k_table_": self.k_table_.to_dict(),
                "tuning_history_": [list(h) for h in self.tuning_history_]}

    def _set_state(self, state: dict) -> None:
        self.k_table_ = KTable.from_dict(state["k_table_"])
        self.tuning_history_ = tuple(tuple(h) for h in state.get("tuning_history_", ()))
