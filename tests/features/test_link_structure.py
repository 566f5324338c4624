"""Link Grammar structure families on linkages whose disjuncts are derived by hand."""
import pytest

from ranker.features import make_family
from ranker.features.link_structure import link_type, subscript
from ranker.sources.link_grammar import LinkGrammarOptions, LinkGrammarParser
from ranker.store.records import Candidate, Link, Sentence
from ranker.trees.penn import parse_tree

# Link Grammar 5's linkage of "The man saw a dog with a telescope ." (walls included), as stored.
WORDS = ("LEFT-WALL", "the", "man.n", "saw.v-d", "a", "dog.n", "with", "a", "telescope.n", ".", "RIGHT-WALL")
LINKS = ((0, 9, "Xp"), (0, 2, "Wd"), (1, 2, "Ds**c"), (2, 3, "Ss*s"), (3, 6, "MVp"), (3, 5, "Os"),
         (5, 6, "Mp"), (4, 5, "Ds**c"), (6, 8, "Js"), (7, 8, "Ds**c"), (9, 10, "RW"))
TREE = ("(S (NP (DT The) (NN man)) (VP (VBD saw) (NP (NP (DT a) (NN dog)) (PP (IN with) (NP (DT a) "
        "(NN telescope))))) (. .))")


def linkage(words=WORDS, links=LINKS, tree=TREE, quality="full", scores=None):
    t = parse_tree(tree, "<t>", 1)
    return Candidate("s", "link-grammar", 0, t, quality, scores or {}, tuple(Link(*lk) for lk in links),
                     words, tuple(-1 if w.endswith("WALL") else i - 1 for i, w in enumerate(words)))


def names(name, c, **options):
    return sorted(k for k, _ in make_family(name, options)(c))


def test_link_types_and_subscripts():
    assert [link_type(x) for x in ("Ss*s", "MVp", "Ds**c", "Xp", "RW", "SJlu")] == \
        ["S", "MV", "D", "X", "RW", "SJ"]
    assert [subscript(w) for w in ("saw.v-d", "the", "blarg[?].n", "[quickly]", "U.S.", "and.j-n")] == \
        ["v-d", "", "n", "", "", "j-n"]


def test_disjuncts_list_each_words_connectors_nearest_first():
    got = names("lg_disjuncts/1", linkage(), lexical=[])
    # by hand: LEFT-WALL W+ X+ | the D+ | man D- W- S+ | saw S- O+ MV+ | a D+ | dog D- O- M+ |
    # with M- MV- J+ | a D+ | telescope D- J- | . X- RW+ | RIGHT-WALL RW-
    assert got == sorted(["DJ:W+ X+", "DJ:D+", "DJ:D- W- S+", "DJ:S- O+ MV+", "DJ:D+", "DJ:D- O- M+",
                          "DJ:M- MV- J+", "DJ:D+", "DJ:D- J-", "DJ:X- RW+", "DJ:RW-"])
    got = names("lg_disjuncts/1", linkage(), lexical=["tag", "subscript", "word"])
    assert {"DJt:VBD:S- O+ MV+", "DJs:v-d:S- O+ MV+", "DJw:saw:S- O+ MV+", "DJt:LEFT-WALL:W+ X+",
            "DJt:IN:M- MV- J+"} <= set(got)
    assert "DJ:Ss*s- Os+ MVp+" in names("lg_disjuncts/1", linkage(), lexical=[], subscripts=True)


def test_link_pairs_meet_at_a_word():
    got = names("lg_link_pairs/1", linkage())
    assert [g for g in got if "MV" in g and "O" in g] == ["LP:O+&MV+"]            # at saw
    assert sorted(g for g in got if g.startswith("LP:M-")) == ["LP:M-&J+", "LP:M-&MV-"]  # at with
    # a word with k connectors makes k(k-1)/2 pairs: 1+0+3+3+0+3+3+0+1+1+0
    assert len(got) == 15
    assert "LPt:VBD:S-&O+" in names("lg_link_pairs/1", linkage(), lexical=["tag"])


def test_link_lengths_keep_subscripts():
    got = names("lg_link_lengths/1", linkage())
    assert "LL:Ss*s:1" in got and "LL:MVp:3-4" in got and "LLt:VBD:MVp:3-4" in got and "LL:Xp:9+" in got
    assert len(got) == 2 * len(LINKS)


def test_null_linked_words_by_tag_and_position():
    words = ("LEFT-WALL", "Xyzzy[!<CAPITALIZED-WORDS>]", "frobbed[!<ED-WORDS>].v-d", "the", "blarg[?].n",
             "[quickly]", "and.j-n", "the", "dog.n", ".", "RIGHT-WALL")
    links = ((0, 9, "Xp"), (0, 1, "Wd"), (1, 2, "Ss*s"), (2, 6, "Ou"), (3, 6, "Dmu"), (4, 6, "SJlu"),
             (6, 8, "SJrs"), (7, 8, "Ds**c"), (9, 10, "RW"))
    tree = ("(S (NP (NNP Xyzzy)) (VP (VBD frobbed) (NP (DT the) (NN blarg) (RB quickly) (CC and) (DT the) "
            "(NN dog))) (. .))")
    c = linkage(words, links, tree, "fragment")
    assert names("lg_nulls/1", c) == sorted(["NL:count", "NL:RB", "NL:RB:mid", "NLc:x~kly"])
    assert names("lg_nulls/1", linkage()) == []


def test_cost_parts_are_binned():
    c = linkage(scores={"unused_words": 1.0, "disjunct_cost": 4.16, "link_cost": 15.0})
    # total link length 15 over 9 words, times 4: 6.67
    assert names("lg_costs/1", c) == sorted(["LC:unused_words:<=1", "LC:disjunct_cost:<=5",
                                             "LC:link_cost/word:<=8"])
    assert names("lg_costs/1", linkage(scores={"unused_words": 0.0})) == ["LC:unused_words:0"]


@pytest.mark.linkgrammar
def test_on_real_link_grammar_linkages_every_link_gives_two_connectors():
    toks = ("The", "man", "saw", "a", "dog", "with", "a", "telescope", ".")
    s = Sentence("x", "t", "d", 0, toks, ("DT", "NN", "VBD", "DT", "NN", "IN", "DT", "NN", "."))
    res = LinkGrammarParser(LinkGrammarOptions(linkage_limit=5)).parse(s)
    assert res.candidates
    fam = make_family("lg_disjuncts/1", {"lexical": []})
    for c in res.candidates:
        connectors = sum(len(k.split(":", 1)[1].split()) for k, _ in fam(c))
        assert connectors == 2 * len(c.links)
    assert any(k.startswith("DJt:VBD:S-") for k in names("lg_disjuncts/1", res.candidates[0]))
