"""Bracket files with rejected spans: what ``ranker annotate --kind user --export`` writes and ``--kind file`` reads."""
import pytest

from ranker.errors import RankerError
from ranker.sources.annotations import read_bracket_file, write_bracket_file
from ranker.store import Annotation, Bracket


def test_written_brackets_read_back_the_same_rejected_and_unlabelled_ones_too(tmp_path):
    anns = [Annotation("s1", "user", (Bracket("NP", 0, 2), Bracket("VP", 1, 3, False), Bracket(None, 0, 3))),
            Annotation("s2", "user", (Bracket("PP-LOC", 2, 4, False),))]
    path = tmp_path / "b.tsv"
    assert write_bracket_file(path, anns, "two lines\nof header") == 4
    text = path.read_text()
    assert text.startswith("# two lines\n# of header\n") and text.count("\treject\n") == 2
    assert read_bracket_file(path, "user", {"s1": 3, "s2": 5}) == anns


@pytest.mark.parametrize("row, says", [
    ("s1\tNP\t0\t2\tmaybe", "b.tsv:1: the fifth column must be accept or reject, found 'maybe'"),
    ("s1\tNP\t0\t2\treject\textra", "b.tsv:1: expected 4 tab-separated columns"),
])
def test_a_bad_fifth_column_is_named_with_file_and_line(tmp_path, row, says):
    path = tmp_path / "b.tsv"
    path.write_text(row + "\n")
    with pytest.raises(RankerError, match=says):
        read_bracket_file(path, "user", {"s1": 3})


def test_export_needs_the_user_kind(tmp_path, capsys):
    from ranker.cli.main import main

    assert main(["annotate", "--store", str(tmp_path / "s.sqlite"), "--kind", "riezler",
                 "--export", str(tmp_path / "x.tsv")]) == 2
    assert "--export writes the user decisions: it needs --kind user" in capsys.readouterr().err
    assert not (tmp_path / "s.sqlite").exists()
