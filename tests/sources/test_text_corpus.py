"""Issue 34: plain text as a corpus without gold (``[data] corpus = "text"``), one sentence a line, into a real store."""
import gzip
from pathlib import Path

import pytest

from ranker.errors import RankerError
from ranker.pipeline.config import DataSection
from ranker.sources.corpus import open_corpus, store_corpus
from ranker.sources.text_corpus import MAX_TOKENS, TextCorpus
from ranker.store import Store


def write(path: Path, text) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def stored(tmp_path: Path, reader) -> Store:
    store = Store.open(tmp_path / "s.sqlite")
    store_corpus(store, reader)
    return store


def one_line_error(excinfo, *parts: str) -> str:
    msg = str(excinfo.value)
    assert "\n" not in msg, msg
    for p in parts:
        assert p in msg, msg
    return msg


def test_tokens_format_ids_are_name_file_line_and_there_is_no_gold(tmp_path):
    f = write(tmp_path / "my.txt", "The cat sat .\nIt  was   tired .\n")
    reader = TextCorpus(str(f))
    assert reader.name == "text" and not reader.has_gold
    assert reader.documents() == ["my.txt"]
    store = stored(tmp_path, reader)
    got = store.sentences("text")
    assert [s.id for s in got] == ["text/my.txt/1", "text/my.txt/2"]
    assert [(s.document, s.index) for s in got] == [("my.txt", 1), ("my.txt", 2)]
    assert got[1].tokens == ("It", "was", "tired", ".")
    assert got[1].tags == ("", "", "", "")
    assert store.gold("text/my.txt/1") is None


def test_a_name_is_the_first_part_of_every_id(tmp_path):
    f = write(tmp_path / "news.txt", "a b\n")
    store = stored(tmp_path, TextCorpus(str(f), name="mine"))
    assert [s.id for s in store.sentences("mine")] == ["mine/news.txt/1"]


def test_raw_text_is_tokenized_as_the_penn_treebank_writes_it(tmp_path):
    f = write(tmp_path / "raw.txt", 'He said "hi" (twice).\nIt cost $5 [roughly] {sic}.\n')
    reader = open_corpus(DataSection(corpus="text", path=str(f), text_format="raw"))
    assert isinstance(reader, TextCorpus)
    store = stored(tmp_path, reader)
    first, second = store.sentences("text")
    assert first.tokens == ("He", "said", "``", "hi", "''", "-LRB-", "twice", "-RRB-", ".")
    assert first.tags == ("",) * 9
    assert "-LSB-" in second.tokens and "-RSB-" in second.tokens
    assert "-LCB-" in second.tokens and "-RCB-" in second.tokens
    assert not {"(", ")", "[", "]", "{", "}"} & set(first.tokens + second.tokens)


def test_tagged_text_splits_at_the_last_slash(tmp_path):
    f = write(tmp_path / "tagged.txt", "cats/NNS and/or/CC dogs/NNS ./.\n1/2/CD cup/NN\n")
    store = stored(tmp_path, TextCorpus(str(f), text_format="tagged"))
    first, second = store.sentences("text")
    assert first.tokens == ("cats", "and/or", "dogs", ".")
    assert first.tags == ("NNS", "CC", "NNS", ".")
    assert second.tokens == ("1/2", "cup") and second.tags == ("CD", "NN")


@pytest.mark.parametrize("line", ["the/DT cat", "the/DT /NN", "the/DT cat/"], ids=["no-slash", "no-word", "no-tag"])
def test_a_bad_tagged_token_is_an_error_naming_file_and_line(tmp_path, line):
    f = write(tmp_path / "tagged.txt", f"a/DT b/NN\n\n{line}\n")
    store = Store.open(tmp_path / "s.sqlite")
    with pytest.raises(RankerError) as e:
        store_corpus(store, TextCorpus(str(f), text_format="tagged"))
    one_line_error(e, f"{f}:3:", "word/TAG")
    assert store.sentences() == []          # nothing of a failed load is kept


