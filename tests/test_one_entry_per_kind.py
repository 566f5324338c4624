"""One entry per component is enough: a toy metric, scheme and n-best format, each added to its table alone.

Issue 47, item 2: a new metric touched about ten files (the report's table, the CLI's and the
config's lists, the scheme's name in ranker evaluate and the kernel, the count key). Each test
here adds one entry to one table (``monkeypatch.setitem``, undone after the test) and finds it
where users meet it: the registry, the config check, the CLI's check and choices, ``ranker
evaluate``, the report's table, ``ranker import``.
"""
import json

import numpy as np
import pytest

from ranker.cli.main import main
from ranker.evaluation import bounds
from ranker.evaluation.bounds import Metric, corpus_score, recall_score
from ranker.registries import METRICS, SCHEMES, SOURCES

GOLD = ("(S (NP-SBJ (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP-PRD (NP (NN chairman)) (PP (IN of) (NP (NP "
        "(NNP Elsevier) (NNP N.V.)) (, ,) (NP (DT the) (NNP Dutch) (VBG publishing) (NN group)))))) (. .))")
# the same words with the PP attached to the verb and the appositive NP one level up
TEST = ("(S (NP (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP (NN chairman)) (PP (IN of) (NP (NNP Elsevier) "
        "(NNP N.V.))) (, ,) (NP (DT the) (NNP Dutch) (VBG publishing) (NN group))) (. .))")

#: The toy: recall of the maximal projections of heads, over the counts the store already keeps.
MPH_RECALL = Metric("mph_recall", "MPH recall (a toy of the test)", recall_score, "mph", "mph", "recall")


@pytest.fixture
def toy_metric(monkeypatch):
    monkeypatch.setitem(bounds.METRICS, MPH_RECALL.name, MPH_RECALL)
    return MPH_RECALL


