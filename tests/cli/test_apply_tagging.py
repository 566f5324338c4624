"""Issue 43, item 4: untagged text is tagged by the model's own tagger before it is parsed and ranked.

With the model of ``ranker train`` (which now carries a tagger trained on its training split's gold
tags): text as tokens or raw gets trees with part-of-speech preterminals, the tagger's, that
``ranker evalb`` reads against the gold trees; tagged text keeps its tags, said once; a model file
from before models carried a tagger writes the trees as before (words under phrases), said once;
``ranker parse --tagger MODEL`` tags text as apply does. Refusals are one ``ranker: error:`` line,
exit 2, with nothing written and the store unchanged.
"""
import hashlib
import json
import shutil

import pytest
from test_apply import _ok, _one_error, _ranker

from ranker.models import load_model
from ranker.store import Store
from ranker.trees.penn import parse_tree

pytestmark = [pytest.mark.slow, pytest.mark.linkgrammar]

PARSE = ("--linkage-limit", "30", "--max-parse-time", "5", "--no-progress")
NOTE_GIVEN = "ranker: note: --text-format tagged: the text's own tags are the trees' preterminals"
NOTE_NONE = "text and no tagger: its trees' words stand directly under their phrases"


@pytest.fixture(scope="module")
def texts(bllip, tmp_path_factory):
    """Five short test sentences of the fixture's store: their gold trees, and their text as tokens and as word/TAG."""
    work, store, _ = bllip
    here = tmp_path_factory.mktemp("tagging")
    copy = here / "copy.sqlite"   # ranker gold records its run: not in the shared store
    shutil.copy(store, copy)
    _ok(_ranker("gold", "--store", copy, "--split", "wsj_0170-0171", "--out", here / "all.mrg"))
    gold = [t for t in (here / "all.mrg").read_text().splitlines() if len(parse_tree(t).words) <= 18][:5]
    assert len(gold) == 5
    trees = [parse_tree(t) for t in gold]
    (here / "gold.mrg").write_text("".join(t + "\n" for t in gold))
    (here / "tokens.txt").write_text("".join(" ".join(t.words) + "\n" for t in trees))
    (here / "tagged.txt").write_text("".join(" ".join(f"{w}/{p}" for w, p in zip(t.words, t.tags())) + "\n"
                                             for t in trees))
    return work / "model.json", here, trees


def _tags(line: str) -> tuple:
    return tuple(parse_tree(line).tags())


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_tokens_are_tagged_by_the_models_tagger_and_ranker_evalb_reads_the_trees(texts, tmp_path):
    model, here, trees = texts
    tagger = load_model(model).tagger
    assert tagger is not None and tagger.sentences > 0     # ranker train saved it with the model
    got = _ok(_ranker("apply", "--model", model, "--text", here / "tokens.txt", "--out", tmp_path / "best.mrg",
                      *PARSE))
    assert "note" not in got.stderr
    lines = (tmp_path / "best.mrg").read_text().splitlines()
    assert len(lines) == 5 and all(lines)
    for line, tree in zip(lines, trees):
        assert tuple(parse_tree(line).words) == tuple(tree.words)
        assert _tags(line) == tagger.tag(tree.words)       # every word under its preterminal, the tagger's tag
    scored = _ok(_ranker("evalb", here / "gold.mrg", tmp_path / "best.mrg"))
    assert "Number of Error sentence  =      0" in scored.stdout
    assert "Number of Valid sentence  =      5" in scored.stdout
    # raw text is tagged after it is tokenized: brackets too
    (tmp_path / "raw.txt").write_text("The company (Carnival) said it expected a loss.\n")
    _ok(_ranker("apply", "--model", model, "--text", tmp_path / "raw.txt", "--text-format", "raw",
                "--out", tmp_path / "raw.mrg", *PARSE))
    raw = parse_tree((tmp_path / "raw.mrg").read_text().splitlines()[0])
    assert "-LRB-" in raw.words and all(raw.tags()) and tuple(raw.tags()) == tagger.tag(raw.words)


def test_tagged_text_keeps_its_own_tags_and_says_so_once(texts, tmp_path):
    model, here, trees = texts
    tagger = load_model(model).tagger
    got = _ok(_ranker("apply", "--model", model, "--text", here / "tagged.txt", "--text-format", "tagged",
                      "--chunk", "2", "--out", tmp_path / "best.mrg", *PARSE))
    assert got.stderr.count(NOTE_GIVEN) == 1 and got.stderr.count("ranker: note:") == 1   # three chunks, one note
    lines = (tmp_path / "best.mrg").read_text().splitlines()
    assert [_tags(x) for x in lines] == [tuple(t.tags()) for t in trees]
    assert any(tuple(t.tags()) != tagger.tag(t.words) for t in trees)   # the given tags won, not the tagger's


