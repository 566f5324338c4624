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
from ranker_forked import run_forked
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

#: A users file of one account, alice (the hash is not checked by these cases).
ALICE = "alice\tannotator\tscrypt:32768:8:1$salt$0123abcd\n"

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
    # (a store with no decisions is refused since issue 44, item 18: the source is read first)
    "11 annotate --kind user --source penn:x": ([*ANNOTATE, "--kind", "user", "--source",
                                                 "penn:x"], {}, 2,
                                                r"ranker: error: {s}: no discriminant decisions are stored"),
    "11 serve users add, no such store": (["serve", "users", "add", "erin", "--store", "{t}/nosuch.sqlite"], {}, 2,
                                          r"ranker: error: --store {t}/nosuch\.sqlite: no such store \(its users "
                                          r"file would be {t}/nosuch\.sqlite\.users\)"),
    "11 serve users list, no such store": (["serve", "users", "list", "--store", "{t}/nosuch.sqlite"], {}, 2,
                                           r"ranker: error: --store {t}/nosuch\.sqlite: no such store"),
    # item 14: the smaller ones
    "14 users add, a fullwidth look-alike": (["serve", "users", "add", "ａｌｉｃｅ", "--store", "{s}"],
                                            {"s.sqlite.users": ALICE}, 2,
                                            r"ranker: error: account name 'ａｌｉｃｅ': looks like 'alice'; write "
                                            r"it so \(Unicode NFKC form\)$"),
    "14 users add, Alice beside alice": (["serve", "users", "add", "Alice", "--store", "{s}"],
                                         {"s.sqlite.users": ALICE}, 2,
                                         r"ranker: error: {s}\.users: account name 'Alice' looks like the "
                                         r"account 'alice'"),
    "14 users add, anon-": (["serve", "users", "add", "anon-12345678", "--store", "{s}"], {}, 2,
                            r"ranker: error: account name 'anon-12345678': names starting 'anon-' are the "
                            r"anonymous sessions'$"),
    **{f"14 evalb {opt} {n}": (["evalb", opt, n, "{t}/g.mrg", "{t}/g.mrg"], {"g.mrg": GOLD}, 2,
                               rf"ranker: error: {opt} {n}: {key} needs a ")
       for opt, n, key in (("-e", "-3", "MAX_ERROR"), ("-c", "0", "CUTOFF_LEN"), ("-c", "-5", "CUTOFF_LEN"))},
    "14 evalb CUTOFF_LEN 0 in a .prm": (["evalb", "-p", "{t}/z.prm", "{t}/g.mrg", "{t}/g.mrg"],
                                        {"g.mrg": GOLD, "z.prm": "CUTOFF_LEN 0\n"}, 2,
                                        r"ranker: error: {t}/z\.prm:1: CUTOFF_LEN needs a positive integer"),
    "14 evalb -e 0": (["evalb", "-e", "0", "{t}/g.mrg", "{t}/g.mrg"], {"g.mrg": GOLD}, 0, None),
    "14 [evidence] names itself, the file once": (["run", "{t}/c.toml", "--out", "{t}/run"],
                                                  {"c.toml": '[evidence]\nsource = "bllip"\n'
                                                             'forests = "/nonexistent/t.gz"\n'}, 2,
                                                  r"ranker: error: {t}/c\.toml: \[evidence\] forests: no such "
                                                  r"file /nonexistent/t\.gz$"),
    **{f"14 [experiment] name = {name!r}": (["run", "{t}/c.toml"], {"c.toml": f'[experiment]\nname = "{name}"\n'},
                                            2, rf"ranker: error: {{t}}/c\.toml: \[experiment\] name: "
                                               rf"{re.escape(repr(name))} is not a folder name")
       for name in ("../../escape", "", ".", "..", "a/b")},
    "14 a BOM in the TOML": (["run", "{t}/c.toml"], {"c.toml": '\ufeff[experiment]\nname = ".."\n'}, 2,
                             r"ranker: error: {t}/c\.toml: \[experiment\] name: '\.\.' is not a folder name"),
    "14 a BOM in the .mrg": (["evaluate", "{t}/g.mrg", "{t}/t.mrg", "--scheme", "parseval"],
                             {"g.mrg": "\ufeff" + GOLD, "t.mrg": "\ufeff" + GOLD}, 0, None),
    **{f"14 annotate --kind file, {what}": ([*ANNOTATE, "--kind", "file", "--file", "{t}/b.tsv"],
                                            {"b.tsv": text}, 2, rf"ranker: error: {{t}}/b\.tsv{where}")
       for what, text, where in (
           ("no bracket", "# nothing\n\n", r": no brackets"),
           ("an empty label", "mine/d0000/0\t\t0\t1\n", r":1: an empty label"),
           ("an empty id", "\tNP\t0\t1\n", r":1: an empty sentence id"),
           ("contradictory lines", BRACKETS + "mine/d0000/0\tNP\t0\t1\treject\n",
            r":3: mine/d0000/0 NP \[0, 1\) is rejected here but accepted on line 1$"))},
    "14 annotate --kind file, the same line twice": ([*ANNOTATE, "--kind", "file", "--file", "{t}/b.tsv"],
                                                     {"b.tsv": BRACKETS + BRACKETS}, 0, None),
    **{f"14 evaluate {scheme}, a -NONE- only tree": (["evaluate", "{t}/g.mrg", "{t}/g.mrg", "--scheme", scheme],
                                                     {"g.mrg": GOLD + "(S (NP (-NONE- *)))\n"}, 0, None)
       for scheme in ("evalb", "parseval", "mph", "flat", "deps")},
    "14 evaluate flat, -NONE- against words": (["evaluate", "{t}/g.mrg", "{t}/t.mrg", "--scheme", "flat"],
                                               {"g.mrg": "(S (NP (-NONE- *)))\n", "t.mrg": "(S (NP (DT a)))\n"}, 2,
                                               r"ranker: error: {t}/t\.mrg:1: the gold tree holds no word but "
                                               r"the test tree holds 1$"),
    # item 15: a command line argparse refuses is one ranker: error: line (and the --help hint)
    "15 argparse, a missing argument": (["run"], {}, 2,
                                        r"ranker: error: the following arguments are required: config$"),
    "15 argparse, an unknown option": (["evalb", "{t}/g.mrg", "{t}/g.mrg", "--nosuch"], {}, 2,
                                       r"ranker: error: unrecognized arguments: --nosuch$"),
}


