"""EVALB semantics: parameter files, the per-pair reference, the vectorised reader and the report.

Expected reports below were produced by EVALB itself (evalb.c, 2006 version, compiled with gcc)
on the inputs shown, with COLLINS.prm; the per-pair path and the vectorised path must both
reproduce them, and must agree with each other on the whole WSJ sample.
"""
import random

import pytest

from ranker.cli.main import main
from dataclasses import replace

from ranker.evaluation.evalb import (ERROR, OK, SKIP, EvalbAccumulator, EvalbSide, score_evalb,
                                     score_evalb_sides)
from ranker.evaluation.evalb_fast import EvalbInputError, score_evalb_bytes
from ranker.evaluation.evalb_files import check_pair
from ranker.evaluation.evalb_native import score_evalb_native
from ranker.evaluation.evalb_params import EvalbParamError, EvalbParams, load_params, parse_params
from ranker.evaluation.evalb_report import HEADER, format_sentence, format_summary
from ranker.evaluation.perturb import perturb_tree
from ranker.trees.penn import format_tree, iter_trees, parse_tree

COLLINS = load_params("COLLINS")

GOLD = """(S (NP (DT The) (NN cat)) (VP (VBD sat) (PRT (RP down))) (. .))
( (S (NP-SBJ (-NONE- *)) (VP (VB go) (ADVP (RB away))) (. .)) )
(S (NP (DT a) (NN b)) (VP (VB c)))
(S (NP (DT a) (NN b)) (VP (VB c)))
(S (NP (NP (NN x))) (VP (VB y)))
"""
TEST = """(S (NP (DT The) (NN cat)) (VP (VBD sat) (ADVP (RB down))) (. .))
( (S (VP (VB go) (ADVP (RB away)) (. .))) )

(S (NP (DT a) (NN z)) (VP (VB c)))
(S (NP (NN x)) (VP (NN y)))
"""
# evalb -p COLLINS.prm gold test (stdout)
EVALB_REPORT = """  Sent.                        Matched  Bracket   Cross        Correct Tag
 ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy
============================================================================
   1    5    0  100.00 100.00     4      4    4      0      4     3    75.00
   2    3    0  100.00 100.00     4      4    4      0      2     2   100.00
   3    3    2    0.00   0.00     0      0    0      0      0     0     0.00
   4    3    1    0.00   0.00     0      0    0      0      0     0     0.00
   5    2    0   75.00 100.00     3      4    3      0      2     1    50.00
============================================================================
                 91.67 100.00     11    12    11      0      8     6    75.00
=== Summary ===

-- All --
Number of sentence        =      5
Number of Error sentence  =      1
Number of Skip  sentence  =      1
Number of Valid sentence  =      3
Bracketing Recall         =  91.67
Bracketing Precision      = 100.00
Bracketing FMeasure       =  95.65
Complete match            =  66.67
Average crossing          =   0.00
No crossing               = 100.00
2 or less crossing        = 100.00
Tagging accuracy          =  75.00

-- len<=40 --
Number of sentence        =      5
Number of Error sentence  =      1
Number of Skip  sentence  =      1
Number of Valid sentence  =      3
Bracketing Recall         =  91.67
Bracketing Precision      = 100.00
Bracketing FMeasure       =  95.65
Complete match            =  66.67
Average crossing          =   0.00
No crossing               = 100.00
2 or less crossing        = 100.00
Tagging accuracy          =  75.00
"""


def t(s):
    return parse_tree(s) if s.strip() else None


def pair(g, s, params=COLLINS):
    return score_evalb(t(g), t(s), params)


def report(gold: str, test: str, params=COLLINS) -> str:
    cols = score_evalb_bytes(gold.encode(), test.encode(), params)
    acc = EvalbAccumulator(params)
    lines = [HEADER]
    for i in range(cols.size):
        s = cols.sentence(i)
        acc.add(s)
        lines.append(format_sentence(i + 1, s))
    lines.append(format_summary(acc.result()))
    return "".join(lines)


# ---- parameter files -------------------------------------------------------------------------

