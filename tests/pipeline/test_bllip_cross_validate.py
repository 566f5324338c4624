"""The BLLIP cross-validation beside the peer (experiments/wsj-sample-bllip/cross_validate.py and
peer_reranker.py): the lists each fold's peer reads, its trees' roots, the pooled summary and the
targets, and the one-line message when no peer source is given. Values worked by hand."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ranker.evaluation.evalb_params import load_params

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "wsj-sample-bllip"
LISTS = ROOT.parent / "shared" / "nbest" / "bllip-wsj-sample"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_each_part_gets_the_lists_of_its_files_in_the_order_of_its_files_whatever_the_files_order(tmp_path):
    peer = _load("peer_reranker")
    files = sorted(LISTS.glob("nbest-*.txt.gz"))      # held-out, test, train: not corpus order
    # wsj_0001 (train lists), wsj_0140 (held-out), wsj_0199 (test): 2, 6 and 3 sentences
    got = peer.split_nbest(files, {"train": ("wsj_0199", "wsj_0001"), "dev": ("wsj_0140",),
                                   "test": ("wsj_0002",)}, tmp_path)
    assert got == {"train": 5, "dev": 6, "test": 1}
    heads = [line for line in (tmp_path / "train.nbest").read_text().splitlines() if "\twsj_" in line]
    # the order ptb -g writes the part's gold trees in: its files as given, then sentence by sentence
    assert [h.split("\t")[1] for h in heads] == ["wsj_0199.0", "wsj_0199.1", "wsj_0199.2", "wsj_0001.0",
                                                 "wsj_0001.1"]


def test_a_part_with_no_list_or_a_bad_header_is_an_error_naming_the_file(tmp_path):
    from ranker.errors import RankerError

    peer = _load("peer_reranker")
    bad = tmp_path / "bad.txt"
    bad.write_text("50 wsj_0001.0\n-1.0\n(S1 (X x))\n\n")
    with pytest.raises(RankerError, match=r"bad.txt:1: not an n-best header"):
        peer.split_nbest([bad], {"train": ("wsj_0001",)}, tmp_path)
    good = tmp_path / "good.txt"
    good.write_text("1\twsj_0001.0\n-1.0\n(S1 (X x))\n\n")
    with pytest.raises(RankerError, match="for the test part"):
        peer.split_nbest([good], {"train": ("wsj_0001",), "test": ("wsj_0002",)}, tmp_path)


def test_no_peer_source_is_a_one_line_reason(monkeypatch, tmp_path):
    peer = _load("peer_reranker")
    monkeypatch.delenv(peer.SOURCE_ENV, raising=False)
    with pytest.raises(peer.PeerUnavailable, match="no BLLIP source given"):
        peer.find_programs(None)
    with pytest.raises(peer.PeerUnavailable, match="no second-stage/programs/wlle/cvlm-lbfgs.cc"):
        peer.find_programs(str(tmp_path))


def test_the_peers_s1_root_goes_as_on_import_and_a_line_that_is_no_tree_becomes_no_parse(tmp_path):
    cv = _load("cross_validate")
    (tmp_path / "best").write_text("(S1 (S (NP (PRP I)) (VP (VBP see))))\n(S1 (S (NP (PRP I)\n")
    cv.peer_selection(tmp_path / "best", tmp_path / "peer.mrg")
    assert (tmp_path / "peer.mrg").read_text() == "(S (NP (PRP I)) (VP (VBP see)))\n\n"


GOLD = ["(S (NP (DT the) (NN dog)) (VP (VBD ran)))", "(S (NP (PRP I)) (VP (VBP see)))"]
# each sentence: (gold, test, matched) = (3, 3, 3) right, (3, 3, 1) wrong (only S matches)
WRONG = ["(S (NP (DT the)) (VP (NN dog) (VBD ran)))", "(S (VP (PRP I)) (NP (VBP see)))"]


def _fold(out: Path, k: int, picks: dict[str, list[int]]):
    """Fold ``k``'s files: gold, and per system which sentences it gets right (1) or wrong (0)."""
    d = out / f"fold{k}"
    (d / "selected").mkdir(parents=True)
    (d / "gold.mrg").write_text("\n".join(GOLD) + "\n")
    cv = _load("cross_validate")
    for system, right in picks.items():
        lines = [GOLD[i] if ok else WRONG[i] for i, ok in enumerate(right)]
        (d / cv.SYSTEMS[system]).write_text("\n".join(lines) + "\n")
    (d / "fold.json").write_text(json.dumps({
        "fold": k, "test": f"wsj_000{k}", "heldout": "x", "ranker": {
            "fit": {"sigma2": 10}, "counts": {"training sentences kept": 7},
            "evalb_labeled": {"loglinear_score": 1.0}}}))


