"""The web page's oracle never picks a candidate the scorer left out (issue 35, item 5).

A real store of one sentence, the possessive of wsj_0194.mrg/15 (README "Roots and punctuation"):
its first candidate brackets the sentence wrongly; its second has gold's bracketing but tags the
possessive ``'`` as ``''``, which COLLINS.prm deletes, so EVALB cannot align it (Length unmatch)
and its counts are zeros. Their F would read 100 (nothing to get wrong): the page's oracle picked
it and showed 100. Now the page, ``ranker select --ranker oracle`` and the report's oracle
(``bounds.oracle_choice``) choose the first, and the page shows no score for the second.
"""
import numpy as np

from ranker.cli.main import main
from ranker.evaluation.bounds import METRICS, oracle_choice
from ranker.pipeline import stages
from ranker.pipeline.config import EvaluationSection, LogLinearSection
from ranker.pipeline.splits import select_split
from ranker.store import Candidate, Sentence, Store
from ranker.trees.penn import parse_tree

SID = "treebank/wsj_0170.mrg/0"
GOLD = "(TOP (S (NP (NP (NNS investors) (POS ')) (NN money)) (VP (VBD rose)) (. .)))"
FLAT = "(TOP (S (NP (NNS investors) (POS ') (NN money)) (VP (VBD rose)) (. .)))"   # scored, F < 100
UNALIGNED = GOLD.replace("(POS ')", "('' ')")                                         # left out by EVALB


def build(path):
    with Store.open(path) as st:
        gold = parse_tree(GOLD, "<gold>", 1)
        st.add_sentences([Sentence(SID, "treebank", "wsj_0170.mrg", 0, gold.words, gold.tags())])
        st.add_gold(SID, gold)
        st.replace_forest(SID, "test", [Candidate(SID, "test", r, parse_tree(t, "<t>", 1), "full", {})
                                        for r, t in enumerate((FLAT, UNALIGNED))])
        stages.compute_counts(stages.StageContext(st, "test", 1), EvaluationSection(), st.sentences("treebank"))


def test_the_web_pages_oracle_never_picks_a_candidate_the_scorer_left_out(tmp_path):
    from ranker.serve.app import create_app   # Flask comes with the test extra
    from ranker.serve.sentence import sentence_view

    path = tmp_path / "s.sqlite"
    build(path)
    primary = LogLinearSection().select_metric
    with Store.open(path, readonly=True) as st:
        sel = select_split(st, "treebank", "test")
        fc = stages.load_counts(stages.StageContext(st, "test"), EvaluationSection(), sel, [primary])[primary]
    assert fc.counts[1].tolist() == [0, 0, 0, 0] and fc.counts[0, 0] > 0    # EVALB left the second out
    assert oracle_choice(fc, METRICS[primary].score).tolist() == [0]        # the report's oracle

    app = create_app(str(path), read_only=True, source="test")
    data = app.extensions["ranker"].forest_data(SID)
    view = sentence_view(data, [], None)
    assert view.choices["oracle"] == 0
    assert np.isnan(data.metrics[primary][1]) and 0 < data.metrics[primary][0] < 100
    page = app.test_client().get(f"/sentence?id={SID}")
    assert page.status_code == 200
    assert (b'<tr data-ranker="oracle"><td title="oracle: the candidate scoring best against the gold tree">'
            b'best against gold</td><td><a href="/sentence?id=') in page.data
    row = page.data.split(b'data-ranker="oracle"')[1].split(b"</tr>")[0]
    assert b">#0</a>" in row and b"100.0" not in row

    out = tmp_path / "oracle.mrg"
    assert main(["select", "--store", str(path), "--split", "test", "--source", "test", "--ranker", "oracle",
                 "--metric", primary, "--out", str(out)]) == 0
    with Store.open(path, readonly=True) as st:
        assert out.read_text().splitlines() == [st.candidate_texts(SID, "test")[0]]
