"""A parser run in-process, done once as docs/extending.md says: a CandidateSource registered in
SOURCES is what ``[parse] source`` names, and the parse stage asks it for candidates."""
from typing import NamedTuple

import pytest

from ranker.errors import RankerError
from ranker.pipeline.candidate_sources import FOREST_KEYS, CandidateSource, ParseOutcome
from ranker.registries import SOURCES


class _Parsed(NamedTuple):
    sentence_id: str
    status: str
    detail: str
    rows: list
    unmapped: int
    seconds: float


class FlatSource(CandidateSource):
    """The toy parser: one candidate a sentence, every word under one S."""

    def store_name(self, parse, where, given, check, section) -> str:
        for key in FOREST_KEYS:
            if getattr(parse, key):
                raise RankerError(f"{where}: {section} {key} is not read by source {self.name!r}")
        return given or self.name

    def obtain(self, ctx, parse, sentences, corpus, batch_size, source, reimport, section) -> ParseOutcome:
        from ranker.pipeline.run_counts import SourceCounts
        from ranker.store.encoding import encode_candidate
        from ranker.store.records import Candidate
        from ranker.trees.penn import parse_tree

        st = ctx.store
        st.add_source(source, {"flat": True})
        done = st.parsed_ids(source)
        results = []
        for s in sentences:
            if s.id in done:
                continue
            tree = parse_tree("(S " + " ".join(f"({t} {w})" for w, t in zip(s.tokens, s.tags)) + ")")
            row = encode_candidate(Candidate(s.id, source, 0, tree, "full", {"flat": 1.0}))
            results.append(_Parsed(s.id, "full", "", [row], 0, 0.0))
        st.write_parsed(source, results)
        return ParseOutcome(source, SourceCounts(parsed_now=len(results), unmapped_tokens=0), ())


def test_an_in_process_parser_is_one_registered_source_for_the_parse_stage(monkeypatch, tmp_path):
    from ranker.pipeline.candidate_sources import file_sources, source_of
    from ranker.pipeline.config import ParseSection
    from ranker.pipeline.stages import StageContext, parse_or_import
    from ranker.store import Sentence, Store

    monkeypatch.setitem(SOURCES._items, "flat/1", FlatSource)   # as a plug-in's SOURCES.register would
    assert "flat" in SOURCES.names(bare=True) and "flat" not in file_sources()
    assert isinstance(source_of("flat"), FlatSource)
    sentences = [Sentence("mine/a/0", "mine", "a", 0, ("dogs", "bark"), ("NNS", "VBP")),
                 Sentence("mine/a/1", "mine", "a", 1, ("cats", "sleep"), ("NNS", "VBP"))]
    with Store.open(tmp_path / "s.sqlite") as st:
        st.add_sentences(sentences)
        ctx = StageContext(st, workers=1)
        got = parse_or_import(ctx, ParseSection(source="flat"), sentences, "mine")
        assert got.source == "flat" and got.counts.parsed_now == 2
        assert [c.tree.words for c in st.forest("mine/a/1", "flat").candidates] == [("cats", "sleep")]
        assert st.parse_statuses("flat")["mine/a/0"][0] == "full"
        again = parse_or_import(ctx, ParseSection(source="flat"), sentences, "mine")
        assert again.counts.parsed_now == 0                               # parsed once
        with pytest.raises(RankerError, match="forests is not read by source 'flat'"):
            parse_or_import(ctx, ParseSection(source="flat", forests="x.mrg"), sentences, "mine")
    monkeypatch.undo()
    with pytest.raises(RankerError, match="unknown candidate source 'flat'"):
        source_of("flat")
