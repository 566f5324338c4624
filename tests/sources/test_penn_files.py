"""Issue 34: a treebank on disk (``[data] corpus = "penn"``): Penn files in any layout, read into a real store.

The LDC layout ``parsed/mrg/wsj/SS/wsj_SSNN.mrg`` is made under ``tmp_path`` from the members of
NLTK's WSJ sample (``../shared/nltk_data/corpora/treebank.zip``); read as files on disk it must give
exactly the sentences, ids, tags and gold trees NLTK's reader gives. Nothing is copied into the repo.
"""
import gzip
import zipfile
import zlib
from pathlib import Path

import pytest

from ranker.errors import RankerError
from ranker.pipeline.splits import select_split
from ranker.sources.corpus import open_corpus, store_corpus
from ranker.sources.penn_files import PennFiles
from ranker.sources.treebank import treebank_sentences
from ranker.store import Store
from ranker.trees.penn import format_tree

ROOT = Path(__file__).resolve().parents[2]
TREEBANK_ZIP = ROOT.parent / "shared" / "nltk_data" / "corpora" / "treebank.zip"
#: A few documents of each section and each part of the standard split, at the boundaries.
FEW = ("wsj_0001.mrg", "wsj_0002.mrg", "wsj_0099.mrg", "wsj_0100.mrg", "wsj_0139.mrg",
       "wsj_0140.mrg", "wsj_0169.mrg", "wsj_0170.mrg", "wsj_0199.mrg")


def ldc_layout(root: Path, docs=None, gz: bool = False) -> Path:
    """``root/parsed/mrg/wsj/{00,01}/wsj_00NN.mrg`` (maybe ``.gz``) from the sample's members; the wsj folder."""
    wsj = root / "parsed" / "mrg" / "wsj"
    with zipfile.ZipFile(TREEBANK_ZIP) as z:
        for member in z.namelist():
            name = member.rsplit("/", 1)[-1]
            if not (member.startswith("treebank/combined/wsj_") and name.endswith(".mrg")):
                continue
            if docs is not None and name not in docs:
                continue
            folder = wsj / name[4:6]          # wsj_0001-0099 -> 00, wsj_0100-0199 -> 01
            folder.mkdir(parents=True, exist_ok=True)
            data = z.read(member)
            if gz:
                (folder / f"{name}.gz").write_bytes(gzip.compress(data))
            else:
                (folder / name).write_bytes(data)
    return wsj


def assert_same_as_nltk(store: Store, gold) -> None:
    """Every NLTK sentence is stored under its id with the same tokens, tags and gold Penn text, and no other."""
    assert [s.id for s in store.sentences("treebank")] == [g.sentence.id for g in gold]
    for g in gold:
        s = store.sentence(g.sentence.id)
        assert s == g.sentence, g.sentence.id
        assert format_tree(store.gold(g.sentence.id)) == format_tree(g.tree), g.sentence.id


def write(path: Path, text, encoding: str | None = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding=encoding)
    return path


def read_into_store(tmp_path: Path, spec: Path, **kw) -> Store:
    """Build the reader and load it into a fresh store (every error of reading surfaces here)."""
    reader = PennFiles(str(spec), **kw)
    store = Store.open(tmp_path / "s.sqlite")
    store_corpus(store, reader)
    return store


def one_line_error(excinfo, *parts: str) -> str:
    msg = str(excinfo.value)
    assert "\n" not in msg, msg
    for p in parts:
        assert p in msg, msg
    return msg


# ------------------------------------------------------------------ the LDC layout is NLTK's sample

@pytest.mark.parametrize("gz", [False, True], ids=["mrg", "mrg.gz"])
def test_ldc_layout_of_a_few_documents_reads_as_nltk_reads_them(tmp_path, gz):
    wsj = ldc_layout(tmp_path, FEW, gz=gz)
    suffix = ".gz" if gz else ""
    assert (wsj / "00" / f"wsj_0099.mrg{suffix}").is_file() and (wsj / "01" / f"wsj_0100.mrg{suffix}").is_file()
    reader = PennFiles(path=str(wsj), name="treebank")
    assert reader.name == "treebank"
    assert reader.documents() == list(FEW)          # ids without .gz, across both section folders, in order
    store = Store.open(tmp_path / "s.sqlite")
    n = store_corpus(store, reader)
    gold = list(treebank_sentences(list(FEW)))
    assert n == len(gold) > 0
    assert gold[0].sentence.id == "treebank/wsj_0001.mrg/0"
    assert_same_as_nltk(store, gold)
    # document ranges over the ids the layout gives
    train = select_split(store, "treebank", "wsj_0001-0139")
    assert sorted({s.document for s in train.sentences}) == list(FEW[:5])
    assert len(train.sentences) == sum(1 for g in gold if g.sentence.document <= "wsj_0139.mrg")
    test = select_split(store, "treebank", "wsj_0170-0199")
    assert [s.id for s in test.sentences] == [g.sentence.id for g in gold if g.sentence.document >= "wsj_0170.mrg"]


