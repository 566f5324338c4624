"""Heidorn's metric: the paper's Figure 1 exactly, bottom-up equals top-down, K tables, tuning."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranker.errors import RankerError
from ranker.models import HeidornRanker
from ranker.trees.heidorn_score import (HeadError, compile_trees, score_bottom_up, score_top_down,
                                        star_head)
from ranker.trees.ktable import KTable, KTableError
from ranker.trees.penn import parse_tree
from ranker.trees.tree import Tree, node

# Figure 1 of Heidorn (1982): heads marked with '*', a PP drawn as a noun phrase whose extra
# premodifier is the preposition.
HIGH = "(VP (VERB* See) (NP (ADJ the) (NOUN* man)) (PP (PREP with) (ADJ the) (NOUN* telescope)))"
LOW = ("(VP (VERB* See) (NP (ADJ the) (NOUN* man) "
       "(PP (PREP with) (ADJ the) (NOUN* telescope))))")

#: Heidorn's own figures: trees whose head children are marked with "*", a PP read as its own
#: phrase (the estimator's defaults are the pipeline's: collins head rules, PPs read as NPs).
STAR = dict(heads="star", pp_as_np=False)


def tree(text):
    return parse_tree(text, "<test>", 1)


def test_figure_1_scores_exactly_and_chooses_the_low_attachment():
    table = KTable.load("default")
    assert table.default == 0.1 and dict(table.k) == {}
    high, low = tree(HIGH), tree(LOW)
    for score in (score_bottom_up, score_top_down):
        assert score(high, table) == pytest.approx(0.23, abs=1e-15)
        assert score(low, table) == pytest.approx(0.122, abs=1e-15)
    ranker = HeidornRanker(**STAR).fit([high, low])
    np.testing.assert_allclose(ranker.scores([high, low]), [0.23, 0.122], atol=1e-15)
    assert ranker.predict([high, low], [0, 0]).tolist() == [1]
    # The paper's worked parts: the PP scores 0.1(0+1) + 0.1(0+1); the NP of parse 2 0.1 + 0.1(1.2).
    pp = Tree(tree(HIGH).root.children[2], tree(HIGH).words)
    assert score_bottom_up(pp, table) == pytest.approx(0.2, abs=1e-15)


def test_ties_go_to_the_source_order_and_lowest_score_wins():
    high, low = tree(HIGH), tree(LOW)
    ranker = HeidornRanker(**STAR).fit([])
    assert ranker.predict([low, low, high], ["a", "a", "a"]).tolist() == [0]
    assert ranker.predict([high, low, low, high], [1, 1, 2, 2]).tolist() == [1, 0]


def test_reward_and_penalty_change_the_choice():
    # A penalty on PPs modifying nouns (K = 2) makes the high attachment win.
    table = KTable(("modifier", "head"), 0.1, {("PP", "NP"): 2.0})
    high, low = tree(HIGH), tree(LOW)
    assert score_bottom_up(low, table) == pytest.approx(0.1 * (0.1 + 2 * 1.2 + 1), abs=1e-15)
    assert HeidornRanker(**STAR, k_table=table).fit([]).predict([high, low], [0, 0]).tolist() == [0]


def test_penn_pp_as_np_reproduces_figure_1_with_star_heads():
    # The same parses drawn the Penn way: PP = preposition + NP. As a noun phrase with the
    # preposition as premodifier, the scores are Heidorn's again.
    high = tree("(VP (VB* See) (NP (DT the) (NN* man)) (PP (IN* with) (NP (DT the) (NN* telescope))))")
    low = tree("(VP (VB* See) (NP (NP* (DT the) (NN* man)) (PP (IN* with) (NP (DT the) (NN* telescope)))))")
    table = KTable()
    assert score_top_down(high, table, star_head, pp_as_np=True) == pytest.approx(0.23, abs=1e-15)
    assert score_bottom_up(low, table, star_head, pp_as_np=True) == pytest.approx(0.122, abs=1e-15)
    # Without the option the preposition is the head and the NP its post-modifier.
    assert score_bottom_up(high, table, star_head) == pytest.approx(0.1 * 1.1 + 0.1 * (0.1 * 1.1 + 1), abs=1e-15)


def test_missing_head_mark_is_a_clear_error():
    with pytest.raises(HeadError, match=r"'NP' over words 1-3 has no child marked"):
        score_bottom_up(tree("(VP (V* see) (NP (DT the) (NN man)))"), KTable())


@st.composite
def random_trees(draw):
    labels = ["NP", "VP", "PP", "S", "ADJP"]
    counter = [0]

    def build(depth):
        if depth == 0 or draw(st.booleans()):
            w = counter[0]
            counter[0] += 1
            return node(draw(st.sampled_from(["DT", "NN", "IN", "VB"])), [w])
        n = draw(st.integers(1, 4))
        kids = [build(depth - 1) for _ in range(n)]
        h = draw(st.integers(0, n - 1))
        kids[h] = kids[h]._replace(label=kids[h].label + "*")
        return node(draw(st.sampled_from(labels)), kids)

    root = build(5)
    return Tree.build(root, [f"w{i}" for i in range(counter[0])])


@st.composite
def random_tables(draw):
    fields = draw(st.sampled_from([("modifier",), ("modifier", "side"), ("modifier", "head", "side")]))
    cats = ["NP", "VP", "PP", "S", "ADJP", "DT", "NN", "IN", "VB"]
    k = {}
    for _ in range(draw(st.integers(0, 6))):
        vals = {"modifier": draw(st.sampled_from(cats)), "head": draw(st.sampled_from(cats)),
                "side": draw(st.sampled_from(["pre", "post"]))}
        k[tuple(vals[f] for f in fields)] = draw(st.sampled_from([0.0, 0.1, 0.3, 2.0, 100.0]))
    return KTable(fields, draw(st.sampled_from([0.1, 0.5, 1.0, 2.0])), k)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(random_trees(), random_tables(), st.booleans())
def test_bottom_up_equals_top_down_on_random_trees(t, table, pp_as_np):
    b = score_bottom_up(t, table, star_head, pp_as_np)
    d = score_top_down(t, table, star_head, pp_as_np)
    c = compile_trees([t], star_head, pp_as_np).scores(table)[0]
    assert abs(b - d) <= 1e-12 * max(1.0, abs(b))
    assert abs(b - c) <= 1e-12 * max(1.0, abs(b))


@settings(max_examples=40, deadline=None)
@given(st.lists(random_trees(), min_size=1, max_size=4), random_tables(),
       st.lists(st.integers(0, 3), min_size=1, max_size=12))
def test_a_tree_object_given_twice_is_compiled_once_and_scored_in_every_row(trees, table, picks):
    rows = [trees[i % len(trees)] for i in picks]
    compiled = compile_trees(rows, star_head)
    assert compiled.n_trees == len(rows)
    assert compiled.n_distinct == len({id(t) for t in rows})
    expected = [score_bottom_up(t, table, star_head) for t in rows]
    np.testing.assert_allclose(compiled.scores(table), expected, rtol=1e-12, atol=1e-12)


def test_k_table_round_trip_and_bad_tables(tmp_path):
    table = KTable(("modifier", "side"), 0.1, {("ADVP", "pre"): 2.0, ("MD", "pre"): 0.0})
    path = tmp_path / "k.toml"
    path.write_text(table.to_toml("learned by a test"))
    assert KTable.load(path) == table
    assert path.read_text().startswith("# learned by a test\n")
    bad = tmp_path / "bad.toml"
    bad.write_text('[heidorn]\ntype = ["modifier", "side"]\n[k]\n"ADVP" = 2.0\n')
    with pytest.raises(KTableError, match=r"bad.toml: \[k\] key 'ADVP' must give 2 field"):
        KTable.load(bad)
    bad.write_text('[heidorn]\ntype = ["category"]\n')
    with pytest.raises(KTableError, match="bad.toml: .heidorn. type must be"):
        KTable.load(bad)
    bad.write_text('[heidorn]\ndefault = -1\n')
    with pytest.raises(KTableError, match="default must be a number >= 0"):
        KTable.load(bad)
    bad.write_text('[heidorn\n')
    with pytest.raises(KTableError, match="bad.toml"):
        KTable.load(bad)
    with pytest.raises(KTableError, match="no such K table"):
        KTable.load(tmp_path / "missing.toml")


def test_tuning_learns_a_penalty_that_fixes_the_choice(tmp_path):
    # Held-out data where high attachment is right: the search must raise K for PPs inside NPs
    # (or lower it for PPs in VPs) until the high parse wins, and write the table it learned.
    high, low = tree(HIGH), tree(LOW)
    X = [high, low] * 3
    groups = [0, 0, 1, 1, 2, 2]
    quality = np.array([100.0, 50.0] * 3)
    base = HeidornRanker(**STAR, k_table=KTable(("modifier", "head")))
    assert base.fit(X).score(X, quality, groups) == 50.0
    tuned = HeidornRanker(**STAR, k_table=KTable(("modifier", "head")), tune=True).fit(X, quality, groups)
    assert tuned.score(X, quality, groups) == 100.0
    assert tuned.k_table_ != KTable(("modifier", "head"))
    assert tuned.tuning_history_[0][3] == 50.0 and tuned.tuning_history_[-1][3] == 100.0
    path = tmp_path / "tuned.toml"
    path.write_text(tuned.k_table_.to_toml("tuned"))
    assert HeidornRanker(**STAR, k_table=str(path)).fit(X).score(X, quality, groups) == 100.0


def test_bottom_up_memo_over_shared_subtrees_gives_the_same_scores():
    from ranker.trees.penn import parse_tree

    texts = ["(S (NP* (NN* dogs)) (VP (VB* bark) (ADVP (RB* loudly))))",
             "(S (NP* (NN* dogs)) (VP (VB* bark)) (ADVP (RB* loudly)))",
             "(S (NP (NN* dogs)) (VP* (VB* bark) (ADVP (RB* loudly))))"]
    shared, memo = {}, {}
    table = KTable(("modifier",), 0.1, {("ADVP",): 0.5})
    for text in texts + texts:
        t = parse_tree(text, shared=shared)
        assert score_bottom_up(t, table, star_head, memo=memo) == \
            score_bottom_up(parse_tree(text), table, star_head)
    assert len(memo) < sum(len(list(parse_tree(x).root.subtrees())) for x in texts)


def test_trees_compiled_once_fit_and_score_like_the_trees_themselves():
    # the pipeline compiles the held-out trees once for tuning and the K curve, the test trees
    # once for both Heidorn rankers; a compilation under other heads is refused
    high, low = tree(HIGH), tree(LOW)
    X = [high, low] * 3
    groups = [0, 0, 1, 1, 2, 2]
    quality = np.array([100.0, 50.0] * 3)
    make = lambda: HeidornRanker(**STAR, k_table=KTable(("modifier", "head")), tune=True)   # noqa: E731
    compiled = make().compile(X)
    from_trees, from_compiled = make().fit(X, quality, groups), make().fit(compiled, quality, groups)
    assert from_compiled.k_table_ == from_trees.k_table_
    assert from_compiled.tuning_history_ == from_trees.tuning_history_
    assert np.array_equal(from_compiled.scores(compiled), from_trees.scores(X))
    assert list(from_trees.predict(compiled, groups)) == list(from_trees.predict(X, groups))
    with pytest.raises(RankerError, match="compiled with heads"):
        HeidornRanker(heads="collins").fit().scores(compiled)


def _paper_sum(n, table, find, pp_as_np):
    """Heidorn's recursive formula written out, the K table read at every modifier (the reference)."""
    from ranker.trees.heidorn_score import WORD, _head_index, _is_word, _side, category

    if _is_word(n):
        return 0.0
    h = _head_index(n, find, pp_as_np)
    total = 0.0
    for i, c in enumerate(n.children):
        below = 0.0 if type(c) is int else _paper_sum(c, table, find, pp_as_np)
        if i == h:
            total += below
        else:
            mod = WORD if type(c) is int else category(c.label)
            total += table.lookup(table.type_of(mod, category(n.label), _side(i, h))) * (below + 1.0)
    return total


def test_k_tables_read_once_per_node_shape_give_the_same_sums_bit_for_bit(bllip_lists):
    # heidorn/1 keeps each node shape's head and K's across forests (score_bottom_up's shapes):
    # on real 50-best trees, with the pipeline's heads and PPs read as NPs, the score is the
    # paper's sum to the last bit, and far fewer shapes are kept than nodes scored
    import gzip
    import io

    from ranker.pipeline.apply.lists import block_forest
    from ranker.sources.nbest import stream_blocks
    from ranker.trees.heads import HeadRules

    table = KTable.load("penn")
    find = HeadRules.load("collins").head_child
    shapes, nodes = {}, 0
    with gzip.open(bllip_lists / "nbest-test.txt.gz", "rb") as raw:
        for k, block in enumerate(stream_blocks(io.TextIOWrapper(raw, encoding="utf-8"), "test", "bllip")):
            if k == 15:
                break
            memo = {}
            for cand in block_forest(block, k, "test").candidates:
                t = cand.tree
                assert score_bottom_up(t, table, find, True, memo, shapes) == _paper_sum(t.root, table, find, True)
                nodes += sum(1 for n in t.nodes() if not n.is_preterminal)
    assert 0 < len(shapes) < nodes / 20
