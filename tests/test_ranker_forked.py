"""The forked ``ranker`` of the command-line tests (:mod:`ranker_forked`) is what a process started anew is.

Each command here runs both ways, as ``python -m ranker.cli.main`` started anew and forked from
this process with its imports done: the exit status, stdout and stderr are the same, byte for
byte, for a refusal, argparse's error, a command's help and a command's output. A command that
hangs is killed at the time limit and fails its test.
"""
import os
import subprocess
import sys

import pytest
from ranker_forked import run_forked

pytestmark = pytest.mark.slow   # it starts processes, as the slow tests that use it do

GOLD = "(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))\n(S (NP (NNS Dogs)) (VP (VBP bark)) (. .))\n"
TEST = "(S (NP (DT The)) (VP (NN cat) (VBD sat)) (. .))\n(S (NP (NNS Dogs)) (VP (VBP bark)) (. .))\n"


def _started_anew(argv, cwd):
    return subprocess.run([sys.executable, "-m", "ranker.cli.main", *map(str, argv)], capture_output=True,
                          text=True, cwd=cwd, stdin=subprocess.DEVNULL, timeout=300)


@pytest.mark.parametrize("argv", [
    ["evalb", "gold.mrg"],                                                           # argparse: 2 lines
    ["evalb", "gold.mrg", "nosuch.mrg"],                                             # a refusal: 1 line
    ["apply", "--model", "nosuch.json", "--lists", "gold.mrg", "--out", "o.mrg"],    # a refusal: 1 line
    ["evaluate", "--help"],
    ["evalb", "gold.mrg", "test.mrg"],
    ["evaluate", "gold.mrg", "test.mrg", "--scheme", "parseval", "--format", "json"],
], ids=lambda argv: " ".join(argv[:2]))
def test_a_forked_command_exits_and_writes_as_one_started_anew(tmp_path, argv):
    (tmp_path / "gold.mrg").write_text(GOLD)
    (tmp_path / "test.mrg").write_text(TEST)
    anew = _started_anew(argv, tmp_path)
    forked = run_forked(argv, cwd=tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (anew.returncode, anew.stdout, anew.stderr)
    assert anew.stdout or anew.stderr


def test_a_hanging_command_is_killed_at_the_time_limit(tmp_path):
    fifo = tmp_path / "gold.mrg"
    os.mkfifo(fifo)        # opening it for reading waits for a writer that never comes
    with pytest.raises(subprocess.TimeoutExpired):
        run_forked(["evalb", fifo, fifo], timeout=2)


def test_a_hanging_command_is_killed_with_its_process_group(tmp_path):
    """Regression (issue 47, item 5): at the time limit only the child was killed, so the pool
    workers of a command that hung in them ran on, at full speed, after their test had failed. The
    child leads a process group of its own (its workers are in it), and the whole group is killed."""
    import threading

    import psutil

    fifo = tmp_path / "gold.mrg"
    os.mkfifo(fifo)
    seen = {}
    earlier = {kid.pid for kid in psutil.Process().children()}   # an earlier test's server or browser

    def look():   # the forked child while it hangs: its process group
        import time

        time.sleep(1)
        for kid in psutil.Process().children():
            if kid.pid not in earlier:
                seen[kid.pid] = os.getpgid(kid.pid)

    watcher = threading.Thread(target=look)
    watcher.start()
    with pytest.raises(subprocess.TimeoutExpired):
        run_forked(["evalb", fifo, fifo], timeout=3)
    watcher.join()
    assert seen and all(pgid == pid for pid, pgid in seen.items())   # each leads its own group
    for pgid in seen.values():
        with pytest.raises(ProcessLookupError):   # and no process of it is left
            os.killpg(pgid, 0)


def test_standard_input_is_a_pipe_fed_as_subprocess_feeds_it(tmp_path):
    """``input=``: the command reads it from a pipe, as from ``subprocess.run(input=...)`` (``ranker serve
    users add`` reads a password from a pipe: it refuses a short one before it writes anything)."""
    argv = ["serve", "users", "add", "ann", "--users", tmp_path / "u"]
    anew = subprocess.run([sys.executable, "-m", "ranker.cli.main", *map(str, argv)], input="short\n",
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    forked = run_forked(argv, cwd=tmp_path, input="short\n")
    assert (forked.returncode, forked.stdout, forked.stderr) == (anew.returncode, anew.stdout, anew.stderr)
    assert forked.returncode == 2 and "at least 8 characters" in forked.stderr
    got = run_forked(argv, cwd=tmp_path, input=b"a-long-secret\n" + b"x" * (1 << 20))   # more than a pipe holds
    assert got.returncode == 0 and "account ann" in got.stdout, got.stderr
