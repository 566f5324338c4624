"""EVALB's reading of the lines parsers print when they fail: skip or error exactly as ``evalb.c``.

Every expectation below was produced by EVALB itself: ``evalb.c`` (the 2006 version with the quote
fix, as vendored in nikitakit/self-attentive-parser's ``EVALB/`` folder), compiled with
``gcc -O2`` under /tmp and run as ``evalb -p COLLINS.prm g t`` and ``evalb -e 100 g t`` on the
GOLD/TEST lines below. They follow ``read_line``'s rules: a bracket that covers no word is dropped
and a line left without a word is a skip (status 2); ``(LABEL )`` with white space before ``)`` is a
terminal with an empty word, so it is an error unless LABEL is a DELETE_LABEL.
"""
from ranker.cli.main import main
from ranker.evaluation.evalb import ERROR, SKIP, score_evalb
from ranker.evaluation.evalb_line import read_evalb_line
from ranker.evaluation.evalb_params import EvalbParams, load_params

GOLD = [
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NN b))',
    '(S (NN b))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(TOP)',
    '()',
    '',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
]
TEST = [
    '',
    '(TOP)',
    '( )',
    '()',
    '(S1)',
    '(TOP )',
    '(TOP )',
    '( )',
    '( (TOP))',
    '(S1 (S))',
    '(TOP (-NONE- *))',
    '(S (NP (DT a) (NN z)) (VP (VB c)))',
    '(S (NP (DT a) (NN b)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)) (. .))',
    '(S (NP (DT a) (NN b)) (VP (VB c) (NP)))',
    '(S (NP (DT a) (NN b)) (VP (VB c)) (X ))',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '  (TOP)  ',
    '(S1 )',
    '(S (NP (DT a) (NN b)) (VP (VB c)))',
    '()',
    '',
    '(())',
    '(S (X) (NP (DT a) (NN b)) (VP (VB c)))',
    '(S (DT a) (NN b) (VB c) (. ))',
]

# evalb -p COLLINS.prm g t: stdout, then stderr
EVALB_COLLINS = (
    '  Sent.                        Matched  Bracket   Cross        Correct Tag\n'
    ' ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n'
    '============================================================================\n'
    '   1    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '   2    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '   3    3    1    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '   4    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '   5    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '   6    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '   7    1    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '   8    1    1    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '   9    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  10    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  11    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  12    3    1    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  13    3    1    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  14    3    0  100.00 100.00     3      3    3      0      3     3   100.00\n'
    '  15    3    0  100.00 100.00     3      3    3      0      3     3   100.00\n'
    '  16    3    1    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  17    3    0  100.00 100.00     3      3    3      0      3     3   100.00\n'
    '  18    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  19    3    1    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  20    0    1    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  21    0    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  22    0    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  23    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n'
    '  24    3    0  100.00 100.00     3      3    3      0      3     3   100.00\n'
    '  25    3    0   33.33 100.00     1      3    1      0      3     3   100.00\n'
    '============================================================================\n'
    '                 86.67 100.00     13    15    13      0     15    15   100.00\n'
    '=== Summary ===\n'
    '\n'
    '-- All --\n'
    'Number of sentence        =     25\n'
    'Number of Error sentence  =      7\n'
    'Number of Skip  sentence  =     13\n'
    'Number of Valid sentence  =      5\n'
    'Bracketing Recall         =  86.67\n'
    'Bracketing Precision      = 100.00\n'
    'Bracketing FMeasure       =  92.86\n'
    'Complete match            =  80.00\n'
    'Average crossing          =   0.00\n'
    'No crossing               = 100.00\n'
    '2 or less crossing        = 100.00\n'
    'Tagging accuracy          = 100.00\n'
    '\n'
    '-- len<=40 --\n'
    'Number of sentence        =     25\n'
    'Number of Error sentence  =      7\n'
    'Number of Skip  sentence  =     13\n'
    'Number of Valid sentence  =      5\n'
    'Bracketing Recall         =  86.67\n'
    'Bracketing Precision      = 100.00\n'
    'Bracketing FMeasure       =  92.86\n'
    'Complete match            =  80.00\n'
    'Average crossing          =   0.00\n'
    'No crossing               = 100.00\n'
    '2 or less crossing        = 100.00\n'
    'Tagging accuracy          = 100.00\n'
)
EVALB_COLLINS_ERR = (
    '3 : Length unmatch (3|1)\n'
    '8 : Words unmatch (b|)\n'
    '12 : Words unmatch (b|z)\n'
    '13 : Length unmatch (3|2)\n'
    '16 : Length unmatch (3|4)\n'
    '19 : Length unmatch (3|1)\n'
    '20 : Length unmatch (0|3)\n'
)
# evalb -e 100 g t (no parameter file): the status column, and stderr
EVALB_DEFAULT_STATUS = '2 2 1 2 2 1 1 1 2 2 1 1 1 1 0 1 0 2 1 1 2 2 2 0 1'
EVALB_DEFAULT_ERR = (
    '3 : Length unmatch (3|1)\n'
    '6 : Length unmatch (3|1)\n'
    '7 : Words unmatch (b|)\n'
    '8 : Words unmatch (b|)\n'
    '11 : Length unmatch (3|1)\n'
    '12 : Words unmatch (b|z)\n'
    '13 : Length unmatch (3|2)\n'
    '14 : Length unmatch (3|4)\n'
    '16 : Length unmatch (3|4)\n'
    '19 : Length unmatch (3|1)\n'
    '20 : Length unmatch (0|3)\n'
    '25 : Length unmatch (3|4)\n'
)