def test_empty_and_over_long_lines_are_skipped_and_counted_with_file_and_line(tmp_path):
    longest = " ".join(["w"] * MAX_TOKENS)
    too_long = " ".join(["w"] * (MAX_TOKENS + 1))
    f = write(tmp_path / "t.txt", f"one .\n\n   \n{too_long}\n{longest}\ntwo .\n")
    reader = TextCorpus(str(f))
    store = Store.open(tmp_path / "s.sqlite")
    assert store_corpus(store, reader) == 3
    assert [s.id for s in store.sentences("text")] == ["text/t.txt/1", "text/t.txt/5", "text/t.txt/6"]
    assert len(store.sentence("text/t.txt/5").tokens) == MAX_TOKENS
    skipped = reader.skipped()
    assert len(skipped) == 3
    assert skipped[0].startswith(f"{f}:2:") and skipped[1].startswith(f"{f}:3:")
    assert skipped[2].startswith(f"{f}:4:") and str(MAX_TOKENS + 1) in skipped[2]
    _, meta = store.get_artifact("corpus", reader.marker())
    assert meta["sentences"] == 3 and meta["skipped"] == skipped


def test_latin1_text_read_as_utf8_is_an_error_naming_the_line_and_reads_as_latin1(tmp_path):
    f = write(tmp_path / "l.txt", "a b\nun caf\xe9 noir\n".encode("latin-1"))
    with pytest.raises(RankerError) as e:
        stored(tmp_path, TextCorpus(str(f)))
    one_line_error(e, f"{f}:2:", "UTF-8")
    store = stored(tmp_path, TextCorpus(str(f), name="l", encoding="latin-1"))
    assert store.sentence("l/l.txt/2").tokens == ("un", "caf\xe9", "noir")


def test_a_gzipped_text_file_reads_under_its_name_without_gz(tmp_path):
    f = write(tmp_path / "g.txt.gz", gzip.compress(b"a b .\n"))
    store = stored(tmp_path, TextCorpus(str(f)))
    assert [s.id for s in store.sentences("text")] == ["text/g.txt/1"]


def test_load_is_idempotent_and_a_changed_file_loads_again(tmp_path):
    f = write(tmp_path / "t.txt", "a b\n")
    store = Store.open(tmp_path / "s.sqlite")
    assert store_corpus(store, TextCorpus(str(f))) == 1
    assert store_corpus(store, TextCorpus(str(f))) == 0
    write(f, "a b\nc d\n")
    assert store_corpus(store, TextCorpus(str(f))) == 2
    assert [s.tokens for s in store.sentences("text")] == [("a", "b"), ("c", "d")]


@pytest.mark.parametrize("kw,parts", [
    ({"text_format": "xml"}, ("text_format", "xml")),
    ({"encoding": "klingon-8"}, ("encoding", "klingon-8")),
], ids=["format", "encoding"])
def test_bad_settings_are_errors_naming_the_key(tmp_path, kw, parts):
    f = write(tmp_path / "t.txt", "a\n")
    with pytest.raises(RankerError) as e:
        TextCorpus(str(f), **kw)
    one_line_error(e, *parts)


def test_a_missing_file_or_a_folder_is_an_error_naming_it(tmp_path):
    with pytest.raises(RankerError) as e:
        TextCorpus(str(tmp_path / "absent.txt"))
    one_line_error(e, str(tmp_path / "absent.txt"))
    with pytest.raises(RankerError) as e:
        TextCorpus(str(tmp_path))
    one_line_error(e, str(tmp_path), "not a file")


def test_the_reader_counts_every_line_skipped_ones_too(tmp_path):
    """``ranker apply`` writes one output line per input line from this count (it parsed the line
    numbers back out of the skipped lines' messages, which broke on a path holding ':')."""
    from ranker.sources.text_corpus import TextCorpus

    (tmp_path / "a:b.txt").write_text("Dogs bark .\n\nCats sleep .\n\n")
    reader = TextCorpus(str(tmp_path / "a:b.txt"))
    assert [i.sentence.index for i in reader.items()] == [1, 3] and reader.lines == 4
