"""Issue 44: ``ranker apply`` and text input (items 1, 2, 4-6, 8-10, 12, 14-17), and a pass over every
option of ``ranker apply`` fed the wrong kind of value, as a table a later probe can rerun.

Each case is a command run as a user runs it (a process of its own, forked from the test process with
its imports done (:mod:`ranker_forked`), with a time limit, so that a
hang fails the case instead of the test run: item 8 hung), in a folder ``{t}`` holding the small
BLLIP model ``m.json``, the test lists ``l.nbest`` (also as ``l.nbest.gz``, and a second copy
``l2.nbest``), lists with a bad list ``b.nbest`` and one of no candidate ``z.nbest``, and a store
``s.sqlite`` that applied ``l.nbest``; with the files the case adds, its expected exit status and
the start of its first stderr line (``None``: stderr empty). A refused case (exit status 2) leaves
every file of its folder byte for byte as it was (sha256) and adds none. Cases that parse text with
Link Grammar are the test functions below, few and small.
"""
import gzip
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ranker_forked import run_forked

pytestmark = pytest.mark.slow

#: A time limit no case comes near (the slowest parses two short lines): a hang fails, it does not wait.
TIMEOUT = 300

TEXT = "The cat sat on the mat .\n"


class Link(str):
    """A file of a case that is a symbolic link to this (relative) target."""


class Hard(str):
    """A file of a case that is a hard link to this file of the folder."""


APPLY = ["apply", "--model", "{t}/m.json", "--no-progress"]
LISTS = [*APPLY, "--lists", "{t}/l.nbest"]
STORED = [*LISTS, "--store", "{t}/s.sqlite"]
TXT = [*APPLY, "--text", "{t}/in.txt"]
OUT = ["--out", "{t}/o.mrg"]
ERR = "ranker: error: "
WOULD = r"; give another path \(nothing was written\)$"
FILES = "--lists FILE\\.\\.\\. without --store \\(files, not standard input\\)"


def _unused(option: str, where: str) -> str:
    return rf"{ERR}{option} applies to {where}; here it would be ignored: leave it out$"


