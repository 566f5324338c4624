"""``ranker score``: Heidorn's score per tree, and every input file's error naming that file."""
import pytest

from ranker.cli.main import main

TREE = "(S (NP (DT the) (NN dog)) (VP (VBD barked)))\n"


def test_scores_one_line_per_tree(tmp_path, capsys):
    (tmp_path / "t").write_text(TREE * 2)
    assert main(["score", str(tmp_path / "t"), "--heads", "collins"]) == 0
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1] and float(lines[0]) >= 0


@pytest.mark.parametrize("option", ["trees", "--k-table", "--heads"])
def test_issue_10_non_utf8_input_is_one_line_naming_the_file(tmp_path, capsys, option):
    ok = tmp_path / "ok"
    ok.write_text(TREE)
    bad = tmp_path / "bad"
    bad.write_bytes({"trees": b"(S (NN caf\xe9))\n", "--k-table": b"# K table\nx = \"\xff\"\n",
                     "--heads": b"NP left NN\nVP left VB\xff\n"}[option])
    where = {"trees": "1:11", "--k-table": "2:6", "--heads": "2:11"}[option]
    argv = (["score", str(bad)] if option == "trees" else ["score", str(ok), option, str(bad)])
    argv += [] if option == "--heads" else ["--heads", "collins"]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"ranker: error: {bad}:{where}: not UTF-8 text (byte 0x"), err


def test_binary_trees_file_is_one_line(tmp_path, capsys):
    (tmp_path / "b").write_bytes(bytes(range(256)))
    assert main(["score", str(tmp_path / "b")]) == 2
    _, err = capsys.readouterr()
    assert err.startswith(f"ranker: error: {tmp_path / 'b'}:") and err.count("\n") == 1


def test_ordinary_penn_trees_are_scored_with_head_rules_by_default(tmp_path, capsys):
    """``--heads`` defaulted to star, which refused every tree without '*'-marked heads (issue 24)."""
    from ranker.cli.main import main

    plain = tmp_path / "plain.mrg"
    plain.write_text("(S (NP (DT The) (NN dog)) (VP (VBD barked)) (. .))\n")
    assert main(["score", str(plain)]) == 0
    auto = capsys.readouterr().out
    assert main(["score", "--heads", "collins", str(plain)]) == 0
    assert capsys.readouterr().out == auto != ""
    starred = tmp_path / "starred.mrg"
    starred.write_text("(S (NP (DT The) (NN* dog)) (VP* (VBD* barked)) (. .))\n")
    assert main(["score", str(starred)]) == 0   # marked heads are read as marked
    assert main(["score", "--heads", "star", str(starred)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == out[1]
    assert main(["score", "--heads", "star", str(plain)]) == 2   # asked for star: still refused
