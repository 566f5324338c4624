"""Issue 10: config numbers out of range, non-finite numbers and non-UTF-8 configs are one error naming the key."""
import pytest

from ranker.errors import RankerError
from ranker.pipeline.config import BOUNDS, ConfigError, ExperimentConfig, config_from_dict, load_config


@pytest.mark.parametrize("section, key, value, message", [
    ("data", "limit", -5, "[data] limit: must be >= 0, got -5"),
    ("data", "extra_limit", -1, "[data] extra_limit: must be >= 0"),
    ("parse", "linkage_limit", 0, "[parse] linkage_limit: must be >= 1"),
    ("parse", "max_parse_time", 0, "[parse] max_parse_time: must be >= 2"),
    ("parse", "max_parse_time", 1.5, "[parse] max_parse_time: must be >= 2"),   # issue 45: no pass fits
    ("loglinear", "sigma2_grid", [1.0, -0.1], "[loglinear] sigma2_grid[1]: must be > 0"),
    ("loglinear", "tol", float("nan"), "[loglinear] tol: must be a finite number"),
    ("evaluation", "confidence", 1.0, "[evaluation] confidence: must be < 1"),
    ("evaluation", "bootstrap_resamples", 0, "[evaluation] bootstrap_resamples: must be >= 1"),
    ("report", "learning_curve", [0.5, 1.5], "[report] learning_curve[1]: must be <= 1"),
    ("experiment", "workers", -2, "[experiment] workers: must be >= 0"),
    ("annotation", "screen_iterations", -1, "[annotation] screen_iterations: must be >= 0, got -1"),
])
def test_out_of_range_values_name_the_key(section, key, value, message):
    with pytest.raises(ConfigError) as e:
        config_from_dict({section: {key: value}}, "x.toml")
    assert str(e.value).startswith("x.toml: ") and message in str(e.value)


def test_every_bound_names_a_real_key_and_every_default_is_inside_its_bounds():
    default = ExperimentConfig()
    for (section, key) in BOUNDS:
        value = getattr(getattr(default, section), key)
        config_from_dict({section: {key: list(value) if isinstance(value, tuple) else value}})


def test_learning_curve_of_the_whole_set_is_allowed():
    assert config_from_dict({"report": {"learning_curve": [0.5, 1.0]}}).report.learning_curve == (0.5, 1.0)