#: name: (argv, {file: text}, exit status, first stderr line's start (a regular expression)).
CASES = {
    # item 1: an output that is its own input is refused before anything is written
    "1 --out is --text": ([*TXT, "--out", "{t}/in.txt"], {"in.txt": TEXT}, 2,
                          rf"{ERR}{{t}}/in\.txt: --out would overwrite its input --text {{t}}/in\.txt{WOULD}"),
    "1 --out is --model": ([*LISTS, "--out", "{t}/m.json"], {}, 2,
                           rf"{ERR}{{t}}/m\.json: --out would overwrite its input --model {{t}}/m\.json{WOULD}"),
    "1 --out is --lists": ([*LISTS, "--out", "{t}/l.nbest"], {}, 2,
                           rf"{ERR}{{t}}/l\.nbest: --out would overwrite its input --lists {{t}}/l\.nbest{WOULD}"),
    "1 --out is --lists .gz": ([*APPLY, "--lists", "{t}/l.nbest.gz", "--out", "{t}/l.nbest.gz"], {}, 2,
                               rf"{ERR}{{t}}/l\.nbest\.gz: --out would overwrite its input --lists "
                               rf"{{t}}/l\.nbest\.gz{WOULD}"),
    "1 --out is the second --lists, two workers": ([*LISTS, "{t}/l2.nbest", "--workers", "2", "--out",
                                                    "{t}/l2.nbest"], {}, 2,
                                                   rf"{ERR}{{t}}/l2\.nbest: --out would overwrite its input "
                                                   rf"--lists {{t}}/l2\.nbest{WOULD}"),
    "1 --out is --lists, with --store": ([*STORED, "--out", "{t}/l.nbest"], {}, 2,
                                         rf"{ERR}{{t}}/l\.nbest: --out would overwrite its input --lists"),
    "1 --out is --model, with --store": ([*STORED, "--out", "{t}/m.json"], {}, 2,
                                         rf"{ERR}{{t}}/m\.json: --out would overwrite its input --model"),
    "1 --out is --model, with --report": ([*TXT, "--report", "{t}/rep", "--out", "{t}/m.json"], {"in.txt": TEXT}, 2,
                                          rf"{ERR}{{t}}/m\.json: --out would overwrite its input --model"),
    "1 --out a symbolic link to --text": ([*TXT, "--out", "{t}/o.mrg"], {"in.txt": TEXT, "o.mrg": Link("in.txt")},
                                          2, rf"{ERR}{{t}}/o\.mrg: --out would overwrite its input --text "
                                             rf"{{t}}/in\.txt{WOULD}"),
    "1 --out a hard link to --model": ([*LISTS, "--out", "{t}/o.mrg"], {"o.mrg": Hard("m.json")}, 2,
                                       rf"{ERR}{{t}}/o\.mrg: --out would overwrite its input --model"),
    "1 --out through .. to --lists": ([*LISTS, "--out", "{t}/sub/../l.nbest"], {"sub/x": ""}, 2,
                                      rf"{ERR}{{t}}/sub/\.\./l\.nbest: --out would overwrite its input --lists"),
    "1 --out relative, --lists absolute": ([*LISTS, "--out", "l.nbest"], {}, 2,
                                           rf"{ERR}l\.nbest: --out would overwrite its input --lists "
                                           rf"{{t}}/l\.nbest{WOULD}"),
    # item 2: --out and the report's files are one file: refused, not the trees replaced by the report
    "2 --out is DIR/report.md": ([*STORED, "--report", "{t}/rep", "--out", "{t}/rep/report.md"],
                                 {"rep/notes.txt": "mine"}, 2,
                                 rf"{ERR}{{t}}/rep/report\.md: --out is {{t}}/rep/report\.md, a file of the "
                                 rf"report --report {{t}}/rep writes{WOULD}"),
    "2 --out is DIR/report.html by a link": ([*STORED, "--report", "{t}/rep", "--out", "{t}/o.html"],
                                             {"rep/notes.txt": "mine", "o.html": Link("rep/report.html")}, 2,
                                             rf"{ERR}{{t}}/o\.html: --out is {{t}}/rep/report\.html, a file "
                                             rf"of the report"),
    "2 --report over the --text": ([*APPLY, "--text", "{t}/rep/report.md", "--report", "{t}/rep", *OUT],
                                   {"rep/report.md": TEXT}, 2,
                                   rf"{ERR}{{t}}/rep/report\.md: --report would overwrite its input --text"),
    "2 --report over the store": ([*LISTS, "--store", "{t}/rep/report.json", "--report", "{t}/rep", *OUT],
                                  {"rep/report.json": Hard("s.sqlite")}, 2,
                                  rf"{ERR}{{t}}/rep/report\.json: --report would overwrite the store"),
    # item 9: an encoding Python does not know, or one that is no text encoding, is one line
    "9 --encoding nosuch": ([*TXT, "--encoding", "nosuch", *OUT], {"in.txt": TEXT}, 2,
                            rf"{ERR}--encoding: unknown encoding 'nosuch'$"),
    "9 --encoding nosuch, with --store": ([*TXT, "--encoding", "nosuch", "--store", "{t}/s.sqlite", *OUT],
                                          {"in.txt": TEXT}, 2, rf"{ERR}--encoding: unknown encoding 'nosuch'$"),
    **{f"9 --encoding {codec}": ([*TXT, "--encoding", codec, *OUT], {"in.txt": TEXT}, 2,
                                 rf"{ERR}--encoding: '{codec}' is a codec, not a text encoding$")
       for codec in ("hex", "rot13")},
    # items 10 and 12: a list of no candidate, a bad list: skipped, named, exit status 1 on every path
    "10 a list of no candidate": ([*APPLY, "--lists", "{t}/z.nbest", *OUT], {}, 1,
                                  r"ranker: skipped: {t}/z\.nbest:1: the list holds no candidate \(its header "
                                  r"says 0\)$"),
    "10 a list of no candidate, with --store": ([*APPLY, "--lists", "{t}/z.nbest", "--store", "{t}/s.sqlite", *OUT],
                                                {}, 1, r"ranker: skipped: {t}/z\.nbest:1: the list holds no "
                                                       r"candidate \(its header says 0\)$"),
    "12 a bad list": ([*APPLY, "--lists", "{t}/b.nbest", *OUT], {}, 1,
                      r"ranker: skipped: {t}/b\.nbest:1: expected '<count> <sentence id>'"),
    "12 a bad list, with --store": ([*APPLY, "--lists", "{t}/b.nbest", "--store", "{t}/s.sqlite", *OUT], {}, 1,
                                    r"ranker: skipped: {t}/b\.nbest:1: expected '<count> <sentence id>'"),
    # item 14: partitions are streamed lists' own: with a store or text, refused in one line
    "14 --parts with --store": ([*STORED, "--parts", "{t}/p", *OUT], {}, 2, _unused("--parts", FILES)),
    "14 --partition-mb with --store": ([*STORED, "--partition-mb", "1", *OUT], {}, 2,
                                       _unused("--partition-mb", FILES)),
    "14 --parts with --text": ([*TXT, "--parts", "{t}/p", *OUT], {"in.txt": TEXT}, 2, _unused("--parts", FILES)),
    "14 --partition-mb with --text": ([*TXT, "--partition-mb", "1", *OUT], {"in.txt": TEXT}, 2,
                                      _unused("--partition-mb", FILES)),
    # item 17: a split list that is a folder says so
    "17 --split @FOLDER": (["select", "--store", "{t}/s.sqlite", "--corpus", "lists", "--split", "@{t}/dir",
                            "--ranker", "heidorn", "--out", "{t}/h.mrg"], {"dir/x": ""}, 2,
                           rf"{ERR}{{t}}/dir: a folder, not a split list \(a split given as @FILE: a file of "
                           r"document names, one a line\)$"),
    # the hostile pass: every option of ranker apply fed the wrong kind of value
    "H --model missing": ([*APPLY[:2], "{t}/nosuch.json", "--lists", "{t}/l.nbest", *OUT], {}, 2,
                          rf"{ERR}{{t}}/nosuch\.json: no such model file$"),
    "H --model a folder": ([*APPLY[:2], "{t}/dir", "--lists", "{t}/l.nbest", *OUT], {"dir/x": ""}, 2,
                           rf"{ERR}{{t}}/dir: is a folder, not a model file$"),
    "H --model a text file": ([*APPLY[:2], "{t}/in.txt", "--lists", "{t}/l.nbest", *OUT], {"in.txt": TEXT}, 2,
                              rf"{ERR}{{t}}/in\.txt:1:1: not a model file"),
    "H --model the lists": ([*APPLY[:2], "{t}/l.nbest", "--lists", "{t}/l.nbest", *OUT], {}, 2,
                            rf"{ERR}{{t}}/l\.nbest:1:\d+: not a model file"),
    "H --model the store": ([*APPLY[:2], "{t}/s.sqlite", "--lists", "{t}/l.nbest", *OUT], {}, 2,
                            rf"{ERR}{{t}}/s\.sqlite:1:\d+: not UTF-8 text"),
    "H --text missing": ([*APPLY, "--text", "{t}/nosuch.txt", *OUT], {}, 2, rf"{ERR}{{t}}/nosuch\.txt: no such file$"),
    "H --text a folder": ([*APPLY, "--text", "{t}/dir", *OUT], {"dir/x": ""}, 2, rf"{ERR}{{t}}/dir: not a file$"),
    "H --text empty": ([*TXT, *OUT], {"in.txt": ""}, 0, None),
    "H --lists missing": ([*APPLY, "--lists", "{t}/nosuch", *OUT], {}, 2, rf"{ERR}{{t}}/nosuch: no such file$"),
    "H --lists a folder": ([*APPLY, "--lists", "{t}/dir", *OUT], {"dir/x": ""}, 2, rf"{ERR}{{t}}/dir: not a file$"),
    "H --lists a text file": ([*APPLY, "--lists", "{t}/in.txt", *OUT], {"in.txt": TEXT}, 1,
                              r"ranker: skipped: {t}/in\.txt:1: expected '<count> <sentence id>'"),
    "H --lists a text file, with --store": ([*APPLY, "--lists", "{t}/in.txt", "--store", "{t}/s.sqlite", *OUT],
                                            {"in.txt": TEXT}, 2,
                                            rf"{ERR}{{t}}/in\.txt: no forest of it can be stored"),
    "H --lists - with --store": ([*APPLY, "--lists", "-", "--store", "{t}/s.sqlite", *OUT], {}, 2,
                                 rf"{ERR}--lists - \(standard input\) is streamed alone"),
    "H two --lists with --store": ([*STORED[:-2], "{t}/l2.nbest", "--store", "{t}/s.sqlite", *OUT], {}, 2,
                                   rf"{ERR}--store takes one --lists file$"),
    "H --report, streamed lists": ([*LISTS, "--report", "{t}/rep", *OUT], {}, 2,
                                   rf"{ERR}--report describes the forests a store keeps"),
    "H --report a file": ([*STORED, "--report", "{t}/in.txt", *OUT], {"in.txt": TEXT}, 2,
                          rf"{ERR}--report {{t}}/in\.txt: not a folder"),
    "H --format nosuch": ([*LISTS, "--format", "nosuch", *OUT], {}, 2, rf"{ERR}argument --format: invalid choice"),
    "H --format with --text": ([*TXT, "--format", "penn", *OUT], {"in.txt": TEXT}, 2, _unused("--format", "--lists")),
    "H --text-format nosuch": ([*TXT, "--text-format", "nosuch", *OUT], {"in.txt": TEXT}, 2,
                               rf"{ERR}argument --text-format: invalid choice"),
    "H --text-format with --lists": ([*LISTS, "--text-format", "tagged", *OUT], {}, 2,
                                     _unused("--text-format", "--text")),
    "H --encoding with --lists": ([*LISTS, "--encoding", "latin-1", *OUT], {}, 2,
                                  _unused("--encoding", r"--text \(lists are read as UTF-8\)")),
    **{f"H {opt} with --lists": ([*LISTS, *given, *OUT], {}, 2,
                                 _unused(opt, r"--text \(Link Grammar parses text; lists come parsed\)"))
       for opt, given in (("--linkage-limit", ["--linkage-limit", "5"]),
                          ("--max-parse-time", ["--max-parse-time", "3"]),
                          ("--no-null-links", ["--no-null-links"]))},
    "H --linkage-limit 0": ([*TXT, "--linkage-limit", "0", *OUT], {"in.txt": TEXT}, 2,
                            rf"{ERR}argument --linkage-limit: must be >= 1, got 0$"),
    "H --max-parse-time nan": ([*TXT, "--max-parse-time", "nan", *OUT], {"in.txt": TEXT}, 2,
                               rf"{ERR}argument --max-parse-time: must be a finite number"),
    "H --out a folder": ([*LISTS, "--out", "{t}/dir"], {"dir/x": ""}, 2, rf"{ERR}--out {{t}}/dir: is a folder"),
    "H --out in no folder": ([*LISTS, "--out", "{t}/nosuch/o.mrg"], {}, 2,
                             rf"{ERR}--out {{t}}/nosuch/o\.mrg: no such directory"),
    "H --out the store": ([*STORED, "--out", "{t}/s.sqlite"], {}, 2,
                          rf"{ERR}{{t}}/s\.sqlite: --out would overwrite the store"),
    "H --chunk 0": ([*LISTS, "--chunk", "0", *OUT], {}, 2, rf"{ERR}--chunk must be >= 1, not 0$"),
    "H --chunk abc": ([*LISTS, "--chunk", "abc", *OUT], {}, 2, rf"{ERR}argument --chunk: invalid int value"),
    "H --chunk with --store": ([*STORED, "--chunk", "5", *OUT], {}, 2,
                               _unused("--chunk", r"streamed input, --lists or --text without --store \(nor "
                                                  r"--report\): a store's input is read whole")),
    "H --chunk with --report": ([*TXT, "--report", "{t}/rep", "--chunk", "5", *OUT], {"in.txt": TEXT}, 2,
                                rf"{ERR}--chunk applies to streamed input, "),
    "H --store a folder": ([*LISTS, "--store", "{t}/dir", *OUT], {"dir/x": ""}, 2,
                           rf"{ERR}{{t}}/dir: is a folder, not a store file$"),
    "H --store the --text": ([*TXT, "--store", "{t}/in.txt", *OUT], {"in.txt": TEXT}, 2,
                             rf"{ERR}{{t}}/in\.txt: not a ranker store"),
    "H --store the model": ([*LISTS, "--store", "{t}/m.json", *OUT], {}, 2, rf"{ERR}{{t}}/m\.json: not a ranker store"),
    **{f"H --partition-mb {mb}": ([*LISTS, "--partition-mb", mb, *OUT], {}, 2,
                                  rf"{ERR}--partition-mb must be a number of megabytes above 0, not {float(mb)}$")
       for mb in ("0", "-1", "nan", "inf")},
    "H --partition-mb abc": ([*LISTS, "--partition-mb", "abc", *OUT], {}, 2,
                             rf"{ERR}argument --partition-mb: invalid float value"),
    "H --parts a file": ([*LISTS, "--parts", "{t}/in.txt", *OUT], {"in.txt": TEXT}, 2,
                         rf"{ERR}--parts {{t}}/in\.txt: not a folder$"),
    "H --parts with --lists -": ([*APPLY, "--lists", "-", "--parts", "{t}/p", *OUT], {}, 2, _unused("--parts", FILES)),
    "H --executor nosuch": ([*LISTS, "--executor", "nosuch", *OUT], {}, 2,
                            rf"{ERR}--executor: unknown executor 'nosuch' \(known: "),
    "H --executor dask with --text": ([*TXT, "--executor", "dask", *OUT], {"in.txt": TEXT}, 2,
                                      _unused("--executor", FILES + r"; --text and --store run in this machine's "
                                                                    r"pool \(--workers\)")),
    "H --executor dask with --lists -": ([*APPLY, "--lists", "-", "--executor", "dask", *OUT], {}, 2,
                                         rf"{ERR}--executor applies to {FILES}"),
    "H --scheduler without dask": ([*LISTS, "--scheduler", "tcp://127.0.0.1:1", *OUT], {}, 2,
                                   _unused("--scheduler", "--executor dask")),
    "H --workers -1": ([*LISTS, "--workers", "-1", *OUT], {}, 2, rf"{ERR}argument --workers: must be >= 0"),
    "H --corpus-name with streamed lists": ([*LISTS, "--corpus-name", "mine", *OUT], {}, 2,
                                            _unused("--corpus-name", r"--text, and --lists with --store \(streamed "
                                                                     r"lists are stored nowhere\)")),
    **{f"H --corpus-name {name!r}": ([*TXT, "--corpus-name", name, *OUT], {"in.txt": TEXT}, 2,
                                     rf"{ERR}--corpus-name {re.escape(repr(name))}: {why}")
       for name, why in (("a/b", "a corpus name is letters, digits"), ("my text", "a corpus name is letters"),
                         ("..", "a corpus name is letters"), ("treebank", "the name of NLTK's corpus"))},
}


