"""The Dask executor against the local pool: the same store, matrices and models, and no work lost to a dead worker.

One real ``distributed.LocalCluster`` of two worker processes serves the module; each run copies the
store of the treebank corpus (``treebank_store``, tests/conftest.py).
"""
import dataclasses
import functools
import gc
import importlib
import json
import logging
import os
import shutil
import signal
import sqlite3
import sys
import time

import numpy as np
import pytest
import scipy.sparse as sp
from pipeline.frozen_heap import frozen_heap

from ranker.dask_executor import LOCAL_CLUSTER_CONFIG, DaskExecutor
from ranker.errors import RankerError
from ranker.models import LogLinearRanker
from ranker.parallel import current_executor, ordered_map, run_pool, use_executor
from ranker.pipeline import stages
from ranker.pipeline.config import ConfigError, config_from_dict, load_config
from ranker.pipeline.experiment import run_experiment
from ranker.pipeline.splits import select_split
from ranker.pipeline.validate import validate_config
from ranker.sources.link_grammar import LinkGrammarParser
from ranker.sources.parse_run import parse_into_store
from ranker.store import Store

pytestmark = pytest.mark.slow

TINY = "tests/pipeline/configs/tiny.toml"

#: The content of every table (rows sorted: the order rows were written in is completion order),
#: without the seconds each parse took.
TABLES = {   # artifacts' meta is JSON whose keys follow completion order: compared as dicts
    "candidates": "sentence_id, source, rank, quality, tree, scores, links, source_words, word_to_token, unmapped",
    "parse_log": "sentence_id, source, status, detail, candidates, unmapped",
    "annotations": "*", "annotation_checks": "*", "bracket_counts": "*", "sources": "*",
    "artifacts": "kind, key, payload, meta",
}


def table_rows(path) -> dict:
    con = sqlite3.connect(path)
    try:
        out = {t: sorted(con.execute(f"SELECT {cols} FROM {t}").fetchall(), key=repr) for t, cols in TABLES.items()}
        out["artifacts"] = [(*r[:3], json.loads(r[3]) if r[3] else r[3]) for r in out["artifacts"]]
        return out
    finally:
        con.close()


def _import_stages() -> None:
    for module in ("ranker.sources.parse_run", "ranker.pipeline.candidate_scoring", "ranker.features.vectorizer"):
        importlib.import_module(module)


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    import cloudpickle

    # the fault-injecting handler below travels by value: workers need not import this test module
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc, \
            Client(lc) as client:
        # each worker imports the stages while the corpus loads here
        warm = [client.submit(_import_stages, workers=[w], pure=False) for w in client.nthreads()]
        yield lc, client
        del warm
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def _run(cfg, base, where, **experiment):
    store = where / "s.sqlite"
    shutil.copy(base, store)
    cfg = dataclasses.replace(cfg, data=dataclasses.replace(cfg.data, limit=2),
                              report=dataclasses.replace(cfg.report, plots=False, learning_curve=(1.0,)),
                              experiment=dataclasses.replace(cfg.experiment, store=str(store), **experiment))
    with frozen_heap():   # tests/pipeline/frozen_heap.py: the collector's passes scan what the run makes
        report = run_experiment(cfg, where / "out", progress=False)
    return store, report


@pytest.mark.linkgrammar
@pytest.mark.dask
def test_a_dask_run_stores_what_the_local_run_stores(cluster, treebank_store, tmp_path):
    cfg = load_config(TINY)
    (tmp_path / "local").mkdir()
    (tmp_path / "dask").mkdir()
    local, local_report = _run(cfg, treebank_store, tmp_path / "local")
    remote, remote_report = _run(cfg, treebank_store, tmp_path / "dask", executor="dask",
                                 scheduler=cluster[0].scheduler_address)
    a, b = table_rows(local), table_rows(remote)
    for table in TABLES:
        assert a[table] == b[table], table
    # the forests, the checks, the counts, the matrices and the models (bit for bit) were written
    kinds = {k for k, *_ in b["artifacts"]}
    assert {"feature-matrix", "model"} <= kinds and b["candidates"] and b["annotation_checks"]
    assert local_report.metrics == remote_report.metrics
    resolved = (tmp_path / "dask" / "out" / "config.resolved.toml").read_text()
    assert 'executor = "dask"' in resolved and f'scheduler = "{cluster[0].scheduler_address}"' in resolved
    assert current_executor().name == "local"   # restored after the run