def _files(tmp_path):
    g, t = tmp_path / "g", tmp_path / "t"
    g.write_text("\n".join(GOLD) + "\n")
    t.write_text("\n".join(TEST) + "\n")
    return str(g), str(t)


def test_failure_lines_report_byte_for_byte_as_evalb(tmp_path, capsys):
    g, t = _files(tmp_path)
    assert main(["evalb", "-p", "COLLINS", g, t]) == 0
    out, err = capsys.readouterr()
    assert out == EVALB_COLLINS
    assert err == EVALB_COLLINS_ERR


def test_failure_lines_without_parameter_file_as_evalb(tmp_path, capsys):
    g, t = _files(tmp_path)
    assert main(["evalb", "-e", "100", g, t]) == 0
    out, err = capsys.readouterr()
    assert " ".join(line.split()[2] for line in out.splitlines()[3:3 + len(GOLD)]) == EVALB_DEFAULT_STATUS
    assert err == EVALB_DEFAULT_ERR


def test_wordless_lines_read_as_no_tree_and_empty_words_as_words():
    for line in ("(TOP)", "()", "(S1)", "  (TOP)  ", "( (TOP))", "(S1 (S))", "(())", ""):
        assert read_evalb_line(line) is None, line
    t = read_evalb_line("(S1 )")
    assert t.words == ("",) and t.root.label == "S1"
    t = read_evalb_line("(S (X) (NP (DT a)) (VP))")    # empty brackets inside a tree are dropped
    assert t.words == ("a",) and [n.label for n in t.nodes()] == ["S", "NP", "DT"]


def test_per_pair_statuses_of_failure_lines():
    collins, plain = load_params("COLLINS"), EvalbParams()
    gold = read_evalb_line("(S (NP (DT a) (NN b)) (VP (VB c)))")
    assert score_evalb(gold, read_evalb_line("(TOP)"), collins).status == SKIP
    assert score_evalb(gold, read_evalb_line("(TOP )"), collins).status == SKIP      # TOP deleted
    s = score_evalb(gold, read_evalb_line("(TOP )"), plain)
    assert (s.status, s.message) == (ERROR, "Length unmatch (3|1)")


def test_text_evalb_rejects_too_is_still_a_one_line_error(tmp_path, capsys):
    g = tmp_path / "g"
    g.write_text("(S (NN b))\n(S (NN b))\n")
    # EVALB's read_line errs on a word that is not a terminal's ("More than two elements in a
    # bracket", then "Reading sentence" until MAX_ERROR, no summary): one line naming the word
    for bad, what in (("(S (NN b)) x", "t:1:12: stray text"), ("(S (NN b)", "t:1:1: unclosed"),
                      ("(S (NP b c))", "t:1:8: word 'b' where EVALB reads a bracket"),
                      ("(S (NN b ))", "t:1:8: word 'b' where EVALB"),
                      ("(S (X (NN b)c))", "t:1:13: word 'c' where EVALB")):
        t = tmp_path / "t"
        t.write_text(bad + "\n(S (NN b))\n")
        assert main(["evalb", str(g), str(t)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("ranker: error:") and what in err and err.count("\n") == 1
