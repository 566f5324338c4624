"""EVALB's own sample (``sample.gld``, ``sample.tst``, ``sample.prm``) reported byte for byte as ``evalb.c``.

The expected stdout and stderr in ``evalb_sample/`` were written by ``evalb.c`` itself (see the
README there). Line 8 of ``sample.tst``, ``(P this) (Q is) (R a) (T test)``, holds four top-level
items; EVALB reads them as one sentence of four words and no bracket. Both scoring paths of
``ranker evalb`` (the compiled kernel, and the numpy path used where no C compiler is found) and
the per-pair reference must give the same report.
"""
from pathlib import Path

import pytest

from ranker.cli.main import main
from ranker.evaluation import evalb_native
from ranker.evaluation.evalb import score_evalb_lines
from ranker.evaluation.evalb_params import load_params

SAMPLE = Path(__file__).with_name("evalb_sample")


@pytest.fixture(params=["c", "numpy"])
def scoring_path(request, monkeypatch):
    """Run ``ranker evalb`` through the compiled kernel, then through the numpy path."""
    monkeypatch.setenv("RANKER_EVALB_KERNEL", request.param)
    monkeypatch.setattr(evalb_native, "_kernel", False)   # look the kernel up again
    if request.param == "c":
        assert evalb_native.kernel() is not None, "the C kernel could not be built"
    return request.param


@pytest.mark.parametrize("prm, expected", [(["-p", str(SAMPLE / "sample.prm")], "sample"),
                                           (["-p", "COLLINS"], "sample-collins"),
                                           ([], "sample-noprm")])
def test_sample_report_is_evalbs_byte_for_byte(scoring_path, prm, expected, capsysbinary):
    argv = ["evalb", *prm, str(SAMPLE / "sample.gld"), str(SAMPLE / "sample.tst")]
    assert main(argv) == 0
    out, err = capsysbinary.readouterr()
    assert out == (SAMPLE / f"{expected}.out").read_bytes()
    assert err == (SAMPLE / f"{expected}.err").read_bytes()


def test_several_top_level_items_are_one_sentence():
    params = load_params(SAMPLE / "sample.prm")
    s = score_evalb_lines("(S (A (P this)) (B (Q is) (A (R a) (T test))))",
                          "(P this) (Q is) (R a) (T test)", params)
    assert (s.status, s.words, s.gold, s.test, s.matched, s.correct_tags) == (0, 4, 4, 0, 0, 4)
    # brackets of several items count as brackets of the one sentence; an empty one is dropped
    s = score_evalb_lines("(S (A (P this)) (B (Q is) (A (R a) (T test))))",
                          "(TOP) (A (P this)) (B (Q is) (A (R a) (T test)))", params)
    assert (s.status, s.gold, s.test, s.matched) == (0, 4, 3, 3)


@pytest.mark.parametrize("block", [1, 60, 700])
def test_blocks_of_any_size_give_the_same_report(monkeypatch, capsysbinary, block):
    # the kernel scores files in blocks of whole lines (flat memory); line numbers, error lines,
    # MAX_ERROR and the totals carry across blocks, and a line longer than a block is one block
    monkeypatch.setattr(evalb_native, "CHUNK_BYTES", block)
    for prm, expected in (("sample.prm", "sample"), ("COLLINS", "sample-collins")):
        prm = str(SAMPLE / prm) if prm.endswith(".prm") else prm
        assert main(["evalb", "-p", prm, str(SAMPLE / "sample.gld"), str(SAMPLE / "sample.tst")]) == 0
        out, err = capsysbinary.readouterr()
        assert out == (SAMPLE / f"{expected}.out").read_bytes()
        assert err == (SAMPLE / f"{expected}.err").read_bytes()
    # MAX_ERROR 2: stops at the fourth error (line 17), the table up to line 16, no summary
    assert main(["evalb", "-e", "2", str(SAMPLE / "sample.gld"), str(SAMPLE / "sample.tst")]) == 1
    out, err = capsysbinary.readouterr()
    full = (SAMPLE / "sample-noprm.out").read_bytes().splitlines(keepends=True)
    assert out == b"".join(full[:3 + 16]) and err.splitlines()[-1].startswith(b"17 : ")
