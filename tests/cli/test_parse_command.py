"""``ranker parse`` makes the store ``ranker run --store`` accepts, for the treebank and for conll2000."""
import pytest

from ranker.cli.main import main
from ranker.errors import RankerError
from ranker.pipeline import stages
from ranker.pipeline.config import ParseSection
from ranker.store import Store


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_a_store_parsed_with_the_defaults_is_the_one_a_default_config_accepts(tmp_path, capsys):
    # issue 10: parse defaulted to max_parse_time 30 against the configs' 10, so run refused its store
    store = tmp_path / "s.sqlite"
    assert main(["parse", "--store", str(store), "--fileids", "wsj_0001.mrg", "--workers", "1",
                 "--no-progress"]) == 0
    assert "parsed 2 sentences" in capsys.readouterr().out
    with Store.open(store) as st:
        stages.check_parse_options(st, stages.link_grammar_options(ParseSection()))
        with pytest.raises(RankerError, match="max_parse_time=10 \\(config: 5\\)"):
            stages.check_parse_options(st, stages.link_grammar_options(ParseSection(max_parse_time=5.0)))


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_parse_conll2000(tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    assert main(["parse", "--store", str(store), "--corpus", "conll2000", "--split", "train",
                 "--fileids", "train.txt#0000", "--linkage-limit", "10", "--workers", "1",
                 "--no-progress"]) == 0
    assert "parsed 20 sentences" in capsys.readouterr().out
    with Store.open(store) as st:
        assert len(st.parsed_ids("link-grammar")) == 20
        assert st.source_options()["link-grammar"]["linkage_limit"] == 10
    assert main(["parse", "--store", str(store), "--corpus", "brown"]) == 2
    assert "unknown corpus 'brown'" in capsys.readouterr().err