@pytest.fixture(scope="module")
def inputs(bllip, tmp_path_factory) -> dict:
    """The files every case's folder starts with (name: bytes), and the trees ranker select chose for the lists."""
    work, _, files = bllip
    lists = files["test"].read_text()
    blocks = [b for b in lists.split("\n\n") if b.strip()]
    zero = ["0\twsj_0170.99", *blocks]                       # a list of no candidate, then the lists
    bad = ["fifty\t" + blocks[0].split("\t", 1)[1], *blocks[1:]]   # the first list's header broken
    folder = tmp_path_factory.mktemp("issue44-store")
    store = folder / "s.sqlite"
    got = _ranker(["apply", "--model", work / "model.json", "--lists", files["test"], "--store", store,
                   "--out", folder / "o.mrg", "--no-progress"])
    assert got.returncode == 0, got.stderr
    # The lists streamed once, in one process, as ranker select chose: on a clean clone the first
    # streamed apply compiles numba's name kernels into their cache (tens of CPU seconds), which a
    # case's two pool workers then did side by side within the case's time limit (a loaded CI run
    # failed "10 a list of no candidate" at 300 s so).
    got = run_forked(["apply", "--model", work / "model.json", "--lists", files["test"], "--workers", "1",
                      "--out", folder / "streamed.mrg", "--no-progress"], timeout=3600)
    assert got.returncode == 0 and (folder / "streamed.mrg").read_text() == (work / "selected.mrg").read_text(), \
        got.stderr
    return {"m.json": (work / "model.json").read_bytes(), "l.nbest": lists.encode(),
            "l.nbest.gz": gzip.compress(lists.encode(), mtime=0), "l2.nbest": lists.encode(),
            "z.nbest": ("\n\n".join(zero) + "\n\n").encode(), "b.nbest": ("\n\n".join(bad) + "\n\n").encode(),
            "s.sqlite": store.read_bytes(), "selected": (work / "selected.mrg").read_text()}


