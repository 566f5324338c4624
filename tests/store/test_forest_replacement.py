"""A replaced forest takes what was derived from it along: counts under every metric and checks against
every annotation kind (issue 45: ``ranker parse --reparse``; the same for an n-best file imported again)."""
from ranker.store import Annotation, Bracket, BracketCounts, Candidate, Sentence, Store
from ranker.trees.penn import parse_tree

TREES = ("(S (NP (NNS dogs)) (VP (VBP bark)))", "(S (NNS dogs) (VBP bark))")


def _store(path):
    st = Store.open(path)
    st.add_sentences([Sentence(f"c/d/{i}", "c", "d", i, ("dogs", "bark"), ("NNS", "VBP")) for i in range(2)])
    st.add_candidates([Candidate(f"c/d/{i}", "penn:x", r, parse_tree(t), "full", {})
                       for i in range(2) for r, t in enumerate(TREES)])
    st.add_annotations([Annotation(f"c/d/{i}", kind, (Bracket("NP", 0, 1),)) for i in range(2) for kind in ("a", "b")])
    for kind in ("a", "b"):
        st.put_annotation_checks(kind, [(f"c/d/{i}", "penn:x", r, 0, 0) for i in range(2) for r in range(2)])
    st.put_bracket_counts("m", [BracketCounts(f"c/d/{i}", "penn:x", r, 2, 2, 2, 0) for i in range(2) for r in range(2)])
    return st


def test_a_replaced_forest_of_as_many_candidates_is_checked_again(tmp_path):
    """Regression: checks are keyed by rank, so a new forest of two candidates read the old one's checks."""
    with _store(tmp_path / "s.sqlite") as st:
        assert st.unchecked_candidates("a") == []
        st.replace_forest("c/d/0", "penn:x", [Candidate("c/d/0", "penn:x", r, parse_tree(t), "full", {})
                                              for r, t in enumerate(reversed(TREES))])
        for kind in ("a", "b"):
            assert sorted(st.unchecked_candidates(kind)) == [("c/d/0", "penn:x", 0), ("c/d/0", "penn:x", 1)]
        assert not st.has_bracket_counts("m", "c/d/0", "penn:x") and st.has_bracket_counts("m", "c/d/1", "penn:x")


def test_write_parsed_drops_the_checks_and_counts_of_the_sentences_it_writes_only(tmp_path):
    from ranker.sources.link_grammar import EncodedResult
    from ranker.store.encoding import encode_candidate

    with _store(tmp_path / "s.sqlite") as st:
        row = encode_candidate(Candidate("c/d/1", "penn:x", 0, parse_tree(TREES[0]), "full", {}))
        st.write_parsed("penn:x", [EncodedResult("c/d/1", "full", "", [row], 0, 0.1)])
        assert st.unchecked_candidates("a") == [("c/d/1", "penn:x", 0)]
        assert st.sentence_bracket_counts("m", "c/d/1") == ()
        assert len(st.sentence_bracket_counts("m", "c/d/0")) == 2