#: Item 13, on a store of two sources (penn:x, penn:y) holding m.json, a model trained on penn:y.
SELECT = ["select", "--store", "{s}", "--corpus", "mine", "--split", "d0000-0004", "--ranker", "loglinear",
          "--model", "{t}/m.json", "--out", "{t}/sel.mrg", "--workers", "1"]   # no pool for five sentences
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
    try:
        code = main([a.format(**fill) for a in argv])
    except SystemExit as e:    # argparse refused the command line
        code = e.code
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
        if want_code == 2:   # one line, no traceback (argparse's refusals: and the --help hint, item 15)
            lines = err.splitlines()
            assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("try 'ranker ")), err


def test_issue36_item12_serving_on_loopback_after_the_last_account_is_removed(tmp_path, small_store):
    """Regression (issue 36, item 12): once ``serve users remove`` took the last account, STORE.users
    stayed (empty) and ``ranker serve`` refused to start ("S.users: no accounts"); an empty users file
    is now no accounts: served on loopback as without one, still refused beyond it."""
    import subprocess
    import sys

    store = tmp_path / "s.sqlite"
    store.write_bytes(small_store)

    def ranker(*argv, stdin=None):   # forked with its imports done; the server below is started anew
        return run_forked(argv, timeout=120, input=stdin)

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


def test_issue36_item14_a_crlf_password_keeps_no_carriage_return(tmp_path, small_store, monkeypatch, capsys):
    """Regression (issue 36, item 14): a password piped from a Windows file (``a password\\r\\n``)
    was kept with its ``\\r``, so the password typed at sign-in never matched."""
    from werkzeug.security import check_password_hash

    from ranker.serve.users import read_users

    store = tmp_path / "s.sqlite"
    store.write_bytes(small_store)
    for name, line in (("erin", "a password\r\n"), ("fred", "a password\r")):
        monkeypatch.setattr("sys.stdin", io.StringIO(line))
        assert main(["serve", "users", "add", name, "--store", str(store)]) == 0
        assert check_password_hash(read_users(f"{store}.users")[name].hash, "a password"), name


def test_issue36_item14_who_refuses_the_anonymous_names_and_reads_nfkc():
    """Regression (issue 36, item 14): ``/who`` took ``anon-12345678``, an anonymous session's name,
    and a fullwidth ``ａｌｉｃｅ`` beside ``alice``."""
    from ranker.serve.forms import FormError, who

    for name in ("anon-12345678", "Anon-1", "ａｎｏｎ-1"):
        with pytest.raises(FormError, match="anonymous sessions'"):
            who(name)
    assert who("ａｌｉｃｅ") == "alice" and who(" bob ") == "bob"


def test_issue36_item14_users_look_alike_names(tmp_path):
    """Look-alike account names: NFKC form required, and no two accounts of one case-folded form."""
    from ranker.errors import RankerError
    from ranker.serve.users import account_name, add_user, look_alike, skeleton

    assert skeleton("ａｌｉｃｅ") == skeleton("Alice") == "alice"
    with pytest.raises(RankerError, match="looks like 'alice'"):
        account_name("ａｌｉｃｅ")
    users = tmp_path / "u.users"
    add_user(users, "alice", "a password")
    add_user(users, "alice", "another password")        # the same account: a new password
    assert look_alike("ALICE", {"alice": None}) == "alice" and look_alike("alice", {"alice": None}) is None
    with pytest.raises(RankerError, match="looks like the account 'alice'"):
        add_user(users, "ALICE", "a password")


