"""The process pool isolates a crashing or hanging item and goes on with the rest."""
import os
import time

import pytest

from ranker.parallel import run_pool


def _make(arg):
    def handle(x):
        if x == "crash":
            os._exit(3)
        if x == "hang":
            time.sleep(60)
        return (x, arg)
    return handle


@pytest.mark.slow
def test_crash_and_hang_are_reported_and_the_rest_finish():
    items = ["a", "crash", "b", "hang", "c"]
    out = list(run_pool(items, _make, "ok", 2, lambda item, why: (item, why), hard_timeout=1.0))
    got = dict(out)
    assert sorted(got) == sorted(items)
    assert got["a"] == got["b"] == got["c"] == "ok"
    assert got["crash"].startswith("crash: worker exited with code 3")
    assert got["hang"].startswith("killed")
