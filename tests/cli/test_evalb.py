"""``ranker evalb``: EVALB's report on stdout, EVALB's error lines, and bad input as one-line errors."""
import subprocess
import sys

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
