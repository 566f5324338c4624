"""Issue 36, item 1: no command writes its output over the store (or a file SQLite or serve keeps beside it).

Every writing command, its output pointed at the store ``S``, its ``-wal``, ``-shm`` or
``-journal`` file or its users file ``S.users``, by another spelling, a symbolic link or a hard
link: one ``ranker: error:`` line, exit status 2, and every file of the store's folder
byte-identical afterwards (``gold --out S`` used to replace a store by its gold trees, exit 0).
"""
import os
from pathlib import Path

import pytest
from test_store_files import _small_store

from ranker.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SPLIT = ["--corpus", "mine", "--split", "d0000-0004"]

#: Every command that writes a file: its argv ({s} the store, {o} the output) and the option named
#: in the refusal, whose first (only) stderr line is ``ranker: error: {o}: OPTION would overwrite ...``.
WRITERS = {
    "gold": (["gold", "--store", "{s}", *SPLIT, "--out", "{o}"], "--out"),
    "select": (["select", "--store", "{s}", *SPLIT, "--ranker", "native", "--out", "{o}"], "--out"),
    "store export": (["store", "export", "{s}", "--corpus", "mine", "-o", "{o}"], "--output"),
    "store backup": (["store", "backup", "{s}", "{o}"], "the backup"),
    "models export": (["models", "export", "--store", "{s}", "--out", "{o}"], "--out"),
    "train": (["train", "--store", "{s}", *SPLIT, "--sigma2", "1", "--out", "{o}"], "--out"),
    "annotate --export": (["annotate", "--store", "{s}", "--kind", "user", "--export", "{o}"], "--export"),
    "run --out": (["run", str(ROOT / "configs" / "quickstart.toml"), "--store", "{s}", "--out", "{o}"], "--out"),
    "serve users add --users": (["serve", "users", "add", "erin", "--store", "{s}", "--users", "{o}"], "--users"),
}

#: Where the output points (a path in the store's folder, made by ``make(folder)``), and what it is.
TARGETS = {
    "the store": (lambda d: d / "s.sqlite", "the store {s} itself"),
    "its -wal": (lambda d: d / "s.sqlite-wal", "the write-ahead log of the store {s}"),
    "its -shm": (lambda d: d / "s.sqlite-shm", "the shared-memory index of the store {s}"),
    "its -journal": (lambda d: d / "s.sqlite-journal", "the rollback journal of the store {s}"),
    "its users file": (lambda d: d / "s.sqlite.users", "the users file of the store {s}"),
    "another spelling": (lambda d: d / "sub" / ".." / "s.sqlite", "the store {s} itself"),
    "a symbolic link": (lambda d: _symlink(d / "link.sqlite", "s.sqlite"), "the store {s} itself"),
    "a hard link": (lambda d: _hardlink(d / "hard.sqlite", d / "s.sqlite"), "the store {s} itself"),
}


def _symlink(link: Path, to: str) -> Path:
    link.symlink_to(to)
    return link


def _hardlink(link: Path, to: Path) -> Path:
    os.link(to, link)
    return link


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> bytes:
    """The bytes of a five-sentence store with three candidates each (corpus mine, d0000-d0004)."""
    path = tmp_path_factory.mktemp("small") / "s.sqlite"
    _small_store(path)
    return path.read_bytes()


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): (p.is_symlink(), None if p.is_dir() else p.read_bytes())
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("command, target", [
    (c, t) for c in WRITERS for t in TARGETS
    if not (t == "its users file" and c == "serve users add --users")])   # the file --users is for
def test_a_writing_command_refuses_an_output_that_is_the_store(small_store, tmp_path, monkeypatch, capsys,
                                                                command, target):
    argv, option = WRITERS[command]
    make, what = TARGETS[target]
    folder = tmp_path / "stores"
    (folder / "sub").mkdir(parents=True)
    store = folder / "s.sqlite"
    store.write_bytes(small_store)
    for companion in ("-wal", "-shm", "-journal", ".users"):   # as a server at work keeps them
        Path(f"{store}{companion}").write_bytes(f"the store's {companion} file\n".encode())
    out = make(folder)
    before = _snapshot(folder)
    monkeypatch.setattr("sys.stdin", open(os.devnull))   # serve users add reads no password
    code = main([a.format(s=store, o=out) for a in argv])
    err = capsys.readouterr().err
    assert (code, err) == (2, f"ranker: error: {out}: {option} would overwrite {what.format(s=store)}; give "
                              "another path (nothing was written)\n")
    assert _snapshot(folder) == before


@pytest.mark.parametrize("command", ["gold", "store export", "store backup"])
def test_an_output_beside_the_store_is_written(small_store, tmp_path, capsys, command):
    """Only the store's own files are refused: a name that merely starts like them is written."""
    store = tmp_path / "s.sqlite"
    store.write_bytes(small_store)
    out = tmp_path / "s.sqlite-wal.mrg"
    assert main([a.format(s=store, o=out) for a in WRITERS[command][0]]) == 0, capsys.readouterr().err
    assert out.stat().st_size > 0 and store.read_bytes() == small_store
