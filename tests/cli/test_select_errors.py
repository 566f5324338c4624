"""``ranker select`` refuses what it cannot select from, in one line naming the range or file at fault."""
import pytest

from ranker.cli.main import main
from ranker.store import Candidate, Sentence, Store
from ranker.trees.penn import parse_tree

TREES = ("(S (NP (NNS dogs)) (VP (VBP bark)))", "(S (NNS dogs) (VBP bark))")


@pytest.fixture
def store(tmp_path):
    """Treebank sentences of wsj_0170 (with candidates) and wsj_0171 (without any)."""
    path = tmp_path / "s.sqlite"
    with Store.open(path) as st:
        st.add_sentences([Sentence(f"treebank/{doc}/0", "treebank", doc, 0, ("dogs", "bark"), ("NNS", "VBP"))
                          for doc in ("wsj_0170.mrg", "wsj_0171.mrg")])
        st.add_candidates([Candidate("treebank/wsj_0170.mrg/0", "penn:x", r, parse_tree(t), "full", {})
                           for r, t in enumerate(TREES)])
    return path


def _one_error(err, *parts):
    assert err.startswith("ranker: error: ") and err.count("\n") == 1, err
    for p in parts:
        assert p in err, err


@pytest.mark.parametrize("ranker", ["random", "native", "heidorn"])
def test_issue_24_select_on_a_range_without_candidates_is_an_error_as_train_makes_it(store, tmp_path, capsys,
                                                                                        ranker):
    out = tmp_path / "sel.mrg"
    assert main(["select", "--store", str(store), "--split", "wsj_0171", "--ranker", ranker,
                 "--out", str(out)]) == 2
    _one_error(capsys.readouterr().err, str(store), "no candidates from penn:x in treebank/wsj_0171")
    assert not out.exists()
    # the range with candidates selects, and a sentence without a parse keeps its empty line
    assert main(["select", "--store", str(store), "--split", "wsj_0170-0171", "--ranker", ranker,
                 "--out", str(out)]) == 0
    assert out.read_text().count("\n") == 2 and out.read_text().endswith("\n\n")


def _hint(err):
    """The command an error line tells the user to run, as argv."""
    import shlex

    return shlex.split(err.split("compute them first: ", 1)[1].strip())


@pytest.mark.parametrize("second_source", [False, True])
def test_issue_24_the_counts_hint_of_the_oracle_can_be_pasted(store, tmp_path, capsys, second_source):
    with Store.open(store) as st:
        for doc in ("wsj_0170.mrg", "wsj_0171.mrg"):
            st.add_gold(f"treebank/{doc}/0", parse_tree(TREES[0]))
        if second_source:
            st.add_candidates([Candidate("treebank/wsj_0170.mrg/0", "penn:y", 0, parse_tree(TREES[1]), "full", {})])
    out = tmp_path / "oracle.mrg"
    argv = ["select", "--store", str(store), "--split", "wsj_0170", "--ranker", "oracle", "--out", str(out)]
    argv += ["--source", "penn:x"] if second_source else []
    assert main(argv) == 2
    err = capsys.readouterr().err
    _one_error(err, "ranker counts --store", "--corpus treebank --split wsj_0170")
    hint = _hint(err)
    assert hint[0] == "ranker" and ("--source" in hint) == second_source
    assert main(hint[1:]) == 0
    assert main(argv) == 0
    assert out.read_text() == TREES[0] + "\n"


def test_issue_24_counts_on_a_corpus_without_gold_trees_is_one_error_line(tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    with Store.open(store) as st:   # chunked sentences as conll2000 stores them: no gold tree
        st.add_sentences([Sentence("conll2000/train.txt/0", "conll2000", "train.txt#0000", 0, ("dogs", "bark"),
                                   ("NNS", "VBP"))])
        st.add_candidates([Candidate("conll2000/train.txt/0", "penn:x", r, parse_tree(t), "full", {})
                           for r, t in enumerate(TREES)])
    assert main(["counts", "--store", str(store), "--corpus", "conll2000", "--split", "train",
                 "--workers", "1"]) == 2
    _one_error(capsys.readouterr().err, "corpus conll2000 has no gold trees to count candidates against")
