"""The compiled counting of ``ranker evaluate`` (``schemes_kernel.c``) equals the reference scorers, every scheme.

The reference (:mod:`ranker.evaluation.schemes`, over Python trees) is the truth; the kernel must
give the same figures, number for number, on real parser output (every candidate of the BLLIP
n-best lists against the treebank's gold trees, which hold traces, function tags and the empty
root) and on generated lines with what parsers print when they fail. A Link Grammar run's
selections are compared in tests/pipeline/test_experiment.py (they need the parser).
"""
from __future__ import annotations

import argparse
import gzip
import random

import pytest

from ranker.cli.evaluate import _pairs
from ranker.cli.main import main
from ranker.evaluation import schemes_native
from ranker.registries import SCHEMES
from ranker.trees.penn import format_tree, iter_trees
from ranker.trees.transforms import remove_empty_elements


@pytest.fixture(autouse=True)
def compiled():
    assert schemes_native.kernel() is not None, "the C kernel could not be built"


def _args(gold, test, scheme, **opts):
    base = dict(param=None, head_rules=None, relation_labels=None, flatten_rules=None,
                keys_as_given=False, omit_root=False, notation="penn")
    return argparse.Namespace(gold=str(gold), test=str(test), scheme=scheme, **{**base, **opts})


def native_and_reference(gold, test, scheme, pairs=None, **opts) -> tuple[dict | None, dict]:
    """The kernel's figures of the files and the reference's (of ``pairs``, the files' as read, when given)."""
    args = _args(gold, test, scheme, **opts)
    reference = SCHEMES.get(scheme).score(args, _pairs(args) if pairs is None else pairs)
    return schemes_native.evaluate_native(args), reference


def _treebank_gold() -> dict[str, list[str]]:
    """The test split's gold trees (wsj_0170-0199), one line each, by document."""
    from nltk.corpus import treebank

    return {f[:8]: [format_tree(t) for t in iter_trees(treebank.raw(f), f)]
            for f in treebank.fileids() if "wsj_0170" <= f[:8] <= "wsj_0199"}


def _bllip_pairs(lists_dir, per_sentence: int, traces: bool = True) -> tuple[list[str], list[str]]:
    """Gold line and candidate line of the first ``per_sentence`` candidates of every test list
    whose words are the gold's (empty elements aside). ``traces=False``: gold lines without their
    empty elements (PARSEVAL compares the words as they stand, so a candidate never has the
    gold's traces)."""
    gold = [g for _, trees in sorted(_treebank_gold().items()) for g in trees]
    if not traces:
        gold = [format_tree(remove_empty_elements(next(iter_trees(g)))) for g in gold]
    with gzip.open(lists_dir / "nbest-test.txt.gz", "rt") as f:
        blocks = [b.split("\n") for b in f.read().split("\n\n") if b.strip()]
    assert len(blocks) == len(gold) == 413
    g_out, t_out = [], []
    for g, block in zip(gold, blocks):
        words = remove_empty_elements(next(iter_trees(g))).words
        for cand in block[2:2 + 2 * per_sentence:2]:
            if next(iter_trees(cand)).words == words:
                g_out.append(g)
                t_out.append(cand)
    return g_out, t_out


def _write(tmp_path, gold: list[str], test: list[str]):
    g, t = tmp_path / "gold.txt", tmp_path / "test.txt"
    g.write_text("\n".join(gold) + "\n")
    t.write_text("\n".join(test) + "\n")
    return g, t


def _scorable(tmp_path, gold: list[str], test: list[str], scheme: str):
    """The files of the pairs the reference scores under ``scheme`` (it refuses, for instance,
    the parser's ``''`` for a gold ``POS '`` under EVALB: a length mismatch), and those pairs as
    read (``_pairs``): the reference scores them without reading the files again.

    A pair is kept when the reference scores it alone; it scores each pair on its own and adds the
    figures, so the pairs are tried all together, then (when refused) in runs of 50 (a list's
    candidates) and one by one only in a run it refuses (a call a pair cost as much as reading it,
    for 20,000 pairs: issue 47, item 5)."""
    g, t = _write(tmp_path, gold, test)
    args = _args(g, t, scheme)
    pairs = _pairs(args)
    score = SCHEMES.get(scheme).score

    def scored(run) -> bool:
        try:
            score(args, run)
            return True
        except ValueError:
            return False

    if scored(pairs):       # the usual case: one call, and no pair to try alone
        return g, t, pairs
    keep = []
    for start in range(0, len(pairs), 50):
        run = range(start, min(start + 50, len(pairs)))
        keep.extend(run if scored([pairs[k] for k in run]) else [k for k in run if scored([pairs[k]])])
    return (*_write(tmp_path, [gold[k] for k in keep], [test[k] for k in keep]), [pairs[k] for k in keep])


