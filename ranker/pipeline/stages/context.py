"""What every stage runs with: the :class:`StageContext`, its workers and the executor it runs on."""
from __future__ import annotations

from typing import NamedTuple

from ...errors import RankerError
from ...sources.link_grammar import SOURCE as LINK_GRAMMAR  # noqa: F401  (the parser's source name, defined there)
from ...store import Store
from ..config import ExperimentSection


class StageContext(NamedTuple):
    """What every stage runs with, besides its config section: the one contract of the stages.

    ``ranker run``, every subcommand, ``models retrain`` and ``ranker serve`` build one and call
    the same stages with it, so a stage never learns its store, source, parallelism or messages
    from a caller-specific argument list.
    """

    store: Store
    source: str | None = None    # the candidates the stages read (set once parsed, imported or found)
    workers: int = 0             # processes and threads, 0 = every core ([experiment] workers)
    progress: bool = False       # progress bars
    where: str = "<config>"      # the config file or command, for messages
    executor: object = None      # the executor the data-parallel work runs on (None: the local pool)
    evidence: str | None = None  # a second source whose candidates the evidence families read

    def with_source(self, source: str) -> "StageContext":
        """The same context reading ``source``'s candidates."""
        return self._replace(source=source)

    def with_evidence(self, evidence: str | None) -> "StageContext":
        """The same context giving the evidence families ``evidence``'s candidates (None: none)."""
        return self._replace(evidence=evidence)

    @property
    def n_workers(self) -> int:
        """``workers`` resolved (0 = every core; :func:`ranker.parallel.resolve_workers`, the one rule)."""
        from ...parallel import resolve_workers

        return resolve_workers(self.workers)

    def need_source(self) -> str:
        """The candidate source, which a stage that reads candidates needs."""
        if self.source is None:
            raise RankerError(f"{self.where}: no candidate source yet (parse or import first)")
        return self.source


def make_executor(experiment: ExperimentSection):
    """The executor ``[experiment] executor`` names, built (a Dask executor connects or starts its cluster).

    Use it as a context manager around :func:`ranker.parallel.use_executor`, so that a cluster it
    started is closed again.
    """
    from ...parallel import resolve_workers
    from ...registries import EXECUTORS

    cls = EXECUTORS.get(experiment.executor, "[experiment] executor")
    return cls(scheduler=experiment.scheduler, workers=resolve_workers(experiment.workers))
