"""A small real store for the web tests: real BLLIP 50-best lists of a few WSJ documents, a real model.

Built once per test session with the ``ranker`` commands themselves (import, annotate, counts,
train with sigma^2 chosen on held-out, so the model is kept in the store as ``ranker run`` keeps
it); every test module gets its own copy, so decisions made by one never leak into another.
"""
import shutil
import socket
import threading
from pathlib import Path

import pytest
from nbest_slices import cut_lists
from serve_team import RANGES, team_users  # noqa: F401  (the fixtures' own, and the tests')

DOCS = {"train": ("wsj_0001", "wsj_0002"), "heldout": ("wsj_0140", "wsj_0140"), "test": ("wsj_0170", "wsj_0170")}


def _ranker(*argv: str) -> None:
    from ranker.cli.main import main

    assert main(list(argv)) == 0, argv


def _build(work: Path, bllip_lists: Path, treebank_store: Path) -> Path:
    """The store of the module docstring in ``work`` (beside the lists it was made of), begun as a
    copy of the session's ``treebank_store`` (tests/conftest.py): ``ranker import --corpus treebank``
    loads the corpus into a store that lacks it, most of the import's time, and a test process of the
    whole suite has loaded it once already."""
    files = []
    for split in DOCS:
        cut_lists(bllip_lists, split, DOCS[split], work / f"{split}.nbest")
        files.append(str(work / f"{split}.nbest"))
    store = str(work / "store.sqlite")
    shutil.copy(treebank_store, store)
    _ranker("import", "--store", store, "--format", "bllip", "--source", "bllip", "--corpus", "treebank", *files)
    _ranker("annotate", "--store", store, "--kind", "riezler")
    for split in ("heldout", "test"):
        _ranker("counts", "--store", store, "--split", RANGES[split], "--workers", "1")
    _ranker("train", "--store", store, "--split", RANGES["train"], "--heldout", RANGES["heldout"],
            "--sigma2-grid", "0.1", "1", "--workers", "1", "--no-progress", "--out", str(work / "model.json"))
    return Path(store)


@pytest.fixture(scope="session")
def built_store(tmp_path_factory, bllip_lists, treebank_store) -> Path:
    """The store of the module docstring, read-only (a test that writes copies it first), with the
    lists it was made of beside it: built once a run, shared by its pytest-xdist workers
    (:func:`run_once.built_once`; issue 47, item 5)."""
    from run_once import built_once

    def build(work: Path) -> None:
        _build(work, bllip_lists, treebank_store)

    return built_once(tmp_path_factory, "serve-store", build) / "store.sqlite"


@pytest.fixture(scope="module")
def store_path(built_store, tmp_path_factory) -> Path:
    """This module's own copy of the built store."""
    path = tmp_path_factory.mktemp("store") / "store.sqlite"
    shutil.copy(built_store, path)
    return path


@pytest.fixture(scope="module")
def test_sentence(store_path) -> str:
    """The first test-split sentence with at least 20 candidates and a gold tree."""
    from ranker.store import Store

    with Store.open(store_path, readonly=True) as st:
        for s in st.sentences("treebank", "test"):
            if len(st.candidate_texts(s.id)) >= 20 and st.gold(s.id) is not None:
                return s.id
    raise AssertionError("no test sentence with 20 candidates in the built store")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """The real application on 127.0.0.1 in a thread of this process (Werkzeug's threaded server)."""

    #: How often the serving loop looks for :meth:`close`'s stop (its default, half a second, was
    #: most of each of the browser tests' teardowns: about twenty servers a run).
    POLL = 0.02

    def __init__(self, app):
        from werkzeug.serving import make_server

        self.server = make_server("127.0.0.1", free_port(), app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(self.POLL,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def empty_team_tables(store_path):
    """After the test, no decision, verdict or adjudication is left in the module's store."""
    import sqlite3

    yield
    con = sqlite3.connect(store_path)
    for table in ("decisions", "verdicts", "adjudications"):
        con.execute(f"DELETE FROM {table}")
    con.commit()
    con.close()


@pytest.fixture(scope="session")
def live_server_class():
    """:class:`LiveServer` for tests that serve an application of their own (a test module importing
    ``conftest`` may get another folder's conftest, whichever was imported first)."""
    return LiveServer


@pytest.fixture(scope="session")
def browser_pool():
    """The test process's Chromiums (:class:`serve_browser.BrowserPool`), quit at its end."""
    from serve_browser import BrowserPool

    pool = BrowserPool()
    yield pool
    pool.close()


@pytest.fixture
def browsers(browser_pool):
    """``of(name)``: this test's browser of that name (ann, bob, boss), with no cookie (the pool's)."""
    return browser_pool.lend()


@pytest.fixture(scope="module")
def live_server(store_path):
    from ranker.serve.app import create_app

    srv = LiveServer(create_app(store_path))
    yield srv
    srv.close()


#: A label no treebank has, with every character an HTML form, a URL or a key could trip on.
ODD_LABEL = "NP&<X/:Y%26'\""


@pytest.fixture
def odd_label() -> str:
    return ODD_LABEL


@pytest.fixture
def odd_label_server(odd_label_store):
    """The real application on :func:`odd_label_store`, served on 127.0.0.1."""
    from ranker.serve.app import create_app

    srv = LiveServer(create_app(odd_label_store))
    yield srv
    srv.close()


@pytest.fixture
def odd_label_store(built_store, tmp_path, test_sentence):
    """A copy of the built store where the first candidate of ``test_sentence`` calls its first NP
    :data:`ODD_LABEL`: a real stored forest whose discriminants include that label."""
    from ranker.store import Store
    from ranker.store.store import penn_text
    from ranker.trees.penn import parse_tree

    path = tmp_path / "odd.sqlite"
    shutil.copy(built_store, path)
    with Store.open(path) as st:
        forest = st.forest(test_sentence)
        first = forest.candidates[0]
        text = penn_text(first.tree)
        assert "(NP " in text
        odd = first._replace(tree=parse_tree(text.replace("(NP ", f"(NP{ODD_LABEL[2:]} ", 1)))
        st.replace_forest(test_sentence, first.source, [odd, *forest.candidates[1:]])
    return path