@pytest.mark.slow   # quick tier under a minute (issue 35, item 8): seconds of real work, CI runs it
@pytest.mark.parametrize("opts", [{"omit_root": True}, {"keys_as_given": True},
                                  {"keys_as_given": True, "omit_root": True}])
def test_flat_options_score_as_the_reference_scores_them(bllip_lists, tmp_path, opts):
    gold, test = _bllip_pairs(bllip_lists, per_sentence=2)
    g, t, _ = _scorable(tmp_path, gold, test, "flat")
    native, reference = native_and_reference(g, t, "flat", **opts)
    assert native == reference and native["matched"] > 0


def _generated(rng: random.Random, n: int) -> tuple[list[str], list[str]]:
    """Gold and test lines over the same words: traces, punctuation, function tags, unary chains,
    words straight under phrases, failure lines, empty lines (no parse)."""
    labels = ["S", "NP", "VP", "PP", "NP-SBJ", "ADVP", "PRT", "S-TPC=2", "SBAR", "QP", "NP-PRD", "CC"]
    tags = ["DT", "NN", "VB", "IN", ",", ".", "``", "''", "PRP", "NNS", "MD", "CC", "TO", "POS"]

    def tree(words, tagged, depth=0) -> str:
        if len(words) == 1 and (tagged or rng.random() < 0.7):
            return f"({rng.choice(tags)} {words[0]})" if tagged else words[0]
        if len(words) == 1:
            return f"({rng.choice(labels)} {tree(words, True, depth + 1)})"
        cuts = sorted(rng.sample(range(1, len(words)), min(len(words) - 1, rng.randint(1, 3))))
        parts = [words[a:b] for a, b in zip([0] + cuts, cuts + [len(words)])]
        kids = " ".join(tree(p, rng.random() < 0.95, depth + 1) for p in parts)
        if rng.random() < 0.1:
            kids = f"({rng.choice(labels)} {kids})"             # a unary chain
        if rng.random() < 0.15:
            kids += " (-NONE- *T*-1)"                          # an empty element
        return f"({rng.choice(labels)} {kids})"

    gold, test = [], []
    for _ in range(n):
        words = [rng.choice(["the", "cat", "sat", ",", "on", "mat", "'", "to", "and"]) for _ in range(rng.randint(1, 12))]
        gold.append(("( " + tree(words, True) + ")") if rng.random() < 0.5 else tree(words, True))
        r = rng.random()
        test.append("" if r < 0.05 else "(TOP)" if r < 0.08 else tree(words, True))
    return gold, test


