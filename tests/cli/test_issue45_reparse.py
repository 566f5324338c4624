"""Issue 45 (done when): parsing again only what timed out, with another budget (``ranker parse --reparse``).

The store of these tests is a real Link Grammar parse of four sentences of a Penn file (corpus
``tb``): three short ones and sentence 30 of GUM_academic_eegimaa (34 tokens, no complete linkage),
whose full and null-link passes need about 3 CPU seconds: with a budget of 2 it is always
``timeout``; with 12 its null-link pass ends (``fragment``, 3 linkages). Its bracket counts,
checks against a bracket file's annotation (kind ``mine``), two feature matrices (one holding the long
sentence, one not) and ``ranker serve``'s choices are stored before the reparse.
"""
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from ranker.cli.main import main
from ranker.serve.choices import CHOICES_KIND, choices_key
from ranker.store import Store

SHORT = ("(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))",
         "(S (NP (NNS Dogs)) (VP (VBP bark)) (. .))",
         "(S (NP (DT A) (NN man)) (VP (VBD walked) (ADVP (RB home))) (. .))")
LONG = "tb/a.mrg/2"
#: The options of the store's parse (a reparse must give the same, its budget aside).
OPTIONS = ["--linkage-limit", "20", "--workers", "1", "--no-progress"]
#: Checks every candidate against a bracket file (kind mine) of the four sentences.
ANNOTATE = ["annotate", "--store", "{s}", "--kind", "file", "--name", "mine", "--workers", "1", "--file"]
REPARSE = ["parse", "--store", "{s}", "--corpus", "tb", "--reparse", "timeout", "--max-parse-time", "12", *OPTIONS]


def _penn_file(folder: Path) -> Path:
    from ranker.sources.penn_files import file_trees
    from ranker.trees.penn import format_tree

    gum = Path(__file__).resolve().parents[2].parent / "shared" / "gum" / "const" / "GUM_academic_eegimaa.ptb"
    long = format_tree(list(file_trees(gum))[30])
    tb = folder / "tb"
    tb.mkdir()
    (tb / "a.mrg").write_text("\n".join([SHORT[0], SHORT[1], long, SHORT[2]]) + "\n")
    return tb


def _matrices(store_path: Path) -> None:
    """A feature matrix of the short sentences alone and one of every sentence, stored (in this order:
    the other way round, the short ones' would be assembled from the rows of every sentence's)."""
    from ranker.pipeline import stages
    from ranker.pipeline.config import FeaturesSection
    from ranker.pipeline.splits import SplitSelection

    with Store.open(store_path) as st:
        sents = st.sentences("tb")
        ctx = stages.StageContext(st, "link-grammar", 1)
        short = tuple(s for s in sents if s.id != LONG)
        stages.extract_features(ctx, FeaturesSection(), SplitSelection("short", "tb", None, None, short))
        stages.extract_features(ctx, FeaturesSection(), SplitSelection("all", "tb", None, None, tuple(sents)))


@pytest.fixture(scope="module")
def parsed(tmp_path_factory) -> bytes:
    """The store's bytes: parsed with a budget of 2, counted, checked against kind mine, two matrices."""
    folder = tmp_path_factory.mktemp("parsed")
    tb = _penn_file(folder)
    store = folder / "s.sqlite"
    assert main(["parse", "--store", str(store), "--corpus", "penn", "--path", str(tb), "--max-parse-time", "2",
                 *OPTIONS]) == 0
    assert main(["counts", "--store", str(store), "--corpus", "tb", "--workers", "1", "--no-progress"]) == 0
    (folder / "b.tsv").write_text("".join(f"tb/a.mrg/{i}\tNP\t0\t1\n" for i in range(4)))
    assert main([*(a.format(s=store) for a in ANNOTATE), str(folder / "b.tsv")]) == 0
    _matrices(store)
    with Store.open(store) as st:   # ranker serve's choices of every sentence (first candidate each)
        st.put_artifact(CHOICES_KIND, choices_key("link-grammar", None, None),
                        json.dumps({f"tb/a.mrg/{i}": [0, None, None] for i in range(4)}).encode(), {"sentences": 4})
        assert {r[0]: r[2] for r in st.parse_log("link-grammar")} == {
            "tb/a.mrg/0": "full", "tb/a.mrg/1": "full", LONG: "timeout", "tb/a.mrg/3": "full"}
    return store.read_bytes()


