"""Where the shared real data lives for every test: the BLLIP n-best lists of the WSJ sample."""
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def bllip_lists() -> Path:
    """``../shared/nbest/bllip-wsj-sample``: the shared data sit beside the project folder."""
    p = _ROOT.parent / "shared" / "nbest" / "bllip-wsj-sample"
    if (p / "nbest-test.txt.gz").is_file():
        return p
    raise FileNotFoundError("the BLLIP lists of the WSJ sample are not in ../shared/nbest/bllip-wsj-sample")


@pytest.fixture(scope="session")
def gum_sentence():
    """A function giving sentence ``index`` of a GUM document (``../shared/gum/const``) with its gold tags."""
    from ranker.sources.penn_files import file_trees
    from ranker.store.records import Sentence

    def get(document: str, index: int) -> Sentence:
        tree = list(file_trees(_ROOT.parent / "shared" / "gum" / "const" / f"{document}.ptb"))[index]
        return Sentence(f"gum/{document}/{index}", "gum", document, index, tuple(tree.words), tuple(tree.tags()))

    return get


@pytest.fixture(scope="session")
def treebank_store(tmp_path_factory) -> Path:
    """A store holding NLTK's WSJ sample (corpus ``treebank``, with its dependency gold), as every
    run on it loads it first: loading it is most of a tiny run's time (about 7 s idle), so a test
    run does it once, shared by its workers (:func:`run_once.built_once`; issue 47, item 5).
    Read-only: a test that writes copies it first (``shutil.copy``, milliseconds)."""
    from run_once import built_once

    from ranker.pipeline.stages.corpus import load_corpus
    from ranker.store import Store

    def build(folder: Path) -> None:
        with Store.open(folder / "treebank.sqlite") as st:
            load_corpus(st, "treebank")

    return built_once(tmp_path_factory, "treebank-store", build) / "treebank.sqlite"