def test_collins_prm_is_evalbs_standard_setting():
    p = COLLINS
    assert p.labeled and p.max_error == 10 and p.cutoff_len == 40
    assert p.delete_labels == ("TOP", "-NONE-", ",", ":", "``", "''", ".")
    assert p.delete_labels_for_length == ("-NONE-",)
    assert p.eq_labels == (("ADVP", "PRT"),)


def test_unknown_key_names_file_and_line():
    with pytest.raises(EvalbParamError, match=r"x\.prm:3: unknown key 'DELETE_LABELS'"):
        parse_params("# c\nLABELED 1\nDELETE_LABELS TOP\n", "x.prm")


def test_eq_label_needs_two_values_and_values_are_required():
    with pytest.raises(EvalbParamError, match=r":1: EQ_LABEL requires two values"):
        parse_params("EQ_LABEL ADVP\n")
    with pytest.raises(EvalbParamError, match=r":1: LABELED has no value"):
        parse_params("LABELED\n")


def test_keys_read_like_evalb():
    p = parse_params("LABELED 0\nCUTOFF_LEN +12\nDELETE_LABEL_FOR_LENGTH -NONE-\n"
                     "## comment\nxx\nEQ_WORD a b\nQUOTE_LABEL POS\n")
    assert not p.labeled and p.cutoff_len == 12
    assert p.delete_labels == () and p.delete_labels_for_length == ("-NONE-",)
    assert p.eq_words == (("a", "b"),) and p.quote_labels == ("POS",)


@pytest.mark.parametrize("line, what", [
    ("LABELED yes", "LABELED needs a non-negative integer, got 'yes'"),
    ("LABELED 2", "LABELED is 0 (unlabelled) or 1 (labelled), got '2'"),
    ("MAX_ERROR ten", "MAX_ERROR needs a non-negative integer, got 'ten'"),
    ("CUTOFF_LEN 12abc", "CUTOFF_LEN needs a non-negative integer, got '12abc'"),
    ("CUTOFF_LEN -5", "CUTOFF_LEN needs a non-negative integer, got '-5'"),
    ("DEBUG 1.5", "DEBUG needs a non-negative integer, got '1.5'"),
])
def test_issue_10_numeric_values_are_checked_not_read_as_atoi(line, what):
    # evalb.c's atoi reads each of these as a number (0, 2, 0, 12, -5, 1) without a word
    with pytest.raises(EvalbParamError) as e:
        parse_params("# c\nLABELED 1\n" + line + "\n", "x.prm")
    assert str(e.value) == "x.prm:3: " + what


def test_missing_parameter_file():
    with pytest.raises(FileNotFoundError, match="nope.prm"):
        load_params("/nonexistent/nope.prm")
    with pytest.raises(EvalbParamError, match="no EVALB parameter set 'NOPE'"):
        load_params("NOPE")


# ---- semantics, one pair at a time ---------------------------------------------------------

def test_report_is_evalbs_character_for_character():
    assert report(GOLD, TEST) == EVALB_REPORT


def test_per_pair_path_gives_the_same_lines_as_evalb():
    lines = EVALB_REPORT.splitlines()[3:8]
    got = [format_sentence(i + 1, pair(g, s)).rstrip("\n")
           for i, (g, s) in enumerate(zip(GOLD.splitlines(), TEST.splitlines()))]
    assert got == lines


def test_punctuation_attached_differently_does_not_count():
    g = "(S (NP (DT a) (NN b)) (, ,) (VP (VB c) (NP (NN d))) (. .))"
    s = "(S (NP (DT a) (NN b) (, ,)) (VP (VB c) (NP (NN d)) (. .)))"
    r = pair(g, s)
    assert (r.status, r.gold, r.test, r.matched, r.crossing) == (OK, 4, 4, 4, 0)
    assert r.length == 6 and r.words == 4  # punctuation counts for length, not for scoring


