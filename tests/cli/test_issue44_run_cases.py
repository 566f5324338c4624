"""Issue 44: the cases of its items 3, 7, 13, 18 and 19, and a hostile user's pass over ``run``, ``parse``,
``select``, ``annotate``, ``counts``, ``train``, ``store`` and ``models``, as a table a later probe can rerun.

Each case is a command (``{t}`` the test's folder, ``{s}`` a copy of the five-sentence store of
tests/cli/test_issue36_cases.py with its second source penn:y and ``{t}/m.json``, a model trained on
penn:y), the files it needs (text, bytes, or a :class:`Link`; ``{t}`` and ``{s}`` filled in them too),
its expected exit status and the start of its first stderr line (``None``: stderr empty). A case
refused (exit status 2) leaves every file of its folder byte-identical (sha256) and adds none.
"""
import gzip
import hashlib
import io
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ranker_forked import run_forked
from test_issue36_cases import Link, small_store, two_sources  # noqa: F401  (fixtures)

from ranker.cli.main import main

TREE = "(S (NP (DT a) (NN dog)) (VP (VBZ barks)) (. .))\n"
#: A Penn file whose tree is never closed.
BAD_TREE = "(S (NP (DT a) (NN dog))\n"
#: Five n-best lists in Penn format (each two trees over the words of the small store).
LISTS = "".join("(S (NP (NN dogs)) (VP (VBP bark)))\n(S (NN dogs) (VBP bark))\n\n" for _ in range(5))
#: A gzip header, then bytes no gzip stream holds.
DAMAGED_AT_START = b"\x1f\x8b\x08\x00" + b"\xff" * 40
#: The gzipped lists of 400 copies of LISTS, their second half cut off.
CUT_SHORT = (lambda data: data[:len(data) // 2])(gzip.compress((LISTS * 400).encode(), compresslevel=1))
#: The store of the cases: two sources, so commands name penn:y.
SEL = ["--corpus", "mine", "--split", "d0000-0004", "--source", "penn:y"]
TRAIN_ON = ["train", "--store", "{s}", *SEL, "--no-progress"]
TRAIN = [*TRAIN_ON, "--kind", "mine1", "--out", "{t}/t.json"]
PARSE_NEW = ["parse", "--store", "{t}/new.sqlite", "--no-progress"]
PARSE_OLD = ["parse", "--store", "{s}", "--no-progress"]
RUN = ["run", "{t}/c.toml", "--out", "{t}/run", "--no-progress"]
DOCS = r"\(its documents are wsj_0001 \.\. wsj_0199\)$"

#: name: (argv, {file: text}, exit status, first stderr line's start (a regular expression)).
CASES = {
    # item 7: a tree file of the corpus that cannot be read is named, never passed over
    "7 parse, a dangling link in the folder": ([*PARSE_NEW, "--path", "{t}/tb"],
                                               {"tb/a.mrg": TREE, "tb/b.mrg": Link("nosuch.mrg")}, 2,
                                               r"ranker: error: {t}/tb/b\.mrg: a symbolic link to nosuch\.mrg, which "
                                               r"does not exist: document b\.mrg cannot be read; fix or remove it"),
    "7 parse, a looping link in the folder": ([*PARSE_NEW, "--path", "{t}/tb"],
                                              {"tb/a.mrg": TREE, "tb/sub/b.mrg": Link("b.mrg")}, 2,
                                              r"ranker: error: {t}/tb/sub/b\.mrg: a symbolic link that loops: "
                                              r"document b\.mrg cannot be read"),
    "7 parse, a dangling link a glob names": ([*PARSE_NEW, "--path", "{t}/tb/*.mrg"],
                                              {"tb/a.mrg": TREE, "tb/b.mrg": Link("nosuch.mrg")}, 2,
                                              r"ranker: error: {t}/tb/b\.mrg: a symbolic link to nosuch\.mrg"),
    "7 import --corpus penn, a dangling link": (["import", "--store", "{s}", "--format", "penn", "--corpus", "penn",
                                                 "--path", "{t}/tb", "{t}/l.mrg"],
                                                {"tb/a.mrg": TREE, "tb/b.mrg": Link("nosuch.mrg"), "l.mrg": TREE}, 2,
                                                r"ranker: error: {t}/tb/b\.mrg: a symbolic link to nosuch\.mrg"),
    "7 run, a dangling link in [data] path": (RUN, {"c.toml": '[experiment]\nstore = "{t}/r.sqlite"\n[data]\n'
                                                              'corpus = "penn"\npath = "{t}/tb"\n',
                                                    "tb/a.mrg": TREE, "tb/b.mrg": Link("nosuch.mrg")}, 2,
                                              r"ranker: error: {t}/c\.toml: \[data\]: {t}/tb/b\.mrg: a symbolic link "
                                              r"to nosuch\.mrg"),
    # item 13: a selection that selects nothing is refused before the corpus is loaded or a run recorded
    **{f"13 parse {where}, --split {split}": ([*argv, "--corpus", "treebank", "--split", split], files, 2, first)
       for where, argv in (("a new store", PARSE_NEW), ("the store", PARSE_OLD))
       for split, files, first in (
           ("wsj_0200-2199", {},
            rf"ranker: error: --split wsj_0200-2199: selects no document of corpus treebank {DOCS}"),
           ("nosuch_*", {}, r"ranker: error: --split nosuch_\*: selects no document of corpus treebank"),
           ("@{t}/missing.txt", {}, r"ranker: error: {t}/missing\.txt: no such split list"),
           ("@{t}/l.txt", {"l.txt": "wsj_0001\nwsj_9999\n"},
            r"ranker: error: {t}/l\.txt:2: document 'wsj_9999' is not in corpus 'treebank'"),
           ("wsj_0009-0001", {}, r"ranker: error: document range 'wsj_0009-0001' ends before it starts"))},
    "13 parse, --fileids keeping nothing": ([*PARSE_NEW, "--corpus", "treebank", "--fileids", "x*"], {}, 2,
                                            rf"ranker: error: --fileids x\*: keeps no document of corpus "
                                            rf"treebank {DOCS}"),
    "13 parse, --fileids keeping nothing of --split": ([*PARSE_NEW, "--corpus", "treebank", "--split", "wsj_0001-0003",
                                                        "--fileids", "x*"], {}, 2,
                                                       r"ranker: error: --fileids x\*: keeps no document of the 3 "
                                                       r"documents --split wsj_0001-0003 selects$"),
    "13 parse, a bad tree file, a new store": ([*PARSE_NEW, "--path", "{t}/bad"], {"bad/x.mrg": BAD_TREE}, 2,
                                               r"ranker: error: {t}/bad/x\.mrg:1:1: unclosed bracket"),
    "13 parse, a bad tree file, the store": ([*PARSE_OLD, "--path", "{t}/bad"], {"bad/x.mrg": BAD_TREE}, 2,
                                             r"ranker: error: {t}/bad/x\.mrg:1:1: unclosed bracket"),
    "13 import, a bad file, a new store": (["import", "--store", "{t}/new.sqlite", "--format", "penn", "{t}/x.mrg"],
                                           {"x.mrg": BAD_TREE}, 2, r"ranker: error: {t}/x\.mrg: no forest of it can be "
                                                                   r"stored \(1 skipped, the first: {t}/x\.mrg:1:1: "
                                                                   r"unclosed bracket"),
    # (a text with a line that is not UTF-8 is not refused: the line is reported and skipped, and the
    # output keeps one line per input line, tests/cli/test_issue44_apply_cases.py)
    "13 apply --store, a list file refused": (["apply", "--model", "{t}/m.json", "--lists", "{t}/x.nbest", "--store",
                                               "{t}/new.sqlite", "--out", "{t}/o.mrg"], {"x.nbest": "x\n"}, 2,
                                              r"ranker: error: {t}/x\.nbest: no forest of it can be stored"),
    # item 18: a kind read from people's decisions, with none stored, is refused before any work
    "18 annotate --kind user, no decisions": (["annotate", "--store", "{s}", "--kind", "user"], {}, 2,
                                              r"ranker: error: {s}: no discriminant decisions are stored, "
                                              r"so annotation "
                                              r"'user' would be empty: make some in ranker serve first"),
    "18 train --kind user, no decisions": ([*TRAIN_ON, "--kind", "user", "--sigma2", "1", "--out", "{t}/t.json"], {}, 2,
                                           r"ranker: error: {s}: no annotation 'user' is stored; make decisions in "
                                           r"ranker serve, then run: ranker annotate --store {s} --kind user$"),
    "18 run, kind user, no decisions": (RUN, {"c.toml": '[experiment]\nstore = "{s}"\n[annotation]\nkind = "user"\n'},
                                        2, r"ranker: error: {t}/c\.toml: \[annotation\] kind 'user' learns from the "
                                           r"decisions people make in ranker serve, and store {s} holds none on a "
                                           r"sentence of \[data\] train \(train: no decision at all\)"),
    "18 run, kind user, no store": (RUN, {"c.toml": '[experiment]\nstore = "{t}/new.sqlite"\n[annotation]\n'
                                                    'kind = "user"\n'}, 2,
                                    r"ranker: error: {t}/c\.toml: \[annotation\] kind 'user' .* holds none "
                                    r"on a sentence "
                                    r"of \[data\] train \(train: no such store yet: ranker parse makes it\)"),
    "18 apply, a .gz damaged at its start": (["apply", "--model", "{t}/m.json", "--lists", "{t}/l.gz", "--format",
                                              "penn", "--out", "{t}/o.mrg"], {"l.gz": DAMAGED_AT_START}, 1,
                                             r"ranker: error: {t}/l\.gz: cannot be read before its first list \("),
    "18 apply, a .gz cut short": (["apply", "--model", "{t}/m.json", "--lists", "{t}/l.gz", "--format", "penn",
                                   "--out", "{t}/o.mrg"], {"l.gz": CUT_SHORT}, 1,
                                  r"ranker: error: {t}/l\.gz: cannot be read after list [1-9]\d* "
                                  r"\(Compressed file ended"),
}

#: The hostile user's pass: every command fed the wrong kind of value (those marked * were accepted, or
#: ended in a traceback, before issue 44; the others were refused already and are recorded here).
HOSTILE = {
    # parse
    "parse --workers abc": ([*PARSE_OLD, "--workers", "abc"], {}, 2, r"ranker: error: argument --workers: invalid int"),
    "parse --workers -1": ([*PARSE_OLD, "--workers", "-1"], {}, 2, r"ranker: error: argument --workers: must be >= 0"),
    "parse --linkage-limit 0": ([*PARSE_OLD, "--linkage-limit", "0"], {}, 2,
                                r"ranker: error: argument --linkage-limit: must be >= 1, got 0$"),
    "* parse --linkage-limit 10^12": ([*PARSE_OLD, "--linkage-limit", "1000000000000"], {}, 2,
                                      r"ranker: error: argument --linkage-limit: must be <= 100000, got "
                                      r"1000000000000$"),
    "parse --max-parse-time nan": ([*PARSE_OLD, "--max-parse-time", "nan"], {}, 2,
                                   r"ranker: error: argument --max-parse-time: must be a finite number, got nan$"),
    "parse --max-parse-time -1": ([*PARSE_OLD, "--max-parse-time", "-1"], {}, 2,
                                  r"ranker: error: argument --max-parse-time: must be >= 2"),
    **{f"* parse --batch-size {n}": ([*PARSE_OLD, "--batch-size", n], {}, 2,
                                     rf"ranker: error: argument --batch-size: must be >= 1, got {n}$")
       for n in ("0", "-3")},
    "parse --batch-size x": ([*PARSE_OLD, "--batch-size", "x"], {}, 2,
                             r"ranker: error: argument --batch-size: invalid int value: 'x'$"),
    "parse --limit x": ([*PARSE_OLD, "--limit", "x"], {}, 2, r"ranker: error: argument --limit: invalid int value"),
    "parse --encoding nosuch": ([*PARSE_OLD, "--path", "{t}/x.txt", "--encoding", "nosuch"], {"x.txt": "a b\n"}, 2,
                                r"ranker: error: \[data\] encoding: unknown encoding 'nosuch'$"),
    "parse --corpus nosuch": ([*PARSE_OLD, "--corpus", "nosuch"], {}, 2, r"ranker: error: .*unknown corpus 'nosuch'"),
    "parse --store a folder": (["parse", "--store", "{t}", "--corpus", "treebank"], {}, 2,
                               r"ranker: error: {t}: is a folder, not a store file$"),
    "parse --store a text file": (["parse", "--store", "{t}/x.txt", "--corpus", "treebank"], {"x.txt": "a b\n"}, 2,
                                  r"ranker: error: {t}/x\.txt: not a ranker store"),
    "parse --path, a folder of no trees": ([*PARSE_OLD, "--path", "{t}/empty"], {"empty/x.txt": "a\n"}, 2,
                                           r"ranker: error: {t}/empty: no tree files"),
    # select
    "select --seed abc": (["select", "--store", "{s}", *SEL, "--ranker", "random", "--seed", "abc", "--out",
                           "{t}/o.mrg"], {}, 2, r"ranker: error: argument --seed: invalid int value"),
    "select --seed -1": (["select", "--store", "{s}", *SEL, "--ranker", "random", "--seed", "-1", "--out",
                          "{t}/o.mrg"], {}, 2, r"ranker: error: argument --seed: must be >= 0"),
    "select --ranker nosuch": (["select", "--store", "{s}", *SEL, "--ranker", "nosuch", "--out", "{t}/o.mrg"], {}, 2,
                               r"ranker: error: argument --ranker: invalid choice: 'nosuch'"),
    "select --metric nosuch": (["select", "--store", "{s}", *SEL, "--ranker", "oracle", "--metric", "nosuch",
                                "--out", "{t}/o.mrg"], {}, 2, r"ranker: error: --metric: unknown metric 'nosuch'"),
    "select --k-table nosuch": (["select", "--store", "{s}", *SEL, "--ranker", "heidorn", "--k-table", "nosuch",
                                 "--out", "{t}/o.mrg"], {}, 2, r"ranker: error: nosuch: no such K table$"),
    "select --model, a text file": (["select", "--store", "{s}", *SEL, "--ranker", "loglinear", "--model",
                                     "{t}/x.txt", "--out", "{t}/o.mrg"], {"x.txt": "a b\n"}, 2,
                                    r"ranker: error: {t}/x\.txt:1:1: not a model file"),
    "select --model, a folder": (["select", "--store", "{s}", *SEL, "--ranker", "loglinear", "--model", "{t}",
                                  "--out", "{t}/o.mrg"], {}, 2, r"ranker: error: {t}: is a folder, not a model file$"),
    "select --out, a folder": (["select", "--store", "{s}", *SEL, "--ranker", "native", "--out", "{t}"], {}, 2,
                               r"ranker: error: --out {t}: is a folder; give a file name$"),
    "* select --out ''": (["select", "--store", "{s}", *SEL, "--ranker", "native", "--out", ""], {}, 2,
                          r"ranker: error: --out: an empty file name; give one$"),
    # annotate
    "annotate --kind nosuch": (["annotate", "--store", "{s}", "--kind", "nosuch"], {}, 2,
                               r"ranker: error: argument --kind: invalid choice: 'nosuch'"),
    "annotate --workers -3": (["annotate", "--store", "{s}", "--kind", "riezler", "--workers", "-3"], {}, 2,
                              r"ranker: error: argument --workers: must be >= 0, got -3$"),
    "annotate --equivalences nosuch": (["annotate", "--store", "{s}", "--kind", "file", "--file", "{t}/b.tsv",
                                        "--name", "m2", "--equivalences", "nosuch"],
                                       {"b.tsv": "mine/d0000/0\tNP\t0\t1\n"}, 2,
                                       r"ranker: error: nosuch: no such label equivalence table$"),
    "annotate --best-f-metric nosuch": (["annotate", "--store", "{s}", "--kind", "best_f", "--best-f-metric",
                                         "nosuch"], {}, 2, r"ranker: error: --best-f-metric 'nosuch' is not known"),
    "annotate --source ''": (["annotate", "--store", "{s}", "--kind", "file", "--file", "{t}/b.tsv", "--name", "m2",
                              "--source", ""], {"b.tsv": "mine/d0000/0\tNP\t0\t1\n"}, 2,
                             r"ranker: error: {s}: no candidates from source '' \(stored: penn:x, penn:y\)$"),
    **{f"* annotate --kind riezler {opt} nosuch": (["annotate", "--store", "{s}", "--kind", "riezler", opt, "nosuch"],
                                                   {}, 2, rf"ranker: error: {said}")   # after loading the treebank
       for opt, said in (("--source", r"{s}: no candidates from source 'nosuch' \(stored: penn:x, penn:y\)$"),
                         ("--equivalences", r"nosuch: no such label equivalence table$"))},
    # counts
    "counts --workers x": (["counts", "--store", "{s}", *SEL, "--workers", "x"], {}, 2,
                           r"ranker: error: argument --workers: invalid int value"),
    "counts --evalb-param nosuch": (["counts", "--store", "{s}", *SEL, "--evalb-param", "nosuch"], {}, 2,
                                    r"ranker: error: no EVALB parameter set 'nosuch'"),
    "counts --head-rules nosuch": (["counts", "--store", "{s}", *SEL, "--head-rules", "nosuch"], {}, 2,
                                   r"ranker: error: nosuch: no such file and no heads table of that name"),
    "counts --limit -4": (["counts", "--store", "{s}", *SEL, "--limit", "-4"], {}, 2,
                          r"ranker: error: argument --limit: must be >= 0, got -4$"),
    # train
    **{f"train --sigma2 {v}": ([*TRAIN, "--sigma2", v], {}, 2, r"ranker: error: sigma2 must be positive")
       for v in ("-1", "0", "nan")},
    "train --sigma2-grid nan": ([*TRAIN, "--heldout", "d0000-0004", "--sigma2-grid", "nan"], {}, 2,
                                r"ranker: error: argument --sigma2-grid: must be a finite number, got nan$"),
    "train --cutoff -1": ([*TRAIN, "--sigma2", "1", "--cutoff", "-1"], {}, 2,
                          r"ranker: error: argument --cutoff: must be >= 0, got -1$"),
    "train --max-iter 0": ([*TRAIN, "--sigma2", "1", "--max-iter", "0"], {}, 2,
                           r"ranker: error: argument --max-iter: must be >= 1, got 0$"),
    "train --screen-iterations -1": ([*TRAIN, "--sigma2", "1", "--screen-iterations", "-1"], {}, 2,
                                     r"ranker: error: argument --screen-iterations: must be >= 0"),
    "train --screen-iterations 300": ([*TRAIN, "--rule", "auto", "--heldout", "d0000-0004", "--screen-iterations",
                                       "300"], {}, 2, r"ranker: error: --screen-iterations 300 is not below "
                                                      r"--max-iter 300: a screening fit as long as a full one"),
    "train --tol 0": ([*TRAIN, "--sigma2", "1", "--tol", "0"], {}, 2, r"ranker: error: argument --tol: must be > 0"),
    "train --features nosuch": ([*TRAIN, "--sigma2", "1", "--features", "nosuch"], {}, 2,
                                r"ranker: error: nosuch: no such feature configuration$"),
    "train --kind nosuch": ([*TRAIN_ON, "--kind", "nosuch", "--sigma2", "1", "--out", "{t}/t.json"], {}, 2,
                            r"ranker: error: {s}: no annotation 'nosuch' is stored; run: ranker annotate"),
    "train --out, a folder": ([*TRAIN[:-1], "{t}", "--sigma2", "1"], {}, 2,
                              r"ranker: error: --out {t}: is a folder; give a file name$"),
    # store
    "store stats, a folder": (["store", "stats", "{t}"], {}, 2, r"ranker: error: {t}: is a folder, not a store file$"),
    "store stats, a text file": (["store", "stats", "{t}/x.txt"], {"x.txt": "a b\n"}, 2,
                                 r"ranker: error: {t}/x\.txt: not a ranker store"),
    "store stats --format nosuch": (["store", "stats", "{s}", "--format", "nosuch"], {}, 2,
                                    r"ranker: error: argument --format: invalid choice: 'nosuch'"),
    "* store export --source nosuch": (["store", "export", "{s}", "--source", "nosuch"], {}, 2,
                                       r"ranker: error: {s}: no candidates from source 'nosuch' \(stored: penn:x, "
                                       r"penn:y\)$"),
    "store export --sentence nosuch": (["store", "export", "{s}", "--sentence", "nosuch"], {}, 2,
                                       r"ranker: error: {s}: no sentence 'nosuch'$"),
    "store export --fileids x*": (["store", "export", "{s}", "--fileids", "x*"], {}, 2,
                                  r"ranker: error: {s}: no stored sentence of fileids x\*"),
    "store backup, onto the store": (["store", "backup", "{s}", "{s}"], {}, 2,
                                     r"ranker: error: {s}: the backup would overwrite the store"),
    # models
    "models list, no such store": (["models", "list", "--store", "{t}/nosuch.sqlite"], {}, 2,
                                   r"ranker: error: {t}/nosuch\.sqlite: no such store$"),
    "* models export ''": (["models", "export", "", "--store", "{s}", "--out", "{t}/x.json"], {}, 2,
                           r"ranker: error: models export: an empty model key; name one by its key"),
    "models export 99": (["models", "export", "99", "--store", "{s}", "--out", "{t}/x.json"], {}, 2,
                         r"ranker: error: {s}: no stored models match '99'"),
    "models export --out, the store": (["models", "export", "--store", "{s}", "--out", "{s}"], {}, 2,
                                       r"ranker: error: {s}: --out would overwrite the store"),
    "models retrain --source nosuch": (["models", "retrain", "--store", "{s}", "KEY", "--kind", "mine1", "--source",
                                        "nosuch"], {}, 2, r"ranker: error: {s}: no candidates from source 'nosuch'"),
    "models retrain --split nosuch": (["models", "retrain", "--store", "{s}", "KEY", "--kind", "mine1", "--source",
                                       "penn:y", "--split", "nosuch"], {}, 2,
                                      r"ranker: error: {s}: no sentence annotated as 'mine1' with candidates from "
                                      r"penn:y is in split 'nosuch'$"),
    # run
    "run --workers x": (["run", "{t}/c.toml", "--workers", "x"], {"c.toml": ""}, 2,
                        r"ranker: error: argument --workers: invalid int value"),
    "run --workers -1": ([*RUN, "--workers", "-1"], {"c.toml": ""}, 2,
                         r"ranker: error: {t}/c\.toml: \[experiment\] workers: must be >= 0, got -1$"),
    "run, a folder as config": (["run", "{t}", "--out", "{t}/run"], {}, 2,
                                r"ranker: error: {t}: is a folder, not a config file$"),
    "* run --out, a file": (["run", "{t}/c.toml", "--out", "{t}/c.toml"], {"c.toml": ""}, 2,
                            r"ranker: error: --out {t}/c\.toml: is a file; give a folder"),
    "run --store, a folder": ([*RUN, "--store", "{t}/sub"], {"c.toml": "", "sub/x": ""}, 2,
                              r"ranker: error: {t}/c\.toml: \[experiment\] store {t}/sub is not a file$"),
    **{f"run, {text.strip().replace(chr(10), ' ')}": (RUN, {"c.toml": text}, 2,
                                                      rf"ranker: error: {{t}}/c\.toml: {re.escape(said)}")
       for text, said in (
           ('[experiment]\nworkers = "two"\n', "[experiment] workers: expected int, got 'two'"),
           ("[experiment]\nworkers = 1.5\n", "[experiment] workers: expected int, got 1.5"),
           ("[parse]\nlinkage_limit = 1000000000000\n", "[parse] linkage_limit: must be <= 100000"),
           ("[parse]\nmax_parse_time = nan\n", "[parse] max_parse_time: must be a finite number, got nan"),
           ('[data]\nlimit = "x"\n', "[data] limit: expected int, got 'x'"),
           ("[loglinear]\nsigma2_grid = [0.0]\n", "[loglinear] sigma2_grid[0]: must be > 0, got 0.0"),
           ("[annotation]\nscreen_iterations = -5\n", "[annotation] screen_iterations: must be >= 0, got -5"),
           ('[annotation]\nscreen_iterations = "few"\n', "[annotation] screen_iterations: expected int, got 'few'"),
           ('[annotation]\nrule = "auto"\nscreen_iterations = 300\n',
            "[annotation] screen_iterations = 300 is not below [loglinear] max_iter = 300"),
           ('[loglinear]\nsigma2_grid = "x"\n', "[loglinear] sigma2_grid: expected a list, got 'x'"),
           ("[evaluation]\nconfidence = 1.5\n", "[evaluation] confidence: must be < 1, got 1.5"),
           ("[report]\nlearning_curve = [2.0]\n", "[report] learning_curve[0]: must be <= 1, got 2.0"),
           ('[report]\ngroup_documents = "("\n', "[report] group_documents: not a regular expression"),
           ('[data]\nextra_training = "treebank"\n', "[data] extra_training: expected a list, got 'treebank'"),
           ("[pars]\nlinkage_limit = 5\n", "unknown section [pars]"))},
}


def _model_key(store: Path) -> str:
    """The key of the one model stored in ``store``."""
    import json

    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["models", "list", "--store", str(store), "--format", "json"]) == 0
    return json.loads(buf.getvalue())[0]["key"]


def run_case(case, tmp_path: Path, two_sources, capsys, monkeypatch):
    """Run ``case`` in ``tmp_path`` on a copy of the two-source store: its exit status, stderr and fill."""
    from ranker import parallel

    monkeypatch.setattr(parallel, "_WARNED", set())   # the warnings of this process so far
    argv, files, _, _ = case
    store = tmp_path / "s.sqlite"
    store.write_bytes(two_sources[0])
    (tmp_path / "m.json").write_bytes(two_sources[1])
    fill = {"t": str(tmp_path), "s": str(store)}
    for rel, content in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            path.symlink_to(content)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content.format(**fill))
    if "KEY" in argv:
        argv = [_model_key(store) if a == "KEY" else a for a in argv]
    capsys.readouterr()
    before = _sha256s(tmp_path)
    try:
        code = main([a.format(**fill) for a in argv])
    except SystemExit as e:    # argparse refused the command line
        code = e.code
    if code == 2:    # a refusal writes nothing: every file as it was (sha256), none added
        assert _sha256s(tmp_path) == before, argv
    return code, capsys.readouterr().err, fill


