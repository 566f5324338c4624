"""Issue 36: the command-line cases of its items 3, 6, 8-13, as a table a later probe can rerun.

Each case is a command (``{t}`` the test's folder, ``{s}`` a copy of a five-sentence store,
corpus ``mine``, documents d0000-d0004, three candidates each, source ``penn:x``), the files it
needs, its expected exit status and the start of its first stderr line (``None``: stderr empty). A
case refused (exit status 2) leaves every file of its folder as it was and adds none.
"""
import io
import re
from pathlib import Path

import pytest
from test_store_files import _small_store

from ranker.cli.main import main

#: The possessive of wsj_0194.mrg/15: the parser tagged ``'`` as ``''``, which COLLINS.prm deletes.
GOLD = ("(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))\n"
        "(S (NP (NP (NNS investors) (POS ')) (NN money)) (VP (VBD rose)) (. .))\n"
        "(S (NP (DT A) (NN dog)) (VP (VBD ran)) (. .))\n")
TEST = GOLD.replace("(POS ')", "('' ')")
class Link(str):
    """A file of a case that is a symbolic link to this (relative) target."""


#: A bracket file over two of the small store's sentences.
BRACKETS = "mine/d0000/0\tNP\t0\t1\nmine/d0001/0\tNP\t0\t1\n"

ANNOTATE = ["annotate", "--store", "{s}"]

#: name: (argv, {file: text}, exit status, first stderr line's start (a regular expression)).
CASES = {
    # item 3: a sentence whose deleted words differ is skipped, counted and named, as EVALB does
    "3 evaluate evalb, '' for POS": (["evaluate", "{t}/g.mrg", "{t}/t.mrg", "--scheme", "evalb"],
                                     {"g.mrg": GOLD, "t.mrg": TEST}, 0,
                                     r"ranker: skipped: {t}/t\.mrg:2: Length unmatch \(4\|3\)$"),
    "3 evaluate mph, '' for POS": (["evaluate", "{t}/g.mrg", "{t}/t.mrg", "--scheme", "mph"],
                                   {"g.mrg": GOLD, "t.mrg": TEST}, 0,
                                   r"ranker: skipped: {t}/t\.mrg:2: gold and test words differ"),
    **{f"3 evaluate {s}, '' for POS": (["evaluate", "{t}/g.mrg", "{t}/t.mrg", "--scheme", s],
                                       {"g.mrg": GOLD, "t.mrg": TEST}, 0, None)
       for s in ("parseval", "flat", "deps")},
    "3 evaluate evalb, other words": (["evaluate", "{t}/g.mrg", "{t}/t.mrg"],
                                      {"g.mrg": GOLD, "t.mrg": TEST.replace("money", "cash")}, 2,
                                      r"ranker: error: {t}/t\.mrg:2: Length unmatch \(4\|3\)$"),
    # item 6: workers above the cores warn (one line), and no pool starts more than it has tasks
    "6 annotate --workers 1000": ([*ANNOTATE, "--kind", "file", "--file", "{t}/b.tsv",
                                   "--name", "mine1", "--workers", "1000"], {"b.tsv": BRACKETS}, 0,
                                  r"ranker: warning: workers = 1000 is more than this machine's \d+ cores"),
    # item 8: no traceback
    "8 users list, a symlink loop": (["serve", "users", "list", "--store", "{s}"],
                                     {"s.sqlite.users": Link("s.sqlite.users")}, 2,
                                     r"ranker: error: {s}\.users: cannot read the users file \(Too many levels"),
    "8 users add, a symlink loop": (["serve", "users", "add", "erin", "--store", "{s}"],
                                    {"s.sqlite.users": Link("s.sqlite.users")}, 2,
                                    r"ranker: error: {s}\.users: cannot read the users file \(Too many levels"),
    "8 serve, a symlink loop": (["serve", "--store", "{s}", "--port", "0", "--host", "0.0.0.0"],
                                {"s.sqlite.users": Link("s.sqlite.users")}, 2,
                                r"ranker: error: {s}\.users: cannot read the users file \(Too many levels"),
    **{f"8 {key} = 10^12": (["run", "{t}/c.toml", "--out", "{t}/run"],
                            {"c.toml": f"[evaluation]\n{key} = 1000000000000\n"}, 2,
                            rf"ranker: error: {{t}}/c\.toml: \[evaluation\] {key}: must be <= 1000000, "
                            r"got 1000000000000$")
       for key in ("bootstrap_resamples", "randomization_resamples")},
    # item 9: a bracket file never takes a built-in kind's name (it replaced people's decisions)
    **{f"9 annotate --kind file --name {name}": ([*ANNOTATE, "--kind", "file", "--file",
                                                  "{t}/b.tsv", "--name", name], {"b.tsv": BRACKETS}, 2,
                                                 rf"ranker: error: --name {name}: the name of a built-in "
                                                 r"annotation kind \(best_f, chunks, riezler, user\)")
       for name in ("user", "riezler", "best_f", "chunks", "user/1")},
    # item 10: every output path is checked before the annotation is stored
    "10 annotate --export a folder": ([*ANNOTATE, "--kind", "user", "--export", "{t}"], {}, 2,
                                      r"ranker: error: --export {t}: is a folder; give a file name$"),
    "10 annotate --export dir/": ([*ANNOTATE, "--kind", "user", "--export", "{t}/new/"], {}, 2,
                                  r"ranker: error: --export {t}/new/: is a folder; give a file name$"),
    "10 annotate --export, a missing folder": ([*ANNOTATE, "--kind", "user", "--export",
                                                "{t}/nosuch/u.tsv"], {}, 2,
                                               r"ranker: error: --export {t}/nosuch/u\.tsv: no such directory "
                                               r"{t}/nosuch$"),
    "10 annotate --export, under a file": ([*ANNOTATE, "--kind", "user", "--export",
                                            "{t}/b.tsv/u.tsv"], {"b.tsv": BRACKETS}, 2,
                                           r"ranker: error: --export {t}/b\.tsv/u\.tsv: no such directory"),
    # item 11: an option a command would ignore is refused
    "11 annotate --kind riezler --file": ([*ANNOTATE, "--kind", "riezler", "--file", "{t}/b.tsv"],
                                          {"b.tsv": BRACKETS}, 2,
                                          r"ranker: error: --file is for --kind file: --kind riezler reads no "
                                          r"bracket file$"),
    "11 annotate --kind user --name": ([*ANNOTATE, "--kind", "user", "--name", "mine"], {}, 2,
                                       r"ranker: error: --name is for --kind file: --kind user reads no bracket "
                                       r"file$"),
    "11 annotate --kind user --source nosuch": ([*ANNOTATE, "--kind", "user", "--source",
                                                 "nosuch"], {}, 2,
                                                r"ranker: error: {s}: no candidates from source 'nosuch' "
                                                r"\(stored: penn:x\)$"),
    "11 annotate --kind user --source penn:x": ([*ANNOTATE, "--kind", "user", "--source",
                                                 "penn:x"], {}, 0, None),
    "11 serve users add, no such store": (["serve", "users", "add", "erin", "--store", "{t}/nosuch.sqlite"], {}, 2,
                                          r"ranker: error: --store {t}/nosuch\.sqlite: no such store \(its users "
                                          r"file would be {t}/nosuch\.sqlite\.users\)"),
    "11 serve users list, no such store": (["serve", "users", "list", "--store", "{t}/nosuch.sqlite"], {}, 2,
                                           r"ranker: error: --store {t}/nosuch\.sqlite: no such store"),
}