def test_traces_and_brackets_emptied_by_them_are_dropped():
    g = "( (S (NP-SBJ-1 (-NONE- *)) (VP (VBD said) (SBAR (-NONE- 0) (S (-NONE- *T*-2))))) )"
    s = "(S (VP (VBD said)))"
    r = pair(g, s)
    # gold keeps "", S and VP (all over the one word); test keeps S and VP
    assert (r.length, r.words, r.gold, r.test, r.matched) == (1, 1, 3, 2, 2)


def test_empty_test_line_is_skipped_and_adds_nothing():
    r = pair("(S (NP (NN a)) (VP (VB b)))", "")
    assert r.status == SKIP and r.length == 2 and r.gold == r.test == r.words == 0
    acc = EvalbAccumulator(COLLINS)
    acc.add(r)
    assert acc.result().all.sentences == 1 and acc.result().all.skipped == 1
    assert acc.result().all.gold == 0 and acc.result().all.valid == 0


def test_word_and_length_mismatch_are_errors():
    r = pair("(S (NP (NN a)) (VP (VB b)))", "(S (NP (NN a)) (VP (VB c)))")
    assert r.status == ERROR and r.message == "Words unmatch (b|c)" and r.gold == 0
    r = pair("(S (NP (NN a)) (VP (VB b)))", "(S (NP (NN a)) (VP (VB b) (NN c)))")
    assert r.status == ERROR and r.message == "Length unmatch (2|3)"
    # a punctuation tag the test gives a real tag is a length error without QUOTE_LABEL ...
    r = pair("(S (NP (NN a)) (POS ') (VP (VB b)))", "(S (NP (NN a)) (NN ') (VP (VB b)))",
             parse_params("DELETE_LABEL POS\n"))
    assert r.status == ERROR
    # ... and is re-inserted (EVALB's quote fix) with it
    r = pair("(S (NP (NN a)) (POS ') (VP (VB b)))", "(S (NP (NN a)) (NN ') (VP (VB b)))",
             parse_params("DELETE_LABEL POS\nQUOTE_LABEL POS\nQUOTE_LABEL NN\n"))
    assert r.status == OK and r.words == 3


def test_advp_prt_are_equivalent_labels():
    g = "(S (VP (VB look) (PRT (RP up))))"
    s = "(S (VP (VB look) (ADVP (RP up))))"
    assert pair(g, s).matched == 3
    assert pair(g, s, parse_params("LABELED 1\n")).matched == 2
    assert pair(g, s.replace("ADVP", "NP")).matched == 2
    assert pair(g, s.replace("ADVP", "NP"), parse_params("LABELED 0\n")).matched == 3


def test_duplicate_unary_brackets_match_as_a_multiset():
    g = "(S (NP (NP (NN x))) (VP (VB y)))"
    # README [7] 5: n gold and m test copies of one (span, label): min(n, m) match
    r = pair(g, "(S (NP (NN x)) (VP (VB y)))")
    assert (r.gold, r.test, r.matched) == (4, 3, 3)
    r = pair(g, "(S (NP (NP (NP (NN x)))) (VP (VB y)))")
    assert (r.gold, r.test, r.matched) == (4, 5, 4)


def test_crossing_counts_test_brackets_that_overlap_gold_ones():
    g = "(S (NP (DT a) (NN b)) (VP (VB c) (NP (NN d))))"
    s = "(S (DT a) (X (NN b) (VB c)) (NP (NN d)))"
    r = pair(g, s)
    assert r.crossing == 1 and r.matched == 2  # S and NP(d); X crosses NP(a b) and VP


def test_cutoff_counts_punctuation_but_not_traces():
    words = " ".join(f"(NN w{i})" for i in range(39))
    g40 = f"(S (NP {words}) (-NONE- *) (-NONE- *T*) (. .))"      # 39 + 1 punctuation = 40
    g41 = f"(S (NP {words}) (, ,) (-NONE- *) (. .))"             # 39 + 2 punctuation = 41
    s40 = f"(S (NP {words}) (. .))"
    s41 = f"(S (NP {words}) (, ,) (. .))"
    acc = EvalbAccumulator(COLLINS)
    for gold, test, length in ((g40, s40, 40), (g41, s41, 41)):
        line = score_evalb(t(gold), t(test), COLLINS)
        assert line.length == length
        acc.add(line)
    res = acc.result()
    assert res.all.sentences == 2 and res.cut.sentences == 1


