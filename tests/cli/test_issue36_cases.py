"""Issue 36: the command-line cases of its items 3, 6, 8-13, as a table a later probe can rerun.

Each case is a command (``{t}`` the test's folder, ``{s}`` a copy of a five-sentence store,
corpus ``mine``, documents d0000-d0004, three candidates each, source ``penn:x``), the files it
needs, its expected exit status and the start of its first stderr line (``None``: stderr empty).
"""
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
#: A bracket file over two of the small store's sentences.
BRACKETS = "mine/d0000/0\tNP\t0\t1\nmine/d0001/0\tNP\t0\t1\n"

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
    "6 annotate --workers 1000": (["annotate", "--store", "{s}", "--kind", "file", "--file", "{t}/b.tsv",
                                   "--name", "mine1", "--workers", "1000"], {"b.tsv": BRACKETS}, 0,
                                  r"ranker: warning: workers = 1000 is more than this machine's \d+ cores"),
}


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("small") / "s.sqlite"
    _small_store(path)
    return path.read_bytes()


def run_case(name, tmp_path, small_store, capsys, monkeypatch):
    """Run case ``name`` in ``tmp_path``: its exit status and stderr (placeholders filled in)."""
    from ranker import parallel

    monkeypatch.setattr(parallel, "_WARNED", set())   # the warnings of this process so far
    argv, files, _, _ = CASES[name]
    (tmp_path / "s.sqlite").write_bytes(small_store)
    fill = {"t": str(tmp_path), "s": str(tmp_path / "s.sqlite")}
    for rel, text in files.items():
        (tmp_path / rel).write_text(text.format(**fill) if "{" in rel else text)
    code = main([a.format(**fill) for a in argv])
    return code, capsys.readouterr().err, fill


@pytest.mark.parametrize("name", CASES)
def test_issue36_case(name, tmp_path, small_store, capsys, monkeypatch):
    code, err, fill = run_case(name, tmp_path, small_store, capsys, monkeypatch)
    _, _, want_code, want_first = CASES[name]
    assert code == want_code, err
    if want_first is None:
        assert err == ""
    else:
        first = err.splitlines()[0] if err else ""
        pattern = want_first.replace("{t}", re.escape(fill["t"])).replace("{s}", re.escape(fill["s"]))
        assert re.match(pattern, first), (first, pattern)
        if want_code == 2:
            assert err.count("\n") == 1, err          # one line, no traceback