@pytest.mark.slow   # 5-9 s each, plus reading NLTK's sample once (2-4 s)
@pytest.mark.parametrize("gz", [False, True], ids=["mrg", "mrg.gz"])
def test_ldc_layout_of_the_whole_sample_is_nltks_sample_and_its_standard_split(tmp_path, gz, treebank_sample):
    wsj = ldc_layout(tmp_path, gz=gz)
    reader = PennFiles(path=str(wsj), name="treebank")
    assert len(reader.documents()) == 199
    store = Store.open(tmp_path / "s.sqlite")
    assert store_corpus(store, reader) == 3914
    sizes = [len(select_split(store, "treebank", spec).sentences)
             for spec in ("wsj_0001-0139", "wsj_0140-0169", "wsj_0170-0199")]
    assert sizes == [3068, 433, 413]
    assert_same_as_nltk(store, treebank_sample)


# ------------------------------------------------------------------ what a tree file may hold

BODY = ("(S (NP-SBJ-1 (NNP Vinken)) (VP (VBD was) (VP (VBN named) (NP (-NONE- *-1)) "
        "(S-CLR (NP-SBJ (-NONE- *-1)) (NP-PRD (DT a) (NN director))))) (. .))")
#: BODY as stored: function tags kept, the empty elements and the phrases emptied by them gone.
STORED = "(S (NP-SBJ-1 (NNP Vinken)) (VP (VBD was) (VP (VBN named) (S-CLR (NP-PRD (DT a) (NN director))))) (. .))"


def test_root_conventions_give_the_same_gold_with_function_tags_and_no_empty_elements(tmp_path):
    folder = tmp_path / "roots"
    write(folder / "empty.mrg", f"( {BODY} )\n")
    write(folder / "root.ptb", f"(ROOT\n  {BODY})\n")
    write(folder / "top.tree", f"(TOP {BODY})\n")
    write(folder / "bare.penn", f"{BODY}\n")
    write(folder / "README.txt", "not a tree file: passed over when reading a folder\n")
    reader = PennFiles(str(folder))
    assert reader.name == "roots"                    # the folder's name when [data] name is not given
    assert reader.documents() == ["bare.penn", "empty.mrg", "root.ptb", "top.tree"]
    store = Store.open(tmp_path / "s.sqlite")
    assert store_corpus(store, reader) == 4
    for doc in reader.documents():
        sid = f"roots/{doc}/0"
        assert format_tree(store.gold(sid)) == STORED, doc
        s = store.sentence(sid)
        assert s.tokens == ("Vinken", "was", "named", "a", "director", ".")
        assert s.tags == ("NNP", "VBD", "VBN", "DT", "NN", ".")


def test_trees_separated_by_blank_lines_or_by_nothing(tmp_path):
    f = write(tmp_path / "c" / "d.mrg",
              "( (S (NN a)) )( (S (NN b)) ) ( (S (NN c)) )\n"
              "( (S\n    (NN d)) )\n"
              "\n\n"
              "(ROOT (S (NN e)))(TOP (S (NN f)))")
    store = read_into_store(tmp_path, f, name="c")
    got = store.sentences("c")
    assert [s.id for s in got] == [f"c/d.mrg/{i}" for i in range(6)]
    assert [s.tokens for s in got] == [(w,) for w in "abcdef"]
    assert all(format_tree(store.gold(s.id)) == f"(S (NN {s.tokens[0]}))" for s in got)


def test_a_glob_names_the_files_and_the_name_defaults_to_its_folder(tmp_path):
    write(tmp_path / "trees" / "x1.mrg", "(S (NN a))\n")
    write(tmp_path / "trees" / "x2.mrg", "(S (NN b))\n")
    write(tmp_path / "trees" / "y.mrg", "(S (NN c))\n")
    reader = PennFiles(str(tmp_path / "trees" / "x*.mrg"))
    assert reader.name == "trees"
    assert reader.documents() == ["x1.mrg", "x2.mrg"]
    one = PennFiles(str(tmp_path / "trees" / "y.mrg"), name="one")
    assert [i.sentence.id for i in one.items()] == ["one/y.mrg/0"]


