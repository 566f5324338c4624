"""Importing Penn and BLLIP n-best files: matching, malformed files, token mismatches, idempotence."""
import pytest

from ranker.sources.nbest import import_file
from ranker.store import Sentence, Store

T0 = "(S1 (S (NP (NNS dogs)) (VP (VBP bark))))"
T1 = "(S1 (S (NP (NNS dogs) (VBP bark))))"
U0 = "(S1 (S (NP (NNS cats)) (VP (VBP sleep) (ADVP (RB now)))))"


@pytest.fixture
def st(tmp_path):
    with Store.open(tmp_path / "s.sqlite") as s:
        s.add_sentences([Sentence("treebank/wsj_0001.mrg/0", "treebank", "wsj_0001.mrg", 0, ("dogs", "bark"), ("NNS", "VBP")),
                         Sentence("treebank/wsj_0001.mrg/1", "treebank", "wsj_0001.mrg", 1, ("cats", "sleep", "now"),
                                  ("NNS", "VBP", "RB"))])
        yield s


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_bllip_by_id_with_logprobs(st, tmp_path):
    p = _write(tmp_path, "a.nbest", f"2\twsj_0001.mrg/0\n-10.5\n{T0}\n-11.25\n{T1}\n\n1 treebank/wsj_0001.mrg/1\n-7\n{U0}\n")
    s = import_file(st, p, "bllip")
    assert (s.forests, s.candidates, s.errors) == (2, 3, ())
    f = st.forest("treebank/wsj_0001.mrg/0")
    assert [c.scores for c in f.candidates] == [{"logprob": -10.5}, {"logprob": -11.25}]
    # the parser's S1 root is not part of the tree: stored as gold trees are, without it
    assert f.candidates[1].tree.to_penn() == T1[4:-1] and f.candidates[0].source == "bllip:a.nbest"


def test_penn_matched_by_tokens(st, tmp_path):
    p = _write(tmp_path, "b.mrg", f"{U0}\n\n(S1 (S (NP (NNS dogs))\n   (VP (VBP bark))))\n{T1}\n")
    s = import_file(st, p, "penn")
    assert (s.forests, s.candidates, s.errors) == (2, 3, ())
    assert len(st.forest("treebank/wsj_0001.mrg/0").candidates) == 2


def test_malformed_forests_are_reported_with_line_and_skipped(st, tmp_path):
    text = (f"2 wsj_0001.mrg/0\n-1\n{T0}\n\n"                     # line 1: count says 2, has 1
            f"1 wsj_0001.mrg/1\nabc\n{U0}\n\n"                     # line 5: bad log probability
            f"1 wsj_0001.mrg/1\n-3\n(S1 (S (NP cats) sleep now)\n\n"  # line 9: unclosed tree (line 11)
            f"1 wsj_0001.mrg/0\n-2\n(S1 (S (NNS dogs) (VBP barked)))\n\n"  # line 13: tokens differ
            f"1 wsj_0001.mrg/1\n-4\n{U0}\n")                        # line 17: good
    p = _write(tmp_path, "bad.nbest", text)
    s = import_file(st, p, "bllip")
    assert (s.forests, s.candidates) == (1, 1)
    assert len(s.errors) == 4
    assert s.errors[0].startswith(f"{p}:1: header says 2 candidates")
    assert s.errors[1].startswith(f"{p}:6: expected a log probability")
    assert s.errors[2].startswith(f"{p}:11:") and "unclosed" in s.errors[2]
    assert s.errors[3].startswith(f"{p}:13: candidate 0 of treebank/wsj_0001.mrg/0") and "'barked'" in s.errors[3]
    assert st.forest("treebank/wsj_0001.mrg/0").candidates == ()    # nothing of a bad forest is stored
    assert len(st.forest("treebank/wsj_0001.mrg/1").candidates) == 1


def test_unmatched_forest_and_bad_header(st, tmp_path):
    p = _write(tmp_path, "c.mrg", f"(S (NN unknown) (NN words))\n\n{T0}\n")
    assert "match no stored sentence" in import_file(st, p, "penn").errors[0]
    p = _write(tmp_path, "d.nbest", f"two wsj_0001.mrg/0\n-1\n{T0}\n\n1 wsj_0001.mrg/1\n-4\n{U0}\n")
    assert import_file(st, p, "bllip").errors[0].startswith(f"{p}:1: expected '<count> <sentence id>'")


def test_issue_24_a_file_with_no_storable_forest_is_refused_and_registers_no_source(st, tmp_path):
    from ranker.sources.nbest import RefusedFile

    p = _write(tmp_path, "c.mrg", "(S (NN unknown) (NN words))\n")
    with pytest.raises(RefusedFile, match=r"c.mrg: no forest of it can be stored \(1 skipped, the first: "
                                          r".*c.mrg:1: tokens match no stored sentence"):
        import_file(st, p, "penn")
    assert st.source_options() == {} and st.stats().candidates == 0


def test_reimport_is_idempotent(st, tmp_path):
    p = _write(tmp_path, "a.nbest", f"2\twsj_0001.mrg/0\n-10.5\n{T0}\n-11.25\n{T1}\n")
    import_file(st, p, "bllip")
    first = st.forest("treebank/wsj_0001.mrg/0")
    import_file(st, p, "bllip")
    assert st.forest("treebank/wsj_0001.mrg/0") == first
    assert st.stats().candidates == 2


@pytest.mark.parametrize("logprob", ["inf", "-inf", "nan", "1e400", "-Infinity"])
def test_issue_10_non_finite_log_probability_is_refused_at_import_with_file_and_line(st, tmp_path, logprob):
    p = _write(tmp_path, "a.nbest", f"2\twsj_0001.mrg/0\n-10.5\n{T0}\n{logprob}\n{T1}\n\n1 treebank/wsj_0001.mrg/1\n-7\n{U0}\n")
    s = import_file(st, p, "bllip")
    assert (s.forests, s.candidates) == (1, 1)   # the bad forest is skipped whole, the good one stored
    assert s.errors == (f"{p}:4: log probability {logprob!r} is not a finite number",)
    assert st.forest("treebank/wsj_0001.mrg/0").candidates == ()


def test_issue_10_importing_into_a_corpus_that_is_not_stored_says_so(st, tmp_path):
    from ranker.errors import RankerError

    p = _write(tmp_path, "b.mrg", f"{T0}\n")
    with pytest.raises(RankerError, match=r"no sentence of corpus 'mine' is stored \(stored: treebank 2\).*"
                                          r"ranker import --corpus treebank or conll2000"):
        import_file(st, p, "penn", corpus="mine")


@pytest.mark.parametrize("logprob", ["3.5", "+0.25", "1e-9"])
def test_issue_36_positive_log_probability_is_a_skipped_forest_with_file_and_line(st, tmp_path, logprob):
    """Regression (issue 36, item 14): a positive log probability (a probability above 1) was stored."""
    p = _write(tmp_path, "a.nbest", f"2\twsj_0001.mrg/0\n-10.5\n{T0}\n{logprob}\n{T1}\n\n1 treebank/wsj_0001.mrg/1\n0\n{U0}\n")
    s = import_file(st, p, "bllip")
    assert (s.forests, s.candidates) == (1, 1)   # the bad forest skipped whole; a log probability of 0 is fine
    assert s.errors == (f"{p}:4: log probability {logprob!r} is positive (a probability above 1)",)
    assert st.forest("treebank/wsj_0001.mrg/0").candidates == ()