def test_infinite_float_anywhere_is_refused(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[evaluation]\nconfidence = inf\n")
    with pytest.raises(ConfigError, match=r"c\.toml: \[evaluation\] confidence: must be a finite number"):
        load_config(path)


def test_a_config_that_is_not_utf8_names_file_line_and_column(tmp_path):
    path = tmp_path / "c.toml"
    path.write_bytes(b"[data]\nlimit = 5 # caf\xe9\n")
    with pytest.raises(RankerError, match=r"c\.toml:2:16: not UTF-8 text \(byte 0xe9"):
        load_config(path)


@pytest.mark.parametrize("kind, objective, message", [
    ("best_f", "pairwise", "[loglinear] objective 'pairwise' is not known (known: expected_f, loglik)"),
    ("riezler", "expected_f", "[loglinear] objective 'expected_f' needs every candidate's F"),
])
def test_the_training_objective_is_checked_against_the_annotation(kind, objective, message):
    from ranker.pipeline.validate import validate_config

    with pytest.raises(ConfigError) as e:
        validate_config(config_from_dict({"annotation": {"kind": kind}, "loglinear": {"objective": objective}},
                                         "x.toml"))
    assert message in str(e.value)


@pytest.mark.parametrize("data, kind, message", [
    # the kind says what it needs (ranker.pipeline.annotation_kinds): "chunks" was refused by
    # ranker run whatever the corpus and accepted by the stage; riezler on a corpus without gold
    # trees failed only when the stage ran
    ({}, "chunks", "[annotation] kind 'chunks' is stored with corpus conll2000, not with [data] corpus "
                   "'treebank': train on it as [data] extra_training"),
    ({"corpus": "conll2000", "train": "train", "heldout": "train", "test": "train"}, "riezler",
     "[annotation] kind 'riezler' is derived from gold trees, and [data] corpus 'conll2000' has none"),
    ({"corpus": "conll2000", "train": "train", "heldout": "train", "test": "train"}, "best_f",
     "[annotation] kind 'best_f' is derived from gold trees"),
    ({}, "mine", "[annotation] kind 'mine' is neither derived from gold trees (best_f, riezler), nor stored "
                 "with a corpus (chunks), nor made of decisions (user)"),
])
def test_each_annotation_kind_checks_what_a_run_needs_of_it(data, kind, message):
    from ranker.pipeline.validate import validate_config

    with pytest.raises(ConfigError) as e:
        validate_config(config_from_dict({"data": data, "annotation": {"kind": kind}}, "x.toml"))
    assert str(e.value).startswith("x.toml: ") and message in str(e.value)


def test_a_corpus_that_carries_chunks_may_train_on_them():
    from ranker.pipeline.annotation_kinds import kind_of
    from ranker.pipeline.stages import corpus_reader

    cfg = config_from_dict({"data": {"corpus": "conll2000"}, "annotation": {"kind": "chunks"}}, "x.toml")
    kind_of("chunks").check_run(cfg, corpus_reader(cfg.data), "x.toml")   # no error


@pytest.mark.parametrize("section, key, value, message", [
    ("loglinear", "optimizer", "newton", "[loglinear] optimizer 'newton' is not known (known: cg, lbfgs)"),
    ("loglinear", "layout", "tree", "[loglinear] layout 'tree' is not known (known: delta, plain)"),
    ("annotation", "rule", "loose", "[annotation] rule 'loose' is not known (known: strict, fewest,"),
    ("loglinear", "max_iter", 0, "[loglinear] max_iter: must be >= 1, got 0"),
])
def test_a_config_built_in_code_is_held_to_the_same_choices_and_ranges(section, key, value, message):
    # issue 24: the choices and ranges are the config keys' metadata, checked on a file's load and
    # by validate_config for a config made in code alike
    import dataclasses

    from ranker.pipeline.config import SECTIONS
    from ranker.pipeline.validate import validate_config

    with pytest.raises(ConfigError) as e:
        config_from_dict({section: {key: value}}, "x.toml")
    assert message in str(e.value)
    cfg = dataclasses.replace(ExperimentConfig(source="code"), **{section: SECTIONS[section](**{key: value})})
    with pytest.raises(ConfigError) as e:
        validate_config(cfg)
    assert str(e.value).startswith("code: ") and message in str(e.value)


def test_issue_11_old_fewest_violations_key_reads_as_the_rule(tmp_path):
    assert config_from_dict({"annotation": {"fewest_violations": False}}).annotation.rule == "strict"
    cfg = config_from_dict({"annotation": {"fewest_violations": True}})
    assert cfg.annotation.rule == "fewest" and 'rule = "fewest"' in cfg.to_toml()
    assert "fewest_violations" not in cfg.to_toml()
    with pytest.raises(ConfigError, match=r"\[annotation\] fewest_violations: expected bool"):
        config_from_dict({"annotation": {"fewest_violations": "no"}}, "x.toml")
    with pytest.raises(ConfigError, match=r"x\.toml: \[annotation\] fewest_violations: says the same as 'rule'"):
        config_from_dict({"annotation": {"fewest_violations": False, "rule": "strict"}}, "x.toml")


@pytest.mark.parametrize("rule", ["strict", "compatible", "strict-else-compatible", "lexicographic"])
def test_issue_11_every_rule_passes_validation_and_an_unknown_one_does_not(rule):
    from ranker.pipeline.validate import validate_config

    validate_config(config_from_dict({"annotation": {"rule": rule}}, "x.toml"))
    with pytest.raises(ConfigError, match=r"x\.toml: \[annotation\] rule 'loose' is not known"):
        validate_config(config_from_dict({"annotation": {"rule": "loose"}}, "x.toml"))


@pytest.mark.parametrize("layout", ["delta", "plain"])
def test_every_training_row_layout_passes_validation_and_an_unknown_one_does_not(layout):
    from ranker.pipeline import stages
    from ranker.pipeline.validate import validate_config

    cfg = config_from_dict({"loglinear": {"layout": layout}}, "x.toml")
    validate_config(cfg)
    assert stages.loglinear_template(cfg.loglinear).layout == layout     # the fits get it
    with pytest.raises(ConfigError, match=r"x\.toml: \[loglinear\] layout 'tree' is not known"):
        validate_config(config_from_dict({"loglinear": {"layout": "tree"}}, "x.toml"))


@pytest.mark.parametrize("key, spec", [("test", "wsj_0900-0999"), ("train", "wsj_0200"),
                                       ("heldout", "wsj_0140-0169 wsj_0500")])
def test_issue_24_a_range_that_selects_no_document_is_refused_before_any_work(tmp_path, capsys, key, spec):
    from ranker.cli.main import main

    cfg = tmp_path / "x.toml"
    cfg.write_text(f'[experiment]\nstore = "{tmp_path / "s.sqlite"}"\n[data]\n{key} = "{spec}"\n')
    if key == "heldout":   # one range of two selects documents: the config is fine on this key
        from ranker.pipeline.validate import validate_config

        validate_config(load_config(cfg))
        return
    assert main(["run", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err == (f'ranker: error: {cfg}: [data] {key} = "{spec}" selects no sentence of corpus treebank '
                   f"(its documents are wsj_0001 .. wsj_0199)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.toml"]   # no store, no output folder


def test_issue_24_a_split_the_installed_corpus_lacks_is_refused_before_any_work(tmp_path):
    from ranker.pipeline.validate import validate_config
    from ranker.sources.treebank import conll2000_files

    cfg = config_from_dict({"data": {"corpus": "conll2000", "heldout": "train", "test": "test"}}, "x.toml")
    if "test.txt" in conll2000_files():   # the full corpus (the shared NLTK_DATA holds train.txt only)
        validate_config(cfg)
        return
    with pytest.raises(RankerError, match=r"x.toml: \[data\] test = \"test\": .*conll2000 has no test half"):
        validate_config(cfg)


def test_each_section_checks_itself_in_the_order_validate_calls_them():
    """validate_config is the settings' ranges, then one check a section (issue 35, item 4)."""
    from ranker.pipeline.config import SECTIONS
    from ranker.pipeline.validate import SECTION_CHECKS

    names = [name for name, _ in SECTION_CHECKS]
    assert set(names) <= set(SECTIONS) and len(names) == len(set(names))
    assert names.index("data") < names.index("annotation")   # the kind's check reads the corpus [data] opened
    assert names.index("parse") < names.index("evidence")    # evidence names a source other than [parse]'s
    for name, check in SECTION_CHECKS:
        assert f"[{name}]" in check.__doc__, name             # each says what its section needs
