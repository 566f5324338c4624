"""The auxiliary-distribution family: a seeded latent-class mixture over head-argument tuples."""
import numpy as np
import pytest

from ranker.features import FeatureConfigError, extract, feature_set_from_dict, make_family
from ranker.features.auxdist import AuxTable
from ranker.pipeline.feature_cache import MATRIX_KIND, TABLE_KIND, cached_matrix, fit_families
from ranker.pipeline.splits import select_split
from ranker.errors import RankerError
from ranker.store.records import Candidate, Forest, Sentence
from ranker.trees.penn import parse_tree

# Two verb classes with their own objects; one pair of each class is held out of training.
FOOD_V, FOOD_O = ["eat", "devour", "cook", "bake", "taste"], ["apples", "bread", "pears", "soup", "cake"]
CAR_V, CAR_O = ["drive", "ride", "park", "steer", "wash"], ["cars", "buses", "trucks", "bikes", "vans"]
HELD_OUT = {("devour", "soup"), ("ride", "bikes")}


def tree(v, o):
    return parse_tree(f"(S (NP (NNS people)) (VP (VBP {v}) (NP (NNS {o}))) (. .))", "<t>", 1)


def training():
    return [Forest(Sentence(f"{v}-{o}", "t", "d", 0, (), ()), tree(v, o), ())
            for vs, os_ in ((FOOD_V, FOOD_O), (CAR_V, CAR_O)) for v in vs for o in os_
            if (v, o) not in HELD_OUT]


def fitted(**kw):
    return make_family("head_arg_aux/1", {"clusters": 4, "min_count": 1, **kw}).fit(training())


def test_unseen_pairs_get_smoothed_probability_higher_within_the_clusters_seen_in_training():
    fam = fitted()

    def lp(v, o):
        return fam.log_prob("VP/NP>", v, "VBP", o, "NNS")

    # Never seen together, but "soup" is eaten by devour's cluster-mates: far likelier than "bikes".
    assert lp("devour", "soup") > lp("devour", "bikes") + 1.0
    assert lp("ride", "bikes") > lp("ride", "soup") + 1.0
    assert lp("devour", "bread") > lp("devour", "bikes")
    # Unseen words (back-off to the tag / unknown column) and heads stay finite, non-zero.
    for v, o in (("devour", "bikes"), ("devour", "unicorns"), ("levitate", "soup")):
        assert np.isfinite(lp(v, o)) and lp(v, o) < 0
    p = np.exp([lp("eat", o) for o in fam.table_.columns])
    assert p.sum() == pytest.approx(1.0) and (p > 0).all()  # a proper, smoothed distribution


@pytest.mark.slow
def test_fitting_is_deterministic_given_the_seed_and_the_table_round_trips():
    a, b = fitted(), fitted()
    assert a.fingerprint() == b.fingerprint()
    assert np.array_equal(a.table_.theta, b.table_.theta)
    assert fitted(seed=7).fingerprint() != a.fingerprint()
    back = make_family("head_arg_aux/1")
    back.load_table(a.table_bytes())
    assert back.fingerprint() == a.fingerprint()
    assert AuxTable.from_bytes(a.table_bytes()).rows == a.table_.rows


def test_feature_values_are_log_probabilities_summed_per_relation():
    fam = fitted()
    c = Candidate("x", "test", 0, tree("devour", "soup"), "full", {})
    got = dict(fam(c))
    assert got["aux:VP/NP>"] == pytest.approx(fam.log_prob("VP/NP>", "devour", "VBP", "soup", "NNS"))
    parts = [v for k, v in fam(c) if k != "aux:*"]
    assert got["aux:*"] == pytest.approx(sum(parts)) and len(parts) == 3  # subject, object, period
    # A better-attested argument scores higher, so the family separates the two candidates.
    assert got["aux:VP/NP>"] > dict(fam(c._replace(tree=tree("devour", "bikes"))))["aux:VP/NP>"]


def test_unfitted_family_and_bad_options_are_clear_errors(tmp_path):
    fam = make_family("head_arg_aux/1")
    c = Candidate("x", "test", 0, tree("eat", "soup"), "full", {})
    f = Forest(Sentence("x", "test", "d", 0, c.tree.words, ("",) * 4), None, (c,))
    with pytest.raises(FeatureConfigError, match="head_arg_aux/1.*fitted"):
        extract([f], [fam])
    with pytest.raises(FeatureConfigError, match="fit_on"):
        make_family("head_arg_aux/1", {"fit_on": "guesses"}, "f.toml")
    with pytest.raises(FeatureConfigError, match="missing.npz: cannot read"):
        make_family("head_arg_aux/1", {"table": str(tmp_path / "missing.npz")})
    with pytest.raises(RankerError, match="no head-argument tuples"):
        make_family("head_arg_aux/1").fit([Forest(f.sentence, None, ())])


def test_table_is_fitted_once_on_the_training_split_and_keys_the_stored_matrix(tmp_path):
    from ranker.store import Store

    fs = feature_set_from_dict({"name": "aux", "family": [
        {"name": "head_arg_aux/1", "clusters": 4, "min_count": 1, "fit_corpus": "t", "fit_split": None}]})
    with Store.open(tmp_path / "s.sqlite") as st:
        forests = training()
        st.add_sentences([g.sentence._replace(tokens=g.gold.words, tags=("",) * 4, index=i)
                          for i, g in enumerate(forests)])
        for g in forests:
            st.add_gold(g.sentence.id, g.gold)
        st.add_candidates([Candidate(g.sentence.id, "test", 0, g.gold, "full", {}) for g in forests])
        m = cached_matrix(st, fs, select_split(st, "t", None), None)
        assert m.X.shape[0] == len(forests) and "aux:VP/NP>" in m.names
        [key] = st.artifact_keys(TABLE_KIND)
        fam = fs.build()[0]
        fam.fit = None  # the stored table is read back: fitting again would fail here
        fit_families(st, [fam])
        assert fam.fingerprint() in st.artifact_keys(MATRIX_KIND)[0]
        assert st.get_artifact(TABLE_KIND, key)[1]["digest"] == fam.fingerprint()