def test_empty_label_root_is_a_bracket_and_top_is_deleted():
    assert pair("( (S (NP (DT a)) (VP (VB b))) )", "( (S (NP (DT a)) (VP (VB b))) )").gold == 4
    assert pair("(TOP (S (NP (DT a)) (VP (VB b))))", "(S (NP (DT a)) (VP (VB b)))").gold == 3


def test_nan_fmeasure_as_evalb_prints_it():
    out = report("(S (X (A a)))\n", "\n", EvalbParams())
    assert "Bracketing FMeasure       =   -nan\n" in out
    assert "Number of Skip  sentence  =      1\n" in out


# ---- vectorised reader: identical counts ---------------------------------------------------

FIELDS = ("status", "length", "words", "gold", "test", "matched", "crossing", "correct_tags",
          "message")


def kernel_path(gold_lines, test_lines, params):
    """Every line scored by the compiled kernel (and the reference where it defers)."""
    gold = ("\n".join(gold_lines) + "\n").encode()
    test = ("\n".join(test_lines) + "\n").encode()
    records = score_evalb_native(gold, test, params, check_pair(gold, test, "<gold>", "<test>"))
    assert records is not None, "the C kernel could not be built"
    return [records.sentence(i) for i in range(records.size)], records


def both_paths(gold_lines, test_lines, params):
    cols = score_evalb_bytes(("\n".join(gold_lines) + "\n").encode(),
                             ("\n".join(test_lines) + "\n").encode(), params)
    fast = [cols.sentence(i) for i in range(cols.size)]
    slow = [score_evalb(t(g), t(s), params) for g, s in zip(gold_lines, test_lines)]
    return fast, slow, cols


@pytest.fixture(scope="module")
def wsj_pairs():
    from nltk.corpus import treebank

    gold = [tr for f in treebank.fileids() for tr in iter_trees(treebank.raw(f), f)]
    rng = random.Random(7)
    test = []
    for i, tr in enumerate(gold):
        s = format_tree(perturb_tree(tr, rng)) if i % 53 else ""
        if i % 89 == 4:
            s = s.replace("(, ,)", "", 1)
        if i % 97 == 6:
            s = s.replace("(DT the)", "(DT teh)", 1)
        if i % 101 == 8:
            s = s.replace("(. .)", "(NN .)", 1)
        test.append(s)
    return [format_tree(tr) for tr in gold], test


@pytest.mark.slow
@pytest.mark.parametrize("prm", [
    "COLLINS",
    "LABELED 0\nDELETE_LABEL -NONE-\nDELETE_LABEL ,\nDELETE_LABEL_FOR_LENGTH -NONE-\n",
    "DELETE_LABEL -NONE-\nDELETE_LABEL .\nDELETE_LABEL NP\nQUOTE_LABEL NN\nQUOTE_LABEL .\n"
    "EQ_LABEL VP S\nEQ_WORD teh the\nDELETE_LABEL_FOR_LENGTH -NONE-\n",
])
def test_fast_path_equals_per_pair_path_on_the_wsj_sample(wsj_pairs, prm):
    params = COLLINS if prm == "COLLINS" else parse_params(prm)
    fast, slow, cols = both_paths(*wsj_pairs, params)
    assert len(fast) == 3914
    assert fast == slow
    assert cols.deferred < 100  # the fast path really decided nearly every line
    assert {s.status for s in fast} == {OK, ERROR, SKIP}
    native, records = kernel_path(*wsj_pairs, params)
    assert native == slow
    # the kernel decides every line itself, error messages included, but for a length difference
    # under QUOTE_LABEL (the reference re-inserts quotes)
    assert records.deferred == (sum(s.message.startswith("Length") for s in slow)
                                if params.quote_labels else 0)


