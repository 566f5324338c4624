"""Where the shared real data lives for every test: the BLLIP n-best lists of the WSJ sample."""
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
    process does it once (issue 47, item 5). Read-only: a test that writes copies it first
    (``shutil.copy``, milliseconds)."""
    from ranker.pipeline.stages.corpus import load_corpus
    from ranker.store import Store

    path = tmp_path_factory.mktemp("treebank-store") / "treebank.sqlite"
    with Store.open(path) as st:
        load_corpus(st, "treebank")
    return path


#: The test files of the most test work, longest first (seconds from the end of the previous file
#: to the end of this one on its xdist worker, in a full run of ``-v --durations=0`` on a quiet
#: machine, 2026-11-29 session 22; issue 47). pytest-xdist gives each worker whole files
#: (``--dist loadfile``) in collection order (``--no-loadscope-reorder`` in pyproject: its default
#: order is by number of tests, which put these files of a few long tests last, so one worker
#: finished the longest alone while the other idled). Starting them first leaves the many short
#: files to fill both workers at the end. A file missing here only starts in its place;
#: ``test_the_long_files_exist`` keeps the list true.
LONG_FILES = (
    "tests/pipeline/test_copies_fronts.py",           # 324 s (the tail of that run: started at 628 s)
    "tests/cli/test_workflow_whole_split.py",         # 238 s, the README block on the whole split
    "tests/pipeline/test_evidence_run.py",            # 118 s
    "tests/cli/test_models_commands.py",              # 113 s
    "tests/cli/test_issue36_cases.py",                # 54 s
    "tests/pipeline/test_treebanks.py",               # 53 s
    "tests/pipeline/test_experiment.py",              # 49 s
    "tests/features/test_features.py",                # 44 s
    "tests/test_wheel.py",                            # 38 s
    "tests/serve/test_browser_job.py",                # 37 s
    "tests/cli/test_apply.py",                        # 36 s
    "tests/features/test_parser_scores.py",           # 35 s
    "tests/cli/test_issue44_apply_cases.py",          # 34 s
    "tests/pipeline/test_rule_grid.py",               # 33 s
    "tests/test_dask_executor.py",                    # 25 s
    "tests/pipeline/test_bllip_run.py",               # 25 s
    "tests/cli/test_issue44_run_cases.py",            # 24 s
    "tests/evaluation/test_schemes_native_every_evalb.py",      # the five: 80 s together
    "tests/evaluation/test_schemes_native_every_parseval.py",
    "tests/evaluation/test_schemes_native_every_mph.py",
    "tests/evaluation/test_schemes_native_every_deps.py",
    "tests/evaluation/test_schemes_native_every_flat.py",
)


def pytest_collection_modifyitems(config, items):
    """Run the files of :data:`LONG_FILES` first, each whole and in its own order (a stable sort)."""
    rank = {path: i for i, path in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
