"""``ranker apply``'s inputs and outputs beyond the plain case (issue 38): a list with a bad header,
an output named ``.gz``, and text applied a chunk of lines at a time.

Apart from ``test_apply.py`` (whose fixture and helpers they share) so that the test runner's
workers, which take a file each, share the slow tier evenly.
"""
import pytest
from test_apply import _big_input, _ok, _ranker

pytestmark = pytest.mark.slow


def test_a_list_with_a_bad_header_is_an_empty_line_named_by_its_line(bllip, tmp_path):
    """A header that is not ``COUNT<TAB>ID``: that list alone is skipped, the file and line named."""
    work, _, files = bllip
    blocks = files["test"].read_text().split("\n\n")
    head, *rest = blocks[2].split("\n")
    blocks[2] = "\n".join(["fifty\t" + head.split("\t", 1)[-1], *rest])
    bad = tmp_path / "bad.nbest"
    bad.write_text("\n\n".join(blocks))
    line = "\n\n".join(blocks[:2]).count("\n") + 3
    got = _ranker("apply", "--model", work / "model.json", "--lists", bad, "--out", tmp_path / "best.mrg",
                  "--no-progress", "--chunk", "2")
    assert got.returncode == 1 and "Traceback" not in got.stderr
    assert f"ranker: skipped: {bad}:{line}:" in got.stderr
    lines = (tmp_path / "best.mrg").read_text().split("\n")[:-1]
    want = (work / "selected.mrg").read_text().split("\n")[:-1]
    assert lines == want[:2] + [""] + want[3:]


def test_an_output_named_gz_is_compressed_and_the_same_from_every_executor(bllip, tmp_path):
    """A large corpus's trees as .gz; no time in the gzip header, so every run gives the same bytes."""
    import gzip

    work, _, files = bllip
    big, _ = _big_input(files, tmp_path)
    trees = (work / "selected.mrg").read_text().splitlines()   # _big_input's second copy's second list is broken
    want = "".join(t + "\n" for t in trees + ["" if k == 1 else t for k, t in enumerate(trees)] + trees)
    argv = ("apply", "--model", work / "model.json", "--lists", big, "--no-progress", "--partition-mb", "0.25")
    assert _ranker(*argv, "--workers", "1", "--out", tmp_path / "one.mrg.gz").returncode == 1
    assert _ranker(*argv, "--workers", "2", "--out", tmp_path / "pool.mrg.gz").returncode == 1
    assert gzip.decompress((tmp_path / "one.mrg.gz").read_bytes()).decode() == want
    assert (tmp_path / "pool.mrg.gz").read_bytes() == (tmp_path / "one.mrg.gz").read_bytes()
    # text through a store too
    _ok(_ranker("apply", "--model", work / "model.json", "--lists", files["test"], "--store", tmp_path / "s.sqlite",
                "--out", tmp_path / "stored.mrg.gz", "--no-progress"))
    assert gzip.decompress((tmp_path / "stored.mrg.gz").read_bytes()) == (work / "selected.mrg").read_bytes()


@pytest.mark.linkgrammar
def test_text_is_applied_a_chunk_at_a_time_with_what_one_store_gives(bllip, tmp_path):
    """Without --store, text is parsed, ranked and written a chunk of lines at a time (memory bounded
    by the chunk): the trees one store gives for the whole text, line for line; a line that is not
    UTF-8 is an empty line named by its file, line and column, not the end of the job (but the exit
    status is 1, as for a bad list: issue 44, item 12)."""
    import gzip

    work, _, _ = bllip
    good = ["The cat sat on the mat .", "Dogs bark at night .", "", "She gave him a book .",
            "Colorless green ideas sleep furiously .", "He left early .", "It rained ."]
    lines = [s.encode() for s in good]
    lines.insert(4, "Caf\u00e9 noir is good .".encode("latin-1"))   # line 5: not UTF-8
    text = tmp_path / "my.txt"
    text.write_bytes(b"\n".join(lines) + b"\n")
    mended = tmp_path / "mended.txt"   # the same with line 5 empty, through one store
    mended.write_text("\n".join(good[:4] + [""] + good[4:]) + "\n")
    model = work / "model.json"
    stored = _ok(_ranker("apply", "--model", model, "--text", mended, "--store", tmp_path / "s.sqlite",
                         "--out", tmp_path / "stored.mrg", "--no-progress"))
    want = (tmp_path / "stored.mrg").read_text()
    assert want.count("\n") == 8 and "wrote 6 trees" in stored.stdout
    got = _ranker("apply", "--model", model, "--text", text, "--chunk", "2", "--out", tmp_path / "best.mrg",
                  "--no-progress")
    assert got.returncode == 1 and "Traceback" not in got.stderr
    assert (tmp_path / "best.mrg").read_text() == want
    skipped = [x for x in got.stderr.splitlines() if x.startswith("ranker: skipped:")]
    assert skipped == [f"ranker: skipped: {text}:3: an empty line",
                       f"ranker: skipped: {text}:5:4: not UTF-8 text (byte 0xe9: invalid continuation byte)"]
    assert "wrote 6 trees" in got.stdout and "(8 input sentences)" in got.stdout
    piped = _ranker("apply", "--model", model, "--text", text, "--chunk", "3", "--out", "-", "--no-progress")
    assert piped.returncode == 1 and piped.stdout == want
    # compressed text cut short: the trees of the lines before the damage, then one error line (the
    # filler: lines of random words, too long to parse, so skipped at once and hardly compressible)
    import random

    rng = random.Random(0)
    filler = [" ".join("".join(rng.choice("abcdefgh") for _ in range(6)) for _ in range(250)) for _ in range(100)]
    data = gzip.compress(("\n".join(good + filler + good) + "\n").encode())
    (tmp_path / "cut.txt.gz").write_bytes(data[: len(data) // 2])
    cut = _ranker("apply", "--model", model, "--text", tmp_path / "cut.txt.gz", "--chunk", "4", "--out",
                  tmp_path / "cut.mrg", "--no-progress")
    assert cut.returncode == 1 and "Traceback" not in cut.stderr
    assert f"ranker: error: {tmp_path / 'cut.txt.gz'}: cannot be read after line" in cut.stderr
    first = (tmp_path / "cut.mrg").read_text().split("\n")[:-1]
    assert 8 < len(first) < 107 and len(first) % 4 == 0 and set(first[7:]) == {""}
    assert first[:7] == [x for k, x in enumerate(want.split("\n")[:8]) if k != 4]