def test_issue36_item14_heldout_as_test_or_train_over_test_warns(tmp_path, capsys):
    """Regression (issue 36, item 14): held-out = the test split, or training over test documents,
    passed without a word; each is now one ``ranker: warning:`` line (the run goes on)."""
    from ranker.pipeline.config import load_config
    from ranker.pipeline.validate import validate_config

    cases = {'heldout = "test"': ["[data] heldout selects the test documents (test)"],
             'train = "wsj_0001-0171"': ["[data] train and test share 2 documents (first wsj_0170.mrg)"],
             'heldout = "wsj_0160-0175"': ["[data] heldout and test share 6 documents (first wsj_0170.mrg)"],
             'train = "train"': []}
    for line, want in cases.items():
        config = tmp_path / "c.toml"
        config.write_text(f"[data]\n{line}\n")
        validate_config(load_config(config))
        err = capsys.readouterr().err.splitlines()
        assert len(err) == len(want), (line, err)
        for got, w in zip(err, want):
            assert got.startswith(f"ranker: warning: {config}: {w}: "), (line, got)


def test_issue36_item14_models_retrain_split(tmp_path, two_sources, capsys):
    """Regression (issue 36, item 14): ``models retrain --kind riezler`` had no ``--split`` and fit on
    the brackets of every sentence, the test split's too; ``--split`` now keeps the sentences of one
    split, by default train for the kinds derived from gold trees (riezler, best_f, chunks)."""
    import json

    store = tmp_path / "s.sqlite"
    store.write_bytes(two_sources[0])
    capsys.readouterr()
    assert main(["models", "list", "--store", str(store), "--format", "json"]) == 0
    key = json.loads(capsys.readouterr().out)[0]["key"]
    retrain = ["models", "retrain", "--store", str(store), key, "--kind", "mine1", "--source", "penn:y",
               "--workers", "1"]
    assert main([*retrain, "--split", "d0000-0001"]) == 0
    assert "of 2 annotated sentences of split d0000-0001 narrowed" in capsys.readouterr().out
    assert main(retrain) == 0   # a bracket file's kind: every annotated sentence by default
    assert "of 3 annotated sentences narrowed" in capsys.readouterr().out
    assert main([*retrain, "--split", "d0004"]) == 2
    assert capsys.readouterr().err == (f"ranker: error: {store}: no sentence annotated as 'mine1' with candidates "
                                       "from penn:y is in split 'd0004'\n")
    with pytest.raises(SystemExit):
        main(["models", "retrain", "--help"])
    assert "Default: train for the kinds derived from gold trees (riezler, best_f, chunks)" in \
        " ".join(capsys.readouterr().out.split())


def test_issue36_item14_models_retrain_riezler_defaults_to_train(tmp_path, two_sources, monkeypatch):
    """``--kind riezler`` (brackets derived from the gold of every split) learns from train by default."""
    from ranker.pipeline import retrain as retrain_module

    store = tmp_path / "s.sqlite"
    store.write_bytes(two_sources[0])
    asked = {}

    def fake(st, key, **kw):
        asked[kw["kind"]] = kw["split"]
        raise retrain_module.RankerError("stop here")

    monkeypatch.setattr(retrain_module, "retrain", fake)
    for kind, split in (("riezler", "train"), ("best_f", "train"), ("user", None), ("mine1", None)):
        assert main(["models", "retrain", "--store", str(store), "0", "--kind", kind, "--source", "penn:y"]) == 2
        assert asked[kind] == split, kind
    main(["models", "retrain", "--store", str(store), "0", "--kind", "riezler", "--source", "penn:y",
          "--split", "all"])
    assert asked["riezler"] is None


def test_issue36_item14_annotate_chunks_says_it_adds_conll2000(tmp_path, small_store, capsys):
    """Regression (issue 36, item 14): ``annotate --kind chunks`` on a store of another corpus added
    CoNLL-2000's 8,936 sentences in silence; it now says so in one line (once: a rerun adds none)."""
    store = tmp_path / "s.sqlite"
    store.write_bytes(small_store)
    argv = ["annotate", "--store", str(store), "--kind", "chunks", "--workers", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"{store}: added the 8,936 sentences of corpus conll2000, which --kind chunks annotates, "
                      "beside the store's mine")
    assert main(argv) == 0
    assert "added" not in capsys.readouterr().out


def test_issue36_item15_readme_and_help_keep_their_promises(capsys):
    """Regression (issue 36, item 15): the README's Usage block held ``store stats S | ranker store
    export S | ...`` (a shell pipeline when pasted), its quickstart said two minutes (about three on
    two cores), and ``annotate --help`` did not name the bracket file's optional fifth column."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    usage = readme.split("## Usage\n", 1)[1].split("\n#", 1)[0]
    assert not [ln for ln in usage.splitlines() if "| ranker" in ln]
    assert "## Set up and try it in three minutes" in readme and "two minutes" not in readme
    assert "a command line the\nparser refuses (an unknown or missing option) is that line and one more" in readme
    with pytest.raises(SystemExit):
        main(["annotate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "end[<TAB>accept|reject]" in text and "optional fifth column reject" in text
