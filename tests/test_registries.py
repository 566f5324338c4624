"""Registries by versioned name: a bare name is the newest version, an unknown one lists the known."""
import json
import sys
from pathlib import Path

import pytest

from ranker.errors import RankerError
from ranker.pipeline.candidate_sources import LinkGrammarSource, file_sources
from ranker.registries import CORPORA, RANKERS, SCHEMES, SOURCES
from ranker.component_registry import Registry


def test_versions_resolve_and_unknown_names_list_the_known():
    r = Registry("widget")
    r.register("spin/1", "old")
    r.register("spin/2", "new")
    assert r.get("spin") == "new" and r.get("spin/1") == "old" and "spin" in r
    with pytest.raises(RankerError, match=r"x.toml: unknown widget 'spn' \(known: spin/1, spin/2\)"):
        r.get("spn", "x.toml")
    with pytest.raises(ValueError, match="needs a version"):
        r.register("spin", "x")
    with pytest.raises(ValueError, match="registered twice"):
        r.register("spin/1", "x")


def test_components_load_on_first_use():
    r = Registry("module")
    r.register("json/1", "json:dumps")
    import json
    assert r.get("json") is json.dumps
    assert RANKERS.get("loglinear").__name__ == "LogLinearRanker"


def test_the_built_in_components():
    assert RANKERS.names(bare=True) == ["expected_f", "heidorn", "loglinear", "native", "oracle", "random"]
    assert file_sources() == ("bllip", "penn") and SOURCES.get("link-grammar") is LinkGrammarSource
    assert CORPORA.names(bare=True) == ["conll2000", "penn", "text", "treebank"]
    # each entry is the reader class that builds itself from the [data] section
    assert CORPORA.get("conll2000").from_section(None).name == "conll2000"


