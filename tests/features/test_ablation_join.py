"""The ablation's column join gives the matrix that extracting the families together gives."""
import importlib.util
from pathlib import Path

from ranker.features import extract, make_family
from ranker.store.records import Candidate, Forest, Sentence
from ranker.trees.penn import parse_tree

HIGH = "(S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope)))) (. .))"
LOW = "(S (NP (PRP I)) (VP (VBD saw) (NP (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope))))) (. .))"


def _ablation():
    path = Path(__file__).resolve().parents[2] / "experiments" / "ablation" / "run.py"
    spec = importlib.util.spec_from_file_location("ablation_run", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_joined_single_family_matrices_equal_joint_extraction():
    join_columns = _ablation().join_columns
    forests = []
    for k, texts in enumerate([(HIGH, LOW), (LOW,), (LOW, HIGH, LOW)]):
        trees = [parse_tree(t, "<t>", 1) for t in texts]
        words = trees[0].words
        forests.append(Forest(Sentence(f"s{k}", "test", "d", k, words, ("",) * len(words)), None,
                              tuple(Candidate(f"s{k}", "test", r, t, "full", {}) for r, t in enumerate(trees))))
    # rule/1 (two ancestors) and redwoods_rules/1 both name "R2:..." properties: they add up
    specs = [("heads/1", {}), ("rule/1", {}), ("redwoods_rules/1", {})]
    joint = extract(forests, [make_family(n, o) for n, o in specs])
    joined = join_columns([extract(forests, [make_family(n, o)]) for n, o in specs])
    assert joined.names == joint.names and joined.offsets.tolist() == joint.offsets.tolist()
    assert (joined.X.tocsr() != joint.X.tocsr()).nnz == 0
    assert joined.X.tocsr()[:, joined.names.index("R2:PP->IN NP^VP^S")].toarray().ravel().tolist() == \
        [2.0, 0.0, 0.0, 0.0, 2.0, 0.0]


def test_removing_a_family_by_prefix_equals_extracting_without_it():
    mod = _ablation()
    forests = []
    for k, texts in enumerate([(HIGH, LOW), (LOW, HIGH)]):
        trees = [parse_tree(t, "<t>", 1) for t in texts]
        words = trees[0].words
        forests.append(Forest(Sentence(f"s{k}", "test", "d", k, words, ("",) * len(words)), None,
                              tuple(Candidate(f"s{k}", "test", r, t, "full", {}) for r, t in enumerate(trees))))
    kept, removed = [("local_trees/1", {"parent": True}), ("heads/1", {})], ("heavy/1", {})
    joint = extract(forests, [make_family(n, o) for n, o in kept + [removed]])
    alone = extract(forests, [make_family(*removed)])
    without = mod.without_prefixes(joint, {n.split(":", 1)[0] for n in alone.names})
    expected = extract(forests, [make_family(n, o) for n, o in kept])
    assert len(without.names) < len(joint.names)
    assert without.names == expected.names
    assert (without.X.tocsr() != expected.X.tocsr()).nnz == 0
