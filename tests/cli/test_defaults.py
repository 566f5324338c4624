"""Every subcommand option and estimator parameter that stands for a config key has that key's default and choices.

Issue 10: one default each for the options; issue 24: for the estimators too, and the choices once.
"""
import argparse

import pytest

from ranker.cli.main import build_parser
from ranker.cli.options import config_default
from ranker.pipeline.config import (AnnotationSection, DataSection, EvaluationSection, ExperimentSection,
                                    FeaturesSection, HeidornSection, LogLinearSection, ParseSection)

#: Option destinations that name a config key: whichever subcommand has one must take its default
#: from the dataclass. The commands of other areas that still keep their own default are listed.
CONFIG_DESTS = {"store", "workers", "seed", "corpus", "limit", "linkage_limit", "max_parse_time",
                "allow_null", "k_table", "heads", "metric", "rule", "sigma2_grid", "cutoff", "features",
                "max_iter", "solver", "tol", "max_parses", "full_only", "kind", "heldout",
                "evalb_param", "head_rules", "flatten_rules", "pp_as_np", "layout", "optimizer", "objective", "screen_iterations"}
OWN_DEFAULTS = {
    ("evalb", "cutoff"),                                   # EVALB's CUTOFF_LEN, not a config key
    ("evaluate", "head_rules"), ("evaluate", "flatten_rules"),   # per scheme (ranker/evaluation/schemes.py)
    ("score", "k_table"), ("score", "heads"), ("score", "pp_as_np"),   # Heidorn's own figures: star heads
    ("annotate", "kind"),                                  # required: riezler, chunks or file
    ("models", "kind"),                                    # retrain: people's decisions (user), not the run's kind
    ("store", "store"), ("store", "corpus"),               # positional store, export's corpus filter
    ("import", "corpus"),                                  # None: every stored sentence, new ones added
    ("apply", "store"),                                    # None: a temporary store
    ("run", "store"), ("run", "workers"),                  # None: keep the config's own value
    # None: the settings the store's counts were computed with (stages.stored_evaluation)
    *((c, k) for c in ("train", "select", "annotate") for k in ("evalb_param", "head_rules", "flatten_rules")),
    ("select", "heads"),
}