@pytest.mark.parametrize("scheme", schemes_native.NATIVE_SCHEMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_lines_score_as_the_reference_scores_them(tmp_path, scheme, seed):
    gold, test = _generated(random.Random(seed), 400)
    g, t = _write(tmp_path, gold, test)
    try:
        reference = SCHEMES.get(scheme).score(_args(g, t, scheme), _pairs(_args(g, t, scheme)))
    except ValueError:
        reference = None                # a pair the reference refuses: so must the fast path
    assert schemes_native.evaluate_native(_args(g, t, scheme)) == reference


@pytest.mark.parametrize("scheme", schemes_native.NATIVE_SCHEMES)
def test_a_file_with_an_error_reports_the_references_error(tmp_path, scheme, capsys, monkeypatch):
    # line 3's words differ (a deferred pair that is an error), line 5 is malformed: the first
    # error in file order is reported, word for word as without the kernel
    gold = ["(S (NP (DT the) (NN cat)) (VP (VB sat)))"] * 6
    test = list(gold)
    test[2] = "(S (NP (DT the) (NN dog)) (VP (VB sat)))"
    test[4] = "(S (NP (DT the) (NN cat)) (VP (VB sat))"
    g, t = _write(tmp_path, gold, test)
    assert main(["evaluate", str(g), str(t), "--scheme", scheme]) == 2
    err = capsys.readouterr().err
    monkeypatch.setenv("RANKER_EVALB_KERNEL", "numpy")
    monkeypatch.setattr(schemes_native, "_lib", False)
    assert main(["evaluate", str(g), str(t), "--scheme", scheme]) == 2
    assert capsys.readouterr().err == err and err.startswith("ranker: error: ")


def test_rule_labels_with_function_tags_are_read_as_the_reference_reads_them(tmp_path):
    # a label the rule file names is met in a tree too: its base label must still be its own
    # (the reference strips the tree's function tags, so this rule never applies)
    rules = tmp_path / "rules.txt"
    rules.write_text("(NP-SBJ * PP^ *)\n")
    line = "(S (NP-SBJ (DT the) (NN cat) (PP (IN on) (NNS mats))) (VP (VBD sat) (ADVP (RB down))))"
    g, t = _write(tmp_path, [line] * 3, [line] * 3)
    native, reference = native_and_reference(g, t, "flat", flatten_rules=str(rules))
    assert native == reference and native["gold_brackets"] == 3 * 4


@pytest.mark.parametrize("scheme", ["deps", "parseval"])
def test_chunks_slices_and_two_threads_give_the_same_figures(bllip_lists, tmp_path, monkeypatch, scheme):
    """Small kernel calls, small scan slices (a thread's first line found in the middle of one)
    and two threads on a small file: the figures of one call over the whole file, and the
    reference's."""
    gold, test = _bllip_pairs(bllip_lists, per_sentence=1)
    g, t, _ = _scorable(tmp_path, gold[:121], test[:121], scheme)
    monkeypatch.setattr(schemes_native, "TWO_THREADS_BYTES", 1 << 40)
    whole = schemes_native.evaluate_native(_args(g, t, scheme))
    assert whole == SCHEMES.get(scheme).score(_args(g, t, scheme), _pairs(_args(g, t, scheme)))
    monkeypatch.setattr(schemes_native, "CHUNK_LINES", 7)
    monkeypatch.setattr(schemes_native, "SCAN_BYTES", 1000)
    monkeypatch.setattr(schemes_native, "TWO_THREADS_BYTES", 0)
    assert schemes_native.evaluate_native(_args(g, t, scheme)) == whole


def test_line_counts_and_offsets_are_exact_on_any_bytes(tmp_path):
    """The kernel's word-at-a-time newline count against Python's, on lines holding the bytes
    around a newline that a loose zero-byte test miscounts (0x0B, 0x0A0B, 0x01), non-ASCII text,
    and a last line with and without its newline; each line's offset against Python's."""
    lib = schemes_native.kernel()
    rng = random.Random(27)
    alphabet = [b"\x0b", b"\x0a\x0b", b"\x01", b"\x09", b"a", b"(", b")", b" ", "\u00e9".encode(), b"\x7f"]
    for trial in range(40):
        lines = [b"".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30))).replace(b"\n", b"")
                 for _ in range(rng.randrange(1, 60))]
        data = b"\n".join(lines) + (b"\n" if trial % 2 else b"")
        if not data:
            continue
        path = tmp_path / f"f{trial}.txt"
        path.write_bytes(data)
        m = schemes_native._Mapped(path)
        try:
            old = schemes_native.SCAN_BYTES
            schemes_native.SCAN_BYTES = 64
            try:
                got = schemes_native._lines(lib, m)
                assert got == data.count(b"\n") + (not data.endswith(b"\n"))
                starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]
                for k in range(data.count(b"\n") + 1):
                    assert schemes_native._line_offset(lib, m, k) == starts[k]
            finally:
                schemes_native.SCAN_BYTES = old
        finally:
            m.close()


def test_a_file_that_is_not_utf8_or_has_fewer_lines_goes_to_the_reference(tmp_path):
    g, t = _write(tmp_path, ["(S (NN a))", "(S (NN b))"], ["(S (NN a))", "(S (NN b))"])
    assert schemes_native.evaluate_native(_args(g, t, "evalb"))["sentences"] == 2
    t.write_bytes(b"(S (NN a))\n(S (NN \xff))\n")
    assert schemes_native.evaluate_native(_args(g, t, "evalb")) is None
    t.write_bytes(b"(S (NN a))\n")
    assert schemes_native.evaluate_native(_args(g, t, "evalb")) is None
    t.write_bytes(b"")
    assert schemes_native.evaluate_native(_args(g, t, "evalb")) is None