def test_open_corpus_builds_a_penn_reader_from_the_data_section(tmp_path):
    from ranker.pipeline.config import DataSection

    write(tmp_path / "t" / "d.ptb", "(ROOT (S (NN caf\xe9)))\n", encoding="latin-1")
    reader = open_corpus(DataSection(corpus="penn", path=str(tmp_path / "t"), name="mine", encoding="latin-1"))
    assert isinstance(reader, PennFiles) and reader.name == "mine"
    assert [i.sentence.tokens for i in reader.items()] == [("caf\xe9",)]


# ------------------------------------------------------------------ bad input: one line naming the file (and line)

def test_a_folder_with_no_tree_files_is_an_error_naming_it(tmp_path):
    folder = tmp_path / "nothing"
    write(folder / "notes.txt", "(S (NN a))\n")
    with pytest.raises(RankerError) as e:
        read_into_store(tmp_path, folder)
    one_line_error(e, str(folder), "no tree files")


def test_a_missing_path_is_an_error_naming_it(tmp_path):
    with pytest.raises(RankerError) as e:
        PennFiles(str(tmp_path / "absent"))
    one_line_error(e, str(tmp_path / "absent"))


def test_a_file_that_is_not_bracketed_text_is_an_error_naming_file_and_line(tmp_path):
    f = write(tmp_path / "c" / "d.mrg", "(S (NN a))\n\nThis is a sentence, not a tree.\n")
    with pytest.raises(RankerError) as e:
        read_into_store(tmp_path, f)
    one_line_error(e, f"{f}:3:", "outside any bracket")


def test_a_file_holding_no_tree_is_an_error_naming_it(tmp_path):
    f = write(tmp_path / "c" / "d.mrg", "\n\n   \n")
    with pytest.raises(RankerError) as e:
        read_into_store(tmp_path, f)
    one_line_error(e, str(f), "no bracketed tree")


@pytest.mark.parametrize("text,line,what", [
    ("(S (NN a))\n\n( (S (NP (NN b)\n   (VP (VB c))))\n", 3, "missing ')'"),
    ("(S (NN a))\n\n(S (NN b)))\n", 3, "unmatched ')'"),
], ids=["unclosed", "unmatched"])
def test_an_unbalanced_tree_is_an_error_naming_file_and_line(tmp_path, text, line, what):
    f = write(tmp_path / "c" / "d.mrg", text)
    with pytest.raises(RankerError) as e:
        read_into_store(tmp_path, f)
    one_line_error(e, f"{f}:{line}:", what)


def test_a_tree_with_no_words_is_an_error_naming_file_and_line(tmp_path):
    f = write(tmp_path / "c" / "d.mrg", "( (S (NN a)) )\n( (S (NP-SBJ (-NONE- *)) (VP (-NONE- *T*-1))) )\n")
    with pytest.raises(RankerError) as e:
        read_into_store(tmp_path, f)
    one_line_error(e, f"{f}:2:", "no words")


def test_a_document_in_two_files_is_an_error_naming_both(tmp_path):
    a = write(tmp_path / "c" / "a" / "x.mrg", "(S (NN a))\n")
    b = write(tmp_path / "c" / "b" / "x.mrg.gz", gzip.compress(b"(S (NN b))\n"))
    with pytest.raises(RankerError) as e:
        read_into_store(tmp_path, tmp_path / "c")
    one_line_error(e, str(a), str(b), "x.mrg")


def test_latin1_bytes_read_as_utf8_are_an_error_naming_file_and_line_and_read_as_latin1(tmp_path):
    f = write(tmp_path / "c" / "d.mrg", "(S (NN a))\n\n(S (NN caf\xe9))\n".encode("latin-1"))
    with pytest.raises(RankerError) as e:
        read_into_store(tmp_path, f)
    one_line_error(e, f"{f}:3:", "UTF-8")
    store = read_into_store(tmp_path, f, encoding="latin-1", name="l")
    assert [s.tokens for s in store.sentences("l")] == [("a",), ("caf\xe9",)]


def test_an_unknown_encoding_is_an_error_naming_the_key(tmp_path):
    f = write(tmp_path / "c" / "d.mrg", "(S (NN a))\n")
    with pytest.raises(RankerError) as e:
        PennFiles(str(f), encoding="klingon-8")
    one_line_error(e, "encoding", "klingon-8")