def test_the_summary_pools_sentences_over_folds_and_says_by_how_much_each_target_is_missed(tmp_path):
    cv = _load("cross_validate")
    every = {"first": [0, 0], "heidorn": [0, 0], "heidorn_tuned": [0, 1], "oracle": [1, 1]}
    _fold(tmp_path, 0, every | {"loglinear": [1, 0], "peer": [0, 1]})
    _fold(tmp_path, 1, every | {"loglinear": [1, 1], "peer": [1, 0]})
    s = cv.write_summary(tmp_path, 10, load_params("COLLINS"), 200, 0)
    p = s["pooled"]
    assert p["folds"] == [0, 1] and p["sentences"] == 4
    # first: 1 matched of 3 in each of 4 sentences -> 4 of 12 -> F 33.3; oracle 12 of 12
    assert p["f"]["first"] == pytest.approx(100 / 3)
    assert p["f"]["oracle"] == pytest.approx(100.0)
    # log-linear: 3+1 in fold 0, 3+3 in fold 1 -> 10 of 12; peer: 1+3, 3+1 -> 8 of 12
    assert p["f"]["loglinear"] == pytest.approx(250 / 3)
    assert p["f"]["peer"] == pytest.approx(200 / 3)
    assert p["phi"]["loglinear"] == pytest.approx(75.0)     # (83.3 - 33.3) / (100 - 33.3)
    assert p["phi"]["peer"] == pytest.approx(50.0)
    assert s["folds"][0]["f"]["loglinear"] == pytest.approx(200 / 3)    # 4 of 6
    assert s["folds"][1]["phi"]["loglinear"] == pytest.approx(100.0)
    t = p["targets"]
    assert t["gain_over_peer"] == {"value": pytest.approx(50 / 3), "target": 0.5, "met": True}
    # log-linear - peer per sentence, in matched brackets: +2, -2, 0, +2; every relabelling leaves
    # |sum| >= 2, the observed, so p = (200 + 1) / (200 + 1)
    assert t["p_vs_peer"] == {"value": 1.0, "target": 0.05, "met": False}
    assert t["phi"]["met"]
    md = (tmp_path / "summary.md").read_text()
    assert "| **pooled** (0, 1) | | 4 | **33.33** | **33.33** | **66.67** | **83.33** | **66.67** | **100.00** |" in md
    assert "- p < 0.05 against the peer: missed" in md
    assert json.loads((tmp_path / "summary.json").read_text())["pooled"]["f"]["peer"] == pytest.approx(200 / 3)


def test_a_target_missed_says_by_how_much(tmp_path):
    cv = _load("cross_validate")
    every = {"first": [0, 0], "heidorn": [0, 0], "heidorn_tuned": [0, 0], "oracle": [1, 1]}
    _fold(tmp_path, 3, every | {"loglinear": [0, 1], "peer": [1, 1]})
    s = cv.write_summary(tmp_path, 10, load_params("COLLINS"), 100, 0)
    # log-linear 4 of 6 = 66.7; peer 100; first 33.3
    assert s["pooled"]["targets"]["gain_over_peer"]["value"] == pytest.approx(-100 / 3)
    md = (tmp_path / "summary.md").read_text()
    assert "(log-linear - peer = -33.33, 33.83 short)" in md
    assert "- phi at least 20%: met (phi = 50.0%)" in md


def test_without_the_peer_the_summary_pools_the_rankers_and_sets_no_target(tmp_path):
    cv = _load("cross_validate")
    _fold(tmp_path, 2, {"first": [0, 1], "heidorn": [0, 1], "heidorn_tuned": [0, 1], "loglinear": [1, 1],
                        "oracle": [1, 1]})
    s = cv.write_summary(tmp_path, 10, load_params("COLLINS"), 100, 0)
    assert s["pooled"]["folds"] == [2] and "peer" not in s["pooled"]["f"]
    assert "targets" not in s["pooled"] and "p_vs_peer" not in s["folds"][0]
    assert s["pooled"]["phi"]["loglinear"] == pytest.approx(100.0)     # first 4 of 6, oracle and log-linear 6
    assert "Targets" not in (tmp_path / "summary.md").read_text()


@pytest.mark.slow
def test_a_bad_fold_is_a_one_line_error_with_exit_2(tmp_path):
    out = subprocess.run([sys.executable, str(HERE / "cross_validate.py"), "--only", "12", "--out",
                          str(tmp_path / "cv")], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1] == "ranker: error: --only: fold '12' is not a number from 0 to 9"


def _claim_in_child(work, then: str):
    """A child process that claims the fold of ``work`` and then runs ``then`` (Python)."""
    path = HERE / "cross_validate.py"
    code = (f"import importlib.util, sys, time\n"
            f"spec = importlib.util.spec_from_file_location('cv', {str(path)!r})\n"
            f"cv = importlib.util.module_from_spec(spec); spec.loader.exec_module(cv)\n"
            f"held = cv.claim(__import__('pathlib').Path({str(work)!r}))\n"
            f"print('held' if held else 'refused', flush=True)\n{then}\n")
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT)


def test_a_fold_claimed_by_a_live_process_is_left_to_it_and_a_dead_ones_claim_is_taken_over(tmp_path):
    import os

    cv = _load("cross_validate")
    work = tmp_path / "fold3" / "peer"
    held = cv.claim(work)
    assert held is not None
    assert (work / "running.pid").read_text() == str(os.getpid())
    assert cv.claim(work) is None                    # held (by this very process): refused
    child = _claim_in_child(work, "")
    assert child.stdout.readline().strip() == "refused"
    child.wait(timeout=60)
    held.close()                                     # let go: the next claim gets it
    again = cv.claim(work)
    assert again is not None
    again.close()
    # a process that dies holding its claim (no clean-up: killed) leaves it to the next one
    child = _claim_in_child(work, "time.sleep(600)")
    assert child.stdout.readline().strip() == "held"
    assert cv.claim(work) is None                    # alive: refused
    assert (work / "running.pid").read_text() == str(child.pid)
    child.kill()
    child.wait(timeout=60)
    taken = cv.claim(work)
    assert taken is not None and (work / "running.pid").read_text() == str(os.getpid())
    taken.close()
