"""``ranker import`` refuses a file whole or skips single forests, and a refused file changes nothing.

A refusal is one ``ranker: error:`` line, exit status 2 and a store byte-identical to before (no
provenance row replaced, no source registered); a skipped forest is one ``ranker: skipped:`` line
while the rest is stored, and exit status 1 says some were skipped.
"""
import gzip
import sqlite3

import pytest

from ranker.cli.main import main
from ranker.store import Sentence, Store

DOGS = "(S (NP (NNS dogs)) (VP (VBP bark)))"
CATS = "(S (NP (NNS cats)) (VP (VBP sleep)))"


@pytest.fixture
def store(tmp_path):
    """A store of two sentences with one imported file (source ``penn:good.mrg``, its digest kept)."""
    path = tmp_path / "s.sqlite"
    with Store.open(path) as st:
        st.add_sentences([Sentence("mine/a/0", "mine", "a", 0, ("dogs", "bark"), ("NNS", "VBP")),
                          Sentence("mine/a/1", "mine", "a", 1, ("cats", "sleep"), ("NNS", "VBP"))])
    (tmp_path / "good.mrg").write_text(f"{DOGS}\n\n{CATS}\n")
    assert _import(path, tmp_path / "good.mrg") == 0
    return path


def _import(store, *files, fmt="penn", source=None):
    argv = ["import", "--store", str(store), "--format", fmt, "--corpus", "mine", *map(str, files)]
    return main(argv + (["--source", source] if source else []))


def _folder(path):
    """Every file beside the store, with its bytes (a -wal or -shm file left behind shows too)."""
    return {p.name: p.read_bytes() for p in sorted(path.parent.iterdir()) if p.name.startswith(path.name)}


def _one_error(err, *parts):
    assert err.startswith("ranker: error: ") and err.count("\n") == 1, err
    for p in parts:
        assert p in err, err


