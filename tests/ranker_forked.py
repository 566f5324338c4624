"""``ranker ARGV`` in a process of its own, forked from the test process instead of started anew.

A ``python -m ranker.cli.main`` child spends most of a refused command's time starting the
interpreter and importing numpy, scipy and the command's modules again (0.5-1 CPU s a command; the
case tables run hundreds). A child forked from the test process has them imported already (what a
child imports, the test process imports after it, for the next) and is
otherwise what a user's command is: a process of its own with its own file descriptors, working
folder and exit status, killed (and the test failed) when it outlives ``timeout``, so a hang fails
one case and not the run. The child leads a process group of its own, and that whole group is
killed when the child outlives ``timeout`` or the test is stopped while it runs (the pool workers a
command started were left running at full speed when only the child was killed). The child's
garbage collector leaves the objects it inherits from the test process alone (``gc.freeze``), as a
process started anew has none: each collection the command makes (a stage's timer makes one) walked
the whole test process's heap, the pages it touched copied on write, about 0.8 CPU s of a 1.3 s
``ranker apply --store`` on 17 lists from a process of 800,000 objects. What the fork
cannot give, and the tests that need it keep a real
``subprocess`` for: a fresh interpreter's start (imports in their own order, ``__main__``),
another environment (``NLTK_DATA`` is read at import), and signals sent from outside.
"""
from __future__ import annotations

import gc
import importlib
import io
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback


def _import(names: list[str]) -> None:
    """Import here what a child imported, so that the next child has it (a module that cannot be
    imported twice or here is left to the children)."""
    for name in names:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except Exception:
                pass


def _kill_group(pid: int) -> None:
    """Kill the child ``pid`` and every process of its group, and reap the child."""
    for kill, target in ((os.killpg, pid), (os.kill, pid)):   # the group; the child, had it not made it yet
        try:
            kill(target, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.waitpid(pid, 0)


def _feed(fd: int, data: bytes) -> None:
    """Write ``data`` into the pipe ``fd`` and close it (a child that reads less ends the writing)."""
    try:
        with open(fd, "wb", closefd=True) as pipe:
            pipe.write(data)
    except BrokenPipeError:
        pass


def run_forked(argv, *, cwd=None, timeout: float = 600,
               input: str | bytes | None = None) -> subprocess.CompletedProcess:
    """Run ``ranker ARGV`` (:func:`ranker.cli.main.main`) in a forked child, as ``subprocess.run`` with
    ``capture_output=True, text=True, stdin=DEVNULL`` would (given ``input``, ``input=``: its standard
    input a pipe that ``input`` is written into): its stdout, stderr and exit status (``-N``
    when signal N ended it). Raises ``subprocess.TimeoutExpired`` after killing a child that outlives
    ``timeout`` seconds.
    """
    from ranker.cli.main import main   # imported once, here, not in every child

    argv = [str(a) for a in argv]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile("w+") as imported:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        feed = os.pipe() if input is not None else None
        pid = os.fork()
        if pid == 0:   # the child: never returns into the test process
            code = 1
            try:
                gc.freeze()        # the test process's objects are none of the command's: its collections skip them
                os.setpgid(0, 0)   # its workers in its group: killed with it
                if feed is None:
                    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                else:
                    os.dup2(feed[0], 0)
                    os.close(feed[0])
                    os.close(feed[1])
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8")
                sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
                sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                              errors="backslashreplace")
                signal.signal(signal.SIGINT, signal.default_int_handler)   # as a fresh interpreter has them
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                if cwd is not None:
                    os.chdir(cwd)
                sys.argv = ["ranker", *argv]
                known = set(sys.modules)
                try:
                    code = main(argv)
                finally:
                    imported.write("\n".join(sorted(set(sys.modules) - known)))
                    imported.flush()
            except SystemExit as e:   # argparse's errors and --help, as the interpreter ends on them
                if e.code is None or isinstance(e.code, int):
                    code = e.code or 0
                else:
                    print(e.code, file=sys.stderr)
                    code = 1
            except BaseException:     # an uncaught exception: the traceback a user would see
                traceback.print_exc()
                code = 1
            finally:
                try:
                    gc.collect()   # files the command left open are closed (flushed) as at an interpreter's exit
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code if isinstance(code, int) else 1)
        try:
            os.setpgid(pid, pid)   # as the child does: whichever comes first
        except (PermissionError, ProcessLookupError):   # the child did it and went on, or is gone
            pass
        writer = None
        if feed is not None:
            os.close(feed[0])
            data = input.encode() if isinstance(input, str) else input
            writer = threading.Thread(target=_feed, args=(feed[1], data), daemon=True)
            writer.start()
        deadline = time.monotonic() + timeout
        pause = 0.001
        try:
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    raise subprocess.TimeoutExpired(["ranker", *argv], timeout)
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
        except BaseException:   # out of time, or the test stopped (Ctrl-C): the child and its workers go
            _kill_group(pid)
            raise
        if writer is not None:
            writer.join()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
        imported.seek(0)
        _import(imported.read().split())
    # decoded as subprocess decodes text: universal newlines
    stdout, stderr = (b.decode().replace("\r\n", "\n").replace("\r", "\n") for b in (stdout, stderr))
    return subprocess.CompletedProcess(["ranker", *argv], os.waitstatus_to_exitcode(status), stdout, stderr)