def _damaged_gzip(text: bytes) -> bytes:
    """``text`` gzipped with one byte of its deflate stream changed so that zlib itself refuses it."""
    good = gzip.compress(text)
    for at in range(20, len(good) - 8):
        bad = bytearray(good)
        bad[at] ^= 0xFF
        try:
            gzip.decompress(bytes(bad))
        except zlib.error:
            return bytes(bad)
        except (OSError, EOFError):
            continue
    raise AssertionError("no damage zlib refuses")


@pytest.mark.parametrize("damage", ["zlib", "truncated", "not-gzip"])
def test_a_damaged_gz_file_is_an_error_naming_it(tmp_path, damage):
    text = " ".join(f"(S (NN w{i}) (VBZ is) (CD {i * 7919 % 1000}))" for i in range(400)).encode()
    data = {"zlib": lambda: _damaged_gzip(text), "truncated": lambda: gzip.compress(text)[:-200],
            "not-gzip": lambda: text}[damage]()
    f = write(tmp_path / "c" / "d.mrg.gz", data)
    with pytest.raises(RankerError) as e:
        read_into_store(tmp_path, f)
    one_line_error(e, str(f), "cannot be read")


# ------------------------------------------------------------------ loading into the store

def test_store_corpus_is_idempotent(tmp_path):
    write(tmp_path / "c" / "a.mrg", "(S (NN a))\n(S (NN b))\n")
    write(tmp_path / "c" / "b.mrg", "(S (NN c))\n")
    reader = PennFiles(str(tmp_path / "c"), name="c")
    store = Store.open(tmp_path / "s.sqlite")
    assert store_corpus(store, reader) == 3
    assert store_corpus(store, PennFiles(str(tmp_path / "c"), name="c")) == 0
    assert reader.load(store) == 0
    assert [s.id for s in store.sentences("c")] == ["c/a.mrg/0", "c/a.mrg/1", "c/b.mrg/0"]


@pytest.mark.parametrize("batch_size", [1, 500])
def test_a_load_failing_half_way_stores_nothing_and_a_later_good_load_stores_all(tmp_path, batch_size):
    write(tmp_path / "c" / "a.mrg", "(S (NN a))\n(S (NN b))\n(S (NN c))\n")
    bad = write(tmp_path / "c" / "b.mrg", "(S (NN d))\n(S (NP (NN e)\n")
    store = Store.open(tmp_path / "s.sqlite")
    with pytest.raises(RankerError) as e:
        store_corpus(store, PennFiles(str(tmp_path / "c"), name="c"), batch_size=batch_size)
    one_line_error(e, f"{bad}:2:")
    assert store.sentences() == []
    assert store.gold("c/a.mrg/0") is None
    assert store.artifact_keys("corpus") == []
    write(bad, "(S (NN d))\n(S (NP (NN e)))\n")
    assert store_corpus(store, PennFiles(str(tmp_path / "c"), name="c"), batch_size=batch_size) == 5
    assert format_tree(store.gold("c/b.mrg/1")) == "(S (NP (NN e)))"


def test_a_changed_document_that_changes_stored_words_is_refused(tmp_path):
    f = write(tmp_path / "c" / "a.mrg", "(S (NN a))\n")
    store = Store.open(tmp_path / "s.sqlite")
    assert store_corpus(store, PennFiles(str(tmp_path / "c"), name="c")) == 1
    write(f, "(S (NN a))\n(S (NN b))\n")        # a sentence added: loaded again, the first unchanged
    assert store_corpus(store, PennFiles(str(tmp_path / "c"), name="c")) == 2
    write(f, "(S (NN z))\n(S (NN b))\n")        # the stored sentence's words changed
    with pytest.raises(RankerError) as e:
        store_corpus(store, PennFiles(str(tmp_path / "c"), name="c"))
    one_line_error(e, "c/a.mrg/0", "changed")
    assert store.sentence("c/a.mrg/0").tokens == ("a",)


def test_a_byte_order_mark_is_no_text(tmp_path):
    """Regression: a UTF-8 file starting with a byte-order mark was 'stray text outside any bracket' at 1:1."""
    (tmp_path / "bom.mrg").write_bytes("\ufeff(S (NP (NN Dogs)) (VP (VBP bark)))\n".encode("utf-8"))
    reader = PennFiles(str(tmp_path / "bom.mrg"), name="bom")
    (item,) = list(reader.items())
    assert item.sentence.tokens == ("Dogs", "bark")
