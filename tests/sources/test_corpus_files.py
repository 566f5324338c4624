"""Issue 10: a damaged NLTK corpus file is one line naming it; conll2000 splits as the corpus has them.

Each case runs ``ranker`` in a new process over a private ``NLTK_DATA`` folder made from the real
corpus files (NLTK keeps a corpus reader bound to the folder it was first found in, so a process
of its own is the only way to point it elsewhere).
"""
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("NLTK_DATA", "")) / "corpora"


def _ranker(nltk_data: Path, *argv):
    env = dict(os.environ, NLTK_DATA=str(nltk_data))
    return subprocess.run([sys.executable, "-m", "ranker.cli.main", *map(str, argv)], capture_output=True,
                          text=True, env=env)


def _one_line_error(r, *parts):
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("ranker: error: ") and r.stderr.count("\n") == 1, r.stderr
    for p in parts:
        assert p in r.stderr, r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "flipped"])
def test_a_damaged_treebank_zip_is_a_one_line_error_naming_it(tmp_path, damage):
    data = bytearray((SHARED / "treebank.zip").read_bytes())
    if damage == "truncated":
        data = data[:len(data) // 2]
    else:   # the archive's directory is intact, the compressed bytes of a member read are not
        with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
            member = z.getinfo("treebank/combined/wsj_0002.mrg")
        middle = member.header_offset + 30 + len(member.filename) + member.compress_size // 2
        data[middle:middle + 64] = bytes(64)
    zpath = tmp_path / "nltk_data" / "corpora" / "treebank.zip"
    zpath.parent.mkdir(parents=True)
    zpath.write_bytes(bytes(data))
    nbest = tmp_path / "x.mrg"
    nbest.write_text("(S (NN x))\n")
    r = _ranker(tmp_path / "nltk_data", "import", "--store", tmp_path / "s.sqlite", "--format", "penn", "--corpus",
                "treebank", nbest)
    _one_line_error(r, str(zpath), "damaged NLTK corpus 'treebank'", "nltk.downloader")


def _conll_folder(tmp_path: Path, halves: dict[str, slice]) -> Path:
    """An unzipped conll2000 package whose files hold the given sentence ranges of the real train.txt."""
    with zipfile.ZipFile(SHARED / "conll2000.zip") as z:
        text = z.read("conll2000/train.txt").decode("utf-8")
    sentences = text.strip("\n").split("\n\n")
    folder = tmp_path / "nltk_data" / "corpora" / "conll2000"
    folder.mkdir(parents=True)
    for name, part in halves.items():
        (folder / name).write_text("\n\n".join(sentences[part]) + "\n\n", encoding="utf-8")
    return tmp_path / "nltk_data"


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_conll2000_train_and_test_halves_are_parsed_when_the_corpus_has_them(tmp_path):
    data = _conll_folder(tmp_path, {"train.txt": slice(0, 2), "test.txt": slice(100, 103)})
    store = tmp_path / "s.sqlite"
    r = _ranker(data, "parse", "--store", store, "--corpus", "conll2000", "--split", "test", "--workers", "1",
                "--linkage-limit", "5", "--no-progress")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("parsed 3 sentences")
    r = _ranker(data, "store", "stats", store, "--format", "json")
    assert '"conll2000": 5' in r.stdout   # both halves stored, only the test half parsed
    r = _ranker(data, "store", "export", store, "--corpus", "conll2000", "--split", "test")
    assert r.returncode == 0 and r.stdout.count("\n\n") == 3
    r = _ranker(data, "parse", "--store", store, "--corpus", "conll2000", "--split", "train", "--workers", "1",
                "--linkage-limit", "5", "--no-progress")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("parsed 2 sentences")


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_a_split_the_corpus_lacks_is_an_error_not_an_empty_split(tmp_path):
    data = _conll_folder(tmp_path, {"train.txt": slice(0, 30)})
    r = _ranker(data, "parse", "--store", tmp_path / "s.sqlite", "--corpus", "conll2000", "--split", "test")
    _one_line_error(r, "conll2000 has no test half", "it holds train.txt")
    assert not (tmp_path / "s.sqlite").exists()
