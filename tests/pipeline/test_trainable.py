"""Training sentences with an empty consistent set are not extracted, and the training data stay the same.

``stages.trainable`` leaves them out before the features stage (under the strict rule more than
half of the WSJ sample's training sentences); the rows, weights, feature index, filter counts and
fitted model must be exactly those of extracting every training sentence.
"""
import re

import numpy as np
import pytest

from ranker.features import load_feature_set
from ranker.cli.main import main
from ranker.pipeline import stages
from ranker.pipeline.config import FeaturesSection, LogLinearSection
from ranker.pipeline.feature_cache import cached_matrix
from ranker.pipeline.splits import select_split
from ranker.store import Store
from ranker.store.store import RULES

pytestmark = [pytest.mark.slow, pytest.mark.linkgrammar]

SPLIT = "wsj_0001-0004"


@pytest.fixture(scope="module")
def annotated(tmp_path_factory):
    """Link Grammar forests (20 linkages) of wsj_0001-0004 with Crouch et al.'s bracketing checked."""
    store = tmp_path_factory.mktemp("trainable") / "s.sqlite"
    assert main(["parse", "--store", str(store), "--corpus", "treebank", "--split", SPLIT,
                 "--linkage-limit", "20", "--no-progress", "--workers", "1"]) == 0
    assert main(["annotate", "--store", str(store), "--kind", "riezler", "--workers", "1"]) == 0
    return store


def _training(st, sel, rule, trainable):
    source = stages.stored_source(st)
    template = stages.loglinear_template(LogLinearSection(max_iter=15), 1)
    dropped = {}
    if trainable:
        t = stages.trainable(stages.StageContext(st, source, 1), sel, "riezler", rule, template)
        sel, dropped = t.selection, t.dropped
    m = cached_matrix(st, load_feature_set("default"), sel, source, 1, None)
    w = stages.consistency(stages.StageContext(st, source, 1), m, "riezler", sel, rule)
    data = stages.training_rows(stages.StageContext(st, source, 1), FeaturesSection(), template, [m], [w],
                                dropped_before=dropped)
    return data, template, len(sel.sentences)


@pytest.mark.parametrize("rule", RULES)
def test_leaving_out_empty_sets_changes_no_row_count_or_model(annotated, rule):
    with Store.open(annotated) as st:
        sel = select_split(st, "treebank", SPLIT, 0)
        whole, template, n_whole = _training(st, sel, rule, trainable=False)
        part, _, n_part = _training(st, sel, rule, trainable=True)
    if rule == "strict":   # some sentence lacks a Crouch et al. bracket in every linkage
        assert n_part < n_whole and whole.survivors.dropped["empty_consistent_set"] > 0
    assert part.names == whole.names
    assert np.array_equal(part.y, whole.y) and np.array_equal(part.full, whole.full)
    assert np.array_equal(part.X.toarray(), whole.X.toarray())
    assert part.survivors.dropped == whole.survivors.dropped
    assert part.survivors.group_mask.sum() == whole.survivors.group_mask.sum()
    a = template.set_params(sigma2=0.1).fit(whole.X, whole.y, whole.groups, full=whole.full).coef_.copy()
    b = template.set_params(sigma2=0.1).fit(part.X, part.y, part.groups, full=part.full).coef_
    assert np.array_equal(a, b)


def test_train_command_reports_every_training_sentence(annotated, tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["train", "--store", str(annotated), "--split", SPLIT, "--rule", "strict", "--heldout", "",
                 "--sigma2", "0.1", "--max-iter", "10", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    with Store.open(annotated) as st:
        sel = select_split(st, "treebank", SPLIT, 0)
        whole, _, _ = _training(st, sel, "strict", trainable=False)
    assert f"trained on {int(whole.survivors.group_mask.sum())} sentences" in capsys.readouterr().out


def test_train_command_s_rule_grid_saves_the_chosen_rule_s_model(annotated, tmp_path, capsys):
    """Issue 45: ``ranker train --rule auto`` keeps no rule's rows through the grid; the chosen rule's
    rows, built again after it, give the model its grid fitted (the same σ² trials and weights)."""
    import json

    assert main(["counts", "--store", str(annotated), "--split", SPLIT, "--workers", "1", "--no-progress"]) == 0
    common = ["--store", str(annotated), "--split", SPLIT, "--heldout", SPLIT, "--sigma2-grid", "0.1", "1",
              "--max-iter", "10", "--workers", "1", "--no-progress"]
    capsys.readouterr()
    assert main(["train", *common, "--rule", "auto", "--out", str(tmp_path / "auto.json")]) == 0
    said = capsys.readouterr().out
    # "rule R: N training sentences kept, held-out METRIC SCORE (I iterations)"
    scores = {line.split()[1].rstrip(":"): float(re.search(r"held-out \S+ (\S+)", line).group(1))
              for line in said.splitlines() if line.startswith("rule ")}
    assert set(scores) == set(RULES)
    chosen = max(scores, key=scores.get)   # a tie keeps the earlier rule of the grid
    chosen = next(r for r in RULES if scores[r] == scores[chosen])
    assert main(["train", *common, "--rule", chosen, "--out", str(tmp_path / "fixed.json")]) == 0
    fixed = capsys.readouterr().out
    assert said.split("\n")[-2] == fixed.split("\n")[-2].replace("fixed.json", "auto.json")
    auto, one = (json.loads((tmp_path / f).read_text()) for f in ("auto.json", "fixed.json"))
    assert auto == one
