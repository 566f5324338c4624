"""Crouch et al.'s partial bracketing, consistency checks, user bracket files, equivalence tables."""
import pytest

from ranker.errors import RankerError
from ranker.sources.annotations import (LabelEquivalences, check_candidate, read_bracket_file, riezler_brackets)
from ranker.store import Bracket
from ranker.trees.penn import parse_tree

WSJ_1305 = ("(S (NP-SBJ (PRP$ His) (NN credibility)) (VP (VBZ is) (ADVP (RB also)) (PP-PRD (IN on) "
            "(NP (DT the) (NN line))) (PP-LOC (IN in) (NP (DT the) (NN investment) (NN community)))) (. .))")


def test_the_papers_example_wsj_1305():
    # Crouch et al. 2.1: [NP-SBJ His credibility] is also [PP-PRD on the line] in the investment community
    assert riezler_brackets(parse_tree(WSJ_1305)) == (Bracket("NP-SBJ", 0, 2), Bracket("PP-PRD", 4, 7))


def test_objects_vp_under_vp_sbar_and_lgs():
    t = parse_tree("(S (NP-SBJ-1 (PRP He)) (VP (MD will) (VP (VB say) (SBAR (IN that) (S (NP-SBJ (PRP it)) "
                   "(VP (VBD was) (VP (VBN sold) (PP (IN by) (NP-LGS (NNS them))))))))))")
    got = {tuple(b[:3]) for b in riezler_brackets(t)}
    assert got == {("NP-SBJ", 0, 1), ("VP", 2, 9), ("SBAR", 3, 9), ("NP-SBJ", 4, 5), ("VP", 6, 9),
                   ("NP-LGS", 8, 9)}
    t = parse_tree("(S (NP-SBJ (PRP I)) (VP (VBD saw) (NP (PRP her))))")
    assert ("NP", 2, 3) in {tuple(b[:3]) for b in riezler_brackets(t)}


def test_check_candidate_counts_missing_and_crossing():
    eq = LabelEquivalences({"S": frozenset({"S", "SINV"})})
    cand = parse_tree("(S (NP (PRP$ His) (NN credibility)) (VP (VBZ is) (ADVP (RB also)) (PP (IN on) (NP (DT the) "
                      "(NN line)))))")
    brackets = riezler_brackets(parse_tree("(S (NP-SBJ (PRP$ His) (NN credibility)) (VP (VBZ is) (ADVP (RB also)) "
                                           "(PP-PRD (IN on) (NP (DT the) (NN line)))))"))
    assert check_candidate(cand, brackets, eq) == (0, 0)
    assert check_candidate(cand, [Bracket("S", 0, 7)], eq) == (0, 0)
    assert check_candidate(cand, [Bracket("NP", 0, 7)], eq) == (1, 0)             # wrong label
    assert check_candidate(cand, [Bracket("NP", 1, 3)], eq) == (1, 1)             # crosses NP 0-2
    assert check_candidate(cand, [Bracket(None, 4, 7)], eq) == (0, 0)             # unlabelled
    assert check_candidate(cand, [Bracket("VP", 4, 7)], LabelEquivalences(labelled=False)) == (0, 0)


def test_default_equivalence_table_loads():
    eq = LabelEquivalences.load()
    assert "SINV" in eq.accepts("S-TPC") and eq.accepts("NP-SBJ") == frozenset({"NP"})


def test_equivalence_and_bracket_files_report_file_and_line(tmp_path):
    p = tmp_path / "eq.tsv"
    p.write_text("# ok\nS\tS SINV\nNP\n")
    with pytest.raises(RankerError, match=f"{p}:3:"):
        LabelEquivalences.load(p)
    b = tmp_path / "b.tsv"
    b.write_text("s1\tNP\t0\t2\ns1\t*\t1\t3\n")
    anns = read_bracket_file(b, "mine", {"s1": 3})
    assert anns[0].brackets == (Bracket("NP", 0, 2), Bracket(None, 1, 3)) and anns[0].kind == "mine"
    b.write_text("s1\tNP\t0\t9\n")
    with pytest.raises(RankerError, match=f"{b}:1: span"):
        read_bracket_file(b, "mine", {"s1": 3})
    b.write_text("\ns2\tNP\t0\t1\n")
    with pytest.raises(RankerError, match=f"{b}:2: no stored sentence"):
        read_bracket_file(b, "mine", {"s1": 3})
    b.write_text("s1 NP 0 1\n")
    with pytest.raises(RankerError, match=f"{b}:1: expected 4"):
        read_bracket_file(b, "mine", {"s1": 3})


def test_check_store_in_worker_processes_equals_one_process(tmp_path):
    from ranker.sources.annotations import check_store, riezler_annotations
    from ranker.store import Candidate, Sentence, Store

    gold = parse_tree(WSJ_1305)
    words = gold.words
    cands = [gold,
             parse_tree("(S (NP (PRP$ His) (NN credibility) (VBZ is)) (RB also) (PP (IN on) (NP (DT the) "
                        "(NN line) (IN in) (DT the) (NN investment) (NN community))) (. .))"),
             parse_tree("(S " + " ".join(f"(X {w})" for w in words) + ")")]
    stored = {}
    for workers in (1, 2):
        with Store.open(tmp_path / f"w{workers}.sqlite") as st:
            sents = [Sentence(f"treebank/wsj_1305.mrg/{i}", "treebank", "wsj_1305.mrg", i, words,
                              gold.tags()) for i in range(5)]
            st.add_sentences(sents)
            st.add_candidates([Candidate(s.id, "lg", r, cands[(r + i) % 3], "full", {})
                               for i, s in enumerate(sents) for r in range(4)])
            st.add_annotations(riezler_annotations((s.id, gold) for s in sents))
            done = check_store(st, "riezler", LabelEquivalences.load(), workers=workers)
            assert (done.sentences, done.candidates) == (5, 20)
            assert check_store(st, "riezler", LabelEquivalences.load(), workers=workers).candidates == 0
            stored[workers] = st.consistent_sets("riezler", fileids="wsj_1305.mrg", rule="strict")
    assert stored[1] == stored[2]
    assert stored[1]["treebank/wsj_1305.mrg/0"].weights == (1.0, 0.0, 0.0, 1.0)