def _ranker(argv, cwd=None):
    """``ranker ARGV`` in a process of its own (forked, its imports done), killed (and the test failed)
    if it outlives :data:`TIMEOUT`."""
    return run_forked(argv, cwd=cwd, timeout=TIMEOUT)


def _apply(folder: Path) -> list:
    """``ranker apply`` with the folder's model, quietly."""
    return ["apply", "--model", folder / "m.json", "--no-progress"]


def _snapshot(folder: Path) -> dict:
    """Every file below ``folder`` by its sha256 (a folder, or a link's target missing: None)."""
    return {p.relative_to(folder).as_posix(): None if p.is_dir() or not p.exists()
            else hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*"))}


def _lay_out(folder: Path, inputs: dict, files: dict) -> None:
    for name, data in inputs.items():
        if name != "selected":
            (folder / name).write_bytes(data)
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, Link):
            path.symlink_to(text)
        elif isinstance(text, Hard):
            os.link(folder / text, path)
        else:
            path.write_text(text)


@pytest.mark.parametrize("name", CASES)
def test_issue44_apply_case(name, tmp_path, inputs):
    argv, files, want_code, want_first = CASES[name]
    _lay_out(tmp_path, inputs, files)
    before = _snapshot(tmp_path)
    got = _ranker([a.format(t=tmp_path) for a in argv], cwd=tmp_path)
    assert "Traceback" not in got.stderr, got.stderr
    assert got.returncode == want_code, got.stderr
    if want_code == 2:   # a refusal writes nothing: the store, inputs and model as they were, no file added
        assert _snapshot(tmp_path) == before, argv
        lines = got.stderr.splitlines()
        assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("try 'ranker ")), got.stderr
    if want_first is None:
        assert got.stderr == ""
    else:
        first = got.stderr.splitlines()[0] if got.stderr else ""
        assert re.match(want_first.replace("{t}", re.escape(str(tmp_path))), first), (first, want_first)


