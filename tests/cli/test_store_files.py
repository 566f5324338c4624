"""Issue 10: store files that cannot be used as asked end in one line and exit 2, and nothing is changed.

Read-only files and folders, another application's SQLite file, an empty file, a full disk
(``RLIMIT_FSIZE`` with SIGXFSZ ignored: the writes fail with EFBIG as on a full disk), a store
path under a regular file, a closed stdout pipe and ``export -o`` over an existing file. All are
real files and real processes.
"""
import io
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import pytest

import ranker.atomicfile  # noqa: F401  (imported before a reader process drops its rights)
import ranker.cli.importing  # noqa: F401  (ranker CMD imports only its own module, in the child)
import ranker.cli.store  # noqa: F401
import ranker.pipeline.forest_files  # noqa: F401
import ranker.pipeline.stages  # noqa: F401
import ranker.sources.nbest  # noqa: F401
import ranker.sources.treebank  # noqa: F401
from ranker.cli.main import build_parser, main
from ranker.store import Candidate, Sentence, Store
from ranker.trees.penn import parse_tree

NOBODY = 65534
build_parser()   # imports every command's modules while they can still be read (see _as_reader)


def _cli(*argv, limit_bytes=None, stdout=subprocess.PIPE, **kw):
    """``ranker ARGV`` in a new process, optionally with a file size limit (a full disk)."""
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run([sys.executable, "-m", "ranker.cli.main", *map(str, argv)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=dict(os.environ),
                          preexec_fn=limit if limit_bytes else None, **kw)


def _as_reader(*argv):
    """``ranker ARGV`` in a forked process without write permission to files it does not own.

    As root (CI containers) the child drops to user nobody, for whom modes 0444/0555 hold; as
    any other user the modes hold already. Returns (exit status, stdout, stderr).
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:   # pragma: no cover (runs in the child)
            code = 99
            try:
                sys.stdout = io.TextIOWrapper(os.fdopen(os.dup(out.fileno()), "wb"), encoding="utf-8")
                sys.stderr = io.TextIOWrapper(os.fdopen(os.dup(err.fileno()), "wb"), encoding="utf-8")
                if os.geteuid() == 0:
                    os.setgid(NOBODY)
                    os.setuid(NOBODY)
                code = main([str(a) for a in argv])
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode()


def _one_line_error(stderr: str, *parts: str) -> None:
    assert stderr.startswith("ranker: error: ") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in stderr
    for p in parts:
        assert p in stderr, stderr


TREE = "(S (NP (NN dogs)) (VP (VBP bark)))"


def _small_store(path: Path, n: int = 5) -> None:
    with Store.open(path) as st:
        st.add_sentences([Sentence(f"mine/d{i:04d}/0", "mine", f"d{i:04d}", 0, ("dogs", "bark"), ("NN", "VBP"))
                          for i in range(n)])
        st.add_candidates([Candidate(f"mine/d{i:04d}/0", "penn:x", r, parse_tree(TREE), "full", {})
                           for i in range(n) for r in range(3)])


@pytest.fixture
def shared_dir():
    """A folder every user may enter (pytest's own tmp folders are private to their owner)."""
    d = Path(tempfile.mkdtemp(prefix="ranker-ro-"))
    d.chmod(0o755)
    yield d
    for p in [d, *d.rglob("*")]:
        p.chmod(0o777) if p.is_dir() else None
    shutil.rmtree(d)


def _snapshot(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.slow
def test_reading_commands_refuse_another_applications_sqlite_file_without_touching_it(tmp_path):
    other = tmp_path / "app.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (body TEXT)")
    con.execute("INSERT INTO notes VALUES ('keep me')")
    con.commit()
    con.close()
    before = _snapshot(tmp_path)
    for argv in (["store", "stats", other], ["store", "export", other],
                 ["import", "--store", other, "--format", "penn", other]):   # a writing command too
        r = _cli(*argv)
        assert r.returncode == 2
        _one_line_error(r.stderr, str(other), "not a ranker store")
    assert _snapshot(tmp_path) == before   # no -wal, no -shm, same bytes
    assert sqlite3.connect(other).execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_stats_of_an_empty_file_is_an_error_and_the_file_stays_empty(tmp_path):
    empty = tmp_path / "s.sqlite"
    empty.touch()
    r = _cli("store", "stats", empty)
    assert r.returncode == 2
    _one_line_error(r.stderr, str(empty), "not a ranker store (empty file)")
    assert _snapshot(tmp_path) == {"s.sqlite": b""}


@pytest.mark.parametrize("read_only", ["file", "folder"])
def test_a_read_only_store_is_read_and_writes_to_it_are_refused(shared_dir, read_only):
    folder = shared_dir / "stores"
    folder.mkdir()
    folder.chmod(0o777)
    store = folder / "s.sqlite"
    _small_store(store)
    store.chmod(0o444)
    if read_only == "folder":
        folder.chmod(0o555)
    content = store.read_bytes()
    code, out, err = _as_reader("store", "stats", store, "--format", "json")
    assert (code, err) == (0, "")
    assert '"candidates": 15' in out
    code, out, err = _as_reader("store", "export", store, "--corpus", "mine")
    assert (code, err) == (0, "")
    assert out == f"{TREE}\n{TREE}\n{TREE}\n\n" * 5
    nbest = shared_dir / "x.mrg"
    nbest.write_text(TREE + "\n")
    nbest.chmod(0o644)
    code, out, err = _as_reader("import", "--store", store, "--format", "penn", "--corpus", "mine", nbest)
    assert code == 2
    _one_line_error(err, str(store), "read-only")
    assert store.read_bytes() == content


def _store_with_model(path: Path) -> None:
    """A small store holding one model chosen on held-out, as ranker train keeps it."""
    import numpy as np
    import scipy.sparse as sp

    from ranker.models import LogLinearRanker, save_model
    from ranker.pipeline.cache import MODEL_KIND

    _small_store(path)
    ranker = LogLinearRanker(sigma2=1.0).fit(sp.csr_matrix(np.eye(2)), np.array([1.0, 0.0]), np.array([0, 0]))
    save_model(path.parent / "m.json", ranker, ["a", "b"], {"name": "tiny"})
    with Store.open(path) as st:
        st.put_artifact(MODEL_KIND, "k1", (path.parent / "m.json").read_bytes(), {"trials": [[1.0, 50.0]]})
    (path.parent / "m.json").unlink()


READING = [["store", "stats", "{s}"], ["store", "export", "{s}", "--corpus", "mine"], ["models", "list", "--store", "{s}"],
           ["models", "export", "--store", "{s}", "--out", "{out}"], ["gold", "--store", "{s}", "--corpus", "mine",
                                                                       "--out", "{out}"]]


@pytest.mark.parametrize("argv", READING, ids=lambda a: " ".join(a[:2]))
def test_issue_24_a_reading_command_creates_no_file_beside_the_store(tmp_path, argv):
    folder = tmp_path / "stores"
    folder.mkdir()
    store = folder / "s.sqlite"
    _store_with_model(store)
    before = _snapshot(folder)
    assert list(before) == ["s.sqlite"]
    r = _cli(*[a.format(s=store, out=tmp_path / "out.txt") for a in argv])
    assert r.returncode in (0, 2) and "Traceback" not in r.stderr, r.stderr
    assert _snapshot(folder) == before   # no -wal, no -shm, same bytes


def test_issue_24_a_reading_command_beside_a_running_writer_reads_its_commits(tmp_path):
    """A writer at work keeps its -wal and -shm; a reader uses them and leaves them to the writer."""
    store = tmp_path / "s.sqlite"
    _small_store(store)
    with Store.open(store) as writer:
        with writer.batch():
            writer.add_sentences([Sentence("mine/late/0", "mine", "late", 0, ("dogs", "bark"), ("NN", "VBP"))])
        files = sorted(p.name for p in tmp_path.iterdir())
        assert files == ["s.sqlite", "s.sqlite-shm", "s.sqlite-wal"]
        r = _cli("store", "stats", store, "--format", "json")
        assert r.returncode == 0 and '"sentences": 6' in r.stdout, r.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]


def test_a_store_path_under_a_regular_file_is_a_one_line_error(tmp_path):
    (tmp_path / "plain").write_text("not a folder\n")
    r = _cli("import", "--store", tmp_path / "plain" / "sub" / "s.sqlite", "--format", "penn", tmp_path / "plain")
    assert r.returncode == 2
    _one_line_error(r.stderr, "plain is a file, not a folder")
    assert (tmp_path / "plain").read_text() == "not a folder\n"


@pytest.mark.parametrize("argv", [["store", "stats"], ["store", "export"]])
def test_output_into_a_closed_pipe_ends_quietly(tmp_path, argv):
    store = tmp_path / "s.sqlite"
    _small_store(store)
    read_end, write_end = os.pipe()
    os.close(read_end)   # the reader (`| head -1`) is gone before the first write
    try:
        r = _cli(*argv, store, *(["--corpus", "mine"] if argv[1] == "export" else []), stdout=write_end)
    finally:
        os.close(write_end)
    assert (r.returncode, r.stderr) == (0, "")


@pytest.mark.slow
def test_export_that_fails_leaves_the_output_file_as_it_was(tmp_path):
    store = tmp_path / "s.sqlite"
    _small_store(store, 1000)   # 111 KB of output
    out = tmp_path / "old.mrg"
    out.write_text("precious\n")
    r = _cli("store", "export", store, "--sentence", "no/such/0", "-o", out)
    assert r.returncode == 2
    _one_line_error(r.stderr, "no sentence 'no/such/0'")
    assert out.read_text() == "precious\n"
    # a full disk half-way through the output: the old file stays, no temporary file is left
    # (the limit leaves room for SQLite's 32 KB shared-memory file of a reader)
    r = _cli("store", "export", store, "--corpus", "mine", "-o", out, limit_bytes=40_000)
    assert r.returncode == 2
    _one_line_error(r.stderr, str(out), "File too large")
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("s.sqlite")) == ["old.mrg"]
    assert out.read_text() == "precious\n"
    assert _cli("store", "export", store, "--corpus", "mine", "-o", out).returncode == 0
    assert out.read_text() == f"{TREE}\n{TREE}\n{TREE}\n\n" * 1000


