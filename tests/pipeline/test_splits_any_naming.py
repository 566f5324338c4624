"""Issue 34: a split of a corpus on disk named by a glob over document names or by ``@FILE``, a list of them.

A small penn corpus is made under ``tmp_path``; GUM (``../shared/gum``) is read where it lies, with
its own lists of documents, as ``configs/gum.toml`` reads it.
"""
from pathlib import Path

import pytest

from ranker.errors import RankerError
from ranker.pipeline import stages
from ranker.pipeline.config import ConfigError, DataSection, config_from_dict
from ranker.pipeline.splits import select_split
from ranker.pipeline.validate import check_selection, validate_config
from ranker.sources.penn_files import PennFiles
from ranker.store import Store

ROOT = Path(__file__).resolve().parents[2]
DOCS = {"news_a.ptb": ("a1", "a2"), "news_b.ptb": ("b1",), "bio_c.ptb": ("c1", "c2", "c3")}


@pytest.fixture
def corpus(tmp_path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    for doc, words in DOCS.items():
        (folder / doc).write_text("\n\n".join(f"(ROOT (S (NP (NN {w})) (VP (VBZ is))))" for w in words) + "\n",
                                  encoding="utf-8")
    return folder


@pytest.fixture
def loaded(tmp_path, corpus):
    reader = PennFiles(str(corpus), name="mine")
    store = Store.open(tmp_path / "s.sqlite")
    reader.load(store)
    return store, reader


def ids(selection) -> list[str]:
    return [s.id for s in selection.sentences]


def test_a_glob_selects_the_documents_it_matches(loaded):
    store, reader = loaded
    for documents in (None, reader.documents()):
        sel = select_split(store, "mine", "news_*", documents=documents)
        assert ids(sel) == ["mine/news_a.ptb/0", "mine/news_a.ptb/1", "mine/news_b.ptb/0"]
        assert sel.split is None and sel.fileids == ("news_a.ptb", "news_b.ptb")
    assert ids(select_split(store, "mine", "*_c.ptb")) == [f"mine/bio_c.ptb/{i}" for i in range(3)]
    assert ids(select_split(store, "mine", "news_[b-z]")) == ["mine/news_b.ptb/0"]   # matched on the stem


def test_a_glob_matching_nothing_selects_no_sentence(loaded):
    store, _ = loaded
    with pytest.raises(RankerError, match="selects no sentence"):
        select_split(store, "mine", "sport_*")


def test_a_list_names_documents_with_or_without_extension_blank_lines_and_comments_passed_over(tmp_path, loaded):
    store, reader = loaded
    listing = tmp_path / "list.txt"
    listing.write_text("# the training documents\n\nbio_c\n   \nnews_a.ptb   # with its extension\nbio_c.ptb\n",
                       encoding="utf-8")
    sel = select_split(store, "mine", f"@{listing}", documents=reader.documents())
    assert ids(sel) == ["mine/bio_c.ptb/0", "mine/bio_c.ptb/1", "mine/bio_c.ptb/2",
                        "mine/news_a.ptb/0", "mine/news_a.ptb/1"]
    assert set(sel.fileids) == {"bio_c.ptb", "news_a.ptb"}
    # the store's documents stand in for the reader's when none are given
    assert ids(select_split(store, "mine", f"@{listing}")) == ids(sel)


def test_a_list_naming_a_missing_document_is_an_error_naming_file_and_line(tmp_path, loaded):
    store, reader = loaded
    listing = tmp_path / "list.txt"
    listing.write_text("news_a\n# comment\n\nnews_z\nbio_c\n", encoding="utf-8")
    with pytest.raises(RankerError) as e:
        select_split(store, "mine", f"@{listing}", documents=reader.documents())
    msg = str(e.value)
    assert f"{listing}:4:" in msg and "news_z" in msg and "\n" not in msg, msg


def test_a_missing_or_empty_list_is_an_error_naming_it(tmp_path, loaded):
    store, _ = loaded
    with pytest.raises(RankerError, match="no such split list"):
        select_split(store, "mine", f"@{tmp_path / 'absent.txt'}")
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing yet\n\n", encoding="utf-8")
    with pytest.raises(RankerError) as e:
        select_split(store, "mine", f"@{empty}")
    assert str(empty) in str(e.value) and "names no document" in str(e.value)


def test_check_selection_refuses_a_glob_matching_nothing_and_a_list_naming_a_missing_document(tmp_path, corpus):
    reader = PennFiles(str(corpus), name="mine")
    check_selection("cfg.toml", reader, "train", "news_*")          # fine: no error
    check_selection("cfg.toml", reader, "test", "bio_c")             # a single document as a range
    with pytest.raises(ConfigError) as e:
        check_selection("cfg.toml", reader, "heldout", "sport_*")
    assert str(e.value).startswith("cfg.toml: [data] heldout = \"sport_*\"") and "no document" in str(e.value)
    listing = tmp_path / "list.txt"
    listing.write_text("news_a\n\nnews_z\n", encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        check_selection("cfg.toml", reader, "train", f"@{listing}")
    assert f"{listing}:3:" in str(e.value) and "news_z" in str(e.value)
    with pytest.raises(ConfigError, match="train"):
        check_selection("cfg.toml", reader, "train", "train")        # no named splits in a corpus of one's own
    assert not list(tmp_path.rglob("*.sqlite"))                      # all of it before any store exists


def test_validate_config_refuses_a_penn_split_matching_nothing_before_a_store_exists(tmp_path, corpus):
    store = tmp_path / "runs" / "s.sqlite"
    listing = tmp_path / "train.txt"
    listing.write_text("news_a\n", encoding="utf-8")
    data = {"corpus": "penn", "path": str(corpus), "name": "mine",
            "train": f"@{listing}", "heldout": "news_b*", "test": "bio_*"}
    validate_config(config_from_dict({"experiment": {"name": "t", "store": str(store)}, "data": data}, "t.toml"))
    bad = config_from_dict({"experiment": {"name": "t", "store": str(store)},
                            "data": dict(data, test="sport_*")}, "t.toml")
    with pytest.raises(ConfigError, match=r'^t\.toml: \[data\] test = "sport_\*"'):
        validate_config(bad)
    assert not store.exists()


def test_select_splits_reads_a_penn_corpus_by_list_glob_and_glob(tmp_path, corpus):
    listing = tmp_path / "train.txt"
    listing.write_text("news_a\n", encoding="utf-8")
    data = DataSection(corpus="penn", path=str(corpus), name="mine",
                       train=f"@{listing}", heldout="news_b*", test="bio_*")
    with Store.open(tmp_path / "s.sqlite") as store:
        splits = stages.select_splits(stages.StageContext(store), data)
        assert ids(splits.train) == ["mine/news_a.ptb/0", "mine/news_a.ptb/1"]
        assert ids(splits.heldout) == ["mine/news_b.ptb/0"]
        assert ids(splits.test) == ["mine/bio_c.ptb/0", "mine/bio_c.ptb/1", "mine/bio_c.ptb/2"]
        assert splits.extra == ()
        assert {s.corpus for s in splits.sentences()} == {"mine"}
        assert store.gold("mine/bio_c.ptb/2") is not None
        assert len(store.sentences()) == 6
        again = stages.select_splits(stages.StageContext(store), data)     # loaded once
        assert again == splits and len(store.sentences()) == 6


@pytest.mark.slow   # about 10 s (20 s on a busy machine)
def test_gum_with_its_own_lists_gives_its_official_split(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)                  # the config's paths are relative to the project folder
    if not Path("../shared/gum/const").is_dir():
        raise FileNotFoundError("GUM is not in ../shared/gum (see its README)")
    data = DataSection(corpus="penn", path="../shared/gum/const", name="gum",
                       train="@../shared/gum/splits/train.txt", heldout="@../shared/gum/splits/dev.txt",
                       test="@../shared/gum/splits/test.txt")
    reader = stages.corpus_reader(data)
    for key in ("train", "heldout", "test"):
        check_selection("gum.toml", reader, key, getattr(data, key))
    with Store.open(tmp_path / "s.sqlite") as store:
        splits = stages.select_splits(stages.StageContext(store), data)
        sizes = [len(s.sentences) for s in (splits.train, splits.heldout, splits.test)]
        assert sizes == [10224, 1575, 1464]
        docs = [set(s.document for s in part.sentences) for part in (splits.train, splits.heldout, splits.test)]
        assert [len(d) for d in docs] == [177, 30, 30]
        assert not (docs[0] & docs[1] or docs[0] & docs[2] or docs[1] & docs[2])
        assert splits.train.sentences[0].id == "gum/GUM_academic_art.ptb/0"


def test_a_run_on_text_without_gold_is_refused_before_any_store_exists(tmp_path):
    (tmp_path / "my.txt").write_text("Dogs bark .\n")
    cfg = config_from_dict({"experiment": {"store": str(tmp_path / "s.sqlite")},
                            "data": {"corpus": "text", "path": str(tmp_path / "my.txt")}}, "mine.toml")
    with pytest.raises(ConfigError, match="mine.toml: .data. corpus 'text' has no gold trees.*ranker apply"):
        validate_config(cfg)
    assert not (tmp_path / "s.sqlite").exists()