def _rows(path: Path) -> dict[str, list]:
    """Every table's rows, sorted."""
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: sorted(db.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}


def _of(rows, sid, column=0):
    return [r for r in rows if r[column] == sid]


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_reparse_replaces_only_the_timeouts_and_what_was_derived_from_them(parsed, tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    store.write_bytes(parsed)
    before = _rows(store)
    capsys.readouterr()
    assert main([a.format(s=store) for a in REPARSE]) == 0
    out = capsys.readouterr().out
    assert out.startswith("parsed again 1 sentences of status timeout with a budget of 12 s in ")
    assert "fragment 1" in out.splitlines()[0]
    assert "  21-40      0         1        0.0          1" in out   # the length table, as stored now
    after = _rows(store)

    # the long sentence's forest and log entry are new; every other sentence's are the same rows
    new = _of(after["candidates"], LONG)
    assert len(new) == 3 and {r[3] for r in new} == {"fragment"}
    assert _of(before["candidates"], LONG) != new
    assert [r for r in after["candidates"] if r[0] != LONG] == [r for r in before["candidates"] if r[0] != LONG]
    log = {r[0]: r for r in after["parse_log"]}
    assert log[LONG][2:5] == ("fragment", "3 linkages, 4 null links", 3)
    assert [r for r in after["parse_log"] if r[0] != LONG] == [r for r in before["parse_log"] if r[0] != LONG]
    # what was derived from its old forest is gone (its skim of a candidate, or none when the skim
    # found no second left: test_reparse_of_full_sentences_drops_every_row_derived_from_their_forests
    # holds the drop itself), the others' kept
    assert not _of(after["bracket_counts"], LONG, 1) and not _of(after["annotation_checks"], LONG, 1)
    assert [r for r in after["bracket_counts"] if r[1] != LONG] == [r for r in before["bracket_counts"] if r[1] != LONG]
    assert ([r for r in after["annotation_checks"] if r[1] != LONG]
            == [r for r in before["annotation_checks"] if r[1] != LONG])
    kinds = lambda rows: sorted(r[0] for r in rows if r[0].startswith("feature-matrix"))  # noqa: E731
    matrices = lambda rows: {r[1] for r in rows if r[0] == "feature-matrix"}  # noqa: E731
    assert len(matrices(before["artifacts"])) == 2 and len(matrices(after["artifacts"])) == 1
    kept, = matrices(after["artifacts"])
    assert [r for r in after["artifacts"] if r[1] == kept] == [r for r in before["artifacts"] if r[1] == kept]
    assert kinds(after["artifacts"]) == ["feature-matrix", "feature-matrix-index"]
    # the source keeps the options it was parsed with, the reparse recorded beside them
    (name, options), = after["sources"]
    options = json.loads(options)
    assert options.pop("reparsed") == [{"statuses": ["timeout"], "max_parse_time": 12, "sentences": 1}]
    assert [(name, json.loads(before["sources"][0][1]))] == [("link-grammar", options)]
    # one run more (this command); nothing else in the store changed
    assert [r[1] for r in after["runs"]] == [r[1] for r in before["runs"]] + ["parse"]
    changed = {"candidates", "parse_log", "bracket_counts", "annotation_checks", "artifacts", "sources", "runs"}
    assert {t: rows for t, rows in after.items() if t not in changed} == \
           {t: rows for t, rows in before.items() if t not in changed}
    derived = ("feature-matrix", CHOICES_KIND)
    assert [r for r in after["artifacts"] if not r[0].startswith(derived)] == \
           [r for r in before["artifacts"] if not r[0].startswith(derived)]
    (_, _, choices, meta), = [r for r in after["artifacts"] if r[0] == CHOICES_KIND]
    assert sorted(json.loads(choices)) == ["tb/a.mrg/0", "tb/a.mrg/1", "tb/a.mrg/3"] and json.loads(meta)["sentences"] == 3

    # the stages a later ranker run --store goes through count, check and extract the new forest
    assert main(["counts", "--store", str(store), "--corpus", "tb", "--workers", "1", "--no-progress"]) == 0
    assert "1 sentences of tb/all scored now, 3 already stored or without candidates" in capsys.readouterr().out
    with Store.open(store) as st:
        assert {(r[0], r[1]) for r in st.unchecked_candidates("mine")} == {(LONG, "link-grammar")}
    (tmp_path / "b.tsv").write_text("".join(f"tb/a.mrg/{i}\tNP\t0\t1\n" for i in range(4)))
    assert main([*(a.format(s=store) for a in ANNOTATE), str(tmp_path / "b.tsv")]) == 0
    _matrices(store)
    with Store.open(store) as st:
        assert st.unchecked_candidates("mine") == []
        from ranker.pipeline import stages
        from ranker.pipeline.config import FeaturesSection
        from ranker.pipeline.splits import SplitSelection

        m = stages.extract_features(stages.StageContext(st, "link-grammar", 1), FeaturesSection(),
                                    SplitSelection("all", "tb", None, None, tuple(st.sentences("tb"))))
        at = m.sentence_ids.index(LONG)
        assert m.offsets[at + 1] - m.offsets[at] == 3   # the rows of the new forest, not the old one's


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_reparse_of_full_sentences_drops_every_row_derived_from_their_forests(parsed, tmp_path, capsys):
    """The same trees parsed again still lose their counts, checks and matrices: a matrix is keyed
    by tree texts, and what else its features read (quality, costs, links) may have changed."""
    store = tmp_path / "s.sqlite"
    store.write_bytes(parsed)
    before = _rows(store)
    argv = [a.format(s=store) for a in REPARSE]
    argv[argv.index("timeout")], argv[argv.index("12")] = "full", "3"
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("parsed again 3 sentences of status full with a budget of 3 s")
    after = _rows(store)
    short = {f"tb/a.mrg/{i}" for i in (0, 1, 3)}
    for table in ("bracket_counts", "annotation_checks"):
        assert {r[1] for r in before[table]} >= short and not {r[1] for r in after[table]} & short
        assert [r for r in after[table] if r[1] == LONG] == [r for r in before[table] if r[1] == LONG]
    assert [r for r in after["artifacts"] if r[0].startswith("feature-matrix")] == []   # each held a short one
    assert [r for r in after["candidates"] if r[0] == LONG] == [r for r in before["candidates"] if r[0] == LONG]
    assert [r for r in after["parse_log"] if r[0] == LONG] == [r for r in before["parse_log"] if r[0] == LONG]


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_a_second_reparse_finds_nothing_and_writes_nothing(parsed, tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    store.write_bytes(parsed)
    argv = [a.format(s=store) for a in REPARSE]
    argv[argv.index("timeout")] = "crash,nolinkage"
    digest = hashlib.sha256(store.read_bytes()).hexdigest()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("no sentence of the 4 selected has status crash or nolinkage: nothing parsed again")
    assert "timeout %" in out
    assert hashlib.sha256(store.read_bytes()).hexdigest() == digest


def _sha256s(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


#: name: (argv, exit status, the one stderr line's start). ``{s}`` the parsed store (a copy), ``{t}`` its folder.
BAD = {
    "a budget of 0": ([*REPARSE[:-len(OPTIONS) - 1], "0", *OPTIONS], 2,
                      "ranker: error: argument --max-parse-time: must be >= 2, got 0.0 (a sentence's budget "
                      "holds whole CPU seconds: one at least for its parse, one kept for the skim)"),
    "a negative budget": ([*REPARSE[:-len(OPTIONS) - 1], "-5", *OPTIONS], 2,
                          "ranker: error: argument --max-parse-time: must be >= 2, got -5.0"),
    "an infinite budget": ([*REPARSE[:-len(OPTIONS) - 1], "inf", *OPTIONS], 2,
                           "ranker: error: argument --max-parse-time: must be a finite number, got inf"),
    "a budget no pass fits in": (["parse", "--store", "{t}/new.sqlite", "--max-parse-time", "1.5", *OPTIONS], 2,
                                 "ranker: error: argument --max-parse-time: must be >= 2, got 1.5 (a sentence's "
                                 "budget holds whole CPU seconds: one at least for its parse, one kept for the skim)"),
    "an unknown status": ([*REPARSE[:6], "timeouts", *REPARSE[7:]], 2,
                          "ranker: error: --reparse timeouts: unknown status 'timeouts' (a sentence's parse is "
                          "one of: full, fragment, timeout, nolinkage, error, crash)"),
    "no status": ([*REPARSE[:6], ",", *REPARSE[7:]], 2, "ranker: error: --reparse ,: no status given (a sentence's "
                  "parse is one of: full, fragment, timeout, nolinkage, error, crash)"),
    "a store without the corpus": ([*REPARSE[:4], "conll2000", *REPARSE[5:]], 2,
                                   "ranker: error: --corpus conll2000: {s} holds no sentence of this corpus "
                                   "(it holds: tb); --reparse parses again sentences the store holds"),
    "no such store": ([REPARSE[0], "--store", "{t}/none.sqlite", *REPARSE[3:]], 2,
                      "ranker: error: --store {t}/none.sqlite: no such store; --reparse parses again sentences "
                      "a store holds"),
    "other options than the parse's": ([*REPARSE[:-len(OPTIONS)], "--linkage-limit", "5", *OPTIONS[2:]], 2,
                                       "ranker: error: {s} holds Link Grammar forests parsed with other options: "
                                       "linkage_limit=20 (config: 5)"),
    "a selection the store lacks": ([*REPARSE, "--split", "zz_*"], 2,
                                    "ranker: error: 'zz_*' of corpus 'tb'"),
}


@pytest.mark.linkgrammar
@pytest.mark.parametrize("name", BAD)
def test_issue45_bad_input_is_one_line_exit_2_and_writes_nothing(name, parsed, tmp_path, capsys):
    argv, code, first = BAD[name]
    store = tmp_path / "s.sqlite"
    store.write_bytes(parsed)
    fill = {"s": str(store), "t": str(tmp_path)}
    before = _sha256s(tmp_path)
    capsys.readouterr()
    try:
        got = main([a.format(**fill) for a in argv])
    except SystemExit as e:    # argparse refused the command line
        got = e.code
    err = capsys.readouterr().err
    assert got == code, err
    lines = err.splitlines()
    assert lines[0].startswith(first.format(**fill)), (lines[0], first)
    assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("try 'ranker ")), err
    assert "Traceback" not in err
    assert _sha256s(tmp_path) == before


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_reparse_of_a_store_without_a_link_grammar_parse_is_refused(tmp_path, capsys):
    """A store whose forests were read from files has no parse to redo."""
    from ranker.store import Candidate, Sentence
    from ranker.trees.penn import parse_tree

    store = tmp_path / "s.sqlite"
    with Store.open(store) as st:
        st.add_sentences([Sentence("mine/d0/0", "mine", "d0", 0, ("dogs", "bark"), ("NNS", "VBP"))])
        st.add_candidates([Candidate("mine/d0/0", "penn:x", 0, parse_tree("(S (NNS dogs) (VBP bark))"), "full", {})])
    digest = hashlib.sha256(store.read_bytes()).hexdigest()
    capsys.readouterr()
    assert main(["parse", "--store", str(store), "--corpus", "mine", "--reparse", "timeout", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == (f"ranker: error: --reparse: {store} holds no Link Grammar parse of the 1 sentences selected; "
                   "parse them first (ranker parse without --reparse)\n")
    assert hashlib.sha256(store.read_bytes()).hexdigest() == digest


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_the_parse_bar_shows_done_of_all_and_time_left_and_no_progress_is_quiet(tmp_path, capsys):
    tb = _penn_file(tmp_path)
    (tb / "a.mrg").write_text("\n".join(SHORT) + "\n")
    args = ["parse", "--corpus", "penn", "--path", str(tb), "--linkage-limit", "20", "--workers", "1"]
    capsys.readouterr()
    assert main([*args, "--store", str(tmp_path / "a.sqlite")]) == 0
    err = capsys.readouterr().err
    assert "3/3 [" in err and " left]" in err and "sent/s" in err, err
    assert main([*args, "--store", str(tmp_path / "b.sqlite"), "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    # a reparse of nothing draws no bar either
    assert main(["parse", "--corpus", "tb", "--store", str(tmp_path / "b.sqlite"), "--reparse", "timeout",
                 *args[5:]]) == 0
    assert capsys.readouterr().err == ""
