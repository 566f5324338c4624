"""``stages.ranker_inputs`` and ``stages.rank``: every front's rankers read one set of inputs, each form made once."""
import numpy as np
import pytest

from ranker.errors import RankerError
from ranker.models import LogLinearRanker
from ranker.pipeline import stages

GROUPS = np.array([0, 0, 1, 1, 1], dtype=np.int64)
X = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
Y = np.array([1.0, 0.0, 0.0, 1.0, 0.0])


def test_each_form_is_made_once_for_every_ranker_that_reads_it():
    made = []

    def features():
        made.append("features")
        return X, GROUPS

    inputs = stages.ranker_inputs(GROUPS, features=features)
    rankers = {"native": stages.ready_ranker("native"),
               "tight": LogLinearRanker(sigma2=0.1).fit(X, Y, GROUPS),
               "loose": LogLinearRanker(sigma2=10.0).fit(X, Y, GROUPS)}
    got = stages.rank(rankers, inputs)
    assert made == ["features"]                    # two log-linear models, one extraction
    assert got["native"].tolist() == [0, 0]        # the source's first candidate of each sentence
    assert got["tight"].tolist() == got["loose"].tolist() == [0, 1]
    # the same choices as each ranker's own predict on the same rows
    assert got["loose"].tolist() == rankers["loose"].predict(X, GROUPS).tolist()


def test_a_form_not_at_hand_is_refused_by_name():
    inputs = stages.ranker_inputs(GROUPS)
    with pytest.raises(RankerError, match="LogLinearRanker reads features, which is not at hand here"):
        stages.rank({"m": LogLinearRanker(sigma2=1.0).fit(X, Y, GROUPS)}, inputs)
    with pytest.raises(RankerError, match="reads trees"):
        stages.rank({"h": stages.ready_ranker("heidorn")}, inputs)
