"""Shared inputs of the pipeline tests that run on GUM: a folder holding a few of its documents, and
a store with the sentences of the two-treebank runs parsed."""
import shutil
from pathlib import Path

import pytest

_GUM = Path(__file__).resolve().parents[2].parent / "shared" / "gum" / "const"

#: The GUM documents the two-treebank runs read (tests/pipeline/test_treebanks.py,
#: test_copies_fronts.py): the first of the news, bio and fiction genres, which their globs
#: (``GUM_news_*`` etc.) select with a limit under a document's length, in GUM's whole folder too.
GUM_DOCUMENTS = ("GUM_news_afghan", "GUM_bio_bernoulli", "GUM_fiction_beast")

#: The splits of the two-treebank runs (test_treebanks.py's ``TWO``, test_copies_fronts.py's
#: ``PER_CORPUS``) and their Link Grammar options: ``(corpus options, split, limit)``. Each limit
#: is under its first document's length, so a limit of 8 or 12 selects the same whole document.
TWO_TREEBANK_SPLITS = tuple(
    [(("--corpus", "treebank"), split, "8") for split in ("wsj_0001-0004", "wsj_0140-0141", "wsj_0170-0171")]
    + [(("--corpus", "penn", "--corpus-name", "gum"), split, "12")
       for split in ("GUM_news_*", "GUM_bio_*", "GUM_fiction_*")])
TWO_TREEBANK_PARSE = ("--linkage-limit", "25", "--max-parse-time", "2.0")


@pytest.fixture(scope="session")
def gum_few(tmp_path_factory) -> Path:
    """A folder of :data:`GUM_DOCUMENTS` (copies of ``../shared/gum/const/*.ptb``), for ``[data]
    corpus = "penn"``: a run loads every file of its folder into the store, and loading all 237
    of GUM's (about 11,000 sentences, 15-25 s) to parse and train on three was most of a small
    run's corpus stage. The documents a run selects are the same files, so the same sentences.
    One folder for the whole run, shared by its xdist workers (:func:`run_once.built_once`), so a
    store built by one worker names the folder the other reads. Read-only."""
    from run_once import built_once

    def build(folder: Path) -> None:
        for name in GUM_DOCUMENTS:
            shutil.copy(_GUM / f"{name}.ptb", folder / f"{name}.ptb")

    return built_once(tmp_path_factory, "gum-few", build)


@pytest.fixture(scope="session")
def two_treebanks_parsed(tmp_path_factory, treebank_store, gum_few) -> Path:
    """A store holding the WSJ sample and :data:`GUM_DOCUMENTS` (corpus ``gum``) with the sentences
    of the two-treebank runs (:data:`TWO_TREEBANK_SPLITS`) parsed by Link Grammar with their
    options, as ``ranker parse`` stores them for a later ``ranker run --store``.

    Both runs (test_treebanks.py's ``two_run``, test_copies_fronts.py's ``run``) parsed the same
    213 sentences themselves, the largest stage of the smaller run; parsed once here for the whole
    test run (:func:`run_once.built_once`, shared by the xdist workers), each run parses none (its
    fixture checks the report's count) and works on what a run that parsed them would have stored.
    Read-only: each run copies it first."""
    from run_once import built_once

    from ranker.cli.main import main

    def build(folder: Path) -> None:
        store = folder / "s.sqlite"
        shutil.copy(treebank_store, store)   # the WSJ sample loaded: GUM's few files are loaded here
        # on every core: the other xdist worker may be waiting for it (results do not depend on it)
        for corpus, split, limit in TWO_TREEBANK_SPLITS:
            path = ("--path", str(gum_few)) if "penn" in corpus else ()
            argv = ["parse", "--store", str(store), *corpus, *path, "--split", split, "--limit", limit,
                    *TWO_TREEBANK_PARSE, "--workers", "0", "--no-progress"]
            assert main(argv) == 0, argv

    return built_once(tmp_path_factory, "two-treebanks-parsed", build) / "s.sqlite"


#: The job whose sentences :func:`tiny_parsed` parses: its named splits, ``[data] limit`` and
#: ``[parse]`` options are read from it, so the store and the runs cannot drift apart.
TINY = Path(__file__).resolve().parent / "configs" / "tiny.toml"


@pytest.fixture(scope="session")
def tiny_parsed(tmp_path_factory, treebank_store) -> Path:
    """A store holding the WSJ sample with the tiny job's sentences (:data:`TINY`'s splits and
    limit) parsed by Link Grammar with its ``[parse]`` options, as ``ranker parse`` stores them for
    a later ``ranker run --store``.

    The tiny runs of test_experiment.py and test_evidence_run.py parsed the same 47 sentences each;
    parsed once here for the whole test run (:func:`run_once.built_once`), each run parses none (its
    fixture checks the report's count) and works on what it would have stored. The Dask test
    (tests/test_dask_executor.py) still parses in both of its runs: the parse is part of what it
    compares. Read-only: each run copies it first."""
    from run_once import built_once

    from ranker.cli.main import main
    from ranker.pipeline.config import load_config

    cfg = load_config(TINY)

    def build(folder: Path) -> None:
        store = folder / "tiny.sqlite"
        shutil.copy(treebank_store, store)
        for split in (cfg.data.train, cfg.data.heldout, cfg.data.test):   # on every core, as above
            argv = ["parse", "--store", str(store), "--corpus", cfg.data.corpus, "--split", split,
                    "--limit", str(cfg.data.limit), "--linkage-limit", str(cfg.parse.linkage_limit),
                    "--max-parse-time", str(cfg.parse.max_parse_time), "--workers", "0", "--no-progress"]
            assert main(argv) == 0, argv

    return built_once(tmp_path_factory, "tiny-parsed", build) / "tiny.sqlite"