def test_a_model_without_a_tagger_says_so_once_and_writes_the_trees_as_before(texts, tmp_path):
    model, here, trees = texts
    doc = json.loads(model.read_text())
    del doc["tagger"]                    # a model file written before models carried taggers
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc, indent=1) + "\n")
    got = _ok(_ranker("apply", "--model", old, "--text", here / "tokens.txt", "--chunk", "2",
                      "--out", tmp_path / "best.mrg", *PARSE))
    notes = [x for x in got.stderr.splitlines() if x.startswith("ranker: note:")]
    assert len(notes) == 1 and NOTE_NONE in notes[0] and str(old) in notes[0]
    lines = (tmp_path / "best.mrg").read_text().splitlines()
    assert len(lines) == 5 and all(lines)
    for line, tree in zip(lines, trees):
        assert tuple(parse_tree(line).words) == tuple(tree.words)
        assert None in parse_tree(line).tags()          # words beside words under a phrase: no preterminals
    refused = _ranker("evalb", here / "gold.mrg", tmp_path / "best.mrg")   # as before: no Penn tool reads them
    _one_error(refused, "where EVALB reads a bracket")


def test_a_store_holding_the_text_tagged_otherwise_is_refused_and_nothing_is_written(texts, tmp_path):
    model, here, _ = texts
    doc = json.loads(model.read_text())
    del doc["tagger"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc, indent=1) + "\n")
    store = tmp_path / "s.sqlite"
    _ok(_ranker("apply", "--model", old, "--text", here / "tokens.txt", "--store", store, "--out",
                tmp_path / "a.mrg", *PARSE))
    before = {p: _sha(p) for p in (store, model, here / "tokens.txt")}
    got = _ranker("apply", "--model", model, "--text", here / "tokens.txt", "--store", store, "--out",
                  tmp_path / "b.mrg", *PARSE)
    _one_error(got, str(store), "tagged otherwise than the store holds it", "use a new store")
    assert not (tmp_path / "b.mrg").exists()
    assert {p: _sha(p) for p in before} == before


def test_ranker_parse_tags_text_with_a_models_tagger(texts, tmp_path):
    model, here, trees = texts
    tagger = load_model(model).tagger
    store = tmp_path / "p.sqlite"
    got = _ok(_ranker("parse", "--store", store, "--path", here / "tokens.txt", "--tagger", model, *PARSE))
    assert "note" not in got.stderr
    with Store.open(store, readonly=True) as st:
        stored = st.sentences("text")
        assert [s.tags for s in stored] == [tagger.tag(t.words) for t in trees]
        first = st.candidate_texts(stored[0].id, "link-grammar")[0]
    assert _tags(first) == tagger.tag(trees[0].words)
    # without --tagger: trees as before, and a note saying how to tag
    got = _ok(_ranker("parse", "--store", tmp_path / "q.sqlite", "--path", here / "tokens.txt", *PARSE))
    assert got.stderr.count(NOTE_NONE) == 1 and "give --tagger MODEL" in got.stderr
    # tagged text keeps its tags: said once
    got = _ok(_ranker("parse", "--store", tmp_path / "r.sqlite", "--path", here / "tagged.txt", "--text-format",
                      "tagged", "--tagger", model, *PARSE))
    assert "--tagger" in got.stderr and "is not used" in got.stderr


@pytest.mark.parametrize("case", ["model-without-tagger", "not-a-model", "penn-corpus"])
def test_ranker_parse_refuses_a_tagger_it_cannot_use_in_one_line_writing_nothing(texts, tmp_path, case):
    model, here, _ = texts
    tagger, path, message = {
        "model-without-tagger": (tmp_path / "old.json", here / "tokens.txt", "the model carries no tagger"),
        "not-a-model": (here / "tokens.txt", here / "tokens.txt", "not a model file"),
        "penn-corpus": (model, here / "gold.mrg", "tags plain text"),
    }[case]
    doc = json.loads(model.read_text())
    del doc["tagger"]
    (tmp_path / "old.json").write_text(json.dumps(doc))
    if case == "penn-corpus":
        shutil.copy(here / "gold.mrg", tmp_path / "gold.mrg")
        path = tmp_path / "gold.mrg"
    before = {p: _sha(p) for p in (tagger, path)}
    got = _ranker("parse", "--store", tmp_path / "s.sqlite", "--path", path, "--tagger", tagger, *PARSE)
    _one_error(got, message)
    assert not (tmp_path / "s.sqlite").exists()
    assert {p: _sha(p) for p in before} == before


def test_a_model_whose_tagger_was_edited_is_refused_in_one_line_before_any_work(texts, tmp_path):
    model, here, _ = texts
    doc = json.loads(model.read_text())
    doc["tagger"]["tagdict"]["the"] = "VB"       # its digest no longer matches
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc, indent=1) + "\n")
    before = _sha(edited)
    got = _ranker("apply", "--model", edited, "--text", here / "tokens.txt", "--out", tmp_path / "best.mrg", *PARSE)
    _one_error(got, str(edited), "its tagger does not match its digest")
    assert not (tmp_path / "best.mrg").exists() and _sha(edited) == before
