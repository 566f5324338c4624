"""Head rules: the shipped tables, Collins' NP and coordination rules, malformed files."""
import pytest

from ranker.errors import RankerError
from ranker.trees.heads import HeadRules, head_words
from ranker.trees.penn import parse_tree
from ranker.shipped import shipped_file

WSJ16 = ("( (S (NP-SBJ (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VP (VBN been) (VP (VBG setting) "
         "(NP (NNS records)) (NP-TMP (NP (DT every) (NN month)) (PP (IN since) (NP (NNP March))))))) (. .)) )")


def heads_by_label(tree, rules):
    return [(n.label, tree.words[h]) for n, h in zip(tree.nodes(), head_words(tree, rules))
            if not n.is_preterminal]


def test_tables_load_by_name_and_path():
    for name in ("collins", "charniak", "ringger-reassign"):
        r = HeadRules.load(name)
        assert r.rules and HeadRules.load(shipped_file("heads", name, ".txt")) == r


def test_collins_heads_of_wsj_0016():
    t = parse_tree(WSJ16)
    assert heads_by_label(t, HeadRules.load("collins")) == [
        ("", "have"), ("S", "have"), ("NP-SBJ", "sales"), ("VP", "have"), ("VP", "been"),
        ("VP", "setting"), ("NP", "records"), ("NP-TMP", "month"), ("NP", "month"),
        ("PP", "since"), ("NP", "March")]


def test_collins_np_rule():
    r = HeadRules.load("collins")
    np = lambda s: parse_tree(s).root  # noqa: E731
    assert r.head_child(np("(NP (NP (NNP John)) (POS 's))")) == 1            # last word POS
    assert r.head_child(np("(NP (DT the) (NN man) (JJ tall))")) == 1         # rightmost noun
    assert r.head_child(np("(NP (NP (DT a) (NN b)) (PP (IN of) (NP (NN c))))")) == 0  # leftmost NP
    assert r.head_child(np("(NP (DT the) (CD 5) (CD 6))")) == 2              # rightmost CD
    assert r.head_child(np("(NP (DT the) (JJ rich))")) == 1
    assert r.head_child(np("(NP (DT these) (DT those))")) == 1               # else last word


def test_collins_coordination_rule():
    r = HeadRules.load("collins")
    vp = parse_tree("(VP (VBD bought) (CC and) (VBD sold) (NP (NNS shares)))").root
    assert r.head_child(vp) == 0   # VP left-search finds VBD 'bought' first anyway
    adjp = parse_tree("(ADJP (JJ big) (, ,) (CC and) (JJ red))").root
    # ADJP picks JJ 'big' (left search); UCP is right-headed: coordination moves it left past CC
    ucp = parse_tree("(UCP (NN x) (CC and) (JJ y))").root
    assert r.head_child(adjp) == 0
    assert r.head_child(ucp) == 0
    ucp2 = parse_tree("(UCP (NN x) (, ,) (CC and) (JJ y))").root
    assert r.head_child(ucp2) == 0  # skips the comma before CC


def test_ringger_reassignment_moves_heads_off_auxiliaries_and_prepositions():
    t = parse_tree("(S (NP (NNS changes)) (VP (VBP have) (ADVP (RB already)) (VP (VBN been) "
                   "(VP (VBN made) (PP (IN in) (S (VP (VBG narrowing) (NP (DT the) (NN gap)))))))))")
    re = heads_by_label(t, HeadRules.load("ringger-reassign"))
    assert heads_by_label(t, HeadRules.load("charniak"))[0] == ("S", "have")
    assert re[0] == ("S", "made")
    assert ("PP", "narrowing") in re


def test_words_directly_under_phrases_can_head():
    t = parse_tree("(S (NP Miss Xydis) (VP was best))")
    assert [t.words[h] for h in head_words(t, HeadRules.load("collins"))] == ["was", "Xydis", "was"]


@pytest.mark.parametrize("text, message", [
    ("NP\n", "has no direction"),
    ("NP sideways NN\n", "unknown direction 'sideways'"),
    ("%frobnicate x\n", "unknown directive"),
    ("NP left @thing\n", "unknown category '@thing'"),
    ("# only a comment\n", "no head rules"),
    ("%base no-such-table\n", "no such file"),
])
def test_malformed_rule_files(tmp_path, text, message):
    f = tmp_path / "bad.txt"
    f.write_text("# header\n" + text)
    with pytest.raises(RankerError) as e:
        HeadRules.load(f)
    assert message in str(e.value)
    assert str(f) in str(e.value) and (":2:" in str(e.value) or ":1:" in str(e.value))


def test_missing_table_names_known_ones():
    with pytest.raises(FileNotFoundError, match="collins"):
        HeadRules.load("no-such-rules")


@pytest.mark.slow
def test_heads_on_every_wsj_tree(wsj_trees):
    r = HeadRules.load("collins")
    for t in wsj_trees[::3]:
        hw = head_words(t, r)
        nodes = list(t.nodes())
        assert all(n.start <= h < n.end for n, h in zip(nodes, hw))


def test_issue_10_charniak_table_is_the_conversion_of_the_parsers_head_info():
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    head_info = Path(os.environ.get("NLTK_DATA", "../shared/nltk_data")).parent / "heads" / "charniak-headInfo.txt"
    out = subprocess.run([sys.executable, str(repo / "scripts" / "convert_charniak_heads.py"), str(head_info)],
                         capture_output=True, text=True, check=True).stdout
    assert out == (repo / "configs" / "heads" / "charniak.txt").read_text()
    assert "NP rightdis NNS NN PRP NNPS NNP $ POS" in out and "PP leftdis IN TO RP" in out


def test_issue_10_charniak_head_priorities_as_head_finder_c():
    r = HeadRules.load("charniak")
    h = lambda s: r.head_child(parse_tree(s).root)  # noqa: E731
    # class 1, rightmost: the last noun of a base NP
    assert h("(NP (DT the) (NN stock) (NNS prices) (JJ high))") == 2
    # class 2, LEFTMOST: NP -> NP , NP (headPriority refuses a second same-label child)
    assert h("(NP (NP (NNP A)) (, ,) (NP (NNP B)))") == 0
    # in PP the FIRST class-1 child: "out of" is headed by "out"
    assert h("(PP (IN out) (IN of) (NP (NN town)))") == 0
    # class 3 beats class 4: NP -> ... JJ (headInfo "2": NP JJ) over a determiner
    assert h("(NP (DT the) (JJ rich))") == 1
    # class 6 (PP) beats class 7 (punctuation), for a label the table does not list too
    assert h("(X (PP (IN in) (NP (NN a))) (. .))") == 0
    assert h("(ZZ (PP (IN in) (NP (NN a))) (. .))") == 0
    # class 2 for an unlisted label through '@same'
    assert h("(ZZ (ZZ (NN a)) (NN b))") == 0