def test_issue44_items_10_12_every_path_writes_and_says_the_same(tmp_path, inputs):
    """A list of no candidate (item 10: an IndexError) and a bad list are empty lines named on stderr,
    with exit status 1, streamed, in partitions of a pool and through a store (item 12: it gave 0)."""
    _lay_out(tmp_path, inputs, {})
    blocks = [b for b in inputs["l.nbest"].decode().split("\n\n") if b.strip()]
    blocks[0] = "0\t" + blocks[0].split("\n")[0].split("\t")[1]
    head, *rest = blocks[2].split("\n")
    blocks[2] = "\n".join(["fifty\t" + head.split("\t")[1], *rest])
    (tmp_path / "zb.nbest").write_text("\n\n".join(blocks) + "\n\n")
    want = inputs["selected"].splitlines()
    want = "".join(t + "\n" for t in ["", want[1], "", *want[3:]])
    lists = [*APPLY, "--lists", "{t}/zb.nbest"]
    runs = {"streamed": [*lists, "--chunk", "2"], "pool": [*lists, "--workers", "2", "--partition-mb", "0.05"],
            "store": [*lists, "--store", "{t}/s.sqlite"]}
    said = set()
    for name, argv in runs.items():
        got = _ranker([a.format(t=tmp_path) for a in [*argv, "--out", f"{{t}}/{name}.mrg"]])
        assert got.returncode == 1 and "Traceback" not in got.stderr, (name, got.stderr)
        assert (tmp_path / f"{name}.mrg").read_text() == want, name
        said.add(tuple(x for x in got.stderr.splitlines() if x.startswith("ranker: skipped:")))
    line = 1 + blocks[0].count("\n") + 2 + blocks[1].count("\n") + 2
    assert said == {(f"ranker: skipped: {tmp_path}/zb.nbest:1: the list holds no candidate (its header says 0)",
                     f"ranker: skipped: {tmp_path}/zb.nbest:{line}: expected '<count> <sentence id>', found "
                     f"{blocks[2].splitlines()[0]!r}")}