def _killing_handler(options, victim, marker):
    """Link Grammar's handler, except that the first worker to meet ``victim`` dies on the spot."""
    parse = LinkGrammarParser(options).parse_rows

    def handle(sentence):
        if sentence.id == victim and not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return parse(sentence)

    return handle


@pytest.mark.linkgrammar
@pytest.mark.dask
def test_a_worker_killed_mid_parse_loses_and_duplicates_nothing(cluster, treebank_store, tmp_path, monkeypatch):
    cfg = load_config(TINY)
    options = stages.link_grammar_options(cfg.parse)
    with Store.open(treebank_store, readonly=True) as st:
        sentences = list(select_split(st, "treebank", cfg.data.train, cfg.data.limit).sentences)[:24]
    victim = sentences[5].id
    marker = tmp_path / "killed"
    stores = {}
    for name in ("local", "dask"):
        stores[name] = tmp_path / f"{name}.sqlite"
        shutil.copy(treebank_store, stores[name])
    with Store.open(stores["local"]) as st:
        local = parse_into_store(st, sentences, options, workers=2, progress=False)
    monkeypatch.setattr("ranker.sources.parse_run._make_handler",
                        functools.partial(_killing_handler, victim=victim, marker=str(marker)))
    with DaskExecutor(client=cluster[1], chunk_size=3) as ex, use_executor(ex), Store.open(stores["dask"]) as st:
        remote = parse_into_store(st, sentences, options, workers=2, progress=False, batch_size=1)
    assert marker.exists()                     # a worker really died holding the victim's task
    assert remote.parsed == local.parsed == len(sentences) and remote.statuses == local.statuses
    assert remote.candidates == local.candidates and not remote.failures
    a, b = table_rows(stores["local"]), table_rows(stores["dask"])
    assert a["candidates"] == b["candidates"] and a["parse_log"] == b["parse_log"]


