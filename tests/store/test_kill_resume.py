"""A parse killed with SIGKILL keeps its committed batches; a rerun ends equal to an uninterrupted run."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

ARGS = ["--split", "train", "--limit", "60", "--workers", "1", "--linkage-limit", "20",
        "--batch-size", "3", "--no-progress"]


def _parse(store):
    return subprocess.Popen([sys.executable, "-m", "ranker.cli.main", "parse", "--store", str(store), *ARGS],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(x) for x in f.read().split()]


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's exit status may wait for a reaper that never comes)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _logged(store) -> int:
    try:
        con = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
        try:
            return con.execute("SELECT COUNT(*) FROM parse_log").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0   # tables not created yet


def _content(store):
    con = sqlite3.connect(store)
    try:
        cands = con.execute("SELECT * FROM candidates ORDER BY sentence_id, source, rank").fetchall()
        log = con.execute("SELECT sentence_id, source, status, detail, candidates, unmapped "
                          "FROM parse_log ORDER BY sentence_id").fetchall()
        dups = con.execute("SELECT COUNT(*) FROM (SELECT sentence_id, source, rank, COUNT(*) c FROM candidates "
                           "GROUP BY 1, 2, 3 HAVING c > 1)").fetchone()[0]
    finally:
        con.close()
    return cands, log, dups


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_sigkill_then_rerun_equals_an_uninterrupted_run(tmp_path):
    killed, clean = tmp_path / "killed.sqlite", tmp_path / "clean.sqlite"
    p = _parse(killed)
    deadline = time.time() + 120
    while _logged(killed) < 6 and p.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert p.poll() is None, "the run finished before it could be killed; make it longer"
    workers = _children(p.pid)
    assert workers, "the parse runs Link Grammar in a worker process"
    p.send_signal(signal.SIGKILL)
    p.wait()
    # the orphaned workers read EOF on their pipes and end instead of waiting forever
    deadline = time.time() + 60
    while any(_running(w) for w in workers) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(_running(w) for w in workers)
    partial = _logged(killed)
    assert 6 <= partial < 60
    cands, log, dups = _content(killed)
    # every logged sentence has its whole forest: nothing half-written
    per_sentence = {}
    for row in cands:
        per_sentence[row[0]] = per_sentence.get(row[0], 0) + 1
    assert all(per_sentence.get(sid, 0) == n for sid, _, _, _, n, _ in log)
    assert set(per_sentence) <= {r[0] for r in log}

    rerun = _parse(killed)
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()
    assert f"({partial} already stored)" in out.decode()
    uninterrupted = _parse(clean)
    assert uninterrupted.communicate(timeout=300)[1] is not None and uninterrupted.returncode == 0
    a, b = _content(killed), _content(clean)
    from ranker.pipeline.splits import select_split
    from ranker.store import Store
    with Store.open(clean) as st:   # --limit 60: the first whole documents holding 60 sentences
        n = len(select_split(st, "treebank", "train", 60).sentences)
    assert a[2] == 0 and len(a[1]) == n and 60 <= n < 80
    assert a[0] == b[0] and a[1] == b[1]