def test_issue44_out_dash_with_a_store_is_standard_output(tmp_path, inputs):
    """``--out -`` through a store wrote a file named ``-``; it is standard output, as streamed."""
    _lay_out(tmp_path, inputs, {})
    got = _ranker([a.format(t=tmp_path) for a in [*STORED, "--out", "-"]], cwd=tmp_path)
    assert got.returncode == 0 and got.stdout == inputs["selected"], got.stderr
    assert not (tmp_path / "-").exists() and "wrote 17 trees to standard output" in got.stderr


def test_issue44_item15_a_second_run_on_one_parts_folder_is_refused_naming_it(tmp_path, inputs):
    """Two runs given one ``--parts DIR``: the first to finish removed the folder under the other, which
    failed naming a temporary file. While a run holds the folder another is refused, naming it."""
    import fcntl

    _lay_out(tmp_path, inputs, {})
    parts = tmp_path / "p"
    parts.mkdir()
    argv = [a.format(t=tmp_path) for a in [*LISTS, "{t}/l2.nbest", "--parts", "{t}/p", "--workers", "2", *OUT]]
    with open(parts / "apply.lock", "w") as lock:   # as a run at work holds it
        fcntl.flock(lock, fcntl.LOCK_EX)
        before = _snapshot(tmp_path)
        got = _ranker(argv)
        assert got.returncode == 2 and _snapshot(tmp_path) == before
        assert got.stderr == (f"ranker: error: --parts {parts}: another ranker apply is using this folder; "
                              "wait for it to end, or give another folder\n")
    got = _ranker(argv)   # the folder free: the run works, and removes the folder it made whole
    assert got.returncode == 0, got.stderr
    assert (tmp_path / "o.mrg").read_text() == inputs["selected"] * 2 and not parts.exists()


