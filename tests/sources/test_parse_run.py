"""Parsing into the store: a sentence that really hits the time limit, and the batched writer."""
import sqlite3

import pytest

from ranker.sources.link_grammar import SOURCE, LinkGrammarOptions, LinkGrammarParser
from ranker.sources.parse_run import parse_into_store
from ranker.store import Store
from ranker.store.store import PAGE_SIZE

LONG = "treebank/wsj_0096.mrg/37"   # 114 tokens: with a huge linkage limit, counting runs for seconds


@pytest.fixture(scope="module")
def by_id(treebank_sample):
    return {g.sentence.id: g.sentence for g in treebank_sample}


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_a_sentence_over_the_time_limit_is_skimmed_stored_as_timeout_and_reported(tmp_path, by_id, treebank_sample,
                                                                                   gum_sentence):
    short = [g.sentence for g in treebank_sample if 6 <= len(g.sentence.tokens) <= 10][:2]
    long = gum_sentence("GUM_academic_enjambment", 12)   # 101 tokens: no complete linkage, the null-link pass runs out
    by_id = {**by_id, LONG: long._replace(id=LONG)}
    sentences = [short[0], by_id[LONG], short[1]]
    options = LinkGrammarOptions(linkage_limit=1000, max_parse_time=10)
    with Store.open(tmp_path / "s.sqlite") as st:
        st.add_sentences(sentences)
        summary = parse_into_store(st, sentences, options, workers=2, progress=False)
        assert summary.statuses.get("timeout") == 1 and summary.parsed == 3
        (sid, status, detail), = summary.failures        # reported, with what happened
        assert (sid, status) == (LONG, "timeout") and detail.startswith("timed out after 10s, skimmed: ")
        forest = st.forest(LONG)
        # the skim runs in what is left of the CPU budget (a fifth of it): whether it finds a
        # linkage in that time depends on the CPU (a loaded one found none), so either is right,
        # as long as the report, the log and the store agree (the skim itself: the test below)
        assert detail.startswith(f"timed out after 10s, skimmed: {len(forest.candidates)} linkages")
        assert all(c.quality == "timeout" and c.tree.words == by_id[LONG].tokens for c in forest.candidates)
        log = {r[0]: r for r in st.parse_log(SOURCE)}
        assert log[LONG][2] == "timeout" and log[LONG][4] == len(forest.candidates)
        for s in short:                                   # the rest went on
            assert log[s.id][2] in ("full", "fragment")
            f = st.forest(s.id)
            assert f.candidates and all(c.quality == log[s.id][2] for c in f.candidates)
        assert st.stats().timeout == len(forest.candidates)


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_a_skim_given_its_time_finds_real_linkages_where_the_passes_ran_out(gum_sentence):
    """The skim (Link Grammar's panic mode: short links, null links) finds linkages of the 101-token
    sentence above in a few CPU seconds, where the null-link pass ran out of its budget."""
    from ranker.sources.alignment import token_offsets

    p = LinkGrammarParser(LinkGrammarOptions(linkage_limit=1000, max_parse_time=10))
    text, _, _ = token_offsets(gum_sentence("GUM_academic_enjambment", 12).tokens)
    lgs = p._lg.Sentence(text, p._dict, p._po)
    assert lgs.split(p._po) >= 0
    assert p._skim(lgs, 8) > 0


@pytest.mark.linkgrammar
@pytest.mark.slow
def test_batched_writer_stores_what_the_candidate_api_stores(tmp_path, treebank_sample):
    sentences = [g.sentence for g in treebank_sample if len(g.sentence.tokens) <= 14][:6]
    options = LinkGrammarOptions(linkage_limit=50, max_parse_time=10)
    with Store.open(tmp_path / "run.sqlite") as a, Store.open(tmp_path / "api.sqlite") as b:
        a.add_sentences(sentences)
        summary = parse_into_store(a, sentences, options, workers=1, batch_size=4, progress=False)
        b.add_sentences(sentences)
        p = LinkGrammarParser(options)
        for s in sentences:
            r = p.parse(s)
            b.replace_forest(s.id, SOURCE, r.candidates)
            b.record_parse(s.id, SOURCE, r.status, r.detail, len(r.candidates), r.unmapped)
        assert summary.candidates == sum(len(b.candidate_texts(s.id)) for s in sentences) > 0
        for s in sentences:
            assert a.forest(s.id) == b.forest(s.id)
        assert [r[:6] for r in a.parse_log()] == [r[:6] for r in b.parse_log()]
    # candidate rows are 1-3 KB: a new store uses pages large enough to hold them without overflow pages
    con = sqlite3.connect(tmp_path / "run.sqlite")
    try:
        assert con.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE
    finally:
        con.close()