#: The test files of the most test work, longest first (seconds from the end of the previous file
#: to the end of this one on its xdist worker, in a full run of ``-v --durations=0`` on a quiet
#: machine, 2026-11-29 session 22, and session 23's cuts measured in one process; issue 47). pytest-xdist gives each worker whole files
#: (``--dist loadfile``) in collection order (``--no-loadscope-reorder`` in pyproject: its default
#: order is by number of tests, which put these files of a few long tests last, so one worker
#: finished the longest alone while the other idled). Starting them first leaves the many short
#: files to fill both workers at the end. A file missing here only starts in its place;
#: ``test_the_long_files_exist`` keeps the list true.
LONG_FILES = (
    "tests/cli/test_workflow_whole_split.py",         # 228 s, the README block on the whole split
    "tests/pipeline/test_treebanks.py",               # the pipeline files: session 23's one-process
    "tests/pipeline/test_copies_fronts.py",           # figures (loaded): 67, 47, 36 s
    "tests/pipeline/test_experiment.py",
    "tests/features/test_features.py",                # 44 s
    "tests/test_wheel.py",                            # 38 s
    "tests/serve/test_browser_job.py",                # 37 s
    "tests/cli/test_apply.py",                        # 36 s before session 23's cut
    "tests/features/test_parser_scores.py",           # 35 s
    "tests/cli/test_issue44_apply_cases.py",          # 34 s
    "tests/pipeline/test_rule_grid.py",               # 30 s
    "tests/pipeline/test_bllip_run.py",               # 29 s
    "tests/test_dask_executor.py",                    # 25 s
    "tests/cli/test_issue44_run_cases.py",            # 24 s
    "tests/evaluation/test_schemes_native_every_evalb.py",      # the five: 80 s together
    "tests/evaluation/test_schemes_native_every_parseval.py",
    "tests/evaluation/test_schemes_native_every_mph.py",
    "tests/evaluation/test_schemes_native_every_deps.py",
    "tests/evaluation/test_schemes_native_every_flat.py",
    "tests/pipeline/test_evidence_run.py",            # 16 s after session 23's cut
)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Each test with the objects the earlier tests left frozen (``gc.freeze``, for the rest of the
    worker's life).

    The pipeline collects cycles itself, after every stage of a run and every chunk of features: in
    a command's own process that scans what the command made, but in a pytest-xdist worker it
    scanned every object the worker's earlier tests had left too (millions late in a run: a select
    of 9 sentences took 40 s in a CI run where it takes 3 s alone; issue 47, item 5). Frozen, the
    collector skips them, as :mod:`ranker_forked`'s children do; what a test makes it collects as
    before (a test's weak references and ``gc.get_objects`` see the objects made in it). Nothing is
    unfrozen: a collection of the whole worker every 25 tests cost 3.5 s each (310 s of a CI run's
    test work), and unfrozen between tests, a full collection the allocation counts start there
    would scan everything again. The price is the cycles a test leaves at its end, kept until the
    worker exits (the workers' resident sizes are in benchmarks/README.md).
    """
    gc.freeze()
    yield


def pytest_collection_modifyitems(config, items):
    """Run the files of :data:`LONG_FILES` first, each whole and in its own order (a stable sort)."""
    rank = {path: i for i, path in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


#: What compiles each of numba's two kernel sets on a fresh clone (the kernels keep their machine
#: code in ``__pycache__``, ``cache=True``): the objective's and the difference rows' loops, and the
#: feature families' naming loops. Each is a set of this suite's own tests, the code paths and
#: argument types the rest of the suite calls them with; the index file is the one sign that its
#: set is compiled already.
KERNEL_SETS = (
    (("tests/models/test_numba_kernels.py", "tests/models/test_delta.py"),
     "ranker/matrices/__pycache__/numba_kernels.block4-*.nbi", "ranker/matrices/numba_kernels.py"),
    (("tests/features/test_compiled.py", "-k", "reranker and one_matrix"),
     "features/__pycache__/name_kernels.forest_columns-*.nbi", "features/name_kernels.py"),
)


def _compiled(index_glob: str, source: str) -> bool:
    """Whether a kernel set's machine code is on disk and newer than its source."""
    built = list(_ROOT.glob(index_glob))
    return bool(built) and min(p.stat().st_mtime for p in built) >= (_ROOT / source).stat().st_mtime


def pytest_configure(config):
    """On a fresh clone, compile numba's two kernel sets once, side by side, before the workers start.

    Left to first use, every pytest-xdist worker compiled both sets itself (about 115 CPU s a worker:
    ``block4`` 21 s, ``forest_columns`` 15 s, the naming loops 60 s more), as did every ``ranker``
    command a test started before a worker had written the cache. Compiled once here, in two
    processes on the two cores, the workers and the commands read the machine code from
    ``__pycache__`` (issue 47, item 5). Only in a run with workers, and only when a set's code is
    missing or older than its source: a warm clone starts at once. The two runs are this suite's own
    tests, their results thrown away (the real run reports them).
    """
    if hasattr(config, "workerinput") or os.environ.get("RANKER_WARMING_KERNELS"):
        return
    if not config.getoption("numprocesses", None):
        return
    try:
        import numba  # noqa: F401
    except ModuleNotFoundError:
        return
    cold = [args for args, index, source in KERNEL_SETS if not _compiled(index, source)]
    if not cold:
        return
    start = time.monotonic()
    env = {**os.environ, "RANKER_WARMING_KERNELS": "1"}
    with tempfile.TemporaryDirectory(prefix="ranker-warm-") as tmp:
        runs = [subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                                  "--basetemp", str(Path(tmp) / str(i)), *args],
                                 cwd=_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for i, args in enumerate(cold)]
        for run in runs:
            run.wait()
    sys.stderr.write(f"numba's kernels compiled for this clone in {time.monotonic() - start:.0f} s\n")