def _sha256s(folder: Path) -> dict:
    """Every path below ``folder``: its sha256 (None for a folder or a link that leads nowhere)."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            if p.is_file() else None for p in sorted(folder.rglob("*")) if not p.name.endswith(".lock")}


def check_case(case, tmp_path, two_sources, capsys, monkeypatch):
    """Run ``case`` and compare its exit status and first stderr line with the table's."""
    code, err, fill = run_case(case, tmp_path, two_sources, capsys, monkeypatch)
    _, _, want_code, want_first = case
    assert code == want_code, err
    assert "Traceback" not in err, err
    if want_first is None:
        assert err == ""
        return
    lines = [line for line in err.splitlines() if not line.startswith("ranker: warning: ")]
    first = lines[0] if lines else ""
    pattern = want_first.replace("{t}", re.escape(fill["t"])).replace("{s}", re.escape(fill["s"]))
    assert re.match(pattern, first), (first, pattern)
    if want_code == 2:   # one line (argparse's refusals: and the --help hint)
        assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("try 'ranker ")), err


@pytest.mark.parametrize("name", CASES)
def test_issue44_case(name, tmp_path, two_sources, capsys, monkeypatch):
    check_case(CASES[name], tmp_path, two_sources, capsys, monkeypatch)


@pytest.mark.parametrize("name", HOSTILE)
def test_issue44_hostile_option_values(name, tmp_path, two_sources, capsys, monkeypatch):
    check_case(HOSTILE[name], tmp_path, two_sources, capsys, monkeypatch)