def _evaluate(tmp_path, capsys, *argv) -> dict:
    (tmp_path / "gold.txt").write_text(GOLD + "\n")
    (tmp_path / "test.txt").write_text(TEST + "\n")
    code = main(["evaluate", str(tmp_path / "gold.txt"), str(tmp_path / "test.txt"), "--format", "json", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_a_toy_metric_is_registered_and_checked_by_the_config_and_the_cli(toy_metric):
    import dataclasses

    from ranker.cli.options import check_metric
    from ranker.errors import RankerError
    from ranker.pipeline import stages
    from ranker.pipeline.config import EvaluationSection, ExperimentConfig, LogLinearSection
    from ranker.pipeline.validate import ConfigError, SECTION_CHECKS

    assert METRICS.get("mph_recall") is toy_metric and "mph_recall/1" in METRICS.names()
    ev = EvaluationSection()
    assert stages.metric_names(ev)[-1] == "mph_recall"          # the report's list, last in table order
    check_metric("--metric", "mph_recall")                       # ranker train / annotate take it
    check = dict(SECTION_CHECKS)["evaluation"]
    cfg = dataclasses.replace(ExperimentConfig(), loglinear=LogLinearSection(select_metric="mph_recall"))
    check(cfg, "x.toml", {})                                     # the config check takes it
    # the check can fail: the same name is refused once the entry is gone
    del bounds.METRICS["mph_recall"]
    assert "mph_recall" not in METRICS
    with pytest.raises(RankerError, match="--metric 'mph_recall' is not known"):
        check_metric("--metric", "mph_recall")
    with pytest.raises(ConfigError, match=r"\[loglinear\] select_metric: unknown metric 'mph_recall'"):
        check(cfg, "x.toml", {})


def test_a_toy_metric_is_in_the_report_and_ranker_evaluate_reproduces_it(toy_metric, tmp_path, capsys):
    from ranker.evaluation.bounds import ForestCounts
    from ranker.evaluation.scoring import Scorer
    from ranker.pipeline.config import EvaluationSection
    from ranker.pipeline.tables import metric_table
    from ranker.trees.penn import parse_tree

    scorer = Scorer()
    gold, test = parse_tree(GOLD), parse_tree(TEST)
    counts = scorer.score(scorer.gold_side(gold), [test, gold])[toy_metric.counts_from]
    fc = ForestCounts.from_lists([counts], [counts[0][0]])
    table = metric_table("mph_recall", fc, {"native": np.array([0])}, EvaluationSection(), 1, False)
    assert table.title == toy_metric.title and table.upper == 100.0
    first = corpus_score(toy_metric, np.asarray([counts[0]], dtype=float))
    assert table.rankers["native"].score == first < 100.0
    # the scheme and figure the entry names give the same score from the files
    assert toy_metric.scheme in SCHEMES.names(bare=True)
    assert _evaluate(tmp_path, capsys, "--scheme", toy_metric.scheme)[toy_metric.figure] == pytest.approx(first)


def test_every_metric_is_reproduced_by_its_scheme_and_figure(tmp_path, capsys):
    """The table's three vocabularies agree: each metric's counts score what its scheme prints."""
    from ranker.evaluation.scoring import Scorer
    from ranker.shipped import shipped_file
    from ranker.trees.penn import parse_tree

    scorer = Scorer()
    counts = scorer.count(scorer.gold_side(parse_tree(GOLD)), parse_tree(TEST))
    prm = tmp_path / "unlabeled.prm"
    prm.write_text(shipped_file("evalb", "COLLINS", ".prm").read_text().replace("LABELED 1", "LABELED 0"))
    for m in bounds.METRICS.values():
        # the unlabelled EVALB counts are the scheme's with the parameter file's LABELED 0
        extra = ["--param", str(prm)] if m.counts_from == "evalb_unlabeled" else []
        got = _evaluate(tmp_path, capsys, "--scheme", m.scheme, *extra)[m.figure]
        assert got == pytest.approx(corpus_score(m, np.asarray([counts[m.counts_from]], dtype=float))), m.name
        assert got < 100.0, m.name   # an imperfect pair, or the comparison proves little


def _toy_scheme(args, pairs, acc=None) -> dict:
    """Sentences whose test tree has as many brackets as the gold's, in percent."""
    same = sum(t is not None and len(t.constituents()) == len(g.constituents()) for _, g, _, t in pairs)
    return {"sentences": len(pairs), "same_size": 100.0 * same / len(pairs)}


def test_a_toy_scheme_is_one_entry_for_ranker_evaluate(monkeypatch, tmp_path, capsys):
    from ranker.evaluation import schemes

    monkeypatch.setitem(schemes.SCHEMES, "size", schemes.Scheme(_toy_scheme, ("param",)))
    assert "size" in SCHEMES.names(bare=True)
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "size" in capsys.readouterr().out.split("--scheme")[1].split("}")[0]   # among the choices
    got = _evaluate(tmp_path, capsys, "--scheme", "size")          # no kernel number: the reference
    assert got["scheme"] == "size" and got["sentences"] == 1 and got["same_size"] in (0.0, 100.0)
    # its options are its own: one it does not read is refused
    code = main(["evaluate", str(tmp_path / "gold.txt"), str(tmp_path / "test.txt"), "--scheme", "size",
                 "--head-rules", "collins"])
    assert code == 2 and "--scheme size does not use --head-rules" in capsys.readouterr().err


def _scored_lines(path: str, start: int, lines: list[str]):
    """A toy format: each line ``SCORE<TAB>TREE``, a list ended by a line ``%%``."""
    from ranker.sources.nbest import ForestBlock, NbestError
    from ranker.trees.penn import parse_tree

    trees, scores = [], []
    for no, line in enumerate(lines, start):
        score, sep, tree = line.partition("\t")
        if not sep:
            raise NbestError(f"{path}:{no}: expected SCORE<TAB>TREE")
        trees.append(parse_tree(tree))
        scores.append({"toy_score": float(score)})
    return ForestBlock(start, None, tuple(trees), tuple(scores))


def _percent_separated(text, first_line: int = 1):
    start, lines = first_line, []
    for no, line in enumerate(text.splitlines() if isinstance(text, str) else text, first_line):
        line = line.rstrip("\n")
        if line == "%%":
            if lines:
                yield start, lines
            start, lines = no + 1, []
        elif line.strip():
            lines.append(line)
    if lines:
        yield start, lines


def test_a_toy_nbest_format_is_one_entry_for_ranker_import(monkeypatch, tmp_path, capsys):
    from ranker.pipeline.candidate_sources import file_sources, source_of
    from ranker.sources import nbest
    from ranker.store import Sentence, Store

    monkeypatch.setitem(nbest.NBEST_FORMATS, "scored",
                        nbest.NbestFormat(_scored_lines, _percent_separated, ("toy_score",)))
    assert "scored" in file_sources() and source_of("scored").reads_files and "scored/1" in SOURCES.names()
    path = tmp_path / "s.sqlite"
    with Store.open(path) as st:
        st.add_sentences([Sentence("mine/a/0", "mine", "a", 0, ("dogs", "bark"), ("NNS", "VBP")),
                          Sentence("mine/a/1", "mine", "a", 1, ("cats", "sleep"), ("NNS", "VBP"))])
    (tmp_path / "lists.txt").write_text("-1.5\t(S (NP (NNS dogs)) (VP (VBP bark)))\n"
                                        "-2.5\t(S (NNS dogs) (VBP bark))\n%%\n"
                                        "-0.5\t(S (NP (NNS cats)) (VP (VBP sleep)))\n%%\n")
    code = main(["import", "--store", str(path), "--format", "scored", "--corpus", "mine",
                 str(tmp_path / "lists.txt")])
    assert code == 0, capsys.readouterr().err
    with Store.open(path) as st:
        source = next(s for s in st.stats().sources if s.startswith("scored:"))
        dogs = st.stored_candidates("mine/a/0", source)
        assert [c.scores for c in dogs] == [{"toy_score": -1.5}, {"toy_score": -2.5}]
        assert [set(c.scores) for c in st.stored_candidates("mine/a/1", source)] == [{"toy_score"}]
    capsys.readouterr()


def test_each_builtin_format_gives_the_scores_it_names(tmp_path):
    from ranker.sources.nbest import NBEST_FORMATS, read_blocks

    (tmp_path / "penn.mrg").write_text("(S (NP (NNS dogs)) (VP (VBP bark)))\n(S (NNS dogs) (VBP bark))\n")
    (tmp_path / "bllip.txt").write_text("2\tmine/a/0\n-1.5\n(S1 (S (NP (NNS dogs)) (VP (VBP bark))))\n"
                                        "-2.5\n(S1 (S (NNS dogs) (VBP bark)))\n")
    for fmt, spec in NBEST_FORMATS.items():
        blocks = list(read_blocks(tmp_path / ("penn.mrg" if fmt == "penn" else "bllip.txt"), fmt))
        assert len(blocks) == 1 and len(blocks[0].trees) == 2, fmt
        assert all(set(s) == set(spec.score_names) for s in blocks[0].scores), fmt
