"""``ranker evalb``: EVALB's report on stdout, EVALB's error lines, and bad input as one-line errors."""
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ranker.cli.main import main

GOLD = "(S (NP (DT a) (NN b)) (VP (VB c)))\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_report_and_exit_status(tmp_path, capsys):
    g = write(tmp_path, "g", GOLD * 3)
    t = write(tmp_path, "t", GOLD + "\n" + GOLD.replace("(NN b)", "(NN z)"))
    assert main(["evalb", "-p", "COLLINS", g, t]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[3] == "   1    3    0  100.00 100.00     3      3    3      0      3     3   100.00"
    assert "Number of Error sentence  =      1" in out and "Number of Skip  sentence  =      1" in out
    assert err == "3 : Words unmatch (b|z)\n"


def test_max_error_abort_prints_no_summary(tmp_path, capsys):
    bad = GOLD.replace("(NN b)", "(NN z)")
    g = write(tmp_path, "g", GOLD * 14)
    t = write(tmp_path, "t", GOLD + bad * 13)
    assert main(["evalb", "-p", "COLLINS", g, t]) == 1
    out, err = capsys.readouterr()
    assert "Summary" not in out
    # EVALB stops at the error after MAX_ERROR + 1 = 11 counted ones: the 12th, on line 13
    assert len(out.splitlines()) == 3 + 12 and err.splitlines()[-1].startswith("13 : ")


def test_bad_input_is_one_line(tmp_path, capsys):
    g = write(tmp_path, "g", GOLD * 2)
    cases = [
        ([g, write(tmp_path, "t1", GOLD)], "has 2 lines but"),
        ([g, write(tmp_path, "t2", GOLD + "(S (NP (DT a) (NN b)) (VP (VB c))\n")], "t2:2:1: unclosed"),
        (["-p", write(tmp_path, "x.prm", "LABELD 1\n"), g, g], "x.prm:1: unknown key 'LABELD'"),
        (["-p", write(tmp_path, "y.prm", "\nLABELED yes\n"), g, g], "y.prm:2: LABELED needs a non-negative"),
        (["-p", write(tmp_path, "z.prm", "MAX_ERROR ten\n"), g, g], "z.prm:1: MAX_ERROR needs a non-neg"),
        ([g, str(tmp_path / "missing")], "missing: no such file"),
    ]
    for argv, what in cases:
        assert main(["evalb"] + argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and what in err and err.startswith("ranker: error:")


@pytest.mark.slow
def test_as_a_real_command(tmp_path):
    g = write(tmp_path, "g", GOLD)
    r = subprocess.run([sys.executable, "-m", "ranker.cli.main", "evalb", g, str(tmp_path / "nope")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "nope: no such file" in r.stderr
    r = subprocess.run([sys.executable, "-m", "ranker.cli.main", "evalb", g, g],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "Bracketing FMeasure       = 100.00" in r.stdout


def test_issue_10_non_utf8_input_names_the_right_file(tmp_path, capsys):
    g = write(tmp_path, "g", GOLD * 3)
    bad = tmp_path / "t"
    bad.write_bytes((GOLD + "(S (NP (DT a) (NN \xe9)) (VP (VB c)))\n" + GOLD).encode("latin-1"))
    binary = tmp_path / "b"
    binary.write_bytes(b"\x00\xff\xfe" * 40)
    prm = tmp_path / "p.prm"
    prm.write_bytes(b"LABELED 1\nDELETE_LABEL \xff\n")
    for argv, what in (([g, str(bad)], f"{bad}:2:19: not UTF-8 text (byte 0xe9"),
                       ([str(bad), g], f"{bad}:2:19: not UTF-8 text"),
                       ([g, str(binary)], f"{binary}:1:2: not UTF-8 text (byte 0xff"),
                       (["-p", str(prm), g, g], f"{prm}:2:14: not UTF-8 text")):
        assert main(["evalb"] + argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("ranker: error: ") and what in err and err.count("\n") == 1


def test_ranker_help_lists_each_commands_own_help_without_importing_it():
    # main.SUBCOMMANDS repeats each command's help so that `ranker --help` imports no command
    # module (start-up time; see benchmarks/bench_evalb_vs_c.py): the words must be the module's own
    import argparse

    from ranker.cli.main import SUBCOMMANDS, build_parser

    def listing(parser):
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return {a.dest: a.help for a in sub._choices_actions}

    assert listing(build_parser()) == {name: help_ for name, (_, help_) in SUBCOMMANDS.items()}
    assert listing(build_parser(["--help"])) == listing(build_parser())
    assert list(listing(build_parser(["evalb", "-p", "COLLINS", "g", "t"]))) == ["evalb"]


def test_evalb_imports_neither_numpy_nor_the_tree_package(tmp_path):
    # start-up is most of a small file's time: the C evalb needs a few milliseconds in all
    g = write(tmp_path, "g", GOLD * 3)
    code = ("import atexit, sys; atexit.register(lambda: print(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('numpy', 'nltk', 'scipy') or m.startswith('ranker.trees')), "
            "file=sys.stderr)); from ranker.cli.main import main; "
            "sys.exit(main(['evalb', sys.argv[1], sys.argv[1]]))")
    r = subprocess.run([sys.executable, "-c", code, g], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "[]\n", r.stderr
    r = subprocess.run([sys.executable, "-c", code.replace("'evalb', sys.argv[1], sys.argv[1]", "'--help'"), g],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "[]\n", r.stderr


SAMPLE = Path(__file__).resolve().parents[1] / "evaluation" / "evalb_sample"


def _evalb(*argv, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "ranker.cli.main", "evalb", "-p", "COLLINS", "-e", "100000",
                           *map(str, argv)], capture_output=True, env=env, timeout=120, **kw)


def _feed_fifo(path, data: bytes) -> threading.Thread:
    """A writer thread: opens the FIFO (waiting for the reader), writes everything, closes it."""
    def write():
        with open(path, "wb") as f:
            f.write(data)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


def _release(path, writer: threading.Thread) -> None:
    """Unblock a writer still waiting for a reader (the command failed), so no thread is left hanging."""
    if writer.is_alive():
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        while os.read(fd, 1 << 16):
            pass
        os.close(fd)
    writer.join(10)


@pytest.mark.parametrize("path", ["kernel", "numpy"])
@pytest.mark.parametrize("piped", ["GOLD", "TEST"])
@pytest.mark.parametrize("how", ["named FIFO", "/dev/stdin"])
def test_issue_36_each_input_is_read_once_so_a_pipe_scores_as_its_file(tmp_path, how, piped, path):
    """``ranker evalb -p COLLINS gold.mrg <(cat test.mrg)`` scored 0 sentences (F -nan): the input was
    read twice, the second time empty; a named FIFO hung. Now a pipe gives the file's report."""
    # 60 copies of EVALB's sample: 95 KB each, more than a pipe's buffer and the first scoring block
    gold, test = tmp_path / "g.mrg", tmp_path / "t.mrg"
    gold.write_bytes((SAMPLE / "sample.gld").read_bytes() * 60)
    test.write_bytes((SAMPLE / "sample.tst").read_bytes() * 60)
    env = dict(os.environ, **({"RANKER_EVALB_KERNEL": "numpy"} if path == "numpy" else {}))
    expected = _evalb(gold, test, env=env)
    assert expected.returncode == 0 and b"Number of Valid sentence  =    960" in expected.stdout, expected.stdout
    files = {"GOLD": gold, "TEST": test}
    data = files[piped].read_bytes()
    if how == "named FIFO":
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        files[piped] = fifo
        writer = _feed_fifo(fifo, data)
        try:
            got = _evalb(files["GOLD"], files["TEST"], env=env)
        finally:
            _release(fifo, writer)
    else:
        files[piped] = "/dev/stdin"
        got = _evalb(files["GOLD"], files["TEST"], env=env, input=data)
    assert (got.returncode, got.stdout, got.stderr) == (0, expected.stdout, expected.stderr)