def test_fast_path_equals_per_pair_path_on_edge_cases():
    gold = ["( (S (NP-SBJ (DT a) (NN b)) (VP (VB c))) )",
            "(S (NP (NNVERYLONGTAG a)) (VP (VB b)))",          # tag over 8 bytes: deferred
            "(S (NPLONGLABEL-X (DT a)) (VP (VB b)))",          # cut label over 8 bytes
            "",                                                 # empty gold line
            "(S (NP=2 (DT a)) (-LRB- -LRB-) (ADVP-TMP (RB b)))",
            "(S (X (A a) (B b) (C c) (D d)))",
            "(S (NP (DT a)) (VP (VB b)))"]
    test = ["(S (NP (DT a) (NN b)) (VP (VB c)))",
            "(S (NP (NNVERYLONGTAG a)) (VP (VB b)))",
            "(S (NPLONGLABEL-Y (DT a)) (VP (VB b)))",
            "(S (NP (DT a)))",
            "(S (NP (DT a)) (-LRB- -LRB-) (PRT (RB b)))",
            "(S (A a) (Y (B b) (C c)) (Z (D d)))",
            ""]
    fast, slow, cols = both_paths(gold, test, COLLINS)
    assert fast == slow
    assert kernel_path(gold, test, COLLINS)[0] == slow
    assert cols.deferred == 2
    assert fast[3].status == ERROR and fast[6].status == SKIP
    assert fast[5].crossing == 0 and fast[4].matched == 3


def test_mismatched_line_counts_are_an_error():
    with pytest.raises(EvalbInputError, match="g has 2 lines but t has 1"):
        score_evalb_bytes(b"(S (A a))\n(S (A a))\n", b"(S (A a))\n", COLLINS,
                          gold_source="g", test_source="t")


# ---- properties ----------------------------------------------------------------------------

@pytest.mark.slow
def test_every_wsj_tree_against_itself_scores_100(wsj_pairs):
    gold, _ = wsj_pairs
    fast, _, _ = both_paths(gold, gold, COLLINS)
    acc = EvalbAccumulator(COLLINS)
    for s in fast:
        acc.add(s)
        assert s.status == OK and s.recall == s.precision == s.tag_accuracy == 100.0
    res = acc.result().all
    assert res.f1 == res.complete_match == res.no_crossing_rate == 100.0 and res.crossing == 0


@pytest.mark.slow
def test_scores_lie_in_0_100(wsj_pairs):
    fast, _, _ = both_paths(*wsj_pairs, COLLINS)
    for s in fast:
        assert 0 <= s.recall <= 100 and 0 <= s.precision <= 100 and 0 <= s.tag_accuracy <= 100
        assert s.matched <= min(s.gold, s.test)


@pytest.mark.slow
def test_sides_read_once_score_every_candidate_as_score_evalb_does(wsj_pairs):
    # the scorer of stored counts reads a gold side once per sentence and a candidate's side once
    # for both LABELED settings; quote mending (the third file's QUOTE_LABEL) must not change them
    labeled = parse_params("DELETE_LABEL -NONE-\nDELETE_LABEL .\nDELETE_LABEL POS\nQUOTE_LABEL NN\n"
                           "QUOTE_LABEL .\nQUOTE_LABEL POS\nEQ_LABEL VP S\n")
    both = (labeled, replace(labeled, labeled=False))
    gold_lines, test_lines = wsj_pairs
    mended = 0
    for g_line in gold_lines[:300]:
        g = t(g_line)
        side = EvalbSide(g, labeled)
        before = (list(side.words), [list(b) for b in side.brackets])
        for s_line in (test_lines[gold_lines.index(g_line)], g_line.replace("(POS '", "(NN '", 1),
                       g_line.replace("(. .)", "(NN .)", 1)):
            tt = t(s_line)
            got = score_evalb_sides(side, EvalbSide(tt, labeled), both)
            assert got == [score_evalb(g, tt, p) for p in both]
            mended += "(NN '" in s_line and got[0].status == OK
        assert (side.words, side.brackets) == before
    assert mended > 0
    with pytest.raises(ValueError):
        score_evalb_sides(side, side, (labeled, COLLINS))