def test_issue44_item7_a_linked_folder_of_trees_is_read_once_and_a_link_up_ends_the_walk(tmp_path):
    """Regression (issue 44, item 7): ``os.walk`` passed over a linked folder of trees in silence;
    it is read now, each real folder once (a link back up is no endless walk)."""
    from ranker.sources.penn_files import tree_files

    real = tmp_path / "elsewhere" / "00"
    real.mkdir(parents=True)
    (real / "wsj_0001.mrg").write_text(TREE)
    tb = tmp_path / "tb"
    tb.mkdir()
    (tb / "wsj_0002.mrg").write_text(TREE)
    (tb / "00").symlink_to(real)
    (real / "up").symlink_to(tb)
    assert [p.name for p in tree_files(str(tb))] == ["wsj_0001.mrg", "wsj_0002.mrg"]


@pytest.mark.slow
@pytest.mark.linkgrammar
def test_issue44_item3_a_run_on_splits_that_share_documents_parses_each_sentence_once(tmp_path):
    """Regression (issue 44, item 3): held-out and test (and train and held-out) sharing a document
    warned, then ``ranker run`` parsed the shared sentences twice and died with ``sqlite3.IntegrityError:
    UNIQUE constraint failed: candidates.sentence_id, candidates.source, candidates.rank``."""
    config = tmp_path / "c.toml"
    store = tmp_path / "s.sqlite"
    config.write_text(f'[experiment]\nstore = "{store}"\nworkers = 2\n'
                      '[data]\ntrain = "wsj_0001-0002 wsj_0005"\nheldout = "wsj_0002 wsj_0006-0007"\n'
                      'test = "wsj_0007 wsj_0009"\n[parse]\nlinkage_limit = 5\nmax_parse_time = 2.0\n'
                      '[loglinear]\nsigma2_grid = [1.0]\n[heidorn]\ntune_rounds = 1\n'
                      '[evaluation]\nbootstrap_resamples = 10\nrandomization_resamples = 10\n'
                      '[report]\nlearning_curve = [1.0]\nplots = false\n')
    # a process of its own, forked with its imports done (:mod:`ranker_forked`): a fresh interpreter's
    # start is not what this tests
    r = run_forked(["run", config, "--out", tmp_path / "out", "--no-progress"], timeout=600)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.stderr.splitlines() == [
        f"ranker: warning: {config}: [data] heldout and test share 1 documents (first wsj_0007.mrg): the test "
        "scores are not of unseen text"], r.stderr
    # documents 0001, 0002, 0005, 0006, 0007, 0009 hold 2 + 1 + 3 + 2 + 4 + 4 sentences: each parsed once
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(DISTINCT sentence_id) FROM candidates").fetchone() == (16,)