def _subcommands(parser, prefix=""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{prefix}{name}", sub
                yield from _subcommands(sub, f"{prefix}{name} ")


def _options():
    for name, sub in _subcommands(build_parser()):
        for action in sub._actions:
            yield name, action


def test_every_config_option_has_its_dataclass_default():
    linked = [(name, a) for name, a in _options() if hasattr(a, "config_key")]
    assert len(linked) >= 40
    for name, action in linked:
        section, key, to_cli = action.config_key
        assert action.default == to_cli(config_default(section, key)), (name, action.dest)


def test_options_named_like_config_keys_are_linked_to_them():
    for name, action in _options():
        if action.dest in CONFIG_DESTS and (name.split()[0], action.dest) not in OWN_DEFAULTS:
            assert hasattr(action, "config_key"), f"ranker {name} {action.option_strings} has its own default"


@pytest.mark.parametrize("command, dest, expected", [
    ("parse", "max_parse_time", ParseSection().max_parse_time),       # was 30 against 10
    ("train", "rule", AnnotationSection().rule),                      # was strict
    ("select", "k_table", HeidornSection().k_table),                 # was penn
    ("select", "metric", LogLinearSection().select_metric),          # was evalb_labeled
    ("train", "metric", LogLinearSection().select_metric),
    ("train", "sigma2_grid", list(LogLinearSection().sigma2_grid)),  # was a third grid
    ("train", "cutoff", FeaturesSection().cutoff),
    ("train", "workers", ExperimentSection().workers),               # was --threads 1
    ("select", "heads", None),                                       # the store's head rules
    ("select", "split", DataSection().test),
])
def test_the_disagreements_of_issue_10_are_gone(command, dest, expected):
    sub = dict(_subcommands(build_parser()))[command]
    assert sub.get_default(dest) == expected


@pytest.mark.parametrize("argv, message", [
    (["train", "--out", "m.json", "--max-iter", "0"], "argument --max-iter: must be >= 1, got 0"),
    (["train", "--out", "m.json", "--tol", "-1"], "argument --tol: must be > 0, got -1.0"),
    (["train", "--out", "m.json", "--tol", "nan"], "argument --tol: must be a finite number"),
    (["train", "--out", "m.json", "--sigma2-grid", "1", "-2"], "argument --sigma2-grid: must be > 0, got -2.0"),
    (["parse", "--linkage-limit", "0"], "argument --linkage-limit: must be >= 1, got 0"),
])
def test_a_config_options_number_is_held_to_the_keys_range(argv, message, capsys):
    # --max-iter 0 and --tol -1 used to train and write a model (0 iterations; never converging)
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[0].startswith("ranker: error: ") and message in err[0], err   # issue 36, item 15
    # in range, the same option parses to the number
    good = build_parser().parse_args(["train", "--out", "m.json", "--max-iter", "7", "--tol", "1e-6"])
    assert good.max_iter == 7 and good.tol == 1e-6


def test_every_config_option_offers_its_keys_choices():
    # the optimizer, layout and rule choices were listed in cli/train.py beside the config's
    from ranker.pipeline.config import choices

    offered = 0
    for name, action in _options():
        if hasattr(action, "config_key"):
            section, key, _ = action.config_key
            assert action.choices == choices(section, key), (name, action.dest)
            offered += action.choices is not None
    assert offered >= 4    # train --rule --solver --layout, models retrain --rule


# --------------------------------------------------------------------------- estimators (issue 24)
#: Each estimator parameter that stands for a config key, by the key (section, name).
ESTIMATOR_KEYS = {
    "LogLinearRanker": {"solver": (LogLinearSection, "optimizer"), "max_iter": (LogLinearSection, "max_iter"),
                        "tol": (LogLinearSection, "tol"), "max_parses": (LogLinearSection, "max_parses"),
                        "full_parses_only": (LogLinearSection, "full_only"),
                        "proper_subset": (LogLinearSection, "proper_subset"),
                        "layout": (LogLinearSection, "layout"),
                        "precondition": (LogLinearSection, "precondition")},
    "ExpectedFRanker": "LogLinearRanker",
    "HeidornRanker": {"k_table": (HeidornSection, "k_table"), "heads": (EvaluationSection, "head_rules"),
                      "pp_as_np": (HeidornSection, "pp_as_np"), "max_rounds": (HeidornSection, "tune_rounds")},
    "RandomRanker": {"seed": (ExperimentSection, "seed")},
    "NativeRanker": {}, "OracleRanker": {},
}


def _estimators():
    from ranker.registries import RANKERS

    return {RANKERS.get(n).__name__: RANKERS.get(n) for n in RANKERS.names()}


def test_every_estimator_default_is_the_configs():
    # LogLinearRanker had max_iter 1000 against the config's 300; HeidornRanker pp_as_np False
    # against the pipeline's True, max_rounds 3 against tune_rounds 2, heads star against collins
    import inspect

    estimators = _estimators()
    assert set(estimators) == set(ESTIMATOR_KEYS)
    for name, cls in estimators.items():
        keys = ESTIMATOR_KEYS[name]
        keys = ESTIMATOR_KEYS[keys] if isinstance(keys, str) else keys
        params = inspect.signature(cls.__init__).parameters
        for param, (section, key) in keys.items():
            assert params[param].default == config_default(section, key), (name, param, section, key)


def test_estimator_parameters_named_like_config_keys_are_linked_to_them():
    import dataclasses
    import inspect

    from ranker.pipeline.config import SECTIONS

    config_keys = {f.name for s in SECTIONS.values() for f in dataclasses.fields(s)}
    for name, cls in _estimators().items():
        keys = ESTIMATOR_KEYS[name]
        keys = ESTIMATOR_KEYS[keys] if isinstance(keys, str) else keys
        for param in inspect.signature(cls.__init__).parameters:
            if param in config_keys:
                assert param in keys, f"{name}({param}=...) names a config key but is not linked to it"


def test_the_estimators_choices_are_the_configs():
    from ranker.models.loglinear import SOLVERS
    from ranker.models.objective import LAYOUTS
    from ranker.pipeline.config import choices
    from ranker.registries import OBJECTIVES, RANKERS

    assert tuple(SOLVERS) == choices(LogLinearSection, "optimizer")
    assert LAYOUTS == choices(LogLinearSection, "layout")
    for objective in choices(LogLinearSection, "objective"):    # every objective has its ranker
        assert OBJECTIVES.get(objective) in RANKERS


def test_the_consistency_rule_has_no_default_below_the_config():
    # the store and the feature rows said "strict" where the config says "fewest"
    import inspect

    from ranker.features.datasets import consistency_weights
    from ranker.store.store import Store

    for f in (Store.consistent_sets, consistency_weights):
        assert inspect.signature(f).parameters["rule"].default is inspect.Parameter.empty, f
