"""The rankers by versioned name: what ``ranker select --ranker``, model files and reports name."""
from __future__ import annotations

from ..registry import Registry
from .baselines import NativeRanker, OracleRanker, RandomRanker
from .heidorn import HeidornRanker
from .loglinear import LogLinearRanker

RANKERS: Registry[type] = Registry("ranker")
RANKERS.register("heidorn/1", HeidornRanker)
RANKERS.register("loglinear/1", LogLinearRanker)
RANKERS.register("native/1", NativeRanker)
RANKERS.register("random/1", RandomRanker)
RANKERS.register("oracle/1", OracleRanker)

#: Rankers a model file can hold (those with learned state).
SAVABLE = ("heidorn", "loglinear")


def ranker_name(ranker) -> str:
    """The bare registered name of a ranker instance's class (``"loglinear"``)."""
    for name in RANKERS.names():
        if type(ranker) is RANKERS.get(name):
            return name.partition("/")[0]
    raise KeyError(type(ranker).__name__)
