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