_POOL = r"""
from ranker import parallel
from ranker.trees.penn import TreeSyntaxError

class Odd(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a} {b}")

def tree_error(state, task):
    if task == 2:
        raise TreeSyntaxError("bad", "f.mrg", 3, 4)
    return task

def odd(state, task):
    if task == 1:
        raise Odd("x", "y")
    return task

for fn, want in ((tree_error, TreeSyntaxError), (odd, RuntimeError)):
    try:
        list(parallel.ordered_map(fn, [0, 1, 2, 3], 2))
    except want as e:
        print(type(e).__name__, str(e).splitlines()[0], flush=True)
"""


def test_issue44_item8_a_worker_error_reaches_the_parent_and_never_hangs_the_pool():
    """``TreeSyntaxError(message, source, line, column)`` raised in a worker could not be unpickled in
    the pool's result thread, which died: the pool waited for the result forever. Now it arrives as
    itself, and an exception no parent can rebuild arrives as a RuntimeError naming it."""
    got = subprocess.run([sys.executable, "-c", _POOL], capture_output=True, text=True, timeout=TIMEOUT)
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines() == ["TreeSyntaxError f.mrg:3:4: bad",
                                       "RuntimeError Odd in a worker (not picklable to the parent): x y"]


@pytest.mark.linkgrammar
def test_issue44_items5_8_brackets_in_every_text_format_are_escaped_and_nothing_hangs(tmp_path, inputs):
    """Bracket words and tags (``(/-LRB-``, ``cat/N(N``, ``f(x)``) in tagged and token text gave a
    traceback in the pool's result thread and a hang (item 8), and token text gave trees no reader
    takes (item 5): every format now escapes them as the Penn Treebank does, with two workers."""
    from ranker.trees.penn import parse_tree

    _lay_out(tmp_path, inputs, {})
    texts = {"tokens": "( x ) is good .\nf(x) holds .\n",
             "tagged": "(/-LRB- x/NN )/-RRB- is/VBZ good/JJ ./.\nThe/DT cat/N(N sat/VBD ./.\n",
             "raw": "The cat (twice) sat.\n"}
    for fmt, text in texts.items():
        (tmp_path / f"{fmt}.txt").write_text(text)
        out = tmp_path / f"{fmt}.mrg"
        got = _ranker([*_apply(tmp_path), "--text", tmp_path / f"{fmt}.txt",
                       "--text-format", fmt, "--workers", "2", "--out", out])
        assert got.returncode == 0 and "Traceback" not in got.stderr, (fmt, got.stderr)
        trees = [parse_tree(line) for line in out.read_text().splitlines()]
        assert len(trees) == text.count("\n") and all(trees), fmt
        assert all("-LRB-" in t.words for t in trees[:1]) and not any("(" in w for t in trees for w in t.words)
        # the readers take them back (EVALB's needs a tag over every word: the tagged trees)
        assert _ranker(["evaluate", out, out, "--scheme", "parseval"]).returncode == 0, fmt
    assert _ranker(["evalb", tmp_path / "tagged.mrg", tmp_path / "tagged.mrg"]).returncode == 0
    tagged = [parse_tree(line) for line in (tmp_path / "tagged.mrg").read_text().splitlines()]
    assert tagged[1].tags()[1] == "N-LRB-N" and tagged[0].tags()[0] == "-LRB-"