REFUSED = {
    "latin-1": (b"(S (NP (NNS caf\xe9s)) (VP (VBP bark)))\n", "not UTF-8"),
    "binary": (bytes(range(256)) * 4, "not UTF-8"),
    "not gzip": (b"(S (NP (NNS dogs)) (VP (VBP bark)))\n", "cannot be read as gzip"),
    "empty": (b"", "holds no forest"),
    "blank lines": (b"\n\n  \n", "holds no forest"),
    "nothing stored": (b"(S (NN no) (NN such))\n\n(S (NN sentence) (NN here))\n", "no forest of it can be stored"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
@pytest.mark.parametrize("same_name", [True, False], ids=["same-file-name", "new-file-name"])
def test_issue_24_a_refused_file_leaves_the_store_byte_identical(store, tmp_path, capsys, case, same_name):
    data, why = REFUSED[case]
    name = "good.mrg" if same_name else "new.mrg"
    bad = tmp_path / (name + ".gz" if case == "not gzip" else name)
    bad.write_bytes(data)
    before = _folder(store)
    capsys.readouterr()
    assert _import(store, bad, source="penn:good.mrg" if case == "not gzip" and same_name else None) == 2
    _one_error(capsys.readouterr().err, str(bad), why)
    assert _folder(store) == before
    with Store.open(store, readonly=True) as st:
        assert sorted(st.source_options()) == ["penn:good.mrg"]
        assert len(st.source_options()["penn:good.mrg"]["sha256"][0]) == 64


def test_issue_24_a_refused_file_among_several_stores_none_of_them(store, tmp_path, capsys):
    (tmp_path / "more.mrg").write_text(f"{CATS}\n")
    (tmp_path / "latin.mrg").write_bytes(b"(S (NN caf\xe9))\n")
    before = _folder(store)
    assert _import(store, tmp_path / "more.mrg", tmp_path / "latin.mrg") == 2
    _one_error(capsys.readouterr().err, "latin.mrg", "not UTF-8")
    assert _folder(store) == before


def test_issue_24_a_refused_import_into_a_new_store_leaves_no_file(tmp_path, capsys):
    (tmp_path / "x.mrg").write_text("")
    assert main(["import", "--store", str(tmp_path / "new.sqlite"), "--format", "penn", str(tmp_path / "x.mrg")]) == 2
    _one_error(capsys.readouterr().err, "holds no forest")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.mrg"]


def test_issue_24_the_same_sentence_twice_in_one_file_names_both_lines(store, tmp_path, capsys):
    twice = tmp_path / "twice.nbest"
    twice.write_text(f"1 mine/a/0\n-1\n{DOGS}\n\n1 mine/a/1\n-2\n{CATS}\n\n1 mine/a/0\n-3\n{DOGS}\n")
    before = _folder(store)
    capsys.readouterr()
    assert _import(store, twice, fmt="bllip") == 2
    _one_error(capsys.readouterr().err, f"{twice}:9", f"{twice}:1", "mine/a/0")
    assert _folder(store) == before
    # matched by tokens: a second forest of the one sentence "dogs bark"
    twice = tmp_path / "twice.mrg"
    twice.write_text(f"{DOGS}\n\n{CATS}\n\n\n{DOGS}\n")
    assert _import(store, twice) == 2
    _one_error(capsys.readouterr().err, f"{twice}:6", f"{twice}:1", "mine/a/0")
    assert _folder(store) == before


def test_issue_24_the_same_sentence_in_two_files_of_one_source_names_both(store, tmp_path, capsys):
    (tmp_path / "one.mrg").write_text(f"{DOGS}\n")
    (tmp_path / "two.mrg").write_text(f"{CATS}\n\n{DOGS}\n")
    before = _folder(store)
    capsys.readouterr()
    assert _import(store, tmp_path / "one.mrg", tmp_path / "two.mrg", source="mine") == 2
    _one_error(capsys.readouterr().err, f"{tmp_path / 'two.mrg'}:3", f"{tmp_path / 'one.mrg'}:1")
    assert _folder(store) == before
    # each file a source of its own: the same sentence in both is no conflict
    assert _import(store, tmp_path / "one.mrg", tmp_path / "two.mrg") == 0
    with Store.open(store, readonly=True) as st:
        assert sorted(st.source_options()) == ["penn:good.mrg", "penn:one.mrg", "penn:two.mrg"]


def test_issue_24_several_files_of_one_source_keep_every_digest(store, tmp_path, capsys):
    (tmp_path / "one.mrg").write_text(f"{DOGS}\n")
    (tmp_path / "two.mrg").write_text(f"{CATS}\n")
    assert _import(store, tmp_path / "one.mrg", tmp_path / "two.mrg", source="mine") == 0
    with Store.open(store, readonly=True) as st:
        row = st.source_options()["mine"]
        assert row["files"] == [str(tmp_path / "one.mrg"), str(tmp_path / "two.mrg")]
        assert len(row["sha256"]) == 2
        assert len(st.forest("mine/a/0", "mine").candidates) == 1


def test_issue_24_a_bad_forest_is_skipped_in_one_line_and_the_exit_status_says_so(store, tmp_path, capsys):
    mixed = tmp_path / "mixed.mrg"
    mixed.write_text(f"{DOGS}\n\n(S (NN no) (NN such))\n\n(S (NP cats)\n")
    capsys.readouterr()
    assert _import(store, mixed) == 1
    out, err = capsys.readouterr()
    assert out == f"{mixed}: stored 1 forests, 1 candidates; 2 forests skipped\n"
    assert err.splitlines() == [f"ranker: skipped: {mixed}:3: tokens match no stored sentence (first tokens: no such)",
                                f"ranker: skipped: {mixed}:5:1: unclosed bracket: missing ')'"]
    assert "ranker: error:" not in err


def test_issue_24_import_help_says_what_is_refused_and_what_is_skipped(capsys):
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for part in ("refused", "exit status 2", "unchanged", "skipped", "exit status 1", "twice", "empty"):
        assert part in text, part


def test_issue_24_a_store_read_by_sqlite_shows_no_half_import(store, tmp_path):
    """The refusal is a rolled-back transaction: a reader never sees part of a refused file."""
    bad = tmp_path / "half.mrg"
    bad.write_text(f"{CATS}\n\n{DOGS}\n\n{CATS}\n")   # cats twice: refused after two forests were read
    assert _import(store, bad) == 2
    con = sqlite3.connect(store)
    assert con.execute("SELECT COUNT(*) FROM candidates WHERE source='penn:half.mrg'").fetchone() == (0,)
    con.close()


def test_issue_24_a_missing_file_is_refused_before_the_store_is_made(tmp_path, capsys):
    for name in ("nope.mrg", "."):
        assert main(["import", "--store", str(tmp_path / "new.sqlite"), "--format", "penn",
                     str(tmp_path / name)]) == 2
        _one_error(capsys.readouterr().err, str(tmp_path / name), "no such file" if name != "." else "not a file")
    assert list(tmp_path.iterdir()) == []


def test_two_imports_into_one_source_keep_both_files_provenance(store, tmp_path, capsys):
    """Regression: a second ``ranker import`` into a source replaced the first file's name and digest,
    though the first file's candidates stay stored."""
    import hashlib

    (tmp_path / "one.mrg").write_text(f"{DOGS}\n")
    (tmp_path / "two.mrg").write_text(f"{CATS}\n")
    assert _import(store, tmp_path / "one.mrg", source="mine") == 0
    assert _import(store, tmp_path / "two.mrg", source="mine") == 0
    digest = {p: hashlib.sha256((tmp_path / p).read_bytes()).hexdigest() for p in ("one.mrg", "two.mrg")}
    with Store.open(store, readonly=True) as st:
        row = st.source_options()["mine"]
        assert row["files"] == [str(tmp_path / "one.mrg"), str(tmp_path / "two.mrg")]
        assert row["sha256"] == [digest["one.mrg"], digest["two.mrg"]]
    # the first file changed and imported again: its own entry is replaced, the other kept
    (tmp_path / "one.mrg").write_text(f"{DOGS}\n\n{CATS}\n")
    assert _import(store, tmp_path / "one.mrg", source="mine") == 0
    with Store.open(store, readonly=True) as st:
        row = st.source_options()["mine"]
        assert row["files"] == [str(tmp_path / "two.mrg"), str(tmp_path / "one.mrg")]
        assert row["sha256"] == [digest["two.mrg"], hashlib.sha256((tmp_path / "one.mrg").read_bytes()).hexdigest()]


def test_importing_another_format_into_a_source_is_refused_and_changes_nothing(store, tmp_path, capsys):
    nbest = tmp_path / "one.nbest"
    nbest.write_text("1\tmine/a/0\n-1.0\n(S1 (S (NP (NNS dogs)) (VP (VBP bark))))\n\n")
    before = _folder(store)
    capsys.readouterr()
    assert _import(store, nbest, fmt="bllip", source="penn:good.mrg") == 2
    _one_error(capsys.readouterr().err, str(nbest), "penn files", "--source")
    assert _folder(store) == before
