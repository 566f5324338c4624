"""``ranker import``, ``annotate``, ``store stats``, ``store export`` and ``store backup`` end to end on a real store."""
import json
import os
import signal
import shutil
import stat
import subprocess
import sys

import pytest
from test_store_files import _small_store

from ranker.cli.main import main
from ranker.store import Store

KEYS = {"sentences", "sentences_with_candidates", "candidates", "full", "fragment", "timeout", "mean_candidates",
        "median_candidates", "unmapped_tokens", "consistent_sets", "decisions"}


def _store_with_import(tmp_path):
    store = tmp_path / "s.sqlite"
    nb = tmp_path / "x.mrg"
    # wsj_0001.mrg/1: "Mr. Vinken is chairman of Elsevier N.V. , the Dutch publishing group ."
    good = ("(S (NP-SBJ (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP-PRD (NP (NN chairman)) (PP (IN of) (NP (NP (NNP "
            "Elsevier) (NNP N.V.)) (, ,) (NP (DT the) (NNP Dutch) (VBG publishing) (NN group)))))) (. .))")
    flat = ("(S (NNP Mr.) (NNP Vinken) (VBZ is) (NN chairman) (IN of) (NNP Elsevier) (NNP N.V.) (, ,) (DT the) "
            "(NNP Dutch) (VBG publishing) (NN group) (. .))")
    nb.write_text(f"{good}\n{flat}\n\n(S (NN no) (NN such) (NN sentence))\n")
    return store, nb, good, flat


@pytest.mark.slow
def test_import_annotate_stats_export(tmp_path, capsys):
    store, nb, good, flat = _store_with_import(tmp_path)
    assert main(["import", "--store", str(store), "--format", "penn", "--corpus", "treebank", str(nb)]) == 1   # one bad forest
    err = capsys.readouterr().err
    assert f"{nb}:4: tokens match no stored sentence" in err
    assert main(["annotate", "--store", str(store), "--kind", "riezler"]) == 0
    capsys.readouterr()
    assert main(["store", "stats", str(store), "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert KEYS <= set(stats)
    assert (stats["sentences"], stats["sentences_with_candidates"], stats["candidates"]) == (3914, 1, 2)
    # the gold-shaped candidate contains every Crouch et al. bracket, the flat one none: a proper subset
    assert stats["consistent_sets"]["riezler"] == {"empty": 0, "proper": 1, "all": 0}
    assert stats["decisions"] == {"answers": 0, "sentences": 0}
    with Store.open(store) as st:
        cs = st.consistent_sets("riezler", fileids="wsj_0001.mrg", rule="strict")
        assert cs["treebank/wsj_0001.mrg/1"].weights == (1.0, 0.0)
    assert main(["store", "export", str(store), "--fileids", "wsj_0001.mrg"]) == 0
    out = capsys.readouterr().out
    # sentence 0 has no candidate (empty block), sentence 1 its two trees, then a blank line
    assert out == f"\n{good}\n{flat}\n\n"
    assert main(["store", "export", str(store), "--sentence", "treebank/wsj_0001.mrg/1"]) == 0
    assert capsys.readouterr().out == f"{good}\n{flat}\n\n"


def test_stats_of_a_missing_store_is_a_one_line_error(tmp_path, capsys):
    assert main(["store", "stats", str(tmp_path / "nope.sqlite")]) == 2
    assert capsys.readouterr().err.startswith("ranker: error: ")
    assert not (tmp_path / "nope.sqlite").exists()


#: ``ranker store backup ARGV``, its store's connection sending the process the signal SIG once
#: the copy is written (as a Ctrl-C or a kill half-way through a 99 MB backup would).
INTERRUPTED_BACKUP = """
import os, signal, sys
from ranker.cli.main import main
from ranker.store import store as module

class Interrupting:
    def __init__(self, conn):
        self.conn = conn
    def __getattr__(self, name):
        return getattr(self.conn, name)
    def backup(self, target):
        self.conn.backup(target)
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))

init = module.Store.__init__
module.Store.__init__ = lambda self, conn, path: init(self, Interrupting(conn), path)
sys.exit(main(["store", "backup", *sys.argv[2:]]))
"""


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def backup_store(tmp_path):
    """A small store and a backup folder holding a user's ``v.sqlite.part`` (a store of its own)."""
    store = tmp_path / "s.sqlite"
    _small_store(store)
    bk = tmp_path / "bk"
    bk.mkdir()
    shutil.copy(store, bk / "v.sqlite.part")
    return store, bk


def test_issue_36_backup_leaves_a_users_file_named_like_its_temporary_file(backup_store, capsys):
    """``v.sqlite.part`` used to be the backup's temporary name: deleted, or overwritten silently."""
    store, bk = backup_store
    mine = (bk / "v.sqlite.part").read_bytes()
    assert main(["store", "backup", str(store), str(bk / "v.sqlite")]) == 0, capsys.readouterr().err
    assert sorted(_files(bk)) == ["v.sqlite", "v.sqlite.part"] and (bk / "v.sqlite.part").read_bytes() == mine
    with Store.open(bk / "v.sqlite", readonly=True) as copy, Store.open(store, readonly=True) as st:
        assert copy.stats() == st.stats()
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((bk / "v.sqlite").stat().st_mode) == 0o666 & ~umask   # not mkstemp's 0600


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_issue_36_an_interrupted_backup_leaves_no_file_behind(backup_store, sig):
    store, bk = backup_store
    before = _files(bk)
    r = subprocess.run([sys.executable, "-c", INTERRUPTED_BACKUP, sig, str(store), str(bk / "v.sqlite")],
                       capture_output=True, text=True, timeout=120,
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))   # as a terminal would
    # SIGTERM is stopped as Ctrl-C is, by its own name and status (issue 44, item 19)
    assert (r.returncode, r.stderr) == ((130, "ranker: interrupted\n") if sig == "SIGINT" else
                                        (143, "ranker: terminated (SIGTERM)\n"))
    assert _files(bk) == before   # no v.sqlite, no temporary file, the user's v.sqlite.part as it was


def test_issue_36_a_backup_destination_ending_in_a_slash_is_a_folder(backup_store, capsys):
    store, bk = backup_store
    assert main(["store", "backup", str(store), f"{bk}/"]) == 0
    assert f"copied to {bk / 's.sqlite'}" in capsys.readouterr().out
    with Store.open(bk / "s.sqlite", readonly=True) as copy:
        assert copy.stats().candidates == 15
    # a folder that does not exist is not made (nor is a file named like it written)
    assert main(["store", "backup", str(store), f"{bk}/new/"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"ranker: error: {bk}/new/: no such folder (a destination ending in / "
                                 "names a folder)\n")
    assert sorted(_files(bk)) == ["s.sqlite", "v.sqlite.part"]