def test_listing_names_imports_no_ranker():
    import subprocess
    code = ("import sys; from ranker.registries import RANKERS; RANKERS.names(); "
            "print('sklearn' in sys.modules, 'ranker.models' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_every_metric_of_the_report_is_registered():
    from ranker.evaluation.bounds import METRICS as TABLE
    from ranker.registries import METRICS, metric

    assert METRICS.names(bare=True) == sorted(TABLE)
    assert metric("mph/1") is TABLE["mph"]
    with pytest.raises(RankerError, match="--metric: unknown metric 'f1'"):
        metric("f1", "--metric")


GOLD = ("(S (NP-SBJ (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP-PRD (NP (NN chairman)) (PP (IN of) (NP (NP "
        "(NNP Elsevier) (NNP N.V.)) (, ,) (NP (DT the) (NNP Dutch) (VBG publishing) (NN group)))))) (. .))")
# the same words with the PP attached to the verb and the appositive NP one level up
TEST = ("(S (NP (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP (NN chairman)) (PP (IN of) (NP (NNP Elsevier) "
        "(NNP N.V.))) (, ,) (NP (DT the) (NNP Dutch) (VBG publishing) (NN group))) (. .))")


@pytest.mark.parametrize("name", SCHEMES.names())
def test_every_registered_scheme_runs_through_ranker_evaluate(tmp_path, capsys, name):
    from ranker.cli.main import main

    assert callable(SCHEMES.get(name).score)
    (tmp_path / "gold.txt").write_text(GOLD + "\n")
    (tmp_path / "test.txt").write_text(TEST + "\n")
    bare = name.partition("/")[0]
    code = main(["evaluate", str(tmp_path / "gold.txt"), str(tmp_path / "test.txt"), "--scheme", bare,
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    r = json.loads(out)
    assert r["scheme"] == bare and r["sentences"] == 1 and r["no_parse"] == 0
    assert 0 < r["matched"] < r["gold_brackets"] and 0 < r["f1"] < 100   # a real, imperfect pair


# ------------------------------------------------------------------ issue 24: registries build
def test_every_ranker_is_built_from_the_config_with_the_configs_settings():
    import dataclasses

    from ranker.pipeline.config import (EvaluationSection, ExperimentConfig, ExperimentSection,
                                        HeidornSection, LogLinearSection)

    default = ExperimentConfig()
    for name in RANKERS.names():
        built, cls = RANKERS.build(name, default), RANKERS.get(name)
        assert type(built) is cls
        # from the default config: the estimator's own defaults (threads aside: every core)
        mine = {k: v for k, v in built.get_params().items() if k != "n_jobs"}
        assert mine == {k: v for k, v in cls().get_params().items() if k != "n_jobs"}, name
    cfg = dataclasses.replace(default, experiment=ExperimentSection(seed=7, workers=3),
                              loglinear=LogLinearSection(optimizer="lbfgs", max_iter=9, layout="plain"),
                              heidorn=HeidornSection(k_table="penn", pp_as_np=False, tune_rounds=5),
                              evaluation=EvaluationSection(head_rules="star"))
    ll = RANKERS.build("loglinear", cfg)
    assert (ll.solver, ll.max_iter, ll.layout, ll.n_jobs) == ("lbfgs", 9, "plain", 3)
    h = RANKERS.build("heidorn/1", cfg)
    assert (h.k_table, h.pp_as_np, h.max_rounds, h.heads) == ("penn", False, 5, "star")
    assert RANKERS.build("random", cfg).seed == 7


def test_the_objective_names_the_ranker_that_fits_it():
    # ExpectedFRanker was chosen by an if in stages.loglinear_template and was not registered
    from ranker.models import LogLinearRanker
    from ranker.models.expected_f import ExpectedFRanker
    from ranker.pipeline import stages
    from ranker.pipeline.config import LogLinearSection
    from ranker.registries import OBJECTIVES

    assert type(stages.loglinear_template(LogLinearSection())) is LogLinearRanker
    ef = stages.loglinear_template(LogLinearSection(objective="expected_f", max_iter=7))
    assert type(ef) is ExpectedFRanker and ef.max_iter == 7 and ef.needs_gain
    assert {OBJECTIVES.get(n) for n in OBJECTIVES.names()} <= set(RANKERS.names(bare=True))


def test_a_table_registers_its_entries_on_first_use():
    r = Registry("codec")
    r.register_table("json.decoder:_CONSTANTS")           # a dict of the stdlib, by its keys
    assert r.names() == ["-Infinity/1", "Infinity/1", "NaN/1"]
    assert r.get("Infinity") == float("inf") and r.name_of(r.get("NaN/1")) == "NaN/1"


#: Comparisons of a value with a ranker's (or objective's) name, or its membership in a list of
#: them: the if-chains over component names that the registries replace.
def _name_tests(names):
    import re

    quoted = "|".join(re.escape(n) for n in names)
    return [re.compile(rf"""(==|!=)\s*["']({quoted})["']"""),
            re.compile(rf"""["']({quoted})["']\s*(==|!=)"""),
            re.compile(rf"""^(?!.*\bfor\b).*\bin\s*[(\[{{][^)\]}}]*["']({quoted})["']""")]


#: The code the greps below read: the package, its features, and the benchmarks and experiments
#: (which call the same stages, so they are held to the same rules; issue 35, item 7).
SCANNED = ("ranker", "features", "benchmarks", "experiments")


def _scanned(root: Path, skip: tuple[str, ...] = ()) -> list[Path]:
    return sorted(p for base in SCANNED for p in (root / base).rglob("*.py") if p.name not in skip)


def _code_matching(patterns) -> list[str]:
    """``file:line: text`` of every scanned line whose code (comments aside) a pattern finds."""
    root = Path(__file__).resolve().parents[1]
    return [f"{path.relative_to(root)}:{i}: {line.strip()}" for path in _scanned(root)
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if any(p.search(line.split("#")[0]) for p in patterns)]


def test_the_greps_read_the_benchmarks_and_experiments():
    root = Path(__file__).resolve().parents[1]
    files = {p.relative_to(root).parts[0] for p in _scanned(root)}
    assert files == set(SCANNED)


def test_nothing_imports_the_features_folder_as_a_package_of_its_own():
    """``features/`` is installed as ``ranker.features``; ``import features.x`` (from the project's
    folder on sys.path) loads a second copy of the module, with registries and classes of its own
    (``isinstance`` fails across the copies)."""
    import re

    root = Path(__file__).resolve().parents[1]
    pattern = re.compile(r"^\s*(from|import)\s+features(\.|\s|$)")
    found = [f"{p.relative_to(root)}:{i}" for p in [*_scanned(root), *sorted((root / "tests").rglob("*.py"))]
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, found
    assert pattern.search("    from features.vectorizer import CandidateMatrix")
    assert not pattern.search("from ranker.features.vectorizer import CandidateMatrix")


def test_no_if_chain_over_ranker_names_anywhere():
    # cli/select.py and stages.select_test chose each ranker's input by if-chains over its name;
    # a ranker says what it reads (ranker.models.base.INPUTS), the registry builds it
    from ranker.registries import OBJECTIVES

    names = set(RANKERS.names(bare=True)) | set(OBJECTIVES.names(bare=True)) | {"heidorn_tuned"}
    patterns = _name_tests(sorted(names))
    assert _code_matching(patterns) == []
    # the test can fail: it sees the lines it is meant to forbid
    for bad in ('if name == "heidorn":', "elif kind != 'loglinear':", 'if objective == "expected_f":',
                'if args.model and name not in ("loglinear", "heidorn"):'):
        assert any(p.search(bad) for p in patterns), bad
    assert not any(p.search('for r in ("native", "heidorn"):') for p in patterns)


def test_no_if_chain_over_annotation_kinds_anywhere():
    # the stage, the config check, ranker annotate, train and the retrain compared the kind with
    # "riezler", BEST_F, USER; a kind is an object of ranker.pipeline.annotation_kinds that says
    # where its brackets come from and what it needs (issue 35, item 4)
    import re

    from ranker.registries import ANNOTATIONS

    patterns = _name_tests(sorted(ANNOTATIONS.names(bare=True))) + [re.compile(r"(==|!=)\s*(BEST_F|USER)\b")]
    assert _code_matching(patterns) == []
    for bad in ('if kind == BEST_F:', 'if args.kind != "user":', 'if kind not in ("riezler", BEST_F, USER):'):
        assert any(p.search(bad) for p in patterns), bad


def test_no_if_chain_over_corpus_or_source_names_anywhere():
    # a corpus reader and a candidate source answer for themselves (reads_files, matches_lists,
    # NltkCorpus's methods; CandidateSource.store_name/obtain); "penn" is left out: it is also the
    # notation of ranker evaluate's files, a name of another kind
    from ranker.registries import CORPORA, SOURCES

    names = sorted((set(CORPORA.names(bare=True)) | set(SOURCES.names(bare=True))) - {"penn"})
    assert {"treebank", "conll2000", "text", "link-grammar", "bllip"} <= set(names)
    patterns = _name_tests(names)
    assert _code_matching(patterns) == []
    for bad in ('if corpus == "conll2000":', 'elif kind != "link-grammar":', 'read = a if fmt == "bllip" else b'):
        assert any(p.search(bad) for p in patterns), bad


def test_the_annotate_command_offers_the_registered_kinds():
    import argparse

    from ranker.cli import annotate
    from ranker.registries import ANNOTATIONS

    parser = argparse.ArgumentParser()
    annotate.add_parser(parser.add_subparsers())
    kind = next(a for a in parser._subparsers._group_actions[0].choices["annotate"]._actions if a.dest == "kind")
    assert kind.choices == [*ANNOTATIONS.names(bare=True), "file"]


def test_no_default_evaluation_section_is_built_outside_the_config_module():
    """Commands read the [evaluation] settings of the store's counts, never assumed defaults (issue 24)."""
    root = Path(__file__).resolve().parents[1]
    found = [f"{p.relative_to(root)}:{i}" for p in _scanned(root, skip=("config.py",))
             for i, line in enumerate(p.read_text().splitlines(), 1) if "EvaluationSection()" in line]
    assert not found, found


# ------------------------------------------------------------------ issue 47, item 2: one table per kind
#: The tables that define a kind's names, where naming them is the point: the registries, the metric
#: table, the scheme table, the scorer's count keys, the n-best formats, each executor's own module.
NAME_TABLES = {"ranker/registries.py", "ranker/evaluation/bounds.py", "ranker/evaluation/schemes.py",
               "ranker/evaluation/scoring.py", "ranker/sources/nbest.py", "ranker/parallel.py",
               "ranker/dask_executor.py"}


def _constant_of_names(names):
    """A module-level constant that lists some of ``names`` (a second list of a registry's names)."""
    import re

    quoted = "|".join(re.escape(n) for n in names)
    return re.compile(rf"""^[A-Z][A-Z0-9_]*(\s*:[^=]*)?\s*=\s*[(\[{{].*["']({quoted})["']""")


def _kind_names() -> list[str]:
    """Every scheme, executor, n-best format, metric and count key name ("penn" aside: it is also a
    notation of ranker evaluate and a corpus; "flat" and "deps" are schemes and count keys)."""
    from ranker.evaluation.bounds import reported_metric_names
    from ranker.evaluation.scoring import METRICS as COUNT_KEYS
    from ranker.registries import EXECUTORS

    return sorted((set(SCHEMES.names(bare=True)) | set(EXECUTORS.names(bare=True)) | set(file_sources())
                   | set(reported_metric_names()) | set(COUNT_KEYS)) - {"penn"})


def test_no_comparison_with_a_scheme_executor_format_or_metric_name_outside_its_table():
    # schemes_native and ranker evaluate compared the scheme's name ("deps", "flat", "parseval"), the
    # config check and ranker apply the executor's ("dask", "local"), best_f the count keys, the
    # report its primary metric; ranker models retrain held the gold kinds in a constant,
    # treebank.py the NLTK corpora and their markers: each entry now answers for itself
    import re

    names = _kind_names()
    assert {"evalb", "parseval", "mph", "flat", "deps", "local", "dask", "bllip", "flat_recall",
            "deps_typed"} <= set(names)
    quoted = "|".join(re.escape(n) for n in names)
    patterns = _name_tests(names)
    # in the package also a name looked up in a list, and a constant listing names (an experiment's
    # choice of metrics to show, or of a column, is its own, not a second table)
    member = re.compile(rf"""["']({quoted})["']\s+(not\s+)?in\b""")
    constant = _constant_of_names(names + ANNOTATION_AND_CORPUS_NAMES)
    found = [line for line in _code_matching(patterns) if line.split(":")[0] not in NAME_TABLES]
    found += [line for line in _code_matching([member, constant])
              if line.split(":")[0] not in NAME_TABLES and line.startswith(("ranker/", "features/"))]
    assert found == []
    # the test can fail: it sees the lines it is meant to forbid
    for bad in ('if scheme == "evalb":', 'elif scheme in ("mph", "deps"):', 'if args.executor != "local":',
                'plain = counts_from in ("evalb_labeled", "evalb_unlabeled")', 'if metric == "mph":',
                'primary = "mph" if "mph" in names else names[0]'):
        assert any(p.search(bad) for p in [*patterns, member]), bad
    for bad in ('GOLD_KINDS = ("riezler", "best_f", "chunks")', 'CORPORA = ("treebank", "conll2000")',
                'FORMATS = ("penn", "bllip")', 'NATIVE_SCHEMES = ("evalb", "mph")',
                'CORPUS_MARKERS = {"treebank": "treebank", "conll2000": "conll2000/3"}'):
        assert constant.search(bad), bad


#: The annotation kinds and corpora, whose names a constant elsewhere must not list either ("penn"
#: aside: also ranker evaluate's notation).
ANNOTATION_AND_CORPUS_NAMES = ["riezler", "best_f", "chunks", "user", "treebank", "conll2000", "text"]
