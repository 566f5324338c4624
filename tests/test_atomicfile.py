"""Issue 10: written outputs replace the old file only when complete (full disk, bad folder, permissions)."""
import os
import subprocess
import sys

import pytest

from ranker.atomicfile import atomic_write
from ranker.errors import RankerError


def test_write_trees_on_a_full_disk_keeps_the_old_file(tmp_path):
    """A real process whose file size limit (SIGXFSZ ignored) fails the write half-way, as a full disk does."""
    out = tmp_path / "selected.mrg"
    out.write_text("(S (NN old))\n")
    script = ("import resource, signal\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))\n"
              "from ranker.trees.penn import parse_tree, write_trees\n"
              "t = parse_tree('(S (NP (DT the) (NN dog)) (VP (VBZ barks)))')\n"
              f"write_trees({str(out)!r}, [t] * 500)\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 1
    assert f"RankerError: {out}: cannot write (File too large); the file was left as it was" in r.stderr
    assert out.read_text() == "(S (NN old))\n"
    assert [p.name for p in tmp_path.iterdir()] == ["selected.mrg"]


def test_an_error_inside_the_block_leaves_no_file_and_no_temporary(tmp_path):
    out = tmp_path / "x.txt"
    with pytest.raises(ValueError):
        with atomic_write(out) as f:
            f.write("half")
            raise ValueError("the input was bad")
    assert list(tmp_path.iterdir()) == []


def test_permissions_are_those_of_the_old_file_or_of_a_new_one(tmp_path):
    old = tmp_path / "old.txt"
    old.write_text("x")
    old.chmod(0o640)
    with atomic_write(old) as f:
        f.write("y")
    assert (old.read_text(), old.stat().st_mode & 0o777) == ("y", 0o640)
    mask = os.umask(0o022)
    try:
        with atomic_write(tmp_path / "new.txt") as f:
            f.write("z")
    finally:
        os.umask(mask)
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o644


def test_a_missing_folder_or_a_folder_in_the_way_is_one_error_naming_the_file(tmp_path):
    with pytest.raises(RankerError, match=r"nope/x\.txt: cannot write \(No such file or directory\)"):
        with atomic_write(tmp_path / "nope" / "x.txt") as f:
            f.write("z")
    (tmp_path / "dir").mkdir()
    with pytest.raises(RankerError, match=r"dir: is a folder, not a file"):
        with atomic_write(tmp_path / "dir") as f:
            f.write("z")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir"]