#: Item 13, on a store of two sources (penn:x, penn:y) holding m.json, a model trained on penn:y.
SELECT = ["select", "--store", "{s}", "--corpus", "mine", "--split", "d0000-0004", "--ranker", "loglinear",
          "--model", "{t}/m.json", "--out", "{t}/sel.mrg"]
CASES_13 = {
    "13 select, a model trained on another source": ([*SELECT, "--source", "penn:x"], {}, 2,
                                                     r"ranker: error: {t}/m\.json: a model trained on the "
                                                     r"candidates of penn:y \(stored model [0-9a-f]{12}\), not of "
                                                     r"penn:x: give --source penn:y"),
    "13 select, the same with --force": ([*SELECT, "--source", "penn:x", "--force"], {}, 0, None),
    "13 select, the model's own source": ([*SELECT, "--source", "penn:y"], {}, 0, None),
}


@pytest.fixture(scope="module")
def two_sources(tmp_path_factory, small_store) -> tuple[bytes, bytes]:
    """The small store with a second source penn:y, and a model trained on penn:y (store, model bytes)."""
    from ranker.store import Candidate, Store
    from ranker.trees.penn import parse_tree

    folder = tmp_path_factory.mktemp("two")
    store = folder / "s.sqlite"
    store.write_bytes(small_store)
    with Store.open(store) as st:
        st.add_candidates([Candidate(f"mine/d{i:04d}/0", "penn:y", r, parse_tree(t), "full", {})
                           for i in range(5) for r, t in enumerate(["(S (NP (NN dogs)) (VP (VBP bark)))",
                                                                    "(S (NN dogs) (VBP bark))"])])
    (folder / "b.tsv").write_text("".join(f"mine/d000{i}/0\tNP\t0\t1\n" for i in range(3)))
    assert main(["annotate", "--store", str(store), "--kind", "file", "--file", str(folder / "b.tsv"),
                 "--name", "mine1", "--workers", "1"]) == 0
    assert main(["train", "--store", str(store), "--corpus", "mine", "--split", "d0000-0004", "--kind", "mine1",
                 "--source", "penn:y", "--sigma2", "1", "--workers", "1", "--no-progress",
                 "--out", str(folder / "m.json")]) == 0
    return store.read_bytes(), (folder / "m.json").read_bytes()


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("small") / "s.sqlite"
    _small_store(path)
    return path.read_bytes()


