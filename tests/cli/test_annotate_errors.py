"""``ranker annotate`` on a store that does not exist: only a kind read from a corpus may start one."""
import pytest

from ranker.cli.main import main


@pytest.mark.parametrize("argv", [["--kind", "user"], ["--kind", "user", "--export", "out.tsv"],
                                  ["--kind", "file", "--file", "brackets.tsv"]])
def test_annotating_a_missing_store_from_decisions_or_a_file_is_an_error_and_creates_nothing(tmp_path, capsys,
                                                                                            argv):
    """Regression: ``ranker annotate --store NOSUCH --kind user --export F`` created an empty store,
    reported "0 sentences annotated", wrote an empty export and exited 0."""
    (tmp_path / "brackets.tsv").write_text("treebank/wsj_0001.mrg/0\tNP\t0\t2\n")
    store = tmp_path / "nosuch.sqlite"
    argv = [a if a not in ("out.tsv", "brackets.tsv") else str(tmp_path / a) for a in argv]
    assert main(["annotate", "--store", str(store), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ranker: error: ") and err.count("\n") == 1 and "no such store" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["brackets.tsv"]
