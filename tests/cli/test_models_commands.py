"""``ranker score``, ``ranker train`` and ``ranker select`` end to end on a real SQLite store."""
import json

import pytest

from ranker.cli.main import main
from ranker.pipeline.cache import text_digest
from ranker.pipeline.candidate_scoring import DIGEST_KIND, metric_key
from ranker.evaluation.scoring import METRICS, ScoringSettings
from ranker.store import Annotation, Bracket, BracketCounts, Candidate, Sentence, Store
from ranker.trees.penn import parse_tree, read_trees

HIGH = "( (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN {n})) (PP (IN with) (NP (DT a) (NN telescope)))) (. .)) )"
LOW = "( (S (NP (PRP I)) (VP (VBD saw) (NP (NP (DT the) (NN {n})) (PP (IN with) (NP (DT a) (NN telescope))))) (. .)) )"
NOUNS = ["man", "dog", "cat", "bird", "girl", "boy", "star", "ship"]
#: train and select in this process: a pool forked from a test process grown by a worker's earlier
#: tests costs more than these few sentences' work, and nothing here depends on the workers
ONE = ("--workers", "1")


def build_store(path):
    """Train sentences (wsj_0001) and test sentences (wsj_0170); the low attachment is right."""
    with Store.open(path) as st:
        checks, counts = [], []
        for doc, n_sent in (("wsj_0001.mrg", 8), ("wsj_0170.mrg", 3)):
            for i in range(n_sent):
                noun = NOUNS[i % len(NOUNS)]
                sid = f"treebank/{doc}/{i}"
                high, low = parse_tree(HIGH.format(n=noun), "<t>", 1), parse_tree(LOW.format(n=noun), "<t>", 1)
                st.add_sentences([Sentence(sid, "treebank", doc, i, high.words, high.tags())])
                # Alternate the source order so that "first candidate" is not the answer.
                order = [high, low] if i % 2 == 0 else [low, high]
                st.add_candidates([Candidate(sid, "test", r, t, "full", {}) for r, t in enumerate(order)])
                st.add_annotations([Annotation(sid, "riezler", (Bracket("NP", 2, 7),))])
                for r, t in enumerate(order):
                    ok = t is low
                    checks.append((sid, "test", r, 0 if ok else 1, 0))
                    counts.append(BracketCounts(sid, "test", r, 7, 7 if ok else 6, 7 if ok else 5, 0))
        st.put_annotation_checks("riezler", checks)
        # counts as ranker counts stores them: under every metric's key (only evalb_unlabeled's are
        # read here), with the forests' digests
        settings = ScoringSettings()
        for m in METRICS:
            st.put_bracket_counts(metric_key(m, settings), counts)
        digests = {s.id: text_digest(st.candidate_texts(s.id, "test")) for s in st.sentences()}
        st.put_artifact(DIGEST_KIND, f"{metric_key(METRICS[-1], settings)}/test", b"", digests)


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store.sqlite"
    build_store(path)
    return path


@pytest.fixture
def feature_config(tmp_path):
    path = tmp_path / "feats.toml"
    path.write_text('name = "small"\n[[family]]\nname = "local_trees/1"\n'
                    '[[family]]\nname = "embedding/1"\n')
    return path


def test_score_prints_heidorn_figure_1(tmp_path, capsys):
    trees = tmp_path / "fig1.mrg"
    trees.write_text(
        "(VP (VERB* See) (NP (ADJ the) (NOUN* man)) (PP (PREP with) (ADJ the) (NOUN* telescope)))\n"
        "(VP (VERB* See) (NP (ADJ the) (NOUN* man) (PP (PREP with) (ADJ the) (NOUN* telescope))))\n")
    assert main(["score", "--ranker", "heidorn", "--k-table", "default", str(trees)]) == 0
    assert capsys.readouterr().out.split() == ["0.23", "0.122"]