@pytest.mark.slow
def test_a_full_disk_while_storing_is_a_one_line_error_and_keeps_what_was_stored(tmp_path):
    store = tmp_path / "s.sqlite"
    _small_store(store)
    nbest = tmp_path / "x.mrg"
    nbest.write_text(TREE + "\n")
    # loading the treebank's 3,914 sentences needs megabytes; the limit allows 300 KB per file
    r = _cli("import", "--store", store, "--format", "penn", "--corpus", "treebank", nbest, limit_bytes=300_000)
    assert r.returncode == 2
    _one_line_error(r.stderr, str(store), "cannot write the store")
    with Store.open(store, readonly=True) as st:
        assert st.stats().corpora == {"mine": 5}
        assert st.stats().candidates == 15
    con = sqlite3.connect(store)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "page"])
def test_a_damaged_store_is_a_one_line_error(tmp_path, damage):
    store = tmp_path / "s.sqlite"
    _small_store(store, 300)
    data = bytearray(store.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2]
    else:   # the candidates table's root page, which the opening checks never read
        con = sqlite3.connect(store)
        root = con.execute("SELECT rootpage FROM sqlite_master WHERE name='candidates'").fetchone()[0]
        size = con.execute("PRAGMA page_size").fetchone()[0]
        con.close()
        data[(root - 1) * size:(root - 1) * size + 12] = b"\x07" * 12
    store.write_bytes(bytes(data))
    for argv in (["store", "stats", store], ["store", "export", store, "--corpus", "mine"]):
        r = _cli(*argv)
        assert r.returncode == 2
        _one_line_error(r.stderr, str(store), "damaged store file")