def test_issue44_item3_the_splits_hand_each_sentence_once_in_order():
    """The parse stage's sentences (:meth:`Splits.sentences`) are each split's, each sentence once, in
    the order of its first appearance."""
    from ranker.pipeline.splits import SplitSelection
    from ranker.pipeline.stages.corpus import Splits
    from ranker.store import Sentence

    def sel(*ids):
        return SplitSelection("x", "c", None, None, tuple(Sentence(i, "c", i[0], 0, ("w",), ("",)) for i in ids))

    splits = Splits(sel("a1", "b1"), sel("b1", "c1"), sel("c1", "d1", "a1"), (sel("e1", "a1"),))
    assert [s.id for s in splits.sentences()] == ["a1", "b1", "c1", "d1", "e1"]


def test_issue44_item18_no_pool_starts_more_processes_than_the_cores(two_sources, tmp_path, monkeypatch, capsys):
    """Regression (issue 44, item 18): ``select`` and ``annotate`` with ``--workers 1000`` forked a
    process per sentence of a 413-sentence split (as ``counts`` and ``parse`` did: capping at the
    tasks bounded nothing there); no pool now starts more processes than the cores."""
    from ranker import parallel

    cores = os.cpu_count() or 1
    store = tmp_path / "s.sqlite"
    store.write_bytes(two_sources[0])
    (tmp_path / "m.json").write_bytes(two_sources[1])
    (tmp_path / "b.tsv").write_text("".join(f"mine/d000{i}/0\tNP\t0\t1\n" for i in range(5)))
    started = []
    real_process, real_pool = parallel._CTX.Process, parallel._CTX.Pool
    monkeypatch.setattr(parallel._CTX, "Process", lambda *a, **k: started.append(1) or real_process(*a, **k))
    monkeypatch.setattr(parallel._CTX, "Pool", lambda n, *a, **k: started.append(n) or real_pool(n, *a, **k))
    assert main(["annotate", "--store", str(store), "--kind", "file", "--file", str(tmp_path / "b.tsv"), "--name",
                 "all5", "--workers", "1000"]) == 0
    assert 0 < len(started) <= cores, started            # one Process a worker: 5 sentences, no more than the cores
    started.clear()
    assert main(["select", "--store", str(store), *SEL, "--ranker", "loglinear", "--model", str(tmp_path / "m.json"),
                 "--workers", "1000", "--out", str(tmp_path / "o.mrg")]) == 0
    assert started and all(n <= cores for n in started), started   # the Pool's size
    assert f"is more than this machine's {cores} cores: ranker starts no more than {cores} processes" in \
        capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.linkgrammar