def _square(state, x):
    if x == 3 and not os.path.exists(state["marker"]):   # the first worker to get 3 dies
        open(state["marker"], "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return state["k"] * x * x


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _make_doubler(arg):
    def handle(x):
        if x == "boom":
            raise ValueError("no number")
        return x * arg
    return handle


@pytest.mark.dask
def test_pools_keep_their_contracts_on_dask(cluster, tmp_path):
    marker = tmp_path / "killed"
    with DaskExecutor(client=cluster[1], chunk_size=2) as ex, use_executor(ex):
        # in task order, each once, though a worker died holding a task
        got = list(ordered_map(_square, list(range(7)), 2, state={"k": 3, "marker": str(marker)}))
        assert got == [3 * x * x for x in range(7)] and marker.exists()
        out = list(run_pool([1, 2, "boom", 4, 5], _make_doubler, 2, 2, lambda item, why: (item, why)))
    got = sorted(map(repr, out))
    # the failing item alone is reported (its chunk was split and rerun), the rest are doubled
    assert sorted(map(repr, [2, 4, 8, 10])) == sorted(g for g in got if "boom" not in g)
    (failed,) = [o for o in out if isinstance(o, tuple)]
    assert failed[0] == "boom" and failed[1].startswith("crash: ValueError: no number")


@pytest.mark.dask
def test_the_objective_on_the_workers_fits_the_local_model_bit_for_bit(cluster):
    rng = np.random.default_rng(3)
    sizes = rng.integers(2, 9, size=60)
    n = int(sizes.sum())
    X = sp.random(n, 40, density=0.2, random_state=4, format="csr")
    groups = np.repeat(np.arange(len(sizes)), sizes)
    y = np.zeros(n)
    y[np.cumsum(sizes) - sizes] = 1.0          # the first candidate of each sentence is consistent
    local = LogLinearRanker(sigma2=1.0, tol=1e-7, n_jobs=2).fit(X, y, groups)
    with DaskExecutor(client=cluster[1]) as ex, use_executor(ex):
        remote = LogLinearRanker(sigma2=1.0, tol=1e-7).fit(X, y, groups)
    assert remote.n_evaluations_ == local.n_evaluations_ > 2
    assert np.array_equal(remote.coef_, local.coef_) and remote.objective_ == local.objective_
    # a prior centred on a model's weights (retraining) is the same prior on the workers' side
    centre = rng.normal(size=40)
    local = LogLinearRanker(sigma2=1.0, tol=1e-7).fit(X, y, groups, prior_mean=centre)
    with DaskExecutor(client=cluster[1]) as ex, use_executor(ex):
        remote = LogLinearRanker(sigma2=1.0, tol=1e-7).fit(X, y, groups, prior_mean=centre)
    assert np.array_equal(remote.coef_, local.coef_) and remote.objective_ == local.objective_
    # minimum risk's objective has the same blocks: on the workers, the same model too
    from ranker.models.expected_f import ExpectedFRanker

    gain = rng.random(n)
    local = ExpectedFRanker(sigma2=1.0, tol=1e-7, n_jobs=2).fit(X, y, groups, gain=gain)
    with DaskExecutor(client=cluster[1]) as ex, use_executor(ex):
        remote = ExpectedFRanker(sigma2=1.0, tol=1e-7).fit(X, y, groups, gain=gain)
    assert remote.n_evaluations_ == local.n_evaluations_ > 2
    assert np.array_equal(remote.coef_, local.coef_) and remote.objective_ == local.objective_


def test_executor_keys_are_checked_before_any_work(tmp_path):
    ok = config_from_dict({"experiment": {"executor": "dask", "scheduler": "tcp://127.0.0.1:8786"}})
    assert (ok.experiment.executor, ok.experiment.scheduler) == ("dask", "tcp://127.0.0.1:8786")
    assert config_from_dict({}).experiment.executor == "local"
    bad = [({"executor": "spark"}, "unknown executor 'spark'"),
           ({"executor": "dask", "scheduler": "127.0.0.1:8786"}, "not a Dask scheduler address"),
           ({"scheduler": "tcp://127.0.0.1:8786"}, "needs executor = \"dask\"")]
    for experiment, message in bad:
        cfg = config_from_dict({"experiment": {**experiment, "store": str(tmp_path / "s.sqlite")}}, "c.toml")
        with pytest.raises(ConfigError, match=message) as e:
            validate_config(cfg)
        assert str(e.value).startswith("c.toml: [experiment]") and "\n" not in str(e.value)


def test_an_unreachable_scheduler_is_a_one_line_error():
    with pytest.raises(RankerError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        DaskExecutor(scheduler="tcp://127.0.0.1:9", timeout=1)


def test_without_the_dask_extra_the_dask_executor_is_a_one_line_config_error(tmp_path, monkeypatch, capsys):
    from ranker.cli.main import main

    monkeypatch.setitem(sys.modules, "distributed", None)   # what Python sees when it is not installed
    config = tmp_path / "c.toml"
    config.write_text(f'[experiment]\nexecutor = "dask"\nstore = "{tmp_path / "s.sqlite"}"\n')
    assert main(["run", str(config), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"ranker: error: {config}: [experiment] executor: the dask executor needs "
                          "the 'distributed' package") and "pip install 'ranker[dask]'" in err
    assert "\n" not in err and not (tmp_path / "s.sqlite").exists()
    with pytest.raises(RankerError, match="needs the 'distributed' package"):
        DaskExecutor()


@pytest.mark.dask
def test_the_objective_survives_a_worker_lost_between_evaluations(cluster):
    from ranker.models.distributed_objective import DistributedObjective
    from ranker.models.objective import ConditionalObjective

    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 6, size=40)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    X = sp.random(int(offsets[-1]), 30, density=0.3, random_state=6, format="csr")
    y = np.zeros(X.shape[0])
    y[offsets[:-1]] = 1.0
    local = ConditionalObjective(X, y, offsets, 1.0)
    remote = DistributedObjective(ConditionalObjective(X, y, offsets, 1.0), cluster[1])
    try:
        lam = rng.normal(size=30)
        assert remote(lam)[0] == local(lam)[0]
        victim = sorted(cluster[1].nthreads())[0]
        try:
            cluster[1].run(_die, workers=[victim])
        except Exception:   # the connection closes under the call
            pass
        deadline = time.monotonic() + 30
        while victim in cluster[1].nthreads() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert victim not in cluster[1].nthreads()
        lam = rng.normal(size=30)
        got, want = remote(lam), local(lam)
        assert got[0] == want[0] and np.array_equal(got[1], want[1])
    finally:
        remote.close()


def _make_gc_probe(_):
    return lambda item: (item, gc.isenabled())


def _gc_probe(state, task):
    return task, gc.isenabled()


@pytest.mark.dask
def test_dask_tasks_run_with_the_collector_paused_as_the_forked_workers_do(cluster):
    # the local pool's workers inherit `ranker run`'s paused collector; a Dask worker pauses it per task
    with DaskExecutor(client=cluster[1], chunk_size=2) as ex, use_executor(ex):
        pooled = sorted(run_pool(range(5), _make_gc_probe, None, 2, lambda item, why: (item, why)))
        mapped = list(ordered_map(_gc_probe, list(range(3)), 2, state=None))
    assert pooled == [(i, False) for i in range(5)] and mapped == [(i, False) for i in range(3)]
    # and only for the task: the worker's collector is on again afterwards
    assert set(cluster[1].run(gc.isenabled).values()) == {True}


def _worker_state(dask_worker) -> dict:
    return {"callbacks": {name: pc.callback_time for name, pc in dask_worker.periodic_callbacks.items()},
            "mmap_threshold": os.environ.get("MALLOC_MMAP_THRESHOLD_"),
            "log_levels": [h.level for h in logging.getLogger("distributed").handlers
                           if isinstance(h, logging.StreamHandler)]}


@pytest.mark.dask
def test_the_executors_own_local_cluster_parses_without_dasks_malloc_setting_and_background_sampling():
    import dask
    import distributed  # noqa: F401  (defines the distributed.* settings read below)

    before = {k: dask.config.get(k, None) for k in LOCAL_CLUSTER_CONFIG}
    with DaskExecutor(workers=1) as ex:
        (state,) = ex.client.run(_worker_state).values()
    # glibc keeps blocks below 32 MiB in the heap (Dask's MALLOC_TRIM_THRESHOLD_ alone would map each one)
    assert state["mmap_threshold"] == str(32 << 20)
    # no stack sampling every 10 ms, no event-loop tick every 20 ms (milliseconds below)
    assert "profile" not in state["callbacks"] and state["callbacks"]["tick"] == 1000
    # distributed's ERROR lines with tracebacks (a heartbeat timed out under load) never reach the
    # user's stderr: a failed task is ranker's to report (regression: test_apply's Dask run on a
    # loaded machine printed a heartbeat traceback)
    assert state["log_levels"] and all(level == logging.CRITICAL for level in state["log_levels"])
    assert {k: dask.config.get(k, None) for k in LOCAL_CLUSTER_CONFIG} == before   # this process's config untouched
