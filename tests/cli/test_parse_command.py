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
        # issue 45: a store whose budget bounded each pass is not mixed with one of whole sentences
        old = {k: v for k, v in stages.link_grammar_options(ParseSection())._asdict().items() if k != "budget"}
        st.add_source("link-grammar", old)
        with pytest.raises(RankerError, match="parsed by an older ranker.*parse into a new"):
            stages.check_parse_options(st, stages.link_grammar_options(ParseSection()))


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


@pytest.mark.slow   # quick tier under a minute (issue 35, item 8): seconds of real work, CI runs it
@pytest.mark.linkgrammar
def test_issue36_ctrl_c_during_parse_is_one_line_and_status_130(tmp_path):
    """Regression (issue 36, item 8): Ctrl-C during ``ranker parse --workers 2`` printed a
    KeyboardInterrupt traceback from each worker under ``ranker: interrupted``."""
    import os
    import signal
    import subprocess
    import time

    words = ("the old man who lived in the house that Jack built said that the dogs which barked all "
             "night were tired of the cats that the children of the village had brought home")
    text = tmp_path / "long.txt"
    text.write_text("".join(f"{words} {i}\n" for i in range(200)))
    p = subprocess.Popen(["ranker", "parse", "--store", str(tmp_path / "s.sqlite"), "--corpus", "text",
                          "--path", str(text), "--workers", "2", "--no-progress"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))   # as a terminal would
    time.sleep(4)                                      # the workers are parsing
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=120)
    # before the parse, one note that untagged text gets no preterminals (no --tagger given); the last
    # line says what was kept, when batches were stored before (issue 44, item 19)
    lines = err.splitlines()
    kept = (f"ranker: interrupted; the work it stored in {tmp_path / 's.sqlite'} is kept: run the same command "
            "again to go on from there")
    assert p.returncode == 130 and lines[-1] in ("ranker: interrupted", kept), err[-2000:]
    assert lines[:-1] == [] or (len(lines) == 2 and lines[0].startswith("ranker: note:")), err[-2000:]
