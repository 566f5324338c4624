"""The real BLLIP 50-best lists of the WSJ sample (``../shared/nbest``): a slice imported and checked.

Counts come from the file's own headers, tokens and roots from the gold trees read through NLTK:
nothing here is a number copied from a run.
"""
import gzip
from pathlib import Path

import pytest

from ranker.errors import RankerError
from ranker.evaluation.evalb import score_evalb
from ranker.evaluation.evalb_params import load_params
from ranker.sources.nbest import import_file, read_blocks
from ranker.sources.treebank import store_nltk_files
from ranker.store import Sentence, Store
from ranker.trees.penn import parse_tree
from ranker.trees.transforms import PSEUDO_ROOTS, normalize_root

DOCS = ("wsj_0170", "wsj_0171", "wsj_0172", "wsj_0173")


def _slice(lists: Path, tmp_path) -> tuple[Path, list[tuple[str, int, list[str]]]]:
    """The blocks of DOCS from the test list, written to a gzip file of their own."""
    blocks, cur = [], []
    with gzip.open(lists / "nbest-test.txt.gz", "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                cur.append(line.rstrip("\n"))
            elif cur:
                blocks.append(cur)
                cur = []
    if cur:
        blocks.append(cur)
    kept = [b for b in blocks if b[0].split()[1].split(".")[0] in DOCS]
    out = tmp_path / "slice.txt.gz"
    with gzip.open(out, "wt", encoding="utf-8") as f:
        f.write("".join("\n".join(b) + "\n\n" for b in kept))
    return out, [(b[0].split()[1], int(b[0].split()[0]), b[1:]) for b in kept]


@pytest.fixture(scope="module")
def imported(tmp_path_factory, bllip_lists):
    tmp = tmp_path_factory.mktemp("bllip")
    path, blocks = _slice(bllip_lists, tmp)
    with Store.open(tmp / "s.sqlite") as st:
        store_nltk_files(st, "treebank", [f"{d}.mrg" for d in DOCS])
        summary = import_file(st, path, "bllip")
        forests = {s.id: st.forest(s.id) for s in st.sentences("treebank")}
        gold = {sid: st.gold(sid) for sid in forests}
    return summary, blocks, forests, gold


@pytest.mark.slow
def test_every_sentence_of_the_slice_is_imported_with_its_header_count(imported):
    summary, blocks, forests, _ = imported
    assert summary.errors == ()
    assert len(blocks) == len(forests) > 20      # every sentence of the four documents has a list
    assert summary.forests == len(blocks)
    assert summary.candidates == sum(count for _, count, _ in blocks)
    for key, count, lines in blocks:
        stem, index = key.split(".")
        forest = forests[f"treebank/{stem}.mrg/{index}"]     # matched by the parser's id
        assert 1 <= len(forest.candidates) == count <= 50
        assert [c.scores["logprob"] for c in forest.candidates] == [float(x) for x in lines[0::2]]


@pytest.mark.slow
def test_roots_are_stored_as_gold_roots_are(imported):
    _, blocks, forests, gold = imported
    raw = [parse_tree(t) for _, _, lines in blocks for t in lines[1::2]]
    assert {t.root.label for t in raw} == {"S1"}              # the file's convention ...
    for sid, forest in forests.items():
        for c in forest.candidates:                           # ... is gone from the store
            assert c.tree.root.label not in PSEUDO_ROOTS - {""}
            assert c.tree.root.label != "" or len(c.tree.root.children) > 1
        assert gold[sid].root.label not in PSEUDO_ROOTS - {""}
    # the stored tree is the file's tree under its S1 root
    key, _, lines = blocks[0]
    stem, index = key.split(".")
    first = forests[f"treebank/{stem}.mrg/{index}"].candidates[0].tree
    assert first.root == parse_tree(lines[1]).root.children[0] and first.to_penn() in lines[1]


@pytest.mark.slow
def test_tokens_are_the_gold_tokens_and_evalb_agrees_with_renaming_s1_to_top(imported):
    _, _, forests, gold = imported
    prm = load_params("COLLINS")
    for sid, forest in forests.items():
        g = gold[sid]
        for c in forest.candidates:
            assert c.tree.words == g.words
        # what evalb users do by hand (S1 -> TOP on the parse, TOP over the gold; COLLINS.prm
        # deletes TOP) scores the same as the stored trees against the stored gold
        top = parse_tree(f"(TOP {g.to_penn()})")
        by_hand = parse_tree("(TOP " + forest.candidates[0].tree.to_penn() + ")")
        assert score_evalb(top, by_hand, prm)[:8] == score_evalb(g, forest.candidates[0].tree, prm)[:8]


@pytest.mark.parametrize("text, expected", [
    ("(S1 (S (NN a) (NN b)))", "(S (NN a) (NN b))"),
    ("(TOP (S1 (S (NN a) (NN b))))", "(S (NN a) (NN b))"),
    ("(ROOT (NP (NN a)) (VP (VB b)))", "( (NP (NN a)) (VP (VB b)))"),
    ("( (S (NN a) (NN b)))", "(S (NN a) (NN b))"),
    ("(S (NN a) (NN b))", "(S (NN a) (NN b))"),
    ("(S1 (NN a))", "(NN a)"),
])
def test_normalize_root(text, expected):
    assert normalize_root(parse_tree(text)).to_penn() == expected


def test_parser_ids_name_the_stored_sentence_even_when_tokens_repeat(tmp_path):
    toks = ("Yes", ".")
    with Store.open(tmp_path / "s.sqlite") as st:
        st.add_sentences([Sentence(f"treebank/wsj_0009.mrg/{i}", "treebank", "wsj_0009.mrg", i, toks,
                                   ("UH", ".")) for i in range(3)])
        p = tmp_path / "x.nbest"
        p.write_text("1\twsj_0009.2\n-3.5\n(S1 (FRAG (UH Yes) (. .)))\n\n")
        assert import_file(st, p, "bllip").errors == ()
        assert st.forest("treebank/wsj_0009.mrg/2").candidates[0].tree.to_penn() == "(FRAG (UH Yes) (. .))"
        assert st.forest("treebank/wsj_0009.mrg/0").candidates == ()


def test_a_broken_gzip_file_is_one_error_naming_it(tmp_path):
    p = tmp_path / "cut.txt.gz"
    p.write_bytes(gzip.compress(b"1\twsj_0001.0\n-1\n(S1 (S (NN a)))\n")[:20])
    with pytest.raises(RankerError) as e:
        list(read_blocks(p, "bllip"))
    assert str(p) in str(e.value) and "gzip" in str(e.value)