def test_score_reports_bad_input_in_one_line(tmp_path, capsys):
    trees = tmp_path / "bad.mrg"
    trees.write_text("(VP (VERB See) (NP (ADJ the) (NOUN* man)))\n")
    assert main(["score", str(trees)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ranker: error:") and "no child marked as head" in err and err.count("\n") == 1
    bad_k = tmp_path / "k.toml"
    bad_k.write_text("[heidorn]\ndefault = 'x'\n")
    assert main(["score", "--k-table", str(bad_k), str(trees)]) == 2
    assert "k.toml: [heidorn] default must be a number" in capsys.readouterr().err


@pytest.mark.slow
def test_train_then_select_picks_the_consistent_parses(store, feature_config, tmp_path, capsys):
    model = tmp_path / "model.json"
    assert main(["train", *ONE, "--store", str(store), "--split", "train", "--features", str(feature_config),
                 "--sigma2", "10", "--out", str(model)]) == 0
    assert "trained on 8 sentences" in capsys.readouterr().out
    doc = json.loads(model.read_text())
    assert doc["ranker"] == "loglinear/1" and doc["features"]["config"]["name"] == "small"
    # Retraining reuses the stored matrix: exactly one feature artifact per split.
    assert main(["train", *ONE, "--store", str(store), "--split", "train", "--features", str(feature_config),
                 "--sigma2", "1", "--out", str(model)]) == 0
    with Store.open(store) as st:
        assert len(st.artifact_keys("feature-matrix")) == 1
    out = tmp_path / "sel.mrg"
    assert main(["select", *ONE, "--store", str(store), "--split", "test", "--ranker", "loglinear",
                 "--model", str(model), "--out", str(out)]) == 0
    chosen = read_trees(out)
    assert [t.to_penn() for t in chosen] == [
        parse_tree(LOW.format(n=n), "<t>", 1).to_penn() for n in NOUNS[:3]]


@pytest.mark.parametrize("ranker, extra, low_expected", [
    ("heidorn", [], [True, True, True]),
    ("oracle", [], [True, True, True]),
    ("native", [], [False, True, False]),   # the source's first candidate
])
def test_select_with_reference_rankers(store, tmp_path, ranker, extra, low_expected):
    out = tmp_path / f"{ranker}.mrg"
    assert main(["select", *ONE, "--store", str(store), "--split", "test", "--ranker", ranker,
                 "--out", str(out), *extra]) == 0
    chosen = [t.to_penn() for t in read_trees(out)]
    lows = [parse_tree(LOW.format(n=n), "<t>", 1).to_penn() for n in NOUNS[:3]]
    assert [c == l for c, l in zip(chosen, lows)] == low_expected


def test_select_random_is_reproducible(store, tmp_path):
    a, b = tmp_path / "a.mrg", tmp_path / "b.mrg"
    for out in (a, b):
        assert main(["select", *ONE, "--store", str(store), "--split", "test", "--ranker", "random",
                     "--seed", "5", "--out", str(out)]) == 0
    assert a.read_text() == b.read_text() and len(a.read_text().splitlines()) == 3


def test_select_loglinear_against_another_feature_space_fails_clearly(store, feature_config, tmp_path, capsys):
    model = tmp_path / "model.json"
    assert main(["train", *ONE, "--store", str(store), "--features", str(feature_config), "--sigma2", "1",
                 "--out", str(model)]) == 0
    doc = json.loads(model.read_text())
    doc["format_version"] = 0
    model.write_text(json.dumps(doc))
    assert main(["select", *ONE, "--store", str(store), "--ranker", "loglinear", "--model", str(model),
                 "--out", str(tmp_path / "x.mrg")]) == 2
    assert "model format version 0" in capsys.readouterr().err
    assert main(["select", *ONE, "--store", str(store), "--ranker", "loglinear",
                 "--out", str(tmp_path / "x.mrg")]) == 2
    assert "needs --model" in capsys.readouterr().err


@pytest.mark.parametrize("weights, says", [
    (lambda w: [1e308] * len(w), "scores are not all finite"),            # finite weights, overflowing scores
    (lambda w: [1e400] + w[1:], "state.coef_[0] is not a finite number"),  # 1e400 reads as inf
])
def test_issue_24_a_model_file_with_unusable_weights_is_an_error_naming_it(store, feature_config, tmp_path, capsys,
                                                                           weights, says):
    model = tmp_path / "model.json"
    assert main(["train", *ONE, "--store", str(store), "--features", str(feature_config), "--sigma2", "1",
                 "--out", str(model)]) == 0
    doc = json.loads(model.read_text())
    doc["state"]["coef_"] = weights(doc["state"]["coef_"])
    model.write_text(json.dumps(doc).replace("Infinity", "1e400"))
    capsys.readouterr()
    out = tmp_path / "x.mrg"
    assert main(["select", *ONE, "--store", str(store), "--ranker", "loglinear", "--model", str(model),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ranker: error: {model}: ") and err.count("\n") == 1 and says in err, err
    assert not out.exists()


def test_issue_36_train_refuses_a_heldout_selection_without_candidates(store, feature_config, tmp_path, capsys):
    """Every sigma^2 scored 0.00 on a held-out range without candidates, and the first was "chosen"."""
    sid = "treebank/wsj_0160.mrg/0"
    tree = parse_tree(LOW.format(n="man"), "<t>", 1)
    with Store.open(store) as st:   # a held-out document with its gold tree but no parse
        st.add_sentences([Sentence(sid, "treebank", "wsj_0160.mrg", 0, tree.words, tree.tags())])
        st.add_gold(sid, tree)
    before = store.read_bytes()
    model = tmp_path / "model.json"
    assert main(["train", *ONE, "--store", str(store), "--split", "train", "--features", str(feature_config),
                 "--heldout", "wsj_0160-0169", "--no-progress", "--out", str(model)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"ranker: error: {store}: no candidates from test in the held-out selection "
                                 "treebank/wsj_0160-0169 (--heldout wsj_0160-0169); sigma^2 is chosen on its "
                                 "parses: parse or import its forests, name another --heldout, or give --sigma2\n")
    assert not model.exists() and store.read_bytes() == before
    # the held-out range with candidates chooses as before
    assert main(["train", *ONE, "--store", str(store), "--split", "train", "--features", str(feature_config),
                 "--heldout", "wsj_0170", "--sigma2-grid", "1", "10", "--no-progress", "--out", str(model)]) == 0
    assert "sigma2 10: held-out" in capsys.readouterr().out and model.exists()