@pytest.mark.linkgrammar
def test_issue44_items4_17_the_store_and_the_stream_read_the_same_lines(tmp_path, inputs):
    """A line holding a form feed or U+2028 was cut in two through a store (the trees after it
    misaligned); a line not in the encoding refused the whole text through a store (exit 2, an
    empty store) but was an empty line streamed. One reading: the file's newline-ended lines, an
    undecodable one an empty line named by file, line and column, exit status 1, on every path."""
    _lay_out(tmp_path, inputs, {})
    text = tmp_path / "my.txt"
    text.write_bytes("The cat\fsat .\nDogs\u2028bark .\n".encode() + "Caf\xe9 noir .\n".encode("latin-1")
                     + b"It rained .\r\n")
    argv = [*_apply(tmp_path), "--text", text]
    streamed = _ranker([*argv, "--chunk", "2", "--out", tmp_path / "streamed.mrg"])
    stored = _ranker([*argv, "--store", tmp_path / "t.sqlite", "--report", tmp_path / "rep",
                      "--out", tmp_path / "stored.mrg"])
    for got in (streamed, stored):
        assert got.returncode == 1 and "Traceback" not in got.stderr, got.stderr
        skipped = [x for x in got.stderr.splitlines() if x.startswith("ranker: skipped:")]
        assert skipped == [f"ranker: skipped: {text}:3:4: not UTF-8 text (byte 0xe9: invalid continuation byte)"]
    lines = (tmp_path / "streamed.mrg").read_text().split("\n")
    assert (tmp_path / "stored.mrg").read_text() == "\n".join(lines)
    assert len(lines) == 5 and lines[2] == lines[4] == "" and all(lines[k] for k in (0, 1, 3))
    assert "(4 input sentences)" in streamed.stdout and "(4 input sentences)" in stored.stdout
    assert (tmp_path / "rep" / "report.md").is_file()


@pytest.mark.linkgrammar
def test_issue44_item6_a_damaged_gz_text_keeps_the_trees_before_the_damage_with_the_default_chunk(tmp_path, inputs):
    """With the default chunk (50 lines) the lines read before damaged compressed bytes were lost
    (their trees never written, while the message said they were); now they are, streamed and through
    a store alike. (The filler: lines of random words, too long to parse, skipped at once.)"""
    import random

    _lay_out(tmp_path, inputs, {})
    rng = random.Random(0)
    filler = [" ".join("".join(rng.choice("abcdefgh") for _ in range(6)) for _ in range(250)) for _ in range(30)]
    data = gzip.compress(("\n".join(["The cat sat .", "Dogs bark .", *filler, "It rained ."]) + "\n").encode())
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(data[: len(data) // 2])
    argv = [*_apply(tmp_path), "--text", cut]
    streamed = _ranker([*argv, "--out", tmp_path / "streamed.mrg"])
    stored = _ranker([*argv, "--store", tmp_path / "t.sqlite", "--out", tmp_path / "stored.mrg"])
    for got in (streamed, stored):
        assert got.returncode == 1 and "Traceback" not in got.stderr, got.stderr
        assert re.search(rf"ranker: error: {re.escape(str(cut))}: cannot be read after line \d+ .*; the trees of "
                         r"the lines before it are written", got.stderr), got.stderr
    trees = (tmp_path / "streamed.mrg").read_text().split("\n")[:-1]
    assert (tmp_path / "stored.mrg").read_text().split("\n")[:-1] == trees
    assert 2 < len(trees) < 32 and trees[0].startswith("(") and trees[1].startswith("(") and set(trees[2:]) == {""}


@pytest.mark.linkgrammar
def test_issue44_item16_two_texts_of_one_name_in_one_store_take_two_corpus_names(tmp_path, inputs):
    """A second ``my.txt`` of other words in one ``--store`` was refused with advice ranker apply could
    not follow (``another [data] name``): it names ``--corpus-name``, which ranker apply now takes."""
    _lay_out(tmp_path, inputs, {})
    for folder, line in (("a", "The cat sat ."), ("b", "Dogs bark .")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "my.txt").write_text(line + "\n")
    argv = [*_apply(tmp_path), "--store", tmp_path / "t.sqlite"]
    assert _ranker([*argv, "--text", tmp_path / "a" / "my.txt", "--out", tmp_path / "a.mrg"]).returncode == 0
    before = _snapshot(tmp_path)
    got = _ranker([*argv, "--text", tmp_path / "b" / "my.txt", "--out", tmp_path / "b.mrg"])
    assert got.returncode == 2 and _snapshot(tmp_path) == before
    assert got.stderr.startswith(f"ranker: error: {tmp_path / 't.sqlite'}: corpus 'text' holds other words for "
                                 "sentence text/my.txt/1") and "--corpus-name" in got.stderr
    got = _ranker([*argv, "--text", tmp_path / "b" / "my.txt", "--corpus-name", "mine", "--out", tmp_path / "b.mrg"])
    assert got.returncode == 0, got.stderr
    assert parse_words(tmp_path / "b.mrg") == ["Dogs", "bark", "."]
    assert parse_words(tmp_path / "a.mrg") == ["The", "cat", "sat", "."]


def parse_words(path: Path) -> list[str]:
    from ranker.trees.penn import parse_tree

    return list(parse_tree(path.read_text().strip()).words)