def test_issue44_item19_sigterm_during_the_parse_stops_the_run_in_one_line_and_a_rerun_resumes(tmp_path):
    """Regression (issue 44, item 19): SIGTERM (``kill``, a job scheduler, a cluster's nanny) to ``ranker
    run`` during the parse killed it with no message, and each worker printed a traceback
    (``BrokenPipeError``, ``ConnectionResetError``); it now stops as Ctrl-C does: one line saying what
    was kept and how to go on, workers quiet, exit status 143, and the same command resumes."""
    config = tmp_path / "c.toml"
    store = tmp_path / "s.sqlite"
    config.write_text(f'[experiment]\nstore = "{store}"\nworkers = 2\n'
                      '[data]\ntrain = "wsj_0001-0005"\nheldout = "wsj_0006-0007"\ntest = "wsj_0008"\n'
                      '[parse]\nlinkage_limit = 5\nmax_parse_time = 2.0\n'
                      '[loglinear]\nsigma2_grid = [1.0]\n[heidorn]\ntune_rounds = 1\n'
                      '[evaluation]\nbootstrap_resamples = 10\nrandomization_resamples = 10\n'
                      '[report]\nlearning_curve = [1.0]\nplots = false\n')
    argv = [sys.executable, "-m", "ranker.cli.main", "run", str(config), "--out", str(tmp_path / "out"),
            "--no-progress"]
    # a session of its own: SIGTERM goes to the whole process group, workers too, as a job scheduler sends it
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        parsed = 0
        deadline = time.monotonic() + 300
        while parsed == 0 and p.poll() is None and time.monotonic() < deadline:   # the parse has stored a batch
            time.sleep(0.2)
            parsed = _parsed(store)
        assert parsed > 0 and p.poll() is None, "the run ended before any batch was stored"
        os.killpg(p.pid, signal.SIGTERM)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 143, err
    assert err == (f"ranker: terminated (SIGTERM); the work it stored in {store} is kept: run the same command "
                   "again to go on from there\n"), err
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT command, outcome FROM runs").fetchall() == [("run", "interrupted")]
        kept = db.execute("SELECT COUNT(DISTINCT sentence_id) FROM candidates").fetchone()[0]
    assert kept >= parsed
    again = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr[-3000:]
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT outcome FROM runs ORDER BY id").fetchall() == [("interrupted",), ("ok",)]
        assert db.execute("SELECT COUNT(DISTINCT sentence_id) FROM candidates").fetchone()[0] == 65


