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


def test_issue36_an_export_to_a_read_only_place_is_refused_before_the_store_changes(tmp_path, capsys,
                                                                                    monkeypatch):
    """Regression (issue 36, item 10): ``annotate --kind user --export F`` on a read-only file system
    stored the annotation, then failed to write F and exited 2. (As root no folder is read-only to
    this process, so the file system's answer is what ``os.access`` says here.)"""
    import os

    from test_store_files import _small_store

    from ranker import atomicfile

    store = tmp_path / "s.sqlite"
    _small_store(store)
    before = store.read_bytes()
    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    monkeypatch.setattr(atomicfile.os, "access", lambda p, mode: False if str(p) == str(ro) else real(p, mode))
    assert main(["annotate", "--store", str(store), "--kind", "user", "--export", str(ro / "u.tsv")]) == 2
    assert capsys.readouterr().err == f"ranker: error: --export {ro / 'u.tsv'}: not writable\n"
    assert store.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["ro", "s.sqlite"]
