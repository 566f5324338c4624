"""``ranker import``, ``annotate``, ``store stats`` and ``store export`` end to end on a real store."""
import json

import pytest

from ranker.cli.main import main
from ranker.store import Store

KEYS = {"sentences", "sentences_with_candidates", "candidates", "full", "fragment", "timeout", "mean_candidates",
        "median_candidates", "unmapped_tokens", "consistent_sets", "decisions"}


def _store_with_import(tmp_path):
    store = tmp_path / "s.sqlite"
    nb = tmp_path / "x.mrg"
    # wsj_0001.mrg/1: "Mr. Vinken is chairman of Elsevier N.V. , the Dutch publishing group ."
    good = ("(S (NP-SBJ (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP-PRD (NP (NN chairman)) (PP (IN of) (NP (NP (NNP "
            "Elsevier) (NNP N.V.)) (, ,) (NP (DT the) (NNP Dutch) (VBG publishing) (NN group)))))) (. .))")
    flat = ("(S (NNP Mr.) (NNP Vinken) (VBZ is) (NN chairman) (IN of) (NNP Elsevier) (NNP N.V.) (, ,) (DT the) "
            "(NNP Dutch) (VBG publishing) (NN group) (. .))")
    nb.write_text(f"{good}\n{flat}\n\n(S (NN no) (NN such) (NN sentence))\n")
    return store, nb, good, flat


@pytest.mark.slow
def test_import_annotate_stats_export(tmp_path, capsys):
    store, nb, good, flat = _store_with_import(tmp_path)
    assert main(["import", "--store", str(store), "--format", "penn", str(nb)]) == 1   # one bad forest
    err = capsys.readouterr().err
    assert f"{nb}:4: tokens match no stored sentence" in err
    assert main(["annotate", "--store", str(store), "--kind", "riezler"]) == 0
    capsys.readouterr()
    assert main(["store", "stats", str(store), "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert KEYS <= set(stats)
    assert (stats["sentences"], stats["sentences_with_candidates"], stats["candidates"]) == (3914, 1, 2)
    # the gold-shaped candidate contains every Crouch et al. bracket, the flat one none: a proper subset
    assert stats["consistent_sets"]["riezler"] == {"empty": 0, "proper": 1, "all": 0}
    assert stats["decisions"] == {"answers": 0, "sentences": 0}
    with Store.open(store) as st:
        cs = st.consistent_sets("riezler", fileids="wsj_0001.mrg", rule="strict")
        assert cs["treebank/wsj_0001.mrg/1"].weights == (1.0, 0.0)
    assert main(["store", "export", str(store), "--fileids", "wsj_0001.mrg"]) == 0
    out = capsys.readouterr().out
    # sentence 0 has no candidate (empty block), sentence 1 its two trees, then a blank line
    assert out == f"\n{good}\n{flat}\n\n"
    assert main(["store", "export", str(store), "--sentence", "treebank/wsj_0001.mrg/1"]) == 0
    assert capsys.readouterr().out == f"{good}\n{flat}\n\n"


def test_stats_of_a_missing_store_is_a_one_line_error(tmp_path, capsys):
    assert main(["store", "stats", str(tmp_path / "nope.sqlite")]) == 2
    assert capsys.readouterr().err.startswith("ranker: error: ")
    assert not (tmp_path / "nope.sqlite").exists()