def _stopped_once(marker):
    """A handler that stops its own worker by SIGTERM the first time (``marker`` not there yet)."""
    def handle(item):
        if not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        return f"done {item}"
    return handle


def test_issue44_item19_a_worker_stopped_by_sigterm_is_no_crash_of_its_item(tmp_path):
    """SIGTERM to a job's process group reaches the workers too: a worker it stopped hands its item to
    its replacement (the parent, stopped as well, keeps it unparsed), never "crash" for the item."""
    from ranker.parallel import run_pool

    got = sorted(run_pool(range(4), _stopped_once, str(tmp_path / "stopped"), 2, lambda item, why: why))
    assert got == [f"done {i}" for i in range(4)] and (tmp_path / "stopped").exists()


def _parsed(store: Path) -> int:
    """Sentences with candidates in ``store`` as a reader sees it while the run writes (0 before it exists)."""
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            return db.execute("SELECT COUNT(DISTINCT sentence_id) FROM candidates").fetchone()[0]
    except sqlite3.Error:   # the tables are not made yet
        return 0


def test_issue44_item19_sigterm_is_an_interrupt_that_names_what_was_kept(tmp_path, capsys):
    """Within a command SIGTERM raises :class:`Terminated` (a KeyboardInterrupt: every clean-up of
    Ctrl-C runs), the store marks what it kept, and the command ends with one line and status 143."""
    from ranker.cli.signals import Terminated, status_of, stopped_line, terminated_as_interrupt
    from ranker.store import Sentence, Store

    store = tmp_path / "s.sqlite"
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated) as e, terminated_as_interrupt(), Store.writing(store) as st, \
            st.recording("test", {}):
        st.add_sentences([Sentence("c/d/0", "c", "d", 0, ("w",), ("",))])
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)   # the handler raises before this ends
    assert stopped_line(e.value) == (f"ranker: terminated (SIGTERM); the work it stored in {store} is kept: run the "
                                     "same command again to go on from there") and status_of(e.value) == 143
    assert signal.getsignal(signal.SIGTERM) == before   # restored on leaving
    with Store.open(store, readonly=True) as st:
        assert [r.outcome for r in st.runs()] == ["interrupted"]
    gone = tmp_path / "new.sqlite"   # stopped before it committed anything: no new store is left
    with pytest.raises(Terminated) as e, terminated_as_interrupt(), Store.writing(gone):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert not gone.exists() and stopped_line(e.value) == "ranker: terminated (SIGTERM)"
    assert stopped_line(KeyboardInterrupt()) == "ranker: interrupted" and status_of(KeyboardInterrupt()) == 130