def run_case(case, tmp_path, store, capsys, monkeypatch):
    """Run ``case`` in ``tmp_path`` on a copy of ``store`` (bytes): its exit status and stderr."""
    from ranker import parallel

    monkeypatch.setattr(parallel, "_WARNED", set())   # the warnings of this process so far
    argv, files, _, _ = case
    (tmp_path / "s.sqlite").write_bytes(store)
    fill = {"t": str(tmp_path), "s": str(tmp_path / "s.sqlite")}
    for rel, text in files.items():
        if isinstance(text, Link):
            (tmp_path / rel).symlink_to(text)
        else:
            (tmp_path / rel).write_text(text)
    monkeypatch.setattr("sys.stdin", io.StringIO("a password\n"))   # serve users add reads one
    before = _snapshot(tmp_path)
    code = main([a.format(**fill) for a in argv])
    if code == 2:    # a refusal writes nothing: the store and every file as they were, none added
        assert _snapshot(tmp_path) == before, argv
    return code, capsys.readouterr().err, fill


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): None if p.is_dir() or not p.exists() else p.read_bytes()
            for p in sorted(folder.rglob("*")) if not p.name.endswith(".lock")}


@pytest.mark.parametrize("name", CASES)
def test_issue36_case(name, tmp_path, small_store, capsys, monkeypatch):
    check_case(CASES[name], tmp_path, small_store, capsys, monkeypatch)


@pytest.mark.parametrize("name", CASES_13)
def test_issue36_case_of_two_sources(name, tmp_path, two_sources, capsys, monkeypatch):
    store, model = two_sources
    (tmp_path / "m.json").write_bytes(model)
    check_case(CASES_13[name], tmp_path, store, capsys, monkeypatch)


def check_case(case, tmp_path, store, capsys, monkeypatch):
    """Run ``case`` and compare its exit status and first stderr line with the table's."""
    code, err, fill = run_case(case, tmp_path, store, capsys, monkeypatch)
    _, _, want_code, want_first = case
    assert code == want_code, err
    if want_first is None:
        assert err == ""
    else:
        first = err.splitlines()[0] if err else ""
        pattern = want_first.replace("{t}", re.escape(fill["t"])).replace("{s}", re.escape(fill["s"]))
        assert re.match(pattern, first), (first, pattern)
        if want_code == 2:
            assert err.count("\n") == 1, err          # one line, no traceback


def test_issue36_item12_serving_on_loopback_after_the_last_account_is_removed(tmp_path, small_store):
    """Regression (issue 36, item 12): once ``serve users remove`` took the last account, STORE.users
    stayed (empty) and ``ranker serve`` refused to start ("S.users: no accounts"); an empty users file
    is now no accounts: served on loopback as without one, still refused beyond it."""
    import subprocess
    import sys

    store = tmp_path / "s.sqlite"
    store.write_bytes(small_store)

    def ranker(*argv, stdin=None):
        return subprocess.run([sys.executable, "-m", "ranker.cli.main", *argv], input=stdin, text=True,
                              capture_output=True, timeout=120)

    assert ranker("serve", "users", "add", "erin", "--store", str(store), stdin="a password\n").returncode == 0
    assert ranker("serve", "users", "remove", "erin", "--store", str(store)).returncode == 0
    assert (tmp_path / "s.sqlite.users").exists()
    proc = subprocess.Popen([sys.executable, "-m", "ranker.cli.main", "serve", "--store", str(store), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert line.startswith(f"ranker serve: {store} on http://127.0.0.1:") and "accounts of" not in line, \
        line + proc.stderr.read()
    beyond = ranker("serve", "--store", str(store), "--port", "0", "--host", "0.0.0.0")
    assert beyond.returncode == 2 and beyond.stderr.startswith("ranker: error: --host 0.0.0.0 lets other machines in")
