"""``ranker apply --parts DIR``: a long apply cut short resumes where it stopped (issue 38).

Reranking a large corpus takes hours; a run that is killed (a machine restarted, a job's time
limit) should not start again from the first list. With ``--parts DIR`` each finished partition's
output and a record of what it was made from stay in DIR until the whole output is written; a
rerun with the same DIR applies only the partitions not finished there for this model and input,
and writes the bytes one uninterrupted process writes.
"""
from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time

import pytest
from test_apply import _big_input, _ok, _one_error, _ranker

pytestmark = pytest.mark.slow


def _skipped(got) -> list[str]:
    return [x for x in got.stderr.splitlines() if x.startswith("ranker: skipped:")]


def test_a_run_killed_midway_resumes_and_writes_what_one_process_writes(bllip, tmp_path):
    work, _, files = bllip
    big, _ = _big_input(files, tmp_path, copies=4)
    argv = ["apply", "--model", work / "model.json", "--lists", big, "--no-progress", "--partition-mb", "0.1",
            "--chunk", "2"]
    one = _ranker(*argv, "--workers", "1", "--out", tmp_path / "one.mrg")
    assert one.returncode == 1 and len(_skipped(one)) == 1   # the broken list of _big_input
    parts = tmp_path / "parts"
    proc = subprocess.Popen([sys.executable, "-m", "ranker.cli.main", *map(str, argv), "--workers", "1",
                             "--parts", parts, "--out", tmp_path / "resumed.mrg"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    while not (parts.is_dir() and len(list(parts.glob("part-*.json"))) >= 2):
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)   # the command and its pool's worker, mid-partition
    proc.wait()
    assert not (tmp_path / "resumed.mrg").exists()
    finished = len(list(parts.glob("part-*.json")))
    again = _ranker(*argv, "--workers", "2", "--parts", parts, "--out", tmp_path / "resumed.mrg")
    assert again.returncode == 1 and "Traceback" not in again.stderr
    total = int(again.stderr.split(" partitions were finished")[0].rsplit(" of ", 1)[1])
    assert f"ranker: {finished} of {total} partitions were finished in {parts}" in again.stderr
    assert 2 <= finished < total
    assert (tmp_path / "resumed.mrg").read_bytes() == (tmp_path / "one.mrg").read_bytes()
    # the skipped list is counted whether its partition ran now or before the kill
    assert _skipped(again) == _skipped(one)
    assert again.stdout == one.stdout.replace("one.mrg", "resumed.mrg")
    assert not parts.exists()   # the output is whole: the parts are gone


def test_a_partition_that_broke_is_the_only_one_applied_again(bllip, tmp_path):
    work, _, files = bllip
    want = (work / "selected.mrg").read_text()
    data = gzip.compress(files["test"].read_bytes())
    middle = tmp_path / "b.nbest.gz"
    middle.write_bytes(data[: len(data) * 2 // 3])
    (tmp_path / "a.nbest").write_bytes(files["test"].read_bytes())
    (tmp_path / "c.nbest").write_bytes(files["test"].read_bytes())
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "notes.txt").write_text("the user's own file")
    argv = ["apply", "--model", work / "model.json", "--lists", tmp_path / "a.nbest", middle, tmp_path / "c.nbest",
            "--no-progress", "--workers", "1", "--parts", parts, "--out", tmp_path / "best.mrg"]
    first = _ranker(*argv)
    assert first.returncode == 1 and f"ranker: error: {middle}: cannot be read after list " in first.stderr
    assert f"ranker: the finished partitions stay in {parts}" in first.stderr
    assert sorted(p.name for p in parts.iterdir()) == ["notes.txt", "part-000000.json", "part-000000.mrg",
                                                        "part-000001.mrg", "part-000002.json", "part-000002.mrg"]
    middle.write_bytes(data)   # the file mended (copied again whole)
    again = _ok(_ranker(*argv))
    assert f"ranker: 2 of 3 partitions were finished in {parts} by an earlier run: applying the other 1" \
        in again.stderr
    assert (tmp_path / "best.mrg").read_text() == want * 3
    assert [p.name for p in parts.iterdir()] == ["notes.txt"]   # ours removed, the user's kept


def test_another_model_or_input_makes_every_part_again(bllip, tmp_path):
    work, _, files = bllip
    want = (work / "selected.mrg").read_text()
    data = gzip.compress(files["test"].read_bytes())
    (tmp_path / "a.nbest").write_bytes(files["test"].read_bytes())
    cut = tmp_path / "b.nbest.gz"
    cut.write_bytes(data[: len(data) // 2])
    parts = tmp_path / "parts"
    model = tmp_path / "model.json"
    model.write_bytes((work / "model.json").read_bytes())
    argv = ["apply", "--model", model, "--lists", tmp_path / "a.nbest", cut, "--no-progress", "--workers", "1",
            "--parts", parts, "--out", tmp_path / "best.mrg"]
    assert _ranker(*argv).returncode == 1 and (parts / "part-000000.json").is_file()
    model.write_bytes((work / "model.json").read_bytes() + b"\n")   # another model file
    cut.write_bytes(data)
    again = _ok(_ranker(*argv))
    assert "partitions were finished" not in again.stderr
    assert (tmp_path / "best.mrg").read_text() == want * 2


def test_parts_need_files_and_a_folder(bllip, tmp_path):
    work, _, files = bllip
    (tmp_path / "afile").write_text("x")
    _one_error(_ranker("apply", "--model", work / "model.json", "--lists", "-", "--parts", tmp_path / "p",
                       "--out", tmp_path / "o.mrg"), "--parts", "standard input")
    _one_error(_ranker("apply", "--model", work / "model.json", "--lists", files["test"], "--parts",
                       tmp_path / "afile", "--out", tmp_path / "o.mrg"), "afile", "not a folder")
